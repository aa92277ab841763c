import { describe, expect, it } from "vitest";
import {
  FieldPath,
  OMIT,
  aggregateMessage,
  decodeErrorMessage,
  decoderPathString,
  duplicate,
  errorString,
  forbidden,
  formatLocation,
  goFloatV,
  goJSON,
  goQuote,
  internalError,
  invalid,
  invalidObjectMessage,
  notSupported,
  renderFieldError,
  required,
  tooLong,
  tooMany,
  typeInvalid,
  withSource,
} from "./index.js";

describe("FieldPath", () => {
  const cases: [string, FieldPath, string][] = [
    ["empty path", FieldPath.empty, ""],
    ["single field", FieldPath.root("spec"), "spec"],
    ["nested fields", FieldPath.root("spec", "matchConstraints", "resourceRules"), "spec.matchConstraints.resourceRules"],
    ["index then field", FieldPath.root("spec").child("mutations").index(1).child("expression"), "spec.mutations[1].expression"],
    ["map key unquoted", FieldPath.root("metadata", "labels").key("app.kubernetes.io/name"), "metadata.labels[app.kubernetes.io/name]"],
    ["index at root", FieldPath.empty.index(0).child("name"), "[0].name"],
    ["consecutive indices", FieldPath.root("a").index(0).index(2), "a[0][2]"],
  ];
  it.each(cases)("%s", (_name, path, want) => {
    expect(path.toString()).toBe(want);
  });

  it("is immutable: children do not change the parent", () => {
    const spec = FieldPath.root("spec");
    const a = spec.child("a");
    const b = spec.child("b");
    expect(spec.toString()).toBe("spec");
    expect(a.toString()).toBe("spec.a");
    expect(b.toString()).toBe("spec.b");
  });

  it("round-trips through segments", () => {
    const p = FieldPath.root("spec").child("x").index(3).key("k");
    expect(FieldPath.of(p.segments()).toString()).toBe(p.toString());
    expect(FieldPath.of(p.segments()).equals(p)).toBe(true);
    expect(p.parentPath.toString()).toBe("spec.x[3]");
  });

  it("decoder rendering joins map keys with dots", () => {
    expect(decoderPathString(FieldPath.root("spec", "services").key("web").child("port"))).toBe("spec.services.web.port");
    expect(decoderPathString(FieldPath.root("spec", "rules").index(6).child("x"))).toBe("spec.rules[6].x");
  });
});

describe("Go value printing", () => {
  const quotes: [string, string, string][] = [
    ["plain", "Merge", '"Merge"'],
    ["embedded quotes", '"not an object"', '"\\"not an object\\""'],
    ["newline and tab", "a\nb\tc", '"a\\nb\\tc"'],
    ["backslash", "a\\b", '"a\\\\b"'],
    ["control char as \\x", "a\x01b", '"a\\x01b"'],
    ["printable unicode kept", "héllo ✓", '"héllo ✓"'],
    ["non-printable unicode escaped", "a\u00a0b", '"a\\u00a0b"'],
    // Go's JSON decoder turns a lone surrogate into U+FFFD, which strconv.Quote prints as it is.
    ["lone surrogate as U+FFFD", "a\ud800b", '"a\ufffdb"'],
    ["astral and format characters", "\u{1F600}\u200b", '"\u{1F600}\\u200b"'],
  ];
  it.each(quotes)("goQuote: %s", (_n, input, want) => {
    expect(goQuote(input)).toBe(want);
  });

  const jsons: [string, unknown, string][] = [
    ["string list", ["*", "pods"], '["*","pods"]'],
    ["sorted keys", { b: 1, a: "x" }, '{"a":"x","b":1}'],
    ["html escaped", ["<a&b>"], '["\\u003ca\\u0026b\\u003e"]'],
    ["null", null, "null"],
    ["bigint", [10n], "[10]"],
  ];
  it.each(jsons)("goJSON: %s", (_n, input, want) => {
    expect(goJSON(input)).toBe(want);
  });
});

describe("FieldError rendering (apimachinery words)", () => {
  const p = FieldPath.root("spec");
  const cases: [string, ReturnType<typeof required>, string][] = [
    ["Required without detail", required(p.child("reinvocationPolicy")), "spec.reinvocationPolicy: Required value"],
    [
      "Required with detail",
      required(p.child("mutations"), "mutations must contain at least one item"),
      "spec.mutations: Required value: mutations must contain at least one item",
    ],
    [
      "NotSupported",
      notSupported(p.child("mutations").index(1).child("patchType"), "Merge", ["ApplyConfiguration", "JSONPatch"]),
      'spec.mutations[1].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"',
    ],
    [
      "Invalid with string value",
      invalid(p.child("x"), '"not an object"', "must evaluate to Object but got string"),
      'spec.x: Invalid value: "\\"not an object\\"": must evaluate to Object but got string',
    ],
    [
      "Invalid with list value (JSON)",
      invalid(p.child("resources"), ["*/*", "pods"], "if '*/*' is present, must not specify other resources"),
      `spec.resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`,
    ],
    ["Forbidden", forbidden(p.child("name"), "name and selector are mutually exclusive"), "spec.name: Forbidden: name and selector are mutually exclusive"],
    ["Duplicate", duplicate(p.child("matchConditions").index(1).child("name"), "a"), 'spec.matchConditions[1].name: Duplicate value: "a"'],
    ["TooMany", tooMany(p.child("matchConditions"), 65, 64), "spec.matchConditions: Too many: 65: must have at most 64 items"],
    ["TooMany singular, omitted value", tooMany(p.child("x"), -1, 1), "spec.x: Too many: must have at most 1 item"],
    ["TooLong omits the value", tooLong(p.child("x"), 262144), "spec.x: Too long: may not be more than 262144 bytes"],
    ["TypeInvalid", typeInvalid(p.child("x"), 3, "must be a string"), "spec.x: Invalid value: 3: must be a string"],
    ["Internal", internalError(p.child("x"), "variable composition is not allowed"), "spec.x: Internal error: variable composition is not allowed"],
    ["Invalid with omitted value", invalid(p.child("x"), OMIT, "bad"), "spec.x: Invalid value: bad"],
    ["boolean value", invalid(p.child("x"), true, "bad"), "spec.x: Invalid value: true: bad"],
  ];
  it.each(cases)("%s", (_n, err, want) => {
    expect(errorString(err)).toBe(want);
  });

  it("aggregate: one error printed bare", () => {
    expect(aggregateMessage([required(p.child("a"))])).toBe("spec.a: Required value");
  });
  it("aggregate: several errors in brackets, duplicates dropped", () => {
    const errs = [required(p.child("a")), required(p.child("b")), required(p.child("a"))];
    expect(aggregateMessage(errs)).toBe("[spec.a: Required value, spec.b: Required value]");
  });
  it("invalid object message, as the apiserver's 422", () => {
    expect(
      invalidObjectMessage("MutatingAdmissionPolicy.admissionregistration.k8s.io", "p", [
        required(p.child("reinvocationPolicy")),
        required(p.child("mutations"), "mutations must contain at least one item"),
      ]),
    ).toBe(
      'MutatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: [spec.reinvocationPolicy: Required value, spec.mutations: Required value: mutations must contain at least one item]',
    );
    expect(invalidObjectMessage("X.g", "n", [])).toBe('X.g "n" is invalid');
  });

  it("renders with a source (0-based document index) and optional position", () => {
    const err = withSource(notSupported(p.child("failurePolicy"), "Sometimes", ["Fail", "Ignore"]), {
      file: "policy.yaml",
      docIndex: 2,
    });
    expect(renderFieldError(err)).toBe(
      'policy.yaml#2: spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
    );
    expect(renderFieldError(err, { line: 14, column: 7 })).toBe(
      'policy.yaml:14:7 (#2): spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
    );
    expect(formatLocation({ file: "l.yaml", docIndex: 0, itemIndex: 3 })).toBe("l.yaml#0.items[3]");
  });
});

describe("decoding errors", () => {
  it("lists every unknown field after 'strict decoding error'", () => {
    const msg = decodeErrorMessage("MutatingAdmissionPolicy", "v1", [
      { kind: "unknownField", path: FieldPath.root("spec", "foo") },
      { kind: "unknownField", path: FieldPath.root("spec", "mutations").index(0).child("bar") },
    ]);
    expect(msg).toBe(
      'MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: strict decoding error: unknown field "spec.foo", unknown field "spec.mutations[0].bar"',
    );
  });
  it("reports a wrong type alone", () => {
    const msg = decodeErrorMessage("MutatingAdmissionPolicy", "v1", [
      { kind: "unknownField", path: FieldPath.root("spec", "foo") },
      {
        kind: "wrongType",
        path: FieldPath.root("spec", "mutations"),
        got: "string",
        expected: "[]v1.Mutation",
        goStruct: "MutatingAdmissionPolicySpec",
        goField: "spec.mutations",
      },
    ]);
    expect(msg).toBe(
      'MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: json: cannot unmarshal string into Go struct field MutatingAdmissionPolicySpec.spec.mutations of type []v1.Mutation',
    );
  });
});

describe("goFloatV", () => {
  it("prints a float64 as Go's fmt %v does", () => {
    // Expected: go1.26 `fmt.Printf("%v\n", f)` for each value.
    const cases: [number, string][] = [
      [0.00005, "5e-05"],
      [0.0001, "0.0001"],
      [1e21, "1e+21"],
      [123456789.0, "1.23456789e+08"],
      [1.5, "1.5"],
      [-0, "-0"],
      [NaN, "NaN"],
      [Infinity, "+Inf"],
      [1e20, "1e+20"],
    ];
    expect(cases.map(([f]) => goFloatV(f))).toEqual(cases.map(([, want]) => want));
  });
});
