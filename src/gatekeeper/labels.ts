/**
 * Label selectors as Gatekeeper evaluates them: `metav1.LabelSelectorAsSelector` followed by
 * `Selector.Matches` (k8s.io/apimachinery v0.36.3), with the same validation errors.
 * Go iterates `matchLabels` in random order; we take keys sorted, so the first error is stable.
 */
import { goQuote } from "../diag/index.js";
import { byteCompare } from "./value.js";
import type { LabelSelector } from "./types.js";

const utf8 = new TextEncoder();
const byteLen = (s: string): number => utf8.encode(s).length;

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join("or ")}regex used for validation is '${fmt}')`;
}

const DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const KEY_RE = new RegExp(`^${KEY_FMT}$`);
const KEY_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const VALUE_FMT = `(${KEY_FMT})?`;
const VALUE_RE = new RegExp(`^${VALUE_FMT}$`);
const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (byteLen(v) > 253) errs.push("must be no more than 253 bytes");
  if (!DNS1123_SUBDOMAIN_RE.test(v)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN, "example.com"));
  return errs;
}

/** `content.IsLabelKey`. */
export function labelKeyErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    name = parts[1]!;
    if (parts[0]!.length === 0) errs.push("prefix part must be non-empty");
    else for (const m of isDNS1123Subdomain(parts[0]!)) errs.push("prefix part " + m);
  } else {
    return [
      "a valid label key " +
        regexError(KEY_MSG, KEY_FMT, "MyName", "my.name", "123-abc") +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (byteLen(name) > 63) errs.push("name part must be no more than 63 bytes");
  if (!KEY_RE.test(name)) errs.push("name part " + regexError(KEY_MSG, KEY_FMT, "MyName", "my.name", "123-abc"));
  return errs;
}

/** `validation.IsValidLabelValue`. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLen(value) > 63) errs.push("must be no more than 63 bytes");
  if (!VALUE_RE.test(value)) errs.push(regexError(VALUE_MSG, VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

type Op = "In" | "NotIn" | "Exists" | "DoesNotExist" | "Equals";
interface Requirement {
  readonly key: string;
  readonly op: Op;
  readonly values: readonly string[];
}

/** Go's `%v`/JSON-ish rendering of a `[]string` bad value in a field.Invalid: `[]string{"a"}` prints as `["a"]`. */
function stringsJSON(vs: readonly string[]): string {
  return "[" + vs.map((v) => JSON.stringify(v)).join(",") + "]";
}

/** `labels.NewRequirement` validation: the aggregated error text, or undefined. */
function requirementError(key: string, op: Op, values: readonly string[]): string | undefined {
  const errs: string[] = [];
  const ke = labelKeyErrors(key);
  if (ke.length > 0) errs.push(`key: Invalid value: ${goQuote(key)}: ${ke.join("; ")}`);
  if ((op === "In" || op === "NotIn") && values.length === 0) {
    errs.push(`values: Invalid value: ${values.length === 0 ? "null" : stringsJSON(values)}: for 'in', 'notin' operators, values set can't be empty`);
  }
  if (op === "Equals" && values.length !== 1) {
    errs.push(`values: Invalid value: ${stringsJSON(values)}: exact-match compatibility requires one single value`);
  }
  if ((op === "Exists" || op === "DoesNotExist") && values.length !== 0) {
    errs.push(`values: Invalid value: ${stringsJSON(values)}: values set must be empty for exists and does not exist`);
  }
  values.forEach((v, i) => {
    const ve = labelValueErrors(v);
    if (ve.length > 0) errs.push(`values[${i}][${key}]: Invalid value: ${goQuote(v)}: ${ve.join("; ")}`);
  });
  if (errs.length === 0) return undefined;
  return errs.length === 1 ? errs[0] : "[" + errs.join(", ") + "]";
}

export type CompiledSelector = { readonly everything: true } | { readonly everything: false; readonly reqs: readonly Requirement[] };

/** `metav1.LabelSelectorAsSelector`; throws an Error with apimachinery's text. */
export function compileSelector(sel: LabelSelector): CompiledSelector {
  const ml = sel.matchLabels ?? {};
  const me = sel.matchExpressions ?? [];
  if (Object.keys(ml).length + me.length === 0) return { everything: true };
  const reqs: Requirement[] = [];
  for (const k of Object.keys(ml).sort(byteCompare)) {
    const err = requirementError(k, "Equals", [ml[k]!]);
    if (err !== undefined) throw new Error(err);
    reqs.push({ key: k, op: "Equals", values: [ml[k]!] });
  }
  for (const e of me) {
    if (e.operator !== "In" && e.operator !== "NotIn" && e.operator !== "Exists" && e.operator !== "DoesNotExist") {
      throw new Error(`${goQuote(e.operator)} is not a valid label selector operator`);
    }
    const vals = e.values ?? [];
    const err = requirementError(e.key, e.operator, vals);
    if (err !== undefined) throw new Error(err);
    reqs.push({ key: e.key, op: e.operator, values: vals });
  }
  return { everything: false, reqs };
}

export function selectorMatches(sel: CompiledSelector, labels: Readonly<Record<string, string>>): boolean {
  if (sel.everything) return true;
  return sel.reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    switch (r.op) {
      case "In":
      case "Equals":
        return has && r.values.includes(labels[r.key]!);
      case "NotIn":
        return !has || !r.values.includes(labels[r.key]!);
      case "Exists":
        return has;
      case "DoesNotExist":
        return !has;
    }
  });
}
