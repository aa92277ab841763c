/**
 * The small pure parts of src/lint: orders (every permutation up to 6, swaps and seeded samples
 * beyond), the shrinker (a minimal object for a predicate), field paths and the hints read off
 * policy documents.
 */
import { describe, expect, it } from "vitest";
import { ResourceCatalog } from "../admission/match/catalog.js";
import { canonical, fieldPath } from "./dynamic.js";
import { harvest } from "./hints.js";
import { ordersFor, permutations, seededRandom } from "./orders.js";
import { shrink } from "./shrink.js";

describe("orders", () => {
  it.each([
    [1, 1],
    [3, 6],
    [6, 720],
  ])("%i policies: every permutation (%i), the default order first, none twice", (n, count) => {
    const ids = Array.from({ length: n }, (_, i) => `p${i}`);
    const plan = ordersFor([ids], seededRandom(1));
    expect(plan.sampled).toBe(false);
    expect(plan.orders.length).toBe(count);
    expect(plan.orders[0]).toEqual(ids);
    expect(new Set(plan.orders.map((o) => o.join())).size).toBe(count);
  });

  it("7 policies: the default, every pair swapped (21), 24 samples; each pair runs both ways", () => {
    const ids = Array.from({ length: 7 }, (_, i) => `p${i}`);
    const plan = ordersFor([ids], seededRandom(1));
    expect(plan.sampled).toBe(true);
    expect(plan.orders.length).toBe(1 + 21 + 24);
    for (let i = 0; i < 7; i++) {
      for (let j = i + 1; j < 7; j++) {
        const before = (o: readonly string[]): boolean => o.indexOf(`p${i}`) < o.indexOf(`p${j}`);
        expect(plan.orders.some(before) && plan.orders.some((o) => !before(o))).toBe(true);
      }
    }
  });

  it("groups never mix and combine; a seed repeats the samples", () => {
    const plan = ordersFor([["a", "b"], ["x", "y"]], seededRandom(1));
    expect(plan.orders).toEqual([
      ["a", "b", "x", "y"],
      ["a", "b", "y", "x"],
      ["b", "a", "x", "y"],
      ["b", "a", "y", "x"],
    ]);
    const ids = Array.from({ length: 8 }, (_, i) => `p${i}`);
    expect(ordersFor([ids], seededRandom(9)).orders).toEqual(ordersFor([ids], seededRandom(9)).orders);
    expect(ordersFor([ids], seededRandom(9)).orders).not.toEqual(ordersFor([ids], seededRandom(10)).orders);
    expect(permutations([1, 2, 3])).toEqual([
      [1, 2, 3],
      [1, 3, 2],
      [2, 1, 3],
      [2, 3, 1],
      [3, 1, 2],
      [3, 2, 1],
    ]);
  });
});

describe("shrink", () => {
  it("removes every field and item the predicate does not need, keeping apiVersion, kind, name and namespace", () => {
    const o = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "billing", labels: { a: "b" }, annotations: { x: "y" } },
      spec: { containers: [{ name: "a", image: "nginx" }, { name: "b", image: "busybox", args: ["-v"] }], dnsPolicy: "None" },
    };
    const holds = (c: typeof o): boolean => JSON.stringify(c).includes("busybox");
    expect(shrink(o as never, holds as never)).toEqual({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "billing" }, spec: { containers: [{ image: "busybox" }] } });
  });

  it("returns the object when nothing can go", () => {
    const o = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } };
    expect(shrink(o, () => true)).toEqual(o);
  });
});

describe("fieldPath, canonical", () => {
  it.each([
    ["/spec/containers/0/image", "spec.containers[0].image"],
    ["/metadata/labels/app.kubernetes.io~1name", 'metadata.labels["app.kubernetes.io/name"]'],
    ["/metadata/labels/tier", "metadata.labels.tier"],
    ["", ""],
  ])("%s → %s", (pointer, path) => expect(fieldPath(pointer)).toBe(path));

  it("is equal for equal values whatever the key order and integer representation", () => {
    expect(canonical({ b: 1n, a: [1, "x"] })).toBe(canonical({ a: [1n, "x"], b: 1 }));
    expect(canonical({ a: 1 })).not.toBe(canonical({ a: "1" }));
  });
});

describe("harvest", () => {
  it("reads kinds, literals, fields and selectors off MAPs and Gatekeeper mutators", () => {
    const h = harvest(
      [
        {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "MutatingAdmissionPolicy",
          metadata: { name: "p" },
          spec: {
            matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"] }] },
            mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: `Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"team": 'x'}}}}}` } }],
          },
        },
        {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "MutatingAdmissionPolicyBinding",
          metadata: { name: "p" },
          spec: { policyName: "p", matchResources: { namespaceSelector: { matchLabels: { env: "prod" } } } },
        },
        {
          apiVersion: "mutations.gatekeeper.sh/v1",
          kind: "Assign",
          metadata: { name: "g" },
          spec: { applyTo: [{ groups: [""], kinds: ["Pod"], versions: ["v1"] }], location: "spec.containers[name:nginx].imagePullPolicy", parameters: { assign: { value: "Always" } } },
        },
      ],
      ResourceCatalog.builtin(),
    );
    expect(h.kinds.map((k) => `${k.apiVersion} ${k.kind}`).sort()).toEqual(["apps/v1 Deployment", "v1 Pod"]);
    expect(h.strings).toEqual(expect.arrayContaining(["team", "x", "nginx", "Always"]));
    expect([...h.fields]).toEqual(expect.arrayContaining(["spec", "template", "metadata", "labels", "containers", "imagePullPolicy", "name"]));
    expect(h.namespaceSelectors).toEqual([{ matchLabels: { env: "prod" }, matchExpressions: [] }]);
  });
});
