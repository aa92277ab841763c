/**
 * Serving certificate, key and optional client CA: read from files, checked, and hot-reloaded on
 * change (`server.setSecureContext`) without dropping connections. A bad update (unreadable file,
 * key not matching the certificate, a half-written pair during rotation) keeps the previous
 * context; the next change event tries again.
 *
 * Protocol and suites as Gatekeeper and the Kubernetes components set them: TLS 1.2 minimum (1.3
 * offered), and for TLS 1.2 only forward-secret AEAD suites (ECDHE with AES-GCM or
 * ChaCha20-Poly1305) unless `--tls-cipher-suites` names others; `--tls-min-version 1.3` drops 1.2.
 * Suites are named as Go and the Kubernetes flags name them (IANA: `TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`)
 * or as OpenSSL does (`ECDHE-RSA-AES128-GCM-SHA256`).
 */
import { readFileSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { X509Certificate } from "node:crypto";
import { createSecureContext, type SecureContextOptions } from "node:tls";
import { cipherList, DEFAULT_CIPHER_SUITES } from "./tls-suites.js";

export { cipherList, DEFAULT_CIPHER_SUITES } from "./tls-suites.js";

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** When set, clients must present a certificate signed by this CA. */
  readonly clientCaFile?: string;
  /** Lowest protocol version: "1.2" (default) or "1.3". */
  readonly minVersion?: "1.2" | "1.3";
  /** TLS 1.2 cipher suites (IANA or OpenSSL names); default {@link DEFAULT_CIPHER_SUITES}. */
  readonly cipherSuites?: readonly string[];
}

export interface TlsMaterial {
  readonly options: SecureContextOptions;
  /** notAfter of the leaf certificate (ms since epoch). */
  readonly notAfter: number;
  readonly subject: string;
}

export const MIN_TLS_VERSION = "TLSv1.2" as const;

/** The protocol options of these settings (min version, suites), checked. */
export function protocolOptions(files: Pick<TlsFiles, "minVersion" | "cipherSuites">): Pick<SecureContextOptions, "minVersion" | "ciphers" | "honorCipherOrder"> {
  const min = files.minVersion ?? "1.2";
  if (min !== "1.2" && min !== "1.3") throw new Error(`unsupported TLS minimum version ${JSON.stringify(min)}: use 1.2 or 1.3`);
  return { minVersion: min === "1.3" ? "TLSv1.3" : MIN_TLS_VERSION, ciphers: cipherList(files.cipherSuites ?? DEFAULT_CIPHER_SUITES), honorCipherOrder: true };
}

/** Reads and checks the files (throws with a message naming the file when they are not usable). */
export function readTlsMaterial(files: TlsFiles): TlsMaterial {
  const read = (f: string): Buffer => {
    try {
      return readFileSync(f);
    } catch (e) {
      throw new Error(`${f}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const cert = read(files.certFile);
  const key = read(files.keyFile);
  const ca = files.clientCaFile !== undefined ? read(files.clientCaFile) : undefined;
  const options: SecureContextOptions = {
    cert,
    key,
    ...protocolOptions(files),
    ...(ca !== undefined ? { ca } : {}),
  };
  // Throws on a key that does not match the certificate, or unparsable PEM.
  createSecureContext(options);
  let notAfter = Number.NaN;
  let subject = "";
  try {
    const x = new X509Certificate(cert);
    notAfter = Date.parse(x.validTo);
    subject = x.subject;
  } catch (e) {
    throw new Error(`${files.certFile}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { options, notAfter, subject };
}

/** Watches the TLS files (through their directories, for rename-based rotation and Secret volumes). */
export function watchTlsFiles(files: TlsFiles, onChange: () => void, debounceMs = 300): () => void {
  const paths = [files.certFile, files.keyFile, ...(files.clientCaFile !== undefined ? [files.clientCaFile] : [])].map((p) => resolve(p));
  const byDir = new Map<string, Set<string>>();
  for (const p of paths) {
    const d = dirname(p);
    if (!byDir.has(d)) byDir.set(d, new Set());
    byDir.get(d)!.add(basename(p));
  }
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      onChange();
    }, debounceMs);
    timer.unref();
  };
  const watchers: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    try {
      const w = watch(dir, { persistent: false }, (_e, filename) => {
        if (filename === null || names.has(String(filename)) || String(filename).startsWith("..")) schedule();
      });
      w.on("error", () => w.close());
      watchers.push(w);
    } catch {
      // Unwatchable directory: no hot reload for these files.
    }
  }
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}
