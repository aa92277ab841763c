import { describe, expect, it } from "vitest";
import { compileMutator, type Mutator } from "../../../gatekeeper/index.js";
import { mayCreate, mergeable } from "./merge.js";

type Obj = Record<string, unknown>;
const POD = [{ groups: [""], versions: ["v1"], kinds: ["Pod"] }];
const WIDGET = [{ groups: ["example.com"], versions: ["v1"], kinds: ["Widget"] }];

function m(location: string, opts: { applyTo?: Obj[]; kind?: string; pathTests?: Obj[]; value?: unknown } = {}): Mutator {
  const kind = opts.kind ?? "Assign";
  const parameters: Obj =
    kind === "ModifySet" ? { operation: "merge", values: { fromList: ["x"] } } : kind === "AssignImage" ? { assignDomain: "r.example.com" } : { assign: { value: opts.value ?? "v" } };
  if (opts.pathTests !== undefined) parameters.pathTests = opts.pathTests;
  if (kind === "AssignMetadata") delete parameters.pathTests;
  const r = compileMutator({
    apiVersion: kind === "AssignImage" ? "mutations.gatekeeper.sh/v1alpha1" : "mutations.gatekeeper.sh/v1",
    kind,
    metadata: { name: "m" },
    spec: { ...(kind === "AssignMetadata" ? {} : { applyTo: opts.applyTo ?? POD }), location, parameters },
  });
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join("; "));
  return r.mutator;
}

describe("mayCreate", () => {
  it("a keyed element and the list holding it are created; a glob or MustExist creates nothing", () => {
    const keyed = m("spec.containers[name: app].image");
    expect([0, 1, 2].map((i) => mayCreate(keyed, i))).toEqual([true, true, true]);
    const glob = m("spec.containers[name: *].image");
    expect([0, 1, 2].map((i) => mayCreate(glob, i))).toEqual([false, false, false]);
    const must = m("spec.containers[name: app].image", { pathTests: [{ subPath: "spec.containers[name: app]", condition: "MustExist" }] });
    expect([0, 1, 2].map((i) => mayCreate(must, i))).toEqual([false, false, false]);
  });
});

describe("mergeable (b's patch is the same before and after a's)", () => {
  it("diverging map keys under a built-in's spec", () => {
    expect(mergeable(m("spec.dnsPolicy"), m("spec.hostname"))).toBe(true);
  });
  it("not when a may create a shared node that is not always there (a custom resource's spec)", () => {
    expect(mergeable(m("spec.a", { applyTo: WIDGET }), m("spec.b", { applyTo: WIDGET }))).toBe(false);
  });
  it("not when a creates the shared list or an element b globs over", () => {
    expect(mergeable(m("spec.containers[name: app].imagePullPolicy"), m("spec.containers[name: sidecar].image", { kind: "AssignImage" }))).toBe(false);
    expect(mergeable(m("spec.containers[name: app].imagePullPolicy"), m("spec.containers[name: *].args", { kind: "ModifySet" }))).toBe(false);
  });
  it("a glob that creates nothing, then a keyed creator at another key of the elements", () => {
    expect(mergeable(m("spec.containers[name: *].args", { kind: "ModifySet" }), m("spec.containers[name: app].imagePullPolicy"))).toBe(true);
  });
  it("not when a writes the key field b's list scan reads", () => {
    // (Gatekeeper forbids writing a location's own key field; another list key can read it.)
    expect(mergeable(m("spec.containers[name: *].image", { value: "x" }), m("spec.containers[image: nginx].imagePullPolicy"))).toBe(false);
  });
  it("not on the same cell, one inside the other, metadata, or keyed-list terminals", () => {
    expect(mergeable(m("spec.dnsPolicy"), m("spec.dnsPolicy"))).toBe(false);
    expect(mergeable(m("spec.dnsConfig", { value: {} }), m("spec.dnsConfig.nameservers", { value: ["1.1.1.1"] }))).toBe(false);
    expect(mergeable(m("metadata.labels.a", { kind: "AssignMetadata" }), m("spec.dnsPolicy"))).toBe(false);
    expect(mergeable(m("spec.containers[name: x]", { value: { name: "x" } }), m("spec.dnsPolicy"))).toBe(false);
  });
});
