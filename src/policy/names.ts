/**
 * Name and label syntax checks with apimachinery's messages
 * (`k8s.io/apimachinery/pkg/api/validate/content` and `pkg/util/validation`, v0.36.3).
 * Each function returns the list of problems (empty = valid), like the Go functions.
 */

/** `content.MaxLenError` (label keys and values: `validate/content`). */
export function maxLenError(length: number): string {
  return `must be no more than ${length} bytes`;
}

/**
 * `validation.MaxLenError` of `pkg/util/validation`, which the DNS name checks below use (object
 * names, API groups, kinds): the same byte count, but it says "characters" where
 * `content.MaxLenError` says "bytes".
 */
export function maxLenCharacters(length: number): string {
  return `must be no more than ${length} characters`;
}

/** `content.RegexError` (note Go's double space before " or " between examples). */
export function regexError(msg: string, re: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${re}')`;
  let out = msg + " (e.g. ";
  examples.forEach((ex, i) => {
    if (i > 0) out += " or ";
    out += `'${ex}', `;
  });
  return out + `regex used for validation is '${re}')`;
}

const encoder = new TextEncoder();
const utf8Length = (s: string): number => encoder.encode(s).length;

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/**
 * DNS name checks of `k8s.io/apimachinery/pkg/util/validation` (v0.36.3: `IsDNS1123Subdomain`,
 * `IsDNS1123Label`, `IsDNS1035Label`), which object names, container and port names, API groups
 * and kinds go through.
 */

/** `IsDNS1123Subdomain`: at most 253 bytes (said as "characters"), lowercase dotted labels. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 253) errs.push(maxLenCharacters(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

/** `IsDNS1123Label`. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxLenCharacters(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** `IsDNS1035Label`. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxLenCharacters(63));
  if (!DNS1035_LABEL_RE.test(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

/** `maskTrailingDash` (sic: drops the last *two* characters and appends `a`). */
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith("-")) return name.slice(0, name.length - 2) + "a";
  return name;
}

/** `NameIsDNSSubdomain(name, prefix)`: `prefix` is true for `generateName`. */
export function nameIsDNSSubdomain(name: string, prefix: boolean): string[] {
  return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
}

const LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_RE = new RegExp(`^${LABEL_KEY_FMT}$`);
const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** `IsQualifiedName` = `content.IsLabelKey`: `[prefix/]name`, name ≤ 63 bytes. */
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
    else for (const m of isDNS1123Subdomain(prefix)) errs.push("prefix part " + m);
  } else {
    return [
      "a valid label key " +
        regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc") +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (utf8Length(name) > 63) errs.push("name part " + maxLenError(63));
  if (!LABEL_KEY_RE.test(name)) errs.push("name part " + regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc"));
  return errs;
}

const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** `IsValidLabelValue` = `content.IsLabelValue`. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/** `content.IsPathSegmentName`: not `.`/`..`, no `/` or `%`. */
export function isPathSegmentName(name: string): string[] {
  for (const illegal of [".", ".."]) if (name === illegal) return [`may not be '${illegal}'`];
  const errs: string[] = [];
  for (const illegal of ["/", "%"]) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

const CEL_IDENT_RE = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
/** CEL reserved words (validation.go `celReserved`). */
export const CEL_RESERVED: ReadonlySet<string> = new Set([
  "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function",
  "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
]);

/** `isCELIdentifier`: `[_a-zA-Z][_a-zA-Z0-9]*` and not a reserved word. */
export function isCELIdentifier(name: string): boolean {
  return CEL_IDENT_RE.test(name) && !CEL_RESERVED.has(name);
}
