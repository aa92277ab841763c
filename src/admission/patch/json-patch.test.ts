import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { deepClone, type JsonObject, type JsonValue } from "../json.js";
import { oracleCase } from "../testdata/cases.js";
import { applyJsonPatch, goJsonSize, jsonPatchErrorMessage, type JsonPatchOperation, type JsonPatchResult } from "./json-patch.js";

/** Applies the mutations of a policy in order, as the dispatcher does: a failed test leaves the object as it was. */
function mutate(doc: JsonValue, ...mutations: JsonPatchOperation[][]): JsonValue {
  let cur = doc;
  for (const ops of mutations) {
    const r = applyJsonPatch(cur, ops);
    if (r.ok === false) throw new Error(r.error);
    if (r.ok === true) cur = r.doc;
  }
  return cur;
}

function doc(r: JsonPatchResult): JsonValue {
  if (r.ok !== true) throw new Error(`expected a document, got ${JSON.stringify(r)}`);
  return r.doc;
}

function error(r: JsonPatchResult): string {
  if (r.ok !== false) throw new Error(`expected an error, got ${JSON.stringify(r)}`);
  return jsonPatchErrorMessage(r.error);
}

const env0 = "/spec/containers/0/env";

describe("JSON Patch: real kube-apiserver results (map-oracle-cases)", () => {
  // [case, the mutations' JSONPatch lists as the CEL expressions evaluate them]
  const objects: Array<[string, JsonPatchOperation[][]]> = [
    ["oracle-jp-replace-replicas", [[{ op: "replace", path: "/spec/replicas", value: 7 }]]],
    ["oracle-jp-replace-missing-map-key", [[{ op: "replace", path: "/data/newkey", value: "v" }]]],
    ["oracle-jp-remove-label", [[{ op: "remove", path: "/metadata/labels/tmp" }]]],
    [
      "oracle-jp-test-fail-next-mutation-runs",
      [
        [
          { op: "test", path: "/metadata/labels/app", value: "other" },
          { op: "add", path: "/metadata/labels/m1", value: "yes" },
        ],
        [{ op: "add", path: "/metadata/labels/m2", value: "yes" }],
      ],
    ],
    [
      "oracle-jp-test-int-vs-string",
      [
        [
          { op: "test", path: "/spec/replicas", value: 3 },
          { op: "replace", path: "/spec/replicas", value: 4 },
        ],
        [
          { op: "test", path: "/spec/replicas", value: "4" },
          { op: "replace", path: "/spec/replicas", value: 5 },
        ],
      ],
    ],
    ["oracle-jp-move", [[{ op: "move", from: "/data/old", path: "/data/new" }]]],
    ["oracle-jp-add-env-index0", [[{ op: "add", path: `${env0}/0`, value: { name: "FIRST", value: "0" } }]]],
    ["oracle-jp-add-env-index-eq-len", [[{ op: "add", path: `${env0}/2`, value: { name: "LAST", value: "z" } }]]],
    ["oracle-jp-add-env-negative-index", [[{ op: "add", path: `${env0}/-1`, value: { name: "NEG", value: "n" } }]]],
    [
      "oracle-jp-add-toleration",
      [[{ op: "add", path: "/spec/tolerations", value: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }] }]],
    ],
    ["oracle-jp-remove-label-escapekey", [[{ op: "remove", path: "/metadata/labels/example.com~1tmp" }]]],
    [
      "oracle-jp-test-missing-key-no-value",
      [
        [
          { op: "test", path: "/metadata/labels" },
          { op: "add", path: "/data/t", value: "ran" },
        ],
      ],
    ],
    ["oracle-jp-empty-patch-list", [[]]],
    // ["app", "tier"].filter(k, !(k in labels)) on labels {app: web}: only tier is added.
    ["oracle-jp-conditional-list", [[{ op: "add", path: "/metadata/labels/tier", value: "default" }]]],
    // reinvocationPolicy IfNeeded: the same append runs in both passes.
    [
      "oracle-reinvoke-ifneeded-jsonpatch-append",
      [[{ op: "add", path: `${env0}/-`, value: { name: "APPENDED", value: "x" } }], [{ op: "add", path: `${env0}/-`, value: { name: "APPENDED", value: "x" } }]],
    ],
    [
      "oracle-jp-job-suspend",
      [
        [
          { op: "replace", path: "/spec/suspend", value: true },
          { op: "add", path: "/spec/template/metadata/labels/queue", value: "batch-low" },
        ],
      ],
    ],
    ["oracle-jp-namespace-add-label", [[{ op: "add", path: "/metadata/labels/pod-security.kubernetes.io~1enforce", value: "baseline" }]]],
  ];
  test.each(objects)("%s", (name, mutations) => {
    const c = oracleCase(name);
    expect(mutate(c.input, ...mutations)).toEqual(c.expected);
  });

  const errors: Array<[string, JsonPatchOperation[]]> = [
    ["oracle-jp-add-label-no-labels-map", [{ op: "add", path: "/metadata/labels/x", value: "1" }]],
    ["oracle-jp-add-index-out-of-range", [{ op: "add", path: `${env0}/5`, value: { name: "X", value: "1" } }]],
    ["oracle-jp-replace-dash", [{ op: "replace", path: `${env0}/-`, value: { name: "X", value: "1" } }]],
    ["oracle-jp-move-missing-from", [{ op: "move", from: "/metadata/annotations/missing", path: "/metadata/annotations/c" }]],
  ];
  test.each(errors)("%s", (name, ops) => {
    const c = oracleCase(name);
    expect(error(applyJsonPatch(c.input, ops))).toBe(c.error);
  });

  test("oracle-jp-remove-missing-ignore: the error is ignored under Ignore, the object stays as it was", () => {
    const c = oracleCase("oracle-jp-remove-missing-ignore");
    expect(error(applyJsonPatch(c.input, [{ op: "remove", path: "/metadata/labels/nope" }]))).toBe(
      "JSON Patch: error in remove for path: '/metadata/labels/nope': Unable to remove nonexistent key: nope: missing value",
    );
    expect(c.input).toEqual(c.expected);
  });

  test("oracle-jp-copy-missing-from: copying a missing key copies null (decoding then makes it \"\")", () => {
    const c = oracleCase("oracle-jp-copy-missing-from");
    const out = doc(applyJsonPatch(c.input, [{ op: "copy", from: "/metadata/annotations/missing", path: "/metadata/annotations/c" }])) as JsonObject;
    expect((out.metadata as JsonObject).annotations).toEqual({ a: "1", c: null });
    // What the apiserver returned after decoding into map[string]string:
    expect(((c.expected as JsonObject).metadata as JsonObject).annotations).toEqual({ a: "1", c: "" });
  });

  test("oracle-crd-jp-add-unknown-field / remove-defaulted: the patch itself keeps bogus and drops mode (pruning and defaulting come later)", () => {
    const add = oracleCase("oracle-crd-jp-add-unknown-field");
    const out = doc(applyJsonPatch(add.input, [
      { op: "add", path: "/spec/bogus", value: "x" },
      { op: "replace", path: "/spec/size", value: 2 },
    ])) as JsonObject;
    expect(out).toEqual({ ...add.expected, spec: { ...((add.expected as JsonObject).spec as JsonObject), bogus: "x" } });

    const rm = oracleCase("oracle-crd-jp-remove-defaulted");
    const out2 = doc(applyJsonPatch(rm.input, [{ op: "remove", path: "/spec/mode" }])) as JsonObject;
    const { mode, ...rest } = (rm.expected as JsonObject).spec as JsonObject;
    expect(mode).toBe("auto");
    expect(out2).toEqual({ ...rm.expected, spec: rest });
  });

  test("oracle-jp-unknown-field-typed-ignore: the patch applies; the 500 comes from strict decoding afterwards", () => {
    const c = oracleCase("oracle-jp-unknown-field-typed-ignore");
    const out = doc(applyJsonPatch(c.input, [{ op: "add", path: "/spec/bogus", value: "x" }])) as JsonObject;
    expect((out.spec as JsonObject).bogus).toBe("x");
    expect(c.error).toContain('unknown field "spec.bogus"');
  });
});

describe("JSON Patch: Kubernetes unit tests (map-cases, patcher harness)", () => {
  const objects: Array<[string, JsonPatchOperation[]]> = [
    [
      "jsonpatch-test-op-true",
      [
        { op: "test", path: "/spec/replicas", value: 1 },
        { op: "replace", path: "/spec/replicas", value: 3 },
      ],
    ],
    ["jsonpatch-remove-field", [{ op: "remove", path: "/spec/replicas" }]],
    ["jsonpatch-remove-map-key", [{ op: "remove", path: "/metadata/labels/y" }]],
    ["jsonpatch-remove-list-element", [{ op: "remove", path: "/spec/template/spec/containers/1" }]],
    ["jsonpatch-add-map-key", [{ op: "add", path: "/metadata/labels/x", value: "2" }]],
    ["jsonpatch-add-list-start", [{ op: "add", path: "/spec/template/spec/containers/0", value: { name: "x" } }]],
    ["jsonpatch-add-list-end-dash", [{ op: "add", path: "/spec/template/spec/containers/-", value: { name: "x" } }]],
    ["jsonpatch-replace-missing-map-key-adds", [{ op: "replace", path: "/metadata/labels/x", value: "2" }]],
    ["jsonpatch-replace-set-map", [{ op: "replace", path: "/metadata/labels", value: { y: "2" } }]],
    ["jsonpatch-replace-list-element", [{ op: "replace", path: "/spec/template/spec/containers/0", value: { name: "x" } }]],
    [
      "jsonpatch-escape-key",
      [
        { op: "add", path: "/metadata/labels", value: {} },
        { op: "add", path: "/metadata/labels/k8s.io~1x~0y", value: "true" },
      ],
    ],
    [
      "jsonpatch-object-initializer-nested-list",
      [{ op: "add", path: "/spec/template/spec/containers/-", value: { name: "x", ports: [{ containerPort: 8080 }] } }],
    ],
    ["policy-object-root-name-not-checked-in-jsonpatch", [{ op: "add", path: "/spec", value: { replicas: 1 } }]],
  ];
  test.each(objects)("%s", (name, ops) => {
    const c = oracleCase(name);
    expect(doc(applyJsonPatch(c.input, ops))).toEqual(c.expected);
  });

  // The Go test's Deployment has an empty ObjectMeta, which Go's JSON encoding writes as
  // {"creationTimestamp": null}: the parent /metadata exists in the document the patch sees.
  test.each([
    ["jsonpatch-add-map-to-absent-field", "add"],
    ["jsonpatch-replace-unset-field-adds", "replace"],
  ])("%s (object encoded as Go does: metadata present)", (name, op) => {
    const c = oracleCase(name);
    expect(c.input.metadata).toBeUndefined();
    const input = { ...c.input, metadata: { creationTimestamp: null } };
    const out = doc(applyJsonPatch(input, [{ op, path: "/metadata/labels", value: { y: "2" } }])) as JsonObject;
    expect(out).toEqual({ ...c.expected, metadata: { creationTimestamp: null, labels: { y: "2" } } });
    // Without metadata in the document, the parent is missing:
    expect(applyJsonPatch(c.input, [{ op, path: "/metadata/labels", value: { y: "2" } }]).ok).toBe(false);
  });

  test("jsonpatch-test-op-false-skips-whole-patch: a failing test is a no-op, not an error", () => {
    const c = oracleCase("jsonpatch-test-op-false-skips-whole-patch");
    const r = applyJsonPatch(c.input, [
      { op: "test", path: "/spec/replicas", value: 100 },
      { op: "replace", path: "/spec/replicas", value: 3 },
    ]);
    expect(r).toEqual({ ok: "test-failed", detail: "testing value /spec/replicas failed: test failed" });
    expect(c.input).toEqual(c.expected);
  });

  test("jsonpatch-replace-dash-index-error", () => {
    const c = oracleCase("jsonpatch-replace-dash-index-error");
    expect(error(applyJsonPatch(c.input, [{ op: "replace", path: "/spec/template/spec/containers/-", value: { name: "x" } }]))).toBe(c.error);
  });
});

describe("JSON Patch: the apiserver's json_patch_test.go cases missing from map-cases", () => {
  const labels = (l: JsonObject): JsonObject => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { creationTimestamp: null, labels: l }, spec: {} });
  const containers = (...names: string[]): JsonObject => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { creationTimestamp: null },
    spec: { template: { spec: { containers: names.map((name) => ({ name })) } } },
  });
  const cases: Array<[string, JsonObject, JsonPatchOperation, JsonObject]> = [
    ["copy map entry by key", labels({ x: "1" }), { op: "copy", from: "/metadata/labels/x", path: "/metadata/labels/y" }, labels({ x: "1", y: "1" })],
    ["copy first element to end of list", containers("a", "b", "c"), { op: "copy", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-" }, containers("a", "b", "c", "a")],
    ["move map entry by key", labels({ x: "1" }), { op: "move", from: "/metadata/labels/x", path: "/metadata/labels/y" }, labels({ y: "1" })],
    ["move first element to end of list", containers("a", "b", "c"), { op: "move", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-" }, containers("b", "c", "a")],
  ];
  test.each(cases)("jsonPatch %s", (_name, input, op, want) => {
    expect(doc(applyJsonPatch(input, [op]))).toEqual(want);
  });
});

describe("JSON Patch: evanphx/json-patch v4 behaviour read from patch.go", () => {
  const base = (): JsonObject => ({ a: [1, 2], o: { k: "v", n: null }, s: "str" });
  const ok: Array<[string, JsonPatchOperation[], JsonValue]> = [
    ["add replaces an existing key wholesale", [{ op: "add", path: "/o", value: { z: 1 } }], { a: [1, 2], o: { z: 1 }, s: "str" }],
    ["add without value adds null", [{ op: "add", path: "/o/new" }], { a: [1, 2], o: { k: "v", n: null, new: null }, s: "str" }],
    ["add at -len-1 inserts first", [{ op: "add", path: "/a/-3", value: 0 }], { a: [0, 1, 2], o: { k: "v", n: null }, s: "str" }],
    ["add at index == len appends", [{ op: "add", path: "/a/2", value: 3 }], { a: [1, 2, 3], o: { k: "v", n: null }, s: "str" }],
    ["add accepts a signed, zero-padded index", [{ op: "add", path: "/a/+01", value: 9 }], { a: [1, 9, 2], o: { k: "v", n: null }, s: "str" }],
    ["remove with a negative index counts from the end", [{ op: "remove", path: "/a/-1" }], { a: [1], o: { k: "v", n: null }, s: "str" }],
    ["replace with a negative index", [{ op: "replace", path: "/a/-2", value: 7 }], { a: [7, 2], o: { k: "v", n: null }, s: "str" }],
    ["a negative index also works inside a path", [{ op: "add", path: "/a/-1", value: 3 }, { op: "add", path: "/x", value: [{ y: 1 }] }, { op: "replace", path: "/x/-1/y", value: 2 }], { a: [1, 2, 3], o: { k: "v", n: null }, s: "str", x: [{ y: 2 }] }],
    ["replace on a missing object key adds it", [{ op: "replace", path: "/o/k2", value: "w" }], { a: [1, 2], o: { k: "v", n: null, k2: "w" }, s: "str" }],
    ["replace of the whole document", [{ op: "replace", path: "", value: { b: 1 } }], { b: 1 }],
    ["replace of the whole document with an array", [{ op: "replace", path: "", value: [1] }, { op: "add", path: "/-", value: 2 }], [1, 2]],
    ["move an array element to an object key", [{ op: "move", from: "/a/0", path: "/o/first" }], { a: [2], o: { k: "v", n: null, first: 1 }, s: "str" }],
    ["move a null value", [{ op: "move", from: "/o/n", path: "/m" }], { a: [1, 2], o: { k: "v" }, s: "str", m: null }],
    ["copy deep-copies", [{ op: "copy", from: "/o", path: "/p" }, { op: "add", path: "/p/k", value: "changed" }], { a: [1, 2], o: { k: "v", n: null }, s: "str", p: { k: "changed", n: null } }],
    ["copy into an array position", [{ op: "copy", from: "/s", path: "/a/0" }], { a: ["str", 1, 2], o: { k: "v", n: null }, s: "str" }],
    ["copy of a missing key copies null", [{ op: "copy", from: "/o/none", path: "/c" }], { a: [1, 2], o: { k: "v", n: null }, s: "str", c: null }],
    ["~01 unescapes to ~1 (one pass)", [{ op: "add", path: "/o/~01", value: 1 }], { a: [1, 2], o: { k: "v", n: null, "~1": 1 }, s: "str" }],
    ["the first path segment is ignored when the path lacks a leading slash", [{ op: "add", path: "o/x", value: 1 }], { a: [1, 2], o: { k: "v", n: null }, s: "str", x: 1 }],
    ["__proto__ is an ordinary key", [{ op: "add", path: "/__proto__", value: 1 }], JSON.parse('{"a":[1,2],"o":{"k":"v","n":null},"s":"str","__proto__":1}') as JsonValue],
  ];
  test.each(ok)("%s", (_name, ops, want) => {
    expect(doc(applyJsonPatch(base(), ops))).toEqual(want);
  });

  const errs: Array<[string, JsonPatchOperation[], string]> = [
    ["unknown op", [{ op: "invalid", path: "/a" }], "Unexpected kind: invalid"],
    ["missing op", [{ path: "/a" }], "Unexpected kind: unknown"],
    ["empty op", [{ op: "", path: "/a" }], "Unexpected kind: "],
    ["add at the empty path", [{ op: "add", path: "", value: 1 }], 'add operation does not apply: doc is missing path: "": missing value'],
    ["add below a scalar", [{ op: "add", path: "/s/x", value: 1 }], 'add operation does not apply: doc is missing path: "/s/x": missing value'],
    ["add below a null", [{ op: "add", path: "/o/n/x", value: 1 }], 'add operation does not apply: doc is missing path: "/o/n/x": missing value'],
    ["add past the end", [{ op: "add", path: "/a/3", value: 1 }], "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index referenced"],
    ["add before the start", [{ op: "add", path: "/a/-4", value: 1 }], "error in add for path: '/a/-4': Unable to access invalid index: -4: invalid index referenced"],
    ["add at a non-numeric index", [{ op: "add", path: "/a/x", value: 1 }], `error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`],
    ["add at an index beyond int64", [{ op: "add", path: "/a/99999999999999999999", value: 1 }], `error in add for path: '/a/99999999999999999999': value was not a proper array index: '99999999999999999999': strconv.Atoi: parsing "99999999999999999999": value out of range`],
    ["add without a path", [{ op: "add", value: 1 }], "add operation failed to decode path: missing value"],
    ["remove a missing key", [{ op: "remove", path: "/o/none" }], "error in remove for path: '/o/none': Unable to remove nonexistent key: none: missing value"],
    ["remove -", [{ op: "remove", path: "/a/-" }], `error in remove for path: '/a/-': strconv.Atoi: parsing "-": invalid syntax`],
    ["remove out of range", [{ op: "remove", path: "/a/2" }], "error in remove for path: '/a/2': Unable to access invalid index: 2: invalid index referenced"],
    ["remove below the start", [{ op: "remove", path: "/a/-3" }], "error in remove for path: '/a/-3': Unable to access invalid index: -3: invalid index referenced"],
    ["remove under a missing parent", [{ op: "remove", path: "/x/y" }], 'remove operation does not apply: doc is missing path: "/x/y": missing value'],
    ["replace out of range", [{ op: "replace", path: "/a/2", value: 1 }], "replace operation does not apply: doc is missing key: /a/2: missing value"],
    ["replace under a missing parent", [{ op: "replace", path: "/x/y", value: 1 }], "replace operation does not apply: doc is missing path: /x/y: missing value"],
    ["replace the document with a scalar", [{ op: "replace", path: "", value: 1 }], "replace operation value must be object or array: %!w(<nil>)"],
    ["replace without a path", [{ op: "replace", value: 1 }], "replace operation failed to decode path: operation missing path field: missing value"],
    ["move from a missing key names only the key", [{ op: "move", from: "/o/none", path: "/x" }], "error in move for path: 'none': Unable to remove nonexistent key: none: missing value"],
    ["move from an out-of-range index", [{ op: "move", from: "/a/5", path: "/x" }], "error in move for path: '5': Unable to access invalid index: 5: invalid index referenced"],
    ["move from a missing parent", [{ op: "move", from: "/x/y", path: "/z" }], "move operation does not apply: doc is missing from path: /x/y: missing value"],
    ["move into its own child", [{ op: "move", from: "/o", path: "/o/k" }], "move operation does not apply: doc is missing destination path: /o/k: missing value"],
    ["move with an empty from (not sent by the apiserver)", [{ op: "move", from: "", path: "/x" }], "move operation failed to decode from: operation, missing from field: missing value"],
    ["copy without from", [{ op: "copy", path: "/x" }], "copy operation failed to decode from: operation, missing from field: missing value"],
    ["copy from an out-of-range index", [{ op: "copy", from: "/a/9", path: "/x" }], "error in copy for from: '/a/9': Unable to access invalid index: 9: invalid index referenced"],
    ["copy to a missing parent", [{ op: "copy", from: "/s", path: "/x/y" }], "copy operation does not apply: doc is missing destination path: /x/y: missing value"],
    ["copy to an invalid index", [{ op: "copy", from: "/s", path: "/a/7" }], "error while adding value during copy: Unable to access invalid index: 7: invalid index referenced"],
    ["test under a missing parent", [{ op: "test", path: "/x/y", value: 1 }], "test operation does not apply: is missing path: /x/y: missing value"],
    ["test at an out-of-range index", [{ op: "test", path: "/a/5", value: 1 }], "error in test for path: '/a/5': Unable to access invalid index: 5: invalid index referenced"],
    ["the first error stops the patch", [{ op: "add", path: "/z", value: 1 }, { op: "remove", path: "/none" }, { op: "add", path: "/y", value: 1 }], "error in remove for path: '/none': Unable to remove nonexistent key: none: missing value"],
  ];
  test.each(errs)("%s", (_name, ops, want) => {
    expect(applyJsonPatch(base(), ops)).toEqual({ ok: false, error: want });
  });

  const tests: Array<[string, JsonPatchOperation, boolean]> = [
    ["equal scalar", { op: "test", path: "/s", value: "str" }, true],
    ["number vs string", { op: "test", path: "/a/0", value: "1" }, false],
    ["1 equals 1.0 and 1n", { op: "test", path: "/a/0", value: 1n }, true],
    ["object key order is irrelevant", { op: "test", path: "/o", value: { n: null, k: "v" } }, true],
    ["object with an extra key", { op: "test", path: "/o", value: { k: "v" } }, false],
    ["array element-wise", { op: "test", path: "/a", value: [1, 2] }, true],
    ["array order matters", { op: "test", path: "/a", value: [2, 1] }, false],
    ["missing key without value passes", { op: "test", path: "/o/none" }, true],
    ["missing key with a value fails", { op: "test", path: "/o/none", value: "x" }, false],
    ["missing key tested against null fails", { op: "test", path: "/o/none", value: null }, false],
    ["null key without value passes", { op: "test", path: "/o/n" }, true],
    ["null key tested against null fails (the library sees a nil node)", { op: "test", path: "/o/n", value: null }, false],
    ["present key without value fails", { op: "test", path: "/s" }, false],
    ["whole document", { op: "test", path: "", value: { a: [1, 2], o: { k: "v", n: null }, s: "str", h: "a&b", hm: { k: "<x>" }, u: "é✓" } }, false],
    ["scalar against an object", { op: "test", path: "/s", value: { x: 1 } }, false],
    ["a string with an HTML-escaped character never equals (Go escapes the document, not the value)", { op: "test", path: "/h", value: "a&b" }, false],
    ["the same inside an object", { op: "test", path: "/hm", value: { k: "<x>" } }, false],
    ["non-ASCII compares by value", { op: "test", path: "/u", value: "é✓" }, true],
  ];
  const testDoc = (): JsonObject => ({ ...base(), h: "a&b", hm: { k: "<x>" }, u: "é✓" });
  test.each(tests)("test: %s", (_name, op, passes) => {
    const r = applyJsonPatch(testDoc(), [op]);
    if (passes) expect(r).toEqual({ ok: true, doc: testDoc() });
    else expect(r.ok).toBe("test-failed");
  });

  test("test: an empty object or array equals null at the top level (null decodes into them), but not nested", () => {
    const d: JsonObject = { e: {}, l: [], w: { e: {} } };
    expect(applyJsonPatch(d, [{ op: "test", path: "/e", value: null }]).ok).toBe(true);
    expect(applyJsonPatch(d, [{ op: "test", path: "/l", value: null }]).ok).toBe(true);
    expect(applyJsonPatch(d, [{ op: "test", path: "/w", value: { e: null } }]).ok).toBe("test-failed");
  });

  test("copy: the accumulated size counts Go's JSON encoding and is checked against the limit", () => {
    // "str" is 5 bytes, {"k":"v","n":null} is 18: 23 > 20.
    const r = applyJsonPatch(base(), [
      { op: "copy", from: "/s", path: "/c1" },
      { op: "copy", from: "/o", path: "/c2" },
    ], { accumulatedCopySizeLimit: 20 });
    expect(r).toEqual({ ok: false, error: "Unable to complete the copy, the accumulated size increase of copy is 23, exceeding the limit 20" });
    expect(applyJsonPatch(base(), [{ op: "copy", from: "/o", path: "/c2" }], { accumulatedCopySizeLimit: 18 }).ok).toBe(true);
    expect(goJsonSize({ h: "<&>", u: "é\u2028" })).toBe('{"h":"\\u003c\\u0026\\u003e","u":"é\\u2028"}'.length + 1);
  });

  test("copy: the default limit is 3 MiB", () => {
    const big = "x".repeat(1024 * 1024);
    const r = applyJsonPatch({ b: big }, [
      { op: "copy", from: "/b", path: "/c1" },
      { op: "copy", from: "/b", path: "/c2" },
      { op: "copy", from: "/b", path: "/c3" },
    ]);
    expect(r).toEqual({ ok: false, error: `Unable to complete the copy, the accumulated size increase of copy is ${3 * (1024 * 1024 + 2)}, exceeding the limit ${3 * 1024 * 1024}` });
    expect(applyJsonPatch({ b: big }, [{ op: "copy", from: "/b", path: "/c1" }, { op: "copy", from: "/b", path: "/c2" }]).ok).toBe(true);
  });

  test("bigint values keep their exact value", () => {
    const r = doc(applyJsonPatch({ n: 1 }, [{ op: "replace", path: "/n", value: 9223372036854775807n }]));
    expect(r).toEqual({ n: 9223372036854775807n });
  });

  test("a document that is not an object or array cannot be patched", () => {
    expect(applyJsonPatch("x", [])).toEqual({ ok: false, error: "json: cannot unmarshal string into Go value of type jsonpatch.partialDoc" });
  });
});

describe("JSON Patch: properties", () => {
  const json = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>;
  const obj = fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 5 }) as fc.Arbitrary<JsonObject>;
  const segment = fc.oneof(fc.constantFrom("0", "1", "-", "-1", "a", "k", ""), fc.string({ maxLength: 3 }));
  const path = fc.array(segment, { minLength: 0, maxLength: 3 }).map((p) => (p.length === 0 ? "" : `/${p.join("/")}`));
  const op: fc.Arbitrary<JsonPatchOperation> = fc.record(
    { op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "bogus"), path, from: path, value: json },
    { requiredKeys: ["op", "path"] },
  );

  test("never modifies the document or the patch", () => {
    fc.assert(
      fc.property(obj, fc.array(op, { maxLength: 6 }), (d, ops) => {
        const d0 = deepClone(d);
        const ops0 = structuredClone(ops);
        applyJsonPatch(d, ops);
        expect(d).toEqual(d0);
        expect(ops).toEqual(ops0);
      }),
    );
  });

  test("an empty patch is the identity; a result never aliases the input", () => {
    fc.assert(
      fc.property(obj, (d) => {
        const r = doc(applyJsonPatch(d, []));
        expect(r).toEqual(d);
        expect(r).not.toBe(d);
      }),
    );
  });

  test("testing any existing key against its own value passes (unless Go escapes a string in it) and changes nothing", () => {
    fc.assert(
      fc.property(obj.filter((d) => Object.values(d).some((v) => v !== null)), (d) => {
        for (const [k, v] of Object.entries(d)) {
          if (v === null) continue;
          const p = `/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`;
          // Strings Go's encoder HTML-escapes never compare equal (see topEqual).
          const escaped = JSON.stringify(v, (_k, x: unknown) => (typeof x === "string" && /[<>&\u2028\u2029]/.test(x) ? "\u0000ESCAPED" : x)).includes("\\u0000ESCAPED");
          if (escaped) expect(applyJsonPatch(d, [{ op: "test", path: p, value: v }]).ok).toBe("test-failed");
          else expect(applyJsonPatch(d, [{ op: "test", path: p, value: v }])).toEqual({ ok: true, doc: d });
        }
      }),
    );
  });

  test("add then remove of a new key restores the document", () => {
    fc.assert(
      fc.property(obj, json, (d, v) => {
        const key = "fresh-key-not-in-d";
        expect(doc(applyJsonPatch(d, [{ op: "add", path: `/${key}`, value: v }, { op: "remove", path: `/${key}` }]))).toEqual(d);
      }),
    );
  });
});
