import { describe, expect, it } from "vitest";
import { compileMutator, type Mutator } from "./mutators/index.js";
import { mutate, System } from "./system.js";
import { parseImage, mutateImage } from "./image.js";

const applyTo = [{ groups: [""], versions: ["v1"], kinds: ["Pod"] }];

function assign(name: string, location: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "mutations.gatekeeper.sh/v1",
    kind: "Assign",
    metadata: { name },
    spec: { applyTo, location, parameters: params, ...extra },
  };
}

function compiled(doc: unknown): Mutator {
  const r = compileMutator(doc);
  if (!r.ok) throw new Error(r.issues.map((i) => `${i.path}: ${i.message}`).join("; "));
  return r.mutator;
}

function issues(doc: unknown): string[] {
  const r = compileMutator(doc);
  return r.ok ? [] : r.issues.map((i) => `${i.path.toString()}: ${i.message}`);
}

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default" },
  spec: { containers: [{ name: "a", image: "nginx" }, { name: "b", image: "nginx" }] },
};

describe("structural (CRD) validation", () => {
  it("reports enum, pattern and required-field errors with their paths", () => {
    expect(
      issues({
        apiVersion: "mutations.gatekeeper.sh/v1",
        kind: "ModifySet",
        metadata: { name: "m" },
        spec: {
          applyTo: [{ groups: [""], versions: ["v1"], kinds: ["Pod"], operations: ["DELETE"] }],
          match: { name: "Foo*", source: "Both" },
          location: "spec.x",
          parameters: { operation: "replace" },
        },
      }),
    ).toEqual([
      'spec.applyTo[0].operations[0]: Unsupported value: "DELETE": supported values: "CREATE", "UPDATE", "*"',
      `spec.match.source: Unsupported value: "Both": supported values: "All", "Generated", "Original"`,
      `spec.match.name: Invalid value: "Foo*": spec.match.name in body should match '^\\*?[-:a-z0-9]*\\*?$'`,
      'spec.parameters.operation: Unsupported value: "replace": supported values: "merge", "prune"',
    ]);
    expect(issues(assign("a", "spec.x", { assign: { externalData: { dataSource: "Username" } } }))).toEqual([
      "spec.parameters.assign.externalData.provider: Required value",
    ]);
    expect(issues(assign("a", 5 as unknown as string, { assign: { value: 1 } }))).toEqual([
      'spec.location: Invalid value: "integer": spec.location in body must be of type string: "integer"',
    ]);
  });
  it("serves AssignImage only as v1alpha1", () => {
    expect(
      issues({ apiVersion: "mutations.gatekeeper.sh/v1", kind: "AssignImage", metadata: { name: "i" }, spec: {} }),
    ).toEqual(['apiVersion: Unsupported value: "mutations.gatekeeper.sh/v1": supported values: "mutations.gatekeeper.sh/v1alpha1"']);
  });
  it("requires a name, as the apiserver does", () => {
    expect(issues({ apiVersion: "mutations.gatekeeper.sh/v1", kind: "Assign", spec: {} })).toEqual([
      "metadata.name: Required value: name or generateName is required",
    ]);
  });
  it("treats __proto__ as an ordinary key", () => {
    const m = compiled(assign("p", `spec."__proto__".x`, { assign: { value: "v" } }));
    const r = mutate({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }, [m]);
    const spec = (r.object as { spec: object }).spec;
    expect(Object.getPrototypeOf(spec)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(spec, "__proto__")?.value).toEqual({ x: "v" });
  });
  it("defaults ModifySet operation to merge and prunes unknown fields", () => {
    const m = compiled({
      apiVersion: "mutations.gatekeeper.sh/v1beta1",
      kind: "ModifySet",
      metadata: { name: "m" },
      spec: { applyTo, location: "spec.l", parameters: { values: { fromList: ["a"] } }, bogus: 1 },
    });
    expect(m.kind === "ModifySet" && m.operation).toBe("merge");
  });
});

describe("Gatekeeper validation, with field paths", () => {
  it("places each error at its field", () => {
    expect(issues(assign("a", "spec[x: 1", { assign: { value: 1 } }))).toEqual([
      'spec.location: invalid location format `spec[x: 1` for Assign a: unexpected token: expected \']\' following listSpec, got: EOF: ""',
    ]);
    expect(issues(assign("a", "spec.c[name: x].name", { assign: { value: 1 } }))).toEqual([
      "spec.location: invalid path format: changing the item key is not allowed",
    ]);
    expect(
      issues(assign("a", "spec.x", { assign: { value: 1 }, pathTests: [{ subPath: "spec.", condition: "MustExist" }] })),
    ).toEqual([
      "spec.parameters.pathTests[0].subPath: problem parsing sub path `spec.` for Assign a: trailing separators are forbidden",
    ]);
    expect(issues({ ...assign("a", "spec.x", { assign: { value: 1 } }), spec: { location: "spec.x", applyTo: [{ groups: [""] }], parameters: { assign: { value: 1 } } } })).toEqual([
      "spec.applyTo[0]: invalid applyTo for Assign mutator a, all of group, version and kind must be specified",
    ]);
    expect(issues(assign("a", "spec.x", { assign: { fromMetadata: {} } }))).toEqual([
      "spec.parameters.assign.fromMetadata.field: field  is not recognized: invalid fromMetadata field",
    ]);
  });
  it("gives each rule a stable code", () => {
    const code = (doc: unknown) => {
      const r = compileMutator(doc);
      return r.ok ? "ok" : r.issues.map((i) => i.code).join(",");
    };
    expect(code(assign("a", "metadata.labels.x", { assign: { value: "v" } }))).toBe("location-metadata");
    expect(code(assign("a", "spec.x", {}))).toBe("assign-source");
    expect(code(assign("a".repeat(64), "spec.x", { assign: { value: 1 } }))).toBe("name-too-long");
    expect(code(assign("a", "spec.x", { assign: { value: 1 } }, { applyTo: [] }))).toBe("apply-to");
    expect(code({ apiVersion: "mutations.gatekeeper.sh/v1", kind: "Assign", metadata: { name: "a" }, spec: { location: 1 } })).toBe("schema");
  });
  it("takes Assign numbers as float64: an object cannot go into an integer-keyed list", () => {
    expect(issues(assign("a", "spec.ports[containerPort: 80]", { assign: { value: { containerPort: 80 } } }))).toEqual([
      "spec.parameters.assign.value: adding object to list with different key containerPort: list key 80, object key 80",
    ]);
    expect(issues(assign("a", "spec.ports[name: http]", { assign: { value: { name: "http", port: 80 } } }))).toEqual([]);
  });
  it("accepts an empty ModifySet location, which then fails every mutation", () => {
    const m = compiled({
      apiVersion: "mutations.gatekeeper.sh/v1",
      kind: "ModifySet",
      metadata: { name: "m" },
      spec: { applyTo, parameters: { values: { fromList: ["a"] } } },
    });
    expect(mutate(pod, [m]).error).toMatch(/attempting to mutate an empty target location$/);
  });
  it("AssignImage keeps Gatekeeper's image parsing", () => {
    expect(parseImage("localhost:5000/a/b:v1@sha256:x")).toEqual({ domain: "localhost:5000", path: "a/b", tag: ":v1@sha256:x" });
    expect(mutateImage("", "", ":new", "")).toBe(":new");
    expect(mutateImage("myreg.io", "", "", "a.b.c:5000//not.good:ABC")).toBe("myreg.io//not.good:ABC");
  });
});

describe("System", () => {
  it("sorts by kind then name and runs passes to a fixpoint", () => {
    const a = compiled(assign("z-last", "spec.v", { assign: { value: "z" } }));
    const b = compiled(assign("a-first", "spec.v", { assign: { value: "a" } }));
    const s = new System();
    s.upsert(a);
    s.upsert(b);
    expect(s.mutators().map((m) => m.id.name)).toEqual(["a-first", "z-last"]);
    const r = s.mutate(pod);
    expect((r.object as { spec: { v: string } }).spec.v).toBe("z");
    expect(r.iterations).toBe(2);
    expect(r.applied).toEqual(["Assign//a-first:1", "Assign//z-last:1"]);
  });
  it("fails with mutation not converging after mutators + 1 passes", () => {
    const base = compiled(assign("grow", "spec.n", { assign: { value: 0 } }));
    const grow: Mutator = {
      ...base,
      setter: () => ({
        keyedListOkay: false,
        keyedListValue: () => ({}),
        setValue(obj, key) {
          obj[key] = ((obj[key] as number | undefined) ?? 0) + 1;
        },
      }),
    } as Mutator;
    const r = mutate(pod, [grow], { uuid: () => "u-1" });
    expect(r.error).toBe("mutation not converging: mutation u-1 not converging for  Pod default p");
    expect(r.iterations).toBe(2);
    expect(r.object).toBe(pod);
  });
  it("is all-or-nothing: an error drops every change", () => {
    const ok = compiled(assign("a", "spec.v", { assign: { value: "x" } }));
    const bad = compiled(assign("b", "spec.containers.image", { assign: { value: "x" } }));
    const r = mutate(pod, [ok, bad], { uuid: () => "u" });
    expect(r.error).toMatch(/^mutation u for mutator Assign.mutations.gatekeeper.sh \/b failed for  Pod default p: mismatch between path entry \(type: object\) and received object \(type: \[\]interface \{\}\)/);
    expect(r.changed).toBe(false);
    expect(r.object).toEqual(pod);
  });
  it("reports and skips schema conflicts", () => {
    const s = new System();
    expect(s.upsert(compiled(assign("a", "spec.containers[name: a].image", { assign: { value: "x" } })))).toBeUndefined();
    expect(s.upsert(compiled(assign("b", "spec.containers.image", { assign: { value: "y" } })))).toBe(
      "the following mutators have conflicting schemas: [Assign.mutations.gatekeeper.sh /a,Assign.mutations.gatekeeper.sh /b]",
    );
    expect(s.mutate(pod).changed).toBe(false);
  });
  it("refuses external data offline unless a resolver is given", () => {
    const m = compiled(assign("ext", "spec.containers[name: *].image", { assign: { externalData: { provider: "p" } } }));
    expect(mutate(pod, [m]).error).toMatch(/^failed to resolve external data placeholders: external data provider "p" cannot be called offline/);
    const seen: string[][] = [];
    const r = mutate(pod, [m], {
      externalData: (provider, keys) => {
        seen.push([provider, ...keys]);
        return { idempotent: true, items: [{ key: "nginx", value: "reg.io/nginx@sha256:1" }] };
      },
    });
    expect(seen).toEqual([["p", "nginx"]]);
    expect((r.object as typeof pod).spec.containers.map((c) => c.image)).toEqual(["reg.io/nginx@sha256:1", "reg.io/nginx@sha256:1"]);
    const ignore = compiled(
      assign("ext", "spec.containers[name: *].image", { assign: { externalData: { provider: "p", failurePolicy: "UseDefault", default: "d" } } }),
    );
    const r2 = mutate(pod, [ignore], { externalData: () => ({ idempotent: false, items: [] }) });
    expect((r2.object as typeof pod).spec.containers.map((c) => c.image)).toEqual(["d", "d"]);
    const r3 = mutate(pod, [m], { externalData: () => ({ idempotent: true, items: [{ key: "nginx", error: "nope" }] }) });
    expect(r3.error).toBe(
      "failed to resolve external data placeholders: failed to retrieve external data item from provider p: nope",
    );
  });
  it("adds mutation annotations when enabled", () => {
    const m = compiled({
      apiVersion: "mutations.gatekeeper.sh/v1",
      kind: "AssignMetadata",
      metadata: { name: "owner", generation: 3 },
      spec: { location: "metadata.labels.owner", parameters: { assign: { value: "me" } } },
    });
    const r = mutate(pod, [m], { mutationAnnotations: true, uuid: () => "id-1" });
    expect((r.object as { metadata: unknown }).metadata).toEqual({
      name: "p",
      namespace: "default",
      labels: { owner: "me" },
      annotations: { "gatekeeper.sh/mutations": "AssignMetadata//owner:3", "gatekeeper.sh/mutation-id": "id-1" },
    });
  });
  it("shares one value among all locations of one application, as Go does (derived from the code)", () => {
    const sc = compiled(assign("sc", "spec.containers[name: *].securityContext", { assign: { value: { capabilities: { drop: ["ALL"] } } } }));
    const ms = compiled({
      apiVersion: "mutations.gatekeeper.sh/v1",
      kind: "ModifySet",
      metadata: { name: "raw" },
      spec: { applyTo, location: "spec.containers[name: a].securityContext.capabilities.drop", parameters: { values: { fromList: ["NET_RAW"] } } },
    });
    const r = mutate(pod, [sc, ms]);
    const cs = (r.object as { spec: { containers: { securityContext: unknown }[] } }).spec.containers;
    expect(cs[1]!.securityContext).toEqual({ capabilities: { drop: ["ALL", "NET_RAW"] } });
  });
  it("ModifySet merge of an absent fromList into a missing field writes null (Go nil slice)", () => {
    const m = compiled({
      apiVersion: "mutations.gatekeeper.sh/v1",
      kind: "ModifySet",
      metadata: { name: "m" },
      spec: { applyTo, location: "spec.l", parameters: { operation: "merge" } },
    });
    const r = mutate(pod, [m]);
    expect(r.error).toBeUndefined();
    expect((r.object as { spec: { l: unknown } }).spec.l).toBeNull();
  });
});
