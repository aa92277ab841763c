/** Object construction (map.md §3.1; apiserver mutation/dynamic objects_test.go and the MAP integration tests). */
import { describe, expect, it } from "vitest";
import { CelEvalError } from "../errors.js";
import { fromJson } from "../runtime/json.js";
import type { CelValue } from "../values.js";
import { APPLY_CONFIGURATION_TYPE, compileExpression, kubernetesEnv } from "../../admission/environment.js";
import { ObjectValue, UnconvertibleValueError, applyConfigurationJson, checkTypeNames, typeNameMismatches } from "./object.js";
import { outcome } from "./test-harness.js";
import type { CelSchemaNode } from "./values.js";

const env = kubernetesEnv({ kind: "mutation" });
const object = fromJson({ metadata: { name: "web", labels: { app: "a" } }, spec: { replicas: 1 } });

function evalObject(expr: string, e = env): ObjectValue {
  const r = compileExpression(e, expr, APPLY_CONFIGURATION_TYPE);
  if (!r.ok) throw new Error(r.detail);
  const v = r.program.eval({ object });
  if (!(v instanceof ObjectValue)) throw new Error("not an Object");
  return v;
}

/** Evaluates, checks the type names, converts: the apiserver's patcher steps up to SMD. */
function applyConfiguration(expr: string): unknown {
  const v = evalObject(expr);
  try {
    checkTypeNames(v);
    return applyConfigurationJson(v);
  } catch (e) {
    if (e instanceof CelEvalError || e instanceof UnconvertibleValueError) return { error: e.message };
    throw e;
  }
}

describe("construction and the type-name check", () => {
  it.each<[string, unknown]>([
    ["Object{}", {}],
    [
      "Object{metadata: Object.metadata{labels: {'app': 'b', 'x.io/y': string(object.metadata.name)}}}",
      { metadata: { labels: { app: "b", "x.io/y": "web" } } },
    ],
    [
      "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'c', ports: [Object.spec.template.spec.containers.ports{containerPort: 80}]}]}}}}",
      { spec: { template: { spec: { containers: [{ name: "c", ports: [{ containerPort: 80n }] }] } } } },
    ],
    // Map values use the map field's name, no `.item` suffix for lists.
    ["Object{spec: Object.spec{m: {'k': Object.spec.m{a: 1}}}}", { spec: { m: { k: { a: 1n } } } }],
    // Reserved words are fine as field names.
    ["Object{metadata: Object.metadata{namespace: 'ns', package: true}}", { metadata: { namespace: "ns", package: true } }],
    // ?field omits the field when the optional is none.
    ["Object{metadata: Object.metadata{?labels: object.metadata.?missing, ?name: optional.of('n')}}", { metadata: { name: "n" } }],
    ["Object{spec: Object.spec{replicas: 2.5, paused: false}}", { spec: { replicas: 2.5, paused: false } }],
    ["Object{spec: Object.spec{x: null}}", { spec: { x: null } }],
    // Nesting mismatch (the apiserver's sanity check).
    [
      "Object{spec: Object.spec{selector: Object.spec.wrong{}}}",
      { error: 'type mismatch: unexpected type name "Object.spec.wrong", expected "Object.spec.selector", which matches field name path from root Object type' },
    ],
    [
      "Object{spec: Object.spec{containers: [Object.spec.containers.item{}]}}",
      { error: 'type mismatch: unexpected type name "Object.spec.containers.item", expected "Object.spec.containers", which matches field name path from root Object type' },
    ],
    [
      "Object{a: Object.b{}, c: Object.d{}}",
      {
        error:
          'type mismatch: unexpected type name "Object.b", expected "Object.a", which matches field name path from root Object type\n' +
          'unexpected type name "Object.d", expected "Object.c", which matches field name path from root Object type',
      },
    ],
    // 1.36 conversion caveats.
    ["Object{spec: Object.spec{u: 1u}}", { error: ".spec.u: value of type uint64 cannot be converted for structured-merge-diff (kube-apiserver 1.36)" }],
    ["Object{spec: Object.spec{l: [[1]]}}", { error: ".spec.l[0]: value of type []ref.Val cannot be converted for structured-merge-diff (kube-apiserver 1.36)" }],
    ["Object{spec: Object.spec{t: timestamp('2020-01-01T00:00:00Z')}}", { error: ".spec.t: value of type time.Time cannot be converted for structured-merge-diff (kube-apiserver 1.36)" }],
    ["Object{spec: Object.spec{m: {1: 'a'}}}", { error: "invalid return type: *dynamic.ObjectVal" }],
  ])("%s", (expr, want) => {
    expect(applyConfiguration(expr)).toEqual(want);
  });

  it("reports every mismatch, walking lists and maps", () => {
    const v = evalObject("Object{a: [Object.x{}], b: {'k': Object.b{c: Object.y{}}}}");
    expect(typeNameMismatches(v)).toEqual([
      'unexpected type name "Object.x", expected "Object.a", which matches field name path from root Object type',
      'unexpected type name "Object.y", expected "Object.b.c", which matches field name path from root Object type',
    ]);
  });

  it("field access, has(), equality and zero value", () => {
    expect(outcome(env, "Object{a: 1}.a == 1 && has(Object{a: 1}.a) && !has(Object{}.a)")).toEqual({ value: true });
    expect(outcome(env, "Object{}.a")).toEqual({ evalError: "no such field 'a'" });
    expect(outcome(env, "optional.ofNonZeroValue(Object{}).hasValue() || Object{a: 1} != Object{a: 1}")).toEqual({ value: false });
    expect(outcome(env, "type(Object.spec{}) == Object.spec")).toEqual({ value: true });
  });
});

describe("compile time (no schema): any Object.<path>, every field dyn", () => {
  it.each<[string, string | undefined]>([
    ["Object{spec: Object.spec{replicasx: 1}}", undefined], // typos pass, as in Kubernetes (SMD rejects them later)
    ["Object{spec: Object.invalid{}}", undefined],
    ["Object{metadata: Object.metadata{labels: {'a': 1, 'b': 'x'}}}", "compilation failed"],
    ["Object.spec{}", "must evaluate to Object but got Object.spec"],
    // The literal validator: dyn does not mix with string in a homogeneous literal.
    ["Object{metadata: Object.metadata{labels: {'a': 'b', 'c': object.metadata.name}}}", "expected type 'string' but found 'dyn'"],
    ["Objects{}", "compilation failed"],
  ])("%s", (expr, want) => {
    const r = compileExpression(env, expr, APPLY_CONFIGURATION_TYPE);
    if (want === undefined) expect(r.ok).toBe(true);
    else expect(r.ok ? "" : r.detail).toContain(want);
  });
});

describe("strict mode: Object types resolved against the kind's schema", () => {
  const leaf = (scalar: "string" | "integer" | "boolean" | "number", format?: string): CelSchemaNode => ({
    kind: "scalar",
    scalar,
    ...(format === undefined ? {} : { format }),
    child: () => undefined,
    element: () => undefined,
  });
  const untyped: CelSchemaNode = { kind: "untyped", child: () => untyped, element: () => untyped };
  const struct = (f: Record<string, CelSchemaNode>, preserve = false): CelSchemaNode => ({
    kind: "struct",
    child: (n) => f[n] ?? (preserve ? untyped : undefined),
    element: () => undefined,
  });
  const list = (e: CelSchemaNode): CelSchemaNode => ({ kind: "list", listType: "map", child: () => undefined, element: () => e });
  const map = (v: CelSchemaNode): CelSchemaNode => ({ kind: "map", child: () => v, element: () => undefined });
  const schema = struct({
    metadata: struct({ name: leaf("string"), labels: map(leaf("string")) }),
    spec: struct({
      replicas: leaf("integer"),
      paused: leaf("boolean"),
      ratio: leaf("number"),
      port: leaf("string", "int-or-string"),
      containers: list(struct({ name: leaf("string"), args: { kind: "list", listType: "atomic", child: () => undefined, element: () => leaf("string") } })),
      extra: struct({}, true),
    }),
  });
  const strict = kubernetesEnv({ kind: "mutation", objectSchema: schema });

  it.each<[string, string | undefined]>([
    ["Object{spec: Object.spec{replicas: 3, paused: true, ratio: 1, port: 'http'}}", undefined],
    ["Object{spec: Object.spec{containers: [Object.spec.containers{name: 'c', args: ['a']}]}}", undefined],
    ["Object{metadata: Object.metadata{labels: {'a': 'b'}}}", undefined],
    ["Object{spec: Object.spec{port: 80, ratio: 0.5}}", undefined],
    ["Object{spec: Object.spec{extra: Object.spec.extra{anything: Object.spec.extra.anything{x: 1}}}}", undefined],
    ["Object{spec: Object.spec{replicasx: 3}}", "undefined field 'replicasx'"],
    ["Object{spec: Object.spec{replicas: '3'}}", "expected type of field 'replicas' is 'int' but provided type is 'string'"],
    ["Object{metadata: Object.metadata{labels: {'a': 1}}}", "expected type of field 'labels' is 'map(string, string)' but provided type is 'map(string, int)'"],
    ["Object{spec: Object.spc{}}", "Object.spc"],
    ["Object{spec: Object.spec.replicas{}}", "Object.spec.replicas"],
  ])("%s", (expr, want) => {
    const r = compileExpression(strict, expr, APPLY_CONFIGURATION_TYPE);
    if (want === undefined) expect(r.ok ? "" : r.detail).toBe("");
    else expect(r.ok ? "" : r.detail).toContain(want);
  });

  it("still evaluates and converts as without a schema", () => {
    const v = evalObject("Object{spec: Object.spec{replicas: 3}}", strict);
    expect(applyConfigurationJson(v)).toEqual({ spec: { replicas: 3n } });
  });
});

describe("the value is tagged with its type name", () => {
  it("keeps the fields in the order written", () => {
    const v = evalObject("Object{b: 1, a: 2}");
    expect([...v.fields.keys()]).toEqual(["b", "a"]);
    expect(v.typeName).toBe("Object");
    expect(v.celType.name).toBe("Object");
    const inner = v.fields.get("b") as CelValue;
    expect(inner).toBe(1n);
  });
});
