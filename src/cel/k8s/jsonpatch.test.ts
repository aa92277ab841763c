/** The JSONPatch type, jsonpatch.escapeKey and the RFC 6902 conversion (map.md §4; apiserver mutation/jsonpatch and patch/json_patch tests). */
import { describe, expect, it } from "vitest";
import { CelEvalError } from "../errors.js";
import { fromJson } from "../runtime/json.js";
import { JSON_PATCH_LIST_TYPE, compileExpression, kubernetesEnv } from "../../admission/environment.js";
import { escapeKey, jsonPatchOperations, newJsonPatch } from "./jsonpatch.js";
import { outcome } from "./test-harness.js";

const env = kubernetesEnv({ kind: "mutation" });
const object = fromJson({ metadata: { name: "web", labels: { app: "a" } }, spec: { replicas: 1 } });

function patch(expr: string): unknown {
  const r = compileExpression(env, expr, JSON_PATCH_LIST_TYPE);
  if (!r.ok) return { compileError: r.detail };
  try {
    return jsonPatchOperations(r.program.eval({ object }));
  } catch (e) {
    if (e instanceof CelEvalError) return { error: e.message };
    throw e;
  }
}

describe("jsonpatch.escapeKey", () => {
  it.each<[string, string]>([
    ["k8s.io/x~y", "k8s.io~1x~0y"],
    ["~1", "~01"],
    ["/~", "~1~0"],
    ["plain", "plain"],
    ["", ""],
  ])("%j → %j", (k, want) => {
    expect(escapeKey(k)).toBe(want);
    expect(outcome(env, `jsonpatch.escapeKey(${JSON.stringify(k)})`)).toEqual({ value: want });
  });
});

describe("JSONPatch values", () => {
  it.each<[string, object]>([
    ["JSONPatch{op: 'add'}.op", { value: "add" }],
    ["JSONPatch{}.path", { value: "" }],
    ["has(JSONPatch{op: 'add'}.op) && !has(JSONPatch{op: ''}.op) && !has(JSONPatch{}.from)", { value: true }],
    ["has(JSONPatch{value: null}.value) && !has(JSONPatch{}.value)", { value: true }],
    ["JSONPatch{op: 'add', value: 1} == JSONPatch{op: 'add', value: 1}", { value: true }],
    ["JSONPatch{op: 'add', value: 1} == JSONPatch{op: 'add', value: 1.0}", { value: true }],
    ["JSONPatch{op: 'add'} == JSONPatch{op: 'add', value: 1}", { value: false }],
    ["JSONPatch{op: 'add'} == JSONPatch{op: 'remove'}", { value: false }],
    ["JSONPatch{op: 'invalid'}.op", { value: "invalid" }], // ops are not validated
    ["JSONPatch{op: dyn(1)}", { evalError: "unexpected type int64 for JSONPatchType 'op' field" }],
    ["JSONPatch{path: dyn(['a'])}", { evalError: "unexpected type []ref.Val for JSONPatchType 'path' field" }],
    ["JSONPatch{op: 1}", { compileError: "expected type of field 'op' is 'string' but provided type is 'int'" }],
    ["JSONPatch{from: true}", { compileError: "expected type of field 'from' is 'string' but provided type is 'bool'" }],
    ["JSONPatch{valu: 1}", { compileError: "undefined field 'valu'" }],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr)).toEqual(want);
  });

  it("rejects unknown fields at run time too", () => {
    expect(() => newJsonPatch(new Map([["bogus", "x"]]))).toThrow("unexpected JSONPatchType field: bogus");
  });
});

describe("conversion to RFC 6902", () => {
  it.each<[string, unknown]>([
    ["[JSONPatch{op: 'remove', path: '/spec/replicas'}]", [{ op: "remove", path: "/spec/replicas" }]],
    ["[JSONPatch{op: 'add', path: ''}]", [{ op: "add", path: "" }]],
    ["[JSONPatch{op: 'move', from: '', path: '/a'}]", [{ op: "move", path: "/a" }]],
    ["[JSONPatch{op: 'copy', from: '/a', path: '/b'}]", [{ op: "copy", path: "/b", from: "/a" }]],
    [
      "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('k8s.io/x~y'), value: 'v'}]",
      [{ op: "add", path: "/metadata/labels/k8s.io~1x~0y", value: "v" }],
    ],
    ["[JSONPatch{op: 'add', path: '/x', value: null}]", [{ op: "add", path: "/x", value: null }]],
    ["[JSONPatch{op: 'add', path: '/x', value: 9007199254740991}]", [{ op: "add", path: "/x", value: 9007199254740991 }]],
    ["[JSONPatch{op: 'add', path: '/x', value: 9007199254740992}]", [{ op: "add", path: "/x", value: "9007199254740992" }]],
    ["[JSONPatch{op: 'add', path: '/x', value: -9007199254740992}]", [{ op: "add", path: "/x", value: "-9007199254740992" }]],
    ["[JSONPatch{op: 'add', path: '/x', value: 18446744073709551615u}]", [{ op: "add", path: "/x", value: "18446744073709551615" }]],
    ["[JSONPatch{op: 'add', path: '/x', value: 1.5}]", [{ op: "add", path: "/x", value: 1.5 }]],
    ["[JSONPatch{op: 'add', path: '/x', value: b'hi'}]", [{ op: "add", path: "/x", value: "aGk=" }]],
    ["[JSONPatch{op: 'add', path: '/x', value: duration('1.5s')}]", [{ op: "add", path: "/x", value: "1.5s" }]],
    ["[JSONPatch{op: 'add', path: '/x', value: timestamp('2020-01-01T00:00:00Z')}]", [{ op: "add", path: "/x", value: "2020-01-01T00:00:00Z" }]],
    ["[JSONPatch{op: 'add', path: '/x', value: {'a': [1, 2]}}]", [{ op: "add", path: "/x", value: { a: [1, 2] } }]],
    ["[JSONPatch{op: 'add', path: '/x', value: object.metadata.labels}]", [{ op: "add", path: "/x", value: { app: "a" } }]],
    [
      "[JSONPatch{op: 'test', path: '/spec/replicas', value: 1}, JSONPatch{op: 'replace', path: '/spec/replicas', value: 2}]",
      [
        { op: "test", path: "/spec/replicas", value: 1 },
        { op: "replace", path: "/spec/replicas", value: 2 },
      ],
    ],
    // Object values: the type-name check, then structpb conversion (ints become plain numbers).
    [
      "[JSONPatch{op: 'add', path: '/spec/template', value: Object.spec.template{metadata: Object.spec.template.metadata{labels: {'a': 'b'}}, n: 9007199254740993}}]",
      [{ op: "add", path: "/spec/template", value: { metadata: { labels: { a: "b" } }, n: 9007199254740992 } }],
    ],
    [
      "[JSONPatch{op: 'add', path: '/spec/template', value: Object.spec.template{metadata: Object.spec.wrong{}}}]",
      { error: 'type mismatch: unexpected type name "Object.spec.wrong", expected "Object.spec.template.metadata", which matches field name path from root Object type' },
    ],
    // Conversion failures.
    ["[JSONPatch{op: 'add', path: '/x', value: {1: 'a'}}]", { error: "JSONPath valueExpression evaluated to a type that could not marshal to JSON: map key 1 is not a string" }],
    ["[JSONPatch{op: 'add', path: '/x', value: Object.x{n: null}}]", { error: "JSONPath valueExpression evaluated to a type that could not marshal to JSON: proto: invalid type: structpb.NullValue" }],
    ["[JSONPatch{op: 'add', path: '/x', value: [Object.x{}]}]", { error: "JSONPath valueExpression evaluated to a type that could not marshal to JSON: an Object value inside a list is not convertible in Kubernetes 1.36" }],
    ["[JSONPatch{op: 'add', path: '/x', value: 1.0 / 0.0}]", { error: "JSONPath valueExpression evaluated to a type that could not marshal to JSON: json: unsupported value: Infinity" }],
    ["[JSONPatch{op: 'add', path: '/x', value: optional.of(1)}]", { error: "JSONPath valueExpression evaluated to a type that could not marshal to JSON: type conversion error from 'interface {}' to 'google.protobuf.Value'" }],
    // Output type.
    ["[]", { compileError: "must evaluate to list(JSONPatch) but got list(dyn)" }],
    ["[JSONPatch{}, Object{}]", { compileError: "compilation failed: ERROR: <input>:1:21: expected type 'JSONPatch' but found 'Object'\n | [JSONPatch{}, Object{}]\n | ....................^" }],
  ])("%s", (expr, want) => {
    expect(patch(expr)).toEqual(want);
  });
});
