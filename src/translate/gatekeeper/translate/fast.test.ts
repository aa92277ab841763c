/**
 * The fast path of a group (`fast.ts`) against Gatekeeper's reference semantics, on the shape it
 * is for: many mutators on one Pod's containers — by name and by glob, several writers of one
 * image or one argument list, pathTests, match criteria — and Pods on which the shared nodes
 * exist (the fast policy runs) or do not (the group's own policy runs).
 *
 *   GK_FAST_RUNS=<sets> (default 150)  GK_PROP_SEED=<seed>
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileMutator, jsonEqual, mutate, type Mutator } from "../../../gatekeeper/index.js";
import { propertySeed } from "../../../../test/support/gatekeeper-differential.js";
import { normalizeResult } from "./cases.js";
import { fastPath } from "./fast.js";
import { translate } from "./index.js";
import { fastPathRan, runTranslated } from "./run.js";

const RUNS = Number(process.env.GK_FAST_RUNS ?? 150);
const SEED = propertySeed();

type Obj = Record<string, unknown>;
const POD = [{ groups: [""], kinds: ["Pod"], versions: ["v1"] }];
const NAMES = ["app", "sidecar", "*"] as const;

const match = fc.constantFrom<Obj>(
  {},
  { namespaces: ["shop", "team-*"] },
  { excludedNamespaces: ["kube-*"] },
  { labelSelector: { matchLabels: { tier: "web" } } },
  { name: "web-*" },
);

function pathTests(c: string, location: string) {
  return fc.constantFrom<Obj[]>(
    [],
    [],
    [{ subPath: `spec.containers[name:${c}]`, condition: "MustExist" }],
    [{ subPath: location, condition: "MustNotExist" }],
    [{ subPath: location, condition: "MustExist" }],
  );
}

const mutatorDoc: fc.Arbitrary<Obj> = fc.oneof(
  fc.record({ c: fc.constantFrom(...NAMES), field: fc.constantFrom("imagePullPolicy", "workingDir"), v: fc.constantFrom("Always", "IfNotPresent", "/w"), m: match }).chain(({ c, field, v, m }) => {
    const location = `spec.containers[name:${c}].${field}`;
    return pathTests(c, location).map((t) => ({ kind: "Assign", apiVersion: "mutations.gatekeeper.sh/v1", spec: { applyTo: POD, match: m, location, parameters: { assign: { value: v }, ...(t.length > 0 ? { pathTests: t } : {}) } } }));
  }),
  fc.record({ c: fc.constantFrom(...NAMES), m: match, v: fc.constantFrom("a", "b") }).map(({ c, m, v }) => ({
    kind: "Assign",
    apiVersion: "mutations.gatekeeper.sh/v1",
    spec: { applyTo: POD, match: m, location: `spec.containers[name:${c}].env[name:V].value`, parameters: { assign: { value: v } } },
  })),
  fc.record({ c: fc.constantFrom(...NAMES), m: match }).map(({ c, m }) => ({
    kind: "Assign",
    apiVersion: "mutations.gatekeeper.sh/v1",
    spec: { applyTo: POD, match: m, location: `spec.containers[name:${c}].securityContext.runAsNonRoot`, parameters: { assign: { value: true } } },
  })),
  fc.record({
    c: fc.constantFrom(...NAMES),
    m: match,
    field: fc.constantFrom("args", "command"),
    op: fc.constantFrom("merge", "prune"),
    vals: fc.subarray(["--a", "--b", "--c"], { minLength: 1 }),
  }).map(({ c, m, field, op, vals }) => ({
    kind: "ModifySet",
    apiVersion: "mutations.gatekeeper.sh/v1",
    spec: { applyTo: POD, match: m, location: `spec.containers[name:${c}].${field}`, parameters: { operation: op, values: { fromList: vals } } },
  })),
  fc.record({
    c: fc.constantFrom(...NAMES),
    m: match,
    p: fc.constantFrom<Obj>({ assignDomain: "r.example.com" }, { assignTag: ":v2" }, { assignPath: "mirror/x", assignTag: "@sha256:" + "b".repeat(64) }, { assignDomain: "q.io", assignPath: "p" }),
  }).map(({ c, m, p }) => ({
    kind: "AssignImage",
    apiVersion: "mutations.gatekeeper.sh/v1alpha1",
    spec: { applyTo: POD, match: m, location: `spec.containers[name:${c}].image`, parameters: p },
  })),
);

const container = fc.record(
  {
    image: fc.constantFrom("nginx:1.25", "registry.example.com/team/svc@sha256:" + "a".repeat(64), "busybox", "a/b:c/d", "localhost/x:1"),
    args: fc.subarray(["--a", "--b", "--x"]),
    imagePullPolicy: fc.constantFrom("Always", "IfNotPresent"),
    env: fc.constantFrom([{ name: "V", value: "z" }], [{ name: "W", value: "y" }]),
    securityContext: fc.constantFrom({}, { runAsNonRoot: false }),
  },
  { requiredKeys: [] },
);

const pod: fc.Arbitrary<Obj> = fc
  .record({
    // null: an element that is not a map (the apiserver never shows one in a typed list; the
    // translation must still do what Gatekeeper does with it).
    names: fc.constantFrom<(string | null)[]>(["app", "sidecar"], ["sidecar", "app", "extra"], ["app"], ["extra"], ["app", "sidecar", "app"], ["app", null, "sidecar"]),
    containers: fc.array(container, { minLength: 3, maxLength: 3 }),
    name: fc.constantFrom("web-1", "api-2"),
    namespace: fc.constantFrom("shop", "kube-system", "default"),
    tier: fc.constantFrom("web", "db"),
  })
  .map(({ names, containers, name, namespace, tier }) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels: { tier } },
    spec: { containers: names.map((n, i) => (n === null ? null : { name: n, ...containers[i % containers.length] })) },
  }));

describe("a group's fast path (fast.ts) gives Gatekeeper's result", () => {
  it(`${RUNS} sets of 2–10 container mutators × 12 Pods`, () => {
    let fast = 0;
    let compared = 0;
    fc.assert(
      fc.property(fc.array(mutatorDoc, { minLength: 2, maxLength: 10 }), fc.array(pod, { minLength: 12, maxLength: 12 }), (docs0, pods) => {
        const docs = docs0.map((d, i) => ({ ...d, metadata: { name: `m${i}` } }));
        const mutators: Mutator[] = [];
        for (const d of docs) {
          const r = compileMutator(d);
          if (!r.ok) return true;
          mutators.push(r.mutator);
        }
        const t = translate(docs);
        if (t.issues.length > 0 || t.verdicts.some((v) => v.verdict !== "exact")) return true;
        for (const p of pods) {
          const md = p.metadata as Obj;
          const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: md.namespace, labels: {} } };
          const ref = mutate(p, mutators, { operation: "CREATE", namespace: ns });
          const got = runTranslated(t, p, { namespace: ns, reinvocation: false });
          compared++;
          if (fastPathRan(got)) fast++;
          if (ref.error !== undefined) {
            expect(got.allowed, `Gatekeeper fails (${ref.error}); MAP admitted\n${JSON.stringify(docs)}\n${JSON.stringify(p)}`).toBe(false);
            continue;
          }
          expect(got.allowed, `MAP denied: ${got.message}\n${JSON.stringify(docs)}\n${JSON.stringify(p)}`).toBe(true);
          const a = normalizeResult(ref.object, p);
          const b = normalizeResult(got.object, p);
          if (!jsonEqual(a, b)) throw new Error(`mutators: ${JSON.stringify(docs)}\npod: ${JSON.stringify(p)}\nGatekeeper: ${JSON.stringify(a)}\nMAP: ${JSON.stringify(b)}`);
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.log(`gatekeeper fast path: seed ${SEED}; ${compared} Pods compared, the fast policy ran on ${fast}`);
    // The property is about the fast path: it must have run on a good share of them.
    expect(fast).toBeGreaterThan(compared / 10);
  }, 300_000);

  it("is left out where its argument does not hold", () => {
    let n = 0;
    const m = (d: Obj) => {
      const apiVersion = `mutations.gatekeeper.sh/${d.kind === "AssignImage" ? "v1alpha1" : "v1"}`;
      const r = compileMutator({ apiVersion, metadata: { name: `x${n++}` }, ...d });
      if (!r.ok) throw new Error(`invalid: ${r.issues.map((i) => i.message).join("; ")}`);
      return r.mutator;
    };
    const a = m({ kind: "Assign", spec: { applyTo: POD, location: "spec.containers[name:app].image", parameters: { assign: { value: "x" } } } });
    const glob = m({ kind: "AssignImage", spec: { applyTo: POD, location: "spec.containers[name:*].image", parameters: { assignTag: ":v1" } } });
    // A keyed terminal, a custom resource, a MustNotExist on a shared node: no fast path.
    expect(fastPath([a, glob], [undefined, undefined], 3)).toBeDefined();
    const keyed = m({ kind: "Assign", spec: { applyTo: POD, location: "spec.containers[name:app].env[name:A]", parameters: { assign: { value: { name: "A", value: "1" } } } } });
    expect(fastPath([a, keyed, glob], [undefined, undefined, undefined], 2)).toBeUndefined();
    const crd = m({ kind: "Assign", spec: { applyTo: [{ groups: ["example.com"], kinds: ["Widget"], versions: ["v1"] }], location: "spec.containers[name:app].image", parameters: { assign: { value: "x" } } } });
    expect(fastPath([crd, crd], [undefined, undefined], 2)).toBeUndefined();
    const mustNot = m({
      kind: "Assign",
      spec: { applyTo: POD, location: "spec.containers[name:app].image", parameters: { assign: { value: "y" }, pathTests: [{ subPath: "spec.containers[name:app]", condition: "MustNotExist" }] } },
    });
    expect(fastPath([a, mustNot], [undefined, undefined], 2)).toBeUndefined();
    // A cell that is also a node another member walks through.
    const sc = m({ kind: "Assign", spec: { applyTo: POD, location: "spec.containers[name:app].securityContext", parameters: { assign: { value: { runAsUser: 1 } } } } });
    const sc2 = m({ kind: "Assign", spec: { applyTo: POD, location: "spec.containers[name:app].securityContext.runAsNonRoot", parameters: { assign: { value: true } } } });
    expect(fastPath([sc, sc2, glob], [undefined, undefined, undefined], 2)).toBeUndefined();
  });
});
