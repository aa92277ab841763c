/**
 * Serving certificate, key and optional client CA: read from files, checked, and hot-reloaded on
 * change (`server.setSecureContext`) without dropping connections. A bad update (unreadable file,
 * key not matching the certificate, a half-written pair during rotation) keeps the previous
 * context; the next change event tries again. TLS 1.2 is the minimum.
 */
import { readFileSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { X509Certificate } from "node:crypto";
import { createSecureContext, type SecureContextOptions } from "node:tls";

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** When set, clients must present a certificate signed by this CA. */
  readonly clientCaFile?: string;
}

export interface TlsMaterial {
  readonly options: SecureContextOptions;
  /** notAfter of the leaf certificate (ms since epoch). */
  readonly notAfter: number;
  readonly subject: string;
}

export const MIN_TLS_VERSION = "TLSv1.2" as const;

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
    minVersion: MIN_TLS_VERSION,
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
