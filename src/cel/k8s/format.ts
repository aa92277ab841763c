/**
 * The Kubernetes format library (`kubernetes.format`, Kubernetes 1.31+), as
 * `k8s.io/apiserver/pkg/cel/library/format.go` declares it:
 *
 * - `format.dns1123Label()`, `format.dns1123Subdomain()`, `format.dns1035Label()`,
 *   `format.qualifiedName()`, `format.dns1123LabelPrefix()`,
 *   `format.dns1123SubdomainPrefix()`, `format.dns1035LabelPrefix()`,
 *   `format.labelValue()`, `format.uri()`, `format.uuid()`, `format.byte()`,
 *   `format.date()`, `format.datetime()`: constant `kubernetes.NamedFormat` values;
 * - `format.named(name)`: the format of that key (`"dns1123Label"`, …) or `optional.none()`;
 * - `Format.validate(s)`: `optional.none()` when `s` is valid, else
 *   `optional.of(list of messages)` with apimachinery's validation messages.
 *
 * Validators (apimachinery v0.36, kube-openapi strfmt):
 * - DNS labels/subdomains/1035 labels: `k8s.io/apimachinery/pkg/util/validation`
 *   (length errors say "characters"; lengths are UTF-8 bytes). The `…Prefix`
 *   variants first apply `maskTrailingDash`, which replaces the LAST TWO bytes
 *   of a name ending in `-` by `a` (sic).
 * - `qualifiedName` and `labelValue`: `k8s.io/apimachinery/pkg/api/validate/content`
 *   (length errors say "bytes").
 * - `uri`: `url.ParseRequestURI`'s error text; `uuid`, `byte`, `date`,
 *   `datetime`: strfmt's checks, with the messages "does not match the UUID
 *   format", "invalid base64", "invalid date", "invalid datetime".
 *
 * Formats compare equal when their names are equal.
 */
import { func, memberOverload, overload, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { compileRegex } from "../std/strings.js";
import { STRING, listType, opaqueType, optionalType } from "../types.js";
import { CelObject, CelOptional, type CelValue } from "../values.js";
import {
  FIXED_1,
  STRING_TRAVERSAL_COST_FACTOR,
  UNKNOWN_SIZE,
  actualSize,
  multiplyByCostFactor,
  scaleRange,
  type CostEntry,
} from "./cost-model.js";
import { GoURLError, parseRequestURI } from "./go-url.js";

export const FORMAT_TYPE = opaqueType("kubernetes.NamedFormat");

/** `apiservercel.Format`. */
export class CelFormat extends CelObject {
  override readonly celType = FORMAT_TYPE;
  constructor(
    readonly name: string,
    readonly validateFunc: (s: string) => string[],
    readonly maxRegexSize: number,
  ) {
    super();
  }
  /** Go `Format.Equal`: another type is "no such overload". */
  override equals(other: CelValue): boolean {
    if (!(other instanceof CelFormat)) throw new CelEvalError("no such overload");
    return this.name === other.name;
  }
}

// ---------------------------------------------------------------------------
// apimachinery validation

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const byteLength = (s: string): number => encoder.encode(s).length;
/** Go `regexp.MatchString` with an RE2 pattern (never JavaScript RegExp). */
const matches = (pattern: string, s: string): boolean => compileRegex(pattern).test(s);

/** validation.go `MaxLenError` ("characters"). */
const maxLenChars = (n: number): string => `must be no more than ${n} characters`;
/** content/errors.go `MaxLenError` ("bytes"). */
const maxLenBytes = (n: number): string => `must be no more than ${n} bytes`;

/** `RegexError` (identical in validation.go and content/errors.go). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = msg + " (e.g. ";
  examples.forEach((e, i) => {
    if (i > 0) out += " or ";
    out += `'${e}', `;
  });
  return out + `regex used for validation is '${fmt}')`;
}

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** A name to validate: its text and its length in UTF-8 bytes (they differ after byte-wise masking). */
interface Name {
  readonly text: string;
  readonly bytes: number;
}
const nameOf = (s: string): Name => ({ text: s, bytes: byteLength(s) });

/** generic.go `maskTrailingDash`: `name[:len(name)-2] + "a"` on bytes when the name ends in "-". */
function maskTrailingDash(s: string): Name {
  const b = encoder.encode(s);
  if (b.length > 1 && s.endsWith("-")) {
    const masked = new Uint8Array(b.length - 1);
    masked.set(b.subarray(0, b.length - 2));
    masked[b.length - 2] = 0x61;
    // A cut through a multi-byte character leaves bytes that can never match the ASCII patterns.
    return { text: decoder.decode(masked), bytes: masked.length };
  }
  return nameOf(s);
}

function isDNS1123Label(v: Name): string[] {
  const errs: string[] = [];
  if (v.bytes > 63) errs.push(maxLenChars(63));
  if (!matches(`^${DNS1123_LABEL_FMT}$`, v.text)) {
    if (matches(`^${DNS1123_SUBDOMAIN_FMT}$`, v.text)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

function isDNS1123Subdomain(v: Name, maxLen: (n: number) => string = maxLenChars): string[] {
  const errs: string[] = [];
  if (v.bytes > 253) errs.push(maxLen(253));
  if (!matches(`^${DNS1123_SUBDOMAIN_FMT}$`, v.text)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

function isDNS1035Label(v: Name): string[] {
  const errs: string[] = [];
  if (v.bytes > 63) errs.push(maxLenChars(63));
  if (!matches(`^${DNS1035_LABEL_FMT}$`, v.text)) errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

const LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_ERR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** content.IsLabelKey (= validation.IsQualifiedName). */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else errs.push(...isDNS1123Subdomain(nameOf(prefix), maxLenBytes).map((m) => "prefix part " + m));
  } else {
    return [
      "a valid label key " +
        regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc") +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (byteLength(name) > 63) errs.push("name part " + maxLenBytes(63));
  if (!matches(`^${LABEL_KEY_FMT}$`, name)) errs.push("name part " + regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc"));
  return errs;
}

/** content.IsLabelValue (= validation.IsValidLabelValue). */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenBytes(63));
  if (!matches(`^${LABEL_VALUE_FMT}$`, value)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

// ---------------------------------------------------------------------------
// kube-openapi strfmt

export const UUID_PATTERN = "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
const BASE64_PATTERN = "^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$";
export const DATE_TIME_PATTERN = "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$";

const isDigits = (s: string): boolean => /^[0-9]+$/.test(s);

/** strfmt `IsDate`: Go `time.Parse("2006-01-02", s)` succeeds. */
export function isDate(s: string): boolean {
  if (s.length < 10) return false;
  const y = s.slice(0, 4);
  if (!isDigits(y)) return false;
  if (s[4] !== "-" || s[7] !== "-" || s.length !== 10) return false;
  const mm = s.slice(5, 7);
  const dd = s.slice(8, 10);
  if (!isDigits(mm) || !isDigits(dd)) return false;
  const year = Number(y);
  const month = Number(mm);
  const day = Number(dd);
  if (month < 1 || month > 12) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day >= 1 && day <= days;
}

/** strfmt `IsDateTime`. */
export function isDateTime(str: string): boolean {
  if (byteLength(str) < 4) return false;
  const s = str.toLowerCase().split("t");
  if (s.length < 2 || !isDate(s[0]!)) return false;
  const t = s[1]!;
  if (!matches(DATE_TIME_PATTERN, t)) return false;
  // The pattern fixes the first three groups at "HH:MM:SS".
  return t.slice(0, 2) <= "23" && t.slice(3, 5) <= "59" && t.slice(6, 8) <= "59";
}

// ---------------------------------------------------------------------------
// The formats

const BASE64_LENGTH = 84;
const URL_LENGTH = 1103;

const FORMATS: ReadonlyMap<string, CelFormat> = new Map(
  (
    [
      ["dns1123Label", "DNS1123Label", (s: string) => isDNS1123Label(nameOf(s)), 30],
      ["dns1123Subdomain", "DNS1123Subdomain", (s: string) => isDNS1123Subdomain(nameOf(s)), 60],
      ["dns1035Label", "DNS1035Label", (s: string) => isDNS1035Label(nameOf(s)), 30],
      ["qualifiedName", "QualifiedName", isQualifiedName, 60],
      ["dns1123LabelPrefix", "DNS1123LabelPrefix", (s: string) => isDNS1123Label(maskTrailingDash(s)), 30],
      ["dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", (s: string) => isDNS1123Subdomain(maskTrailingDash(s)), 60],
      ["dns1035LabelPrefix", "DNS1035LabelPrefix", (s: string) => isDNS1035Label(maskTrailingDash(s)), 30],
      ["labelValue", "LabelValue", isValidLabelValue, 40],
      [
        "uri",
        "URI",
        (s: string) => {
          try {
            parseRequestURI(s);
            return [];
          } catch (e) {
            if (e instanceof GoURLError) return [e.message];
            throw e;
          }
        },
        URL_LENGTH,
      ],
      ["uuid", "uuid", (s: string) => (matches(UUID_PATTERN, s) ? [] : ["does not match the UUID format"]), UUID_PATTERN.length],
      ["byte", "byte", (s: string) => (matches(BASE64_PATTERN, s) ? [] : ["invalid base64"]), BASE64_LENGTH],
      ["date", "date", (s: string) => (isDate(s) ? [] : ["invalid date"]), DATE_TIME_PATTERN.length],
      ["datetime", "datetime", (s: string) => (isDateTime(s) ? [] : ["invalid datetime"]), DATE_TIME_PATTERN.length],
    ] as const
  ).map(([key, name, validate, size]) => [key, new CelFormat(name, validate, size)]),
);

/** The format `format.<key>()` returns, or undefined. */
export function namedFormat(key: string): CelFormat | undefined {
  return FORMATS.get(key);
}

export function formatValidate(f: CelFormat, s: string): CelOptional {
  const errs = f.validateFunc(s);
  return errs.length === 0 ? CelOptional.NONE : CelOptional.of(errs);
}

const F = FORMAT_TYPE;

export const FORMAT_LIBRARY: Library = {
  name: "kubernetes.format",
  /** Cost rules for the estimator and run-time tracking (`cost` below; a getter, as it is defined later). */
  get costs() {
    return cost;
  },
  functions: [
    func("validate", memberOverload("format-validate", [F, STRING], optionalType(listType(STRING)), formatValidate)),
    func(
      "format.named",
      overload("format-named", [STRING], optionalType(F), (name: string) => {
        const f = FORMATS.get(name);
        return f === undefined ? CelOptional.NONE : CelOptional.of(f);
      }),
    ),
    ...[...FORMATS].map(([key, f]) => func(`format.${key}`, overload(`format.${key}`, [], F, () => f))),
  ],
};

// ---------------------------------------------------------------------------
// Cost (k8s.io/apiserver pkg/cel/library/cost.go), for the cost estimator.

/** cel-go `common.RegexStringLengthCostFactor`. */
const REGEX_FACTOR = 0.25;
/** apiserver `cel.MaxNameFormatRegexSize`. */
export const MAX_NAME_FORMAT_REGEX_SIZE = 128;
/** apiserver `cel.MaxFormatSize`. */
export const MAX_FORMAT_SIZE = 64;

/**
 * Cost by overload id. The `format.<key>` constants are not in cost.go (cel-go default 1).
 * `_==_` on two formats: runtime 1, estimate [1, 64] × 0.1.
 */
export const cost: Readonly<Record<string, CostEntry>> = {
  "format-validate": {
    function: "validate",
    estimate: (args) =>
      scaleRange(scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_FACTOR),
    actual: (args) => {
      const f = args[0];
      if (!(f instanceof CelFormat)) return 1n;
      return (
        multiplyByCostFactor(1n + actualSize(args[1]), STRING_TRAVERSAL_COST_FACTOR) *
        multiplyByCostFactor(BigInt(f.maxRegexSize), REGEX_FACTOR)
      );
    },
    note: "ceil((1 + size(s)) × 0.1) × ceil(format.MaxRegexSize × 0.25); estimate size(s) × 0.1 × (128 × 0.25)",
  },
  "format-named": { function: "format.named", estimate: () => FIXED_1, actual: () => 1n, note: "1" },
  equals_format: {
    function: "_==_",
    estimate: () => scaleRange({ min: 1n, max: BigInt(MAX_FORMAT_SIZE) }, STRING_TRAVERSAL_COST_FACTOR),
    actual: () => 1n,
    note: "runtime 1; estimate [1, 64] × 0.1",
  },
};
