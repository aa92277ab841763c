import { describe, expect, it } from "vitest";
import { generateMutators } from "../../../../bench/translate-gen.js";
import { compileMutator, type Mutator } from "../../../gatekeeper/index.js";
import { byteCompare } from "../../../gatekeeper/index.js";
import { mutate } from "../../../gatekeeper/index.js";
import { translate } from "./index.js";
import { runTranslated } from "./run.js";
import { schedule } from "./passes.js";

type Obj = Record<string, unknown>;
const applyTo = [{ groups: [""], versions: ["v1"], kinds: ["Pod"] }];

function compile(docs: Obj[]): Mutator[] {
  return docs
    .map((d) => {
      const r = compileMutator(d);
      if (!r.ok) throw new Error(r.issues.map((i) => i.message).join("; "));
      return r.mutator;
    })
    .sort((a, b) => byteCompare(a.kind, b.kind) || byteCompare(a.id.name, b.id.name));
}
const assign = (name: string, location: string, value: unknown, extra: Obj = {}, match?: Obj): Obj => ({
  apiVersion: "mutations.gatekeeper.sh/v1",
  kind: "Assign",
  metadata: { name },
  spec: { applyTo, location, ...(match !== undefined ? { match } : {}), parameters: { assign: { value }, ...extra } },
});
const modifySet = (name: string, location: string, operation: string, values: unknown[]): Obj => ({
  apiVersion: "mutations.gatekeeper.sh/v1",
  kind: "ModifySet",
  metadata: { name },
  spec: { applyTo, location, parameters: { operation, values: { fromList: values } } },
});
const label = (name: string, key: string, value: string): Obj => ({
  apiVersion: "mutations.gatekeeper.sh/v1",
  kind: "AssignMetadata",
  metadata: { name },
  spec: { location: `metadata.labels.${key}`, parameters: { assign: { value } } },
});

describe("passes a group needs", () => {
  it("blind writers of one field: one pass, last writer wins", () => {
    expect(schedule(compile([assign("a", "spec.dnsPolicy", "None"), assign("b", "spec.dnsPolicy", "Default")]))).toEqual({ passes: 1, lastPass: [1, 1] });
  });
  it("an element created after a glob reads the list: the glob runs again in pass 2", () => {
    const s = schedule(compile([assign("a-pull", "spec.containers[name: *].imagePullPolicy", "Always"), assign("b-sidecar", "spec.containers[name: net]", { name: "net", image: "n" })]));
    expect(s).toEqual({ passes: 2, lastPass: [2, 2] });
  });
  it("the glob after the creator needs no second pass", () => {
    const s = schedule(compile([assign("a-sidecar", "spec.containers[name: net].image", "n"), assign("b-pull", "spec.containers[name: *].imagePullPolicy", "Always")]));
    expect(s?.passes).toBe(1);
  });
  it("a label written after the mutator selecting on it: two passes; a label it does not read: none", () => {
    const sel = { labelSelector: { matchLabels: { tier: "gold" } } };
    expect(schedule(compile([assign("pull", "spec.dnsPolicy", "None", {}, sel), label("tier", "tier", "gold")]))?.passes).toBe(2);
    expect(schedule(compile([assign("pull", "spec.dnsPolicy", "None", {}, sel), label("other", "other", "x")]))?.passes).toBe(1);
  });
  it("merges and prunes of one list settle one pass after their operation set (prune-then-merge reorders once)", () => {
    const s = schedule(compile([modifySet("a", "spec.containers[name: *].args", "prune", ["--y"]), modifySet("b", "spec.containers[name: *].args", "merge", ["--y", "--x"])]));
    expect(s?.passes).toBe(2);
  });
  it("mutual creation and globbing it cannot bound: undefined (the translator then uses N passes)", () => {
    const loc1 = "spec.a[name: *].b[name: x].v";
    const loc2 = "spec.a[name: y].b[name: *].w";
    const docs = [
      { ...assign("i", loc1, 1), spec: { applyTo: [{ groups: ["example.com"], versions: ["v1"], kinds: ["Widget"] }], location: loc1, parameters: { assign: { value: 1 } } } },
      { ...assign("j", loc2, 2), spec: { applyTo: [{ groups: ["example.com"], versions: ["v1"], kinds: ["Widget"] }], location: loc2, parameters: { assign: { value: 2 } } } },
    ];
    expect(schedule(compile(docs))).toBeUndefined();
    const t = translate(docs, { merge: false });
    expect((t.policies[0]!.spec as { mutations: unknown[] }).mutations).toHaveLength(4);
    // j (pass 1) creates nothing i walks (a glob below its element) and writes w, not i's key
    // field: j and i of pass 2 merge into one mutation.
    expect((translate(docs).policies[0]!.spec as { mutations: unknown[] }).mutations).toHaveLength(3);
  });
  it("the benchmark's 500 mutators: the largest group needs at most 3 passes, output stays linear", () => {
    const t = translate(generateMutators(500));
    expect(t.issues).toEqual([]);
    const sizes = t.policies.map((p) => (p.spec as { mutations: unknown[] }).mutations.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3 * 500);
    expect(t.verdicts.every((v) => !v.notes.some((n) => n.includes("never converges")))).toBe(true);
  });
  it("policies are reinvocationPolicy Never unless asked for IfNeeded", () => {
    const docs = [assign("a", "spec.dnsPolicy", "None")];
    expect((translate(docs).policies[0]!.spec as Obj).reinvocationPolicy).toBe("Never");
    expect((translate(docs, { reinvocationPolicy: "IfNeeded" }).policies[0]!.spec as Obj).reinvocationPolicy).toBe("IfNeeded");
  });
  it("AssignImage on a malformed reference (its parser settles it in two passes), alone and grouped, without reinvocation", () => {
    const image = (name: string, location: string, params: Obj): Obj => ({
      apiVersion: "mutations.gatekeeper.sh/v1alpha1",
      kind: "AssignImage",
      metadata: { name },
      spec: { applyTo, location, parameters: params },
    });
    const sets = [
      [image("a", "spec.containers[name: *].image", { assignPath: "app" })],
      [image("a", "spec.containers[name: *].image", { assignPath: "app" }), image("b", "spec.containers[name: c].image", { assignDomain: "my.reg" }), modifySet("m", "spec.containers[name: d].args", "merge", ["--x"])],
    ];
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "a/b:c/d" }] } };
    // Alone in the system, Gatekeeper gives up (its second pass still changes the image).
    const alone = mutate(pod, compile(sets[0]!));
    expect(alone.error).toContain("mutation not converging");
    expect(runTranslated(translate(sets[0]!), pod, { reinvocation: false }).allowed).toBe(false);
    const withOthers = [...sets[0]!, assign("z", "spec.dnsPolicy", "None")];
    for (const docs of [withOthers, sets[1]!]) {
      const ref = mutate(pod, compile(docs));
      expect(ref.error).toBeUndefined();
      const got = runTranslated(translate(docs), pod, { reinvocation: false });
      expect((got.object as { spec: unknown }).spec).toEqual((ref.object as { spec: unknown }).spec);
    }
  });
});
