/**
 * The keyed readable forms (keyed.ts) against Gatekeeper's semantics (`mutate`), on Pods chosen
 * for the cases the forms distinguish: duplicate keys, absent lists, pathTests on the keyed
 * element, whole elements replaced or appended, images with and without a domain, and two
 * keyed mutators on one list.
 */
import { describe, expect, it } from "vitest";
import { compileMutator, jsonEqual, mutate } from "../../../gatekeeper/index.js";
import { normalizeResult } from "./cases.js";
import { translate } from "./index.js";
import { runTranslated } from "./run.js";

type Obj = Record<string, unknown>;

const assign = (name: string, location: string, value: unknown, pathTests?: { subPath: string; condition: string }[]) => ({
  apiVersion: "mutations.gatekeeper.sh/v1",
  kind: "Assign",
  metadata: { name },
  spec: { applyTo: [{ groups: [""], kinds: ["Pod"], versions: ["v1"] }], location, parameters: { assign: { value }, ...(pathTests !== undefined ? { pathTests } : {}) } },
});
const image = (name: string, location: string, params: Obj) => ({
  apiVersion: "mutations.gatekeeper.sh/v1alpha1",
  kind: "AssignImage",
  metadata: { name },
  spec: { applyTo: [{ groups: [""], kinds: ["Pod"], versions: ["v1"] }], location, parameters: params },
});

const c = (name: string, extra: Obj = {}) => ({ name, image: "nginx:1.25", ...extra });
const pod = (containers: Obj[]): Obj => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { containers } });
const PODS: Obj[] = [
  pod([]),
  pod([c("a")]),
  pod([c("a", { env: [{ name: "X", value: "1" }, { name: "A", value: "0" }, { name: "X", value: "2" }] }), c("b", { env: [] }), c("c", { env: [{ name: "Y", value: "1" }] })]),
  pod([c("nginx", { image: "localhost:5000/api@sha256:" + "f".repeat(64) }), c("foo", { securityContext: { runAsUser: 1 } }), c("nginx", { image: "a@b/c" })]),
  pod([c("networking", { image: "old", args: ["x"] }), c("nginx"), c("foo", { securityContext: {} })]),
  pod([{ name: "nginx" }, c("web", { image: "x/y.z:1/w" }), c("networking")]),
];

function check(docs: Obj[]): void {
  const t = translate(docs);
  expect(t.issues).toEqual([]);
  expect(t.verdicts.map((v) => v.verdict)).toEqual(docs.map(() => "exact"));
  const ms = docs.map((d) => {
    const r = compileMutator(d);
    if (!r.ok) throw new Error("does not compile");
    return r.mutator;
  });
  const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } };
  for (const o of PODS) {
    const ref = mutate(o, ms, { operation: "CREATE", namespace: ns });
    const got = runTranslated(t, o, { operation: "CREATE", namespace: ns, reinvocation: false });
    if (ref.error !== undefined) {
      expect(got.allowed, JSON.stringify(o)).toBe(false);
      continue;
    }
    expect(got.message, JSON.stringify(o)).toBeUndefined();
    const a = normalizeResult(ref.object, o);
    const b = normalizeResult(got.object, o);
    expect(jsonEqual(a, b), `${JSON.stringify(o)}\n  Gatekeeper: ${JSON.stringify(a)}\n  MAP:        ${JSON.stringify(b)}`).toBe(true);
  }
}

const readable = (docs: Obj[]) => translate(docs).verdicts.map((v) => v.form?.readable);

describe("keyed readable forms give Gatekeeper's result", () => {
  it("a leaf under [k: v]: every match, or the new element; MustExist and MustNotExist on the element", () => {
    expect(readable([assign("p", "spec.containers[name: foo].securityContext.runAsUser", 7)])).toEqual([true]);
    check([assign("p", "spec.containers[name: foo].securityContext.runAsUser", 7)]);
    check([assign("p", "spec.containers[name: nginx].imagePullPolicy", "Always", [{ subPath: "spec.containers[name: nginx]", condition: "MustExist" }])]);
    check([assign("p", "spec.containers[name: nginx].imagePullPolicy", "Always", [{ subPath: "spec.containers[name: nginx]", condition: "MustNotExist" }])]);
  });

  it("a whole element: replace the first match or append; MustExist and MustNotExist", () => {
    const v = { name: "networking", image: "net:2", command: ["sleep", "1"] };
    expect(readable([assign("s", "spec.containers[name: networking]", v)])).toEqual([true]);
    check([assign("s", "spec.containers[name: networking]", v)]);
    check([assign("s", "spec.containers[name: networking]", v, [{ subPath: "spec.containers[name: networking]", condition: "MustExist" }])]);
    check([assign("s", "spec.containers[name: networking]", v, [{ subPath: "spec.containers[name: networking]", condition: "MustNotExist" }])]);
  });

  it("under a glob, then [k: v]: duplicate names all set, absent and empty lists", () => {
    expect(readable([assign("e", "spec.containers[name: *].env[name: X].value", "9")])).toEqual([true]);
    check([assign("e", "spec.containers[name: *].env[name: X].value", "9")]);
  });

  it("two keyed mutators on one list together: both new elements kept", () => {
    const docs = [assign("e1", "spec.containers[name: *].env[name: X].value", "9"), assign("e2", "spec.containers[name: *].env[name: Z].value", "8")];
    check(docs);
    check([assign("n1", "spec.containers[name: nginx].imagePullPolicy", "Never"), assign("n2", "spec.containers[name: sidecar].imagePullPolicy", "Always")]);
  });

  it("AssignImage with a tag only keeps domain and path; with all three, a constant", () => {
    expect(readable([image("d", "spec.containers[name: nginx].image", { assignTag: "@sha256:" + "a".repeat(32) })])).toEqual([true]);
    check([image("d", "spec.containers[name: nginx].image", { assignTag: "@sha256:" + "a".repeat(32) })]);
    check([image("t", "spec.containers[name: web].image", { assignTag: ":v2" })]);
    check([image("all", "spec.containers[name: nginx].image", { assignDomain: "my.io", assignPath: "repo/app", assignTag: ":1" })]);
  });
});

describe("readable ModifySet forms keep their pathTests", () => {
  // Found by the pass-count differential (seed 946358443): MustNotExist on the list itself means
  // "only where the list is absent", so a prune changes nothing; the readable glob form pruned
  // every present list. Such a ModifySet now takes the full walk.
  it("prune with MustNotExist on the leaf list changes nothing", () => {
    check([
      {
        apiVersion: "mutations.gatekeeper.sh/v1",
        kind: "ModifySet",
        metadata: { name: "m2" },
        spec: {
          applyTo: [{ groups: [""], kinds: ["Pod"], versions: ["v1"] }],
          location: "spec.containers[name: *].args",
          parameters: { operation: "prune", values: { fromList: ["--port=80", "x"] }, pathTests: [{ subPath: "spec.containers[name: *].args", condition: "MustNotExist" }] },
        },
      },
    ]);
  });
});

describe("keyed forms grouped in one policy under match criteria", () => {
  // Found by test:reference (gatekeeper-translated, seed 633168559): two mutators with match criteria
  // share a policy, each body guarded by `match ? body : []`; a keyed body is itself a conditional,
  // which CEL accepts there only in parentheses (the translation did not compile).
  it("a whole keyed element (MustExist) beside another Assign, both with a labelSelector", () => {
    const match = { kinds: [{ apiGroups: ["*"], kinds: ["Pod"] }], labelSelector: { matchLabels: { app: "x" } } };
    const whole = assign("m0", "spec.containers[name: sidecar]", { name: "sidecar", image: "envoy:1", args: ["--x"] }, [{ subPath: "spec.containers[name: sidecar]", condition: "MustExist" }]);
    const node = assign("m1", "spec.nodeSelector.disk", "ssd");
    check([
      { ...whole, spec: { ...whole.spec, match } },
      { ...node, spec: { ...node.spec, match } },
    ]);
  });
});
