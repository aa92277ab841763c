/**
 * DNS name checks of `k8s.io/apimachinery/pkg/util/validation` (v0.36.3), which object names,
 * container names, port names and the like go through. They say "characters" where the
 * `validate/content` variants used for label keys (src/policy/names.ts) say "bytes".
 */
import { regexError } from "../../policy/names.js";
import { byteLength } from "./values.js";

const LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const SUBDOMAIN = `${LABEL}(\\.${LABEL})*`;
const LABEL_RE = new RegExp(`^${LABEL}$`);
const SUBDOMAIN_RE = new RegExp(`^${SUBDOMAIN}$`);
const DNS1035 = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_RE = new RegExp(`^${DNS1035}$`);

/** `validation.MaxLenError`. */
export function maxLenCharacters(n: number): string {
  return `must be no more than ${n} characters`;
}


export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenCharacters(63));
  if (!LABEL_RE.test(value)) {
    if (SUBDOMAIN_RE.test(value)) errs.push("must not contain dots");
    else errs.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", LABEL, "my-name", "123-abc"));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenCharacters(253));
  if (!SUBDOMAIN_RE.test(value)) errs.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", SUBDOMAIN, "example.com"));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenCharacters(63));
  if (!DNS1035_RE.test(value)) errs.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035, "my-name", "abc-123"));
  return errs;
}
