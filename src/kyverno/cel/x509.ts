/**
 * Kyverno's x509 library (`kyverno.x509`, kyverno/sdk `extensions/cel/libs/x509`):
 * `x509.decode(string) → dyn` decodes the first PEM block, a `CERTIFICATE` or
 * `CERTIFICATE REQUEST` with an RSA key, into Go's `x509.Certificate` /
 * `x509.CertificateRequest` JSON (Go field names; see `x509-decode.ts`).
 * Errors: `failed to decode PEM block`, `certificate should use rsa algorithm`,
 * `PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST`, and the
 * DER parser's.
 */
import { func, overload, type Library } from "../../cel/decls.js";
import { DYN, STRING } from "../../cel/types.js";
import { decodePem } from "./x509-decode.js";
import { fromGoJson } from "./common.js";

export const X509_LIBRARY: Library = {
  name: "kyverno.x509",
  functions: [func("x509.decode", overload("x509_decode_string", [STRING], DYN, (pem: string) => fromGoJson(decodePem(pem))))],
};
