/**
 * TLS cipher suites by name: the IANA names Go and the Kubernetes `--tls-cipher-suites` flags use,
 * mapped to OpenSSL's (what Node takes), and the default set. Kept apart from tls.ts so the CLI
 * can document and check the flag without loading the server.
 */
/** TLS 1.3 suites (always offered; not configurable, as in Go). */
const TLS13_SUITES = ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"];

/** IANA (Go, Kubernetes `--tls-cipher-suites`) names of TLS 1.2 suites → OpenSSL names. */
const IANA_TO_OPENSSL: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
};

/** The default TLS 1.2 suites: forward-secret AEAD only (Go's and Gatekeeper's secure set). */
export const DEFAULT_CIPHER_SUITES: readonly string[] = [
  "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
  "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
];

const OPENSSL_NAMES = new Set(Object.values(IANA_TO_OPENSSL));

/** The OpenSSL cipher string for these suites (throws naming an unknown suite). */
export function cipherList(suites: readonly string[]): string {
  const out: string[] = [];
  for (const name of suites) {
    const n = name.trim();
    const o = IANA_TO_OPENSSL[n] ?? (OPENSSL_NAMES.has(n) ? n : undefined);
    if (o === undefined) throw new Error(`unknown TLS cipher suite ${JSON.stringify(n)}; known: ${Object.keys(IANA_TO_OPENSSL).join(", ")}`);
    if (!out.includes(o)) out.push(o);
  }
  return [...TLS13_SUITES, ...out].join(":");
}
