import { describe, expect, it } from "vitest";
import { OPTIONAL_LIBRARY } from "../ext/optionals.js";
import { CelOptional } from "../values.js";
import { outcome, k8sEnv, type Outcome } from "./test-harness.js";
import { FORMAT_LIBRARY, cost, isDate, isDateTime, namedFormat } from "./format.js";

const env = k8sEnv([OPTIONAL_LIBRARY, FORMAT_LIBRARY]);
const v = (value: unknown): Outcome => ({ value: value as never });
const none = v(CelOptional.NONE);
const errs = (...messages: string[]): Outcome => v(CelOptional.of(messages));

const LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_ERR =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const KEYS = [
  "dns1123Label",
  "dns1123Subdomain",
  "dns1035Label",
  "qualifiedName",
  "dns1123LabelPrefix",
  "dns1123SubdomainPrefix",
  "dns1035LabelPrefix",
  "labelValue",
  "uri",
  "uuid",
  "byte",
  "date",
  "datetime",
];

// Expected values from k8s.io/apiserver pkg/cel/library/format_test.go (TestFormat).
describe("format library (Kubernetes TestFormat)", () => {
  it.each<[string, Outcome]>([
    [`format.dns1123Label().validate("my-label-name")`, none],
    [`format.dns1123Subdomain().validate("apiextensions.k8s.io")`, none],
    [`format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")`, none],
    [`format.dns1123LabelPrefix().validate("my-label-prefix-")`, none],
    [`format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")`, none],
    [`format.dns1035LabelPrefix().validate("my-label-prefix-")`, none],
    [`format.uri().validate("http://example.com")`, none],
    [`format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")`, none],
    [`format.byte().validate("aGVsbG8=")`, none],
    [`format.date().validate("2021-01-01")`, none],
    [`format.datetime().validate("2021-01-01T00:00:00Z")`, none],
    [`format.dns1123Label().validate("contains a space")`, errs(LABEL_ERR)],
    [`format.dns1123Subdomain().validate("contains a space")`, errs(SUBDOMAIN_ERR)],
    [`format.dns1035Label().validate("contains a space")`, errs(DNS1035_ERR)],
    [`format.qualifiedName().validate("contains a space")`, errs(NAME_PART_ERR)],
    [`format.dns1123LabelPrefix().validate("contains a space-")`, errs(LABEL_ERR)],
    [`format.dns1123SubdomainPrefix().validate("contains a space-")`, errs(SUBDOMAIN_ERR)],
    [`format.dns1035LabelPrefix().validate("contains a space-")`, errs(DNS1035_ERR)],
    [`format.dns1123Label().validate("my-label-name")`, none],
    [`format.dns1123Subdomain().validate("example.com")`, none],
    [`format.dns1035Label().validate("my-label-name")`, none],
    [`format.qualifiedName().validate("my.name")`, none],
    [`format.byte().validate("aGVsbG8")`, errs("invalid base64")],
    [`format.date().validate("2020-01-01")`, none],
    [`format.date().validate("2020-01-32")`, errs("invalid date")],
    [`format.datetime().validate("2020-01-01T00:00:00Z")`, none],
    [`format.datetime().validate("2020-01-32T00:00:00Z")`, errs("invalid datetime")],
    [`format.named("unknown").hasValue()`, v(false)],
    [`format.labelValue().validate("my-cool-label-Value")`, none],
    [`format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")`, errs(LABEL_VALUE_ERR)],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr)).toEqual(want);
  });

  it.each(KEYS)("format.named(%j) is the constant of that name", (key) => {
    expect(outcome(env, `format.named("${key}").hasValue()`)).toEqual(v(true));
    expect(outcome(env, `format.named("${key}").value() == format.${key}()`)).toEqual(v(true));
    for (const other of KEYS) {
      if (other !== key) expect(outcome(env, `format.${key}() == format.${other}()`)).toEqual(v(false));
    }
  });
});

describe("format library (apimachinery details)", () => {
  it.each<[string, Outcome]>([
    [`format.dns1123Label().validate("a.b")`, errs("must not contain dots")],
    [`format.dns1123Label().validate("${"a".repeat(64)}")`, errs("must be no more than 63 characters")],
    [`format.dns1123Subdomain().validate("${"a".repeat(254)}")`, errs("must be no more than 253 characters")],
    [`format.labelValue().validate("${"a".repeat(64)}")`, errs("must be no more than 63 bytes")],
    [`format.labelValue().validate("")`, none],
    [`format.qualifiedName().validate("example.com/${"a".repeat(64)}")`, errs("name part must be no more than 63 bytes")],
    [`format.qualifiedName().validate("/a")`, errs("prefix part must be non-empty")],
    [`format.qualifiedName().validate("")`, errs("name part must be non-empty", NAME_PART_ERR)],
    [`format.qualifiedName().validate("Example.com/a")`, errs("prefix part " + SUBDOMAIN_ERR)],
    [
      `format.qualifiedName().validate("a/b/c")`,
      errs(
        "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ),
    ],
    // maskTrailingDash replaces the last TWO bytes by "a": "ab-" checks "aa", "a.-" checks "aa" too.
    [`format.dns1123LabelPrefix().validate("a.-")`, none],
    [`format.dns1035LabelPrefix().validate("1-")`, none],
    [`format.dns1123LabelPrefix().validate("-")`, errs(LABEL_ERR)],
    [`format.dns1123LabelPrefix().validate("aé-")`, errs(LABEL_ERR)],
    [`format.uri().validate("relative/path")`, errs('parse "relative/path": invalid URI for request')],
    [`format.uri().validate("")`, errs('parse "": empty url')],
    [`format.uuid().validate("123E4567E89B12D3A456426614174000")`, none],
    [`format.uuid().validate("123e4567-e89b-12d3-a456-42661417400")`, errs("does not match the UUID format")],
    [`format.byte().validate("")`, errs("invalid base64")],
    [`format.date().validate("2024-02-29")`, none],
    [`format.date().validate("2023-02-29")`, errs("invalid date")],
    [`format.datetime().validate("2021-01-01t23:59:59.123+05:30")`, none],
    [`format.datetime().validate("2021-01-01T24:00:00Z")`, errs("invalid datetime")],
    [`format.named("dns1123Label").value().validate("ok")`, none],
    [`format.named("DNS1123Label")`, v(CelOptional.NONE)],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr)).toEqual(want);
  });

  it.each([`format.dns1123Label().validate(1)`, `format.named(1)`, `format.dns1123Label(1)`, `"x".validate("y")`, `format.unknown()`])(
    "rejects %s at compile time",
    (expr) => {
      expect(outcome(env, expr)).toHaveProperty("compileError");
    },
  );

  it("follows strfmt's date and datetime checks", () => {
    expect(isDate("0000-01-01")).toBe(true);
    expect(isDate("2021-1-01")).toBe(false);
    expect(isDate("2021-01-01 ")).toBe(false);
    expect(isDateTime("2021-01-01T10:00:00Zt")).toBe(true); // only the part before a second "t" is checked
    expect(isDateTime("2021-01-01T10:00:00")).toBe(false);
    expect(isDateTime("2021-01-01T10:00:00x5Z")).toBe(true); // "." in strfmt's pattern is any character
  });

  it("has the type kubernetes.NamedFormat and costs by regex size", () => {
    const o = outcome(env, `type(format.uri())`) as { value: { name: string } };
    expect(o.value.name).toBe("kubernetes.NamedFormat");
    // ceil((1 + 13) × 0.1) × ceil(30 × 0.25) = 2 × 8
    expect(cost["format-validate"]!.actual([namedFormat("dns1123Label")!, "my-label-name"])).toBe(16n);
    expect(cost["format-validate"]!.estimate([{ min: 0n, max: 10n }])).toEqual({ min: 0n, max: 32n });
  });
});
