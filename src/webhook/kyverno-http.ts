/**
 * A live, **synchronous** {@link HttpProvider} for `http.Get/Post` (webhook mode): CEL evaluation
 * cannot await, so each call is handed to a worker thread that does the HTTP(S) request while the
 * calling thread waits on a `SharedArrayBuffer` with `Atomics.wait`.
 *
 * Consequences (documented in the webhook README): a call **blocks the calling thread's event
 * loop** for its duration, so in the webhook it stalls every other request of that process until
 * it returns; `celmap webhook --workers N` spreads requests over N processes. Each call is bounded
 * by `timeoutMs` (default 30 s, Kyverno's `--apiCallTimeout`) and by what is left of the admission
 * request's deadline (`remainingMs`); a response body over `maxResponseBytes` (default 2,000,000,
 * Kyverno's `--maxAPICallResponseLength`) is an error.
 *
 * Semantics as Kyverno v1.19's live library (kyverno/sdk `extensions/cel/libs/http/http.go`
 * `executeRequest`, wired by kyverno `pkg/cel/compiler/http.go` with the `--httpBlocklist` /
 * `--httpAllowlist` toggles, `pkg/toggle/toggle.go`):
 * - the body is decoded as JSON (an undecodable body is `null`); an object body is returned with
 *   an added `statusCode`, anything else as `{body, statusCode}` ({@link liveHttpResult}); a non-2xx
 *   status is not an error;
 * - `Post` sends `encoding/json` of the body followed by a newline (`json.Encoder`), no
 *   Content-Type unless a header sets it; headers are added as given;
 * - `Client(caBundle)`: a client trusting only that PEM bundle (TLS ≥ 1.2); an unparsable bundle
 *   is `failed to parse PEM CA bundle for APICall` (the offline provider's text too);
 * - blocklist entries are CIDRs (checked against the literal IP or every address the host name
 *   resolves to, at connection time) or host names (exact, case-insensitive, trailing dot
 *   ignored); default Kyverno 1.19's: 169.254.169.254, 169.254.169.253, metadata.google.internal,
 *   127.0.0.0/8, ::1/128 (a bare IP is read as a /32 or /128). The allowlist holds URL prefixes
 *   (scheme, host, port, path on a segment boundary); when non-empty a URL must match one. The
 *   error texts are the SDK's (`URL "…" is blocked: hostname "…" is on the blocklist`, `URL "…" is
 *   not permitted: no matching allowlist entry`, `connection to … blocked: IP … falls in blocked
 *   range …`).
 *
 * Deviations: redirects are not followed (Go's client follows up to 10); a request failure reads
 * `Get "<url>": <Node's error>` (Go: `Get "<url>": <Go's error>`); timeouts and the size cap are
 * celmap's (Kyverno's CEL http has no timeout of its own and no size cap).
 */
import { X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import { Worker } from "node:worker_threads";
import { ProviderError, fromUtf8, goJsonMarshal, type JsonValue, type HttpProvider, liveHttpResult } from "../kyverno/index.js";

/** Kyverno 1.19's default `--httpBlocklist` (`pkg/toggle/toggle.go` `defaultPolicyHTTPBlocklist`). */
export const KYVERNO_DEFAULT_HTTP_BLOCKLIST: readonly string[] = ["169.254.169.254", "169.254.169.253", "metadata.google.internal", "127.0.0.0/8", "::1/128"];

/** Kyverno's `FLAG_HTTP_BLOCKLIST` / `FLAG_HTTP_ALLOWLIST` format: comma-separated, trimmed, empty entries dropped. */
export function splitList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

export interface SyncHttpOptions {
  /** Default {@link KYVERNO_DEFAULT_HTTP_BLOCKLIST}; `[]` blocks nothing. */
  readonly blocklist?: readonly string[];
  /** URL prefixes; empty (default): any URL not blocked. */
  readonly allowlist?: readonly string[];
  /** Upper bound of one call. Default 30 s. */
  readonly timeoutMs?: number;
  /** What is left of the current admission request's deadline, in ms (undefined: no request deadline). */
  readonly remainingMs?: () => number | undefined;
  /** Largest response body accepted. Default 2,000,000 bytes. */
  readonly maxResponseBytes?: number;
}

interface Rule {
  readonly cidrs: readonly { readonly address: string; readonly prefix: number; readonly family: 4 | 6; readonly text: string }[];
  readonly hosts: ReadonlySet<string>;
  readonly allow: readonly URL[];
}

const normalizeHost = (h: string): string => h.toLowerCase().replace(/\.+$/, "");

/** Parses the lists as `NewHTTPWithBlocklist` does; a bad entry throws (at startup, as Kyverno's `ValidateHTTPFlags`). */
function rules(blocklist: readonly string[], allowlist: readonly string[]): Rule {
  const cidrs: { address: string; prefix: number; family: 4 | 6; text: string }[] = [];
  const hosts = new Set<string>();
  for (const raw of blocklist) {
    const e = raw.trim();
    if (e === "") continue;
    if (e.includes("/")) {
      const [address = "", p = ""] = e.split("/");
      const family = isIP(address);
      const prefix = Number(p);
      if (family === 0 || !/^\d+$/.test(p) || prefix > (family === 4 ? 32 : 128)) throw new Error(`invalid CIDR ${JSON.stringify(e)} in blocklist`);
      cidrs.push({ address, prefix, family: family as 4 | 6, text: e });
    } else if (isIP(e) !== 0) {
      // Kyverno 1.19's defaults list bare IPs: a single address.
      const family = isIP(e) as 4 | 6;
      cidrs.push({ address: e, prefix: family === 4 ? 32 : 128, family, text: e });
    } else {
      hosts.add(normalizeHost(e));
    }
  }
  const allow: URL[] = [];
  for (const raw of allowlist) {
    const e = raw.trim();
    if (e === "") continue;
    let u: URL;
    try {
      u = new URL(e);
    } catch {
      throw new Error(`invalid allowlist URL ${JSON.stringify(e)}`);
    }
    if (u.host === "") throw new Error(`allowlist entry ${JSON.stringify(e)} must include scheme and host (e.g. https://api.example.com)`);
    allow.push(u);
  }
  return { cidrs, hosts, allow };
}

const effectivePort = (u: URL): string => (u.port !== "" ? u.port : u.protocol === "https:" ? "443" : u.protocol === "http:" ? "80" : "");

function allowed(u: URL, allow: readonly URL[]): boolean {
  for (const e of allow) {
    if (e.protocol !== u.protocol || normalizeHost(e.hostname) !== normalizeHost(u.hostname) || effectivePort(e) !== effectivePort(u)) continue;
    const p = e.pathname;
    if (p === "" || p === "/" || u.pathname === p) return true;
    if (u.pathname.startsWith(p) && (p.endsWith("/") || u.pathname[p.length] === "/")) return true;
  }
  return false;
}

/**
 * The worker thread's code (CommonJS, `eval: true`: no file to resolve, so the same code runs
 * from `dist/` and from the TypeScript sources under vitest). One request at a time: the caller
 * is blocked until the answer is in the shared buffer.
 *
 * Shared buffer: Int32 [state, status, length, 0], then the bytes. state 0 pending, 1 response
 * (status, body), 2 error (message), 3 body too large.
 */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const https = require("node:https");
const dns = require("node:dns");
const net = require("node:net");
const ctrl = new Int32Array(workerData.sab, 0, 4);
const data = new Uint8Array(workerData.sab, 16);
function finish(state, status, bytes) {
  const n = Math.min(bytes.length, data.length);
  data.set(bytes.subarray(0, n));
  Atomics.store(ctrl, 1, status);
  Atomics.store(ctrl, 2, n);
  Atomics.store(ctrl, 0, state);
  Atomics.notify(ctrl, 0);
}
const fail = (m) => finish(2, 0, Buffer.from(m, "utf8"));
parentPort.on("message", (m) => {
  let done = false;
  const once = (f) => (...a) => { if (!done) { done = true; clearTimeout(timer); f(...a); } };
  const what = (m.method === "GET" ? "Get" : "Post") + " " + JSON.stringify(m.url) + ": ";
  const onError = once((e) => fail(what + (e && e.message ? e.message : String(e))));
  const onDone = once((status, body) => finish(1, status, body));
  const onTooLarge = once(() => finish(3, 0, Buffer.alloc(0)));
  const timer = setTimeout(() => { onError(new Error("timeout after " + m.timeoutMs + " ms (" + m.timeoutWhy + ")")); if (req) req.destroy(); }, m.timeoutMs);
  const blocked = (ip, family) => {
    for (const c of m.cidrs) {
      const one = new net.BlockList();
      one.addSubnet(c.address, c.prefix, c.family === 4 ? "ipv4" : "ipv6");
      if (one.check(ip, family === 6 ? "ipv6" : "ipv4")) return c.text;
    }
    return undefined;
  };
  let req;
  try {
    const u = new URL(m.url);
    const host = u.hostname.replace(/^\[|\]$/g, "");
    const addr = u.host;
    const fam = net.isIP(host);
    if (fam !== 0) {
      const c = blocked(host, fam);
      if (c !== undefined) return onError(new Error("connection to " + addr + " blocked: IP " + host + " falls in blocked range " + c));
    }
    const lookup = (hostname, options, cb) => {
      dns.lookup(hostname, { ...options, all: true }, (err, addrs) => {
        if (err) return cb(new Error("failed to resolve " + hostname + ": " + err.message));
        for (const a of addrs) {
          const c = blocked(a.address, a.family);
          if (c !== undefined) return cb(new Error("connection to " + addr + " blocked: resolved IP " + a.address + " falls in blocked range " + c));
        }
        if (addrs.length === 0) return cb(new Error("no usable addresses resolved for " + hostname));
        if (options && options.all) cb(null, addrs);
        else cb(null, addrs[0].address, addrs[0].family);
      });
    };
    const send = u.protocol === "https:" ? https.request : u.protocol === "http:" ? http.request : undefined;
    if (send === undefined) return onError(new Error("unsupported protocol scheme " + JSON.stringify(u.protocol.replace(/:$/, ""))));
    const opts = { method: m.method, headers: m.headers, lookup, agent: false };
    if (m.ca !== undefined) { opts.ca = m.ca; opts.minVersion = "TLSv1.2"; }
    req = send(u, opts, (res) => {
      const chunks = [];
      let size = 0;
      res.on("data", (c) => {
        size += c.length;
        if (size > m.cap) { onTooLarge(); res.destroy(); req.destroy(); return; }
        chunks.push(c);
      });
      res.on("end", () => onDone(res.statusCode || 0, Buffer.concat(chunks)));
      res.on("error", onError);
    });
    req.on("error", onError);
    if (m.body !== undefined) req.write(m.body);
    req.end();
  } catch (e) {
    onError(e);
  }
});
`;

/** One worker thread and its shared buffer; replaced when a call outlives its wait. */
class Bridge {
  #worker: Worker | undefined;
  #ctrl: Int32Array | undefined;
  #data: Uint8Array | undefined;
  #size = 0;

  #start(cap: number): void {
    const size = Math.max(cap, 64 * 1024) + 64 * 1024;
    const sab = new SharedArrayBuffer(16 + size);
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { sab } });
    w.unref();
    // A crashed worker is replaced on the next call; nothing to report here.
    w.on("error", () => undefined);
    this.#worker = w;
    this.#ctrl = new Int32Array(sab, 0, 4);
    this.#data = new Uint8Array(sab, 16);
    this.#size = size;
  }

  /** Sends one request and waits for it (the calling thread is blocked meanwhile). */
  call(message: Record<string, unknown>, cap: number, waitMs: number): { state: number; status: number; bytes: Uint8Array } {
    if (this.#worker === undefined || this.#size < cap + 64 * 1024) {
      this.close();
      this.#start(cap);
    }
    const ctrl = this.#ctrl!;
    Atomics.store(ctrl, 0, 0);
    this.#worker!.postMessage(message);
    const r = Atomics.wait(ctrl, 0, 0, waitMs);
    if (r === "timed-out" && Atomics.load(ctrl, 0) === 0) {
      // The worker is stuck (it enforces the timeout itself, so this is a safety net): drop it.
      this.close();
      return { state: 0, status: 0, bytes: new Uint8Array(0) };
    }
    const state = Atomics.load(ctrl, 0);
    const status = Atomics.load(ctrl, 1);
    const length = Atomics.load(ctrl, 2);
    return { state, status, bytes: this.#data!.slice(0, length) };
  }

  close(): void {
    if (this.#worker !== undefined) void this.#worker.terminate();
    this.#worker = undefined;
  }
}

/** See the module comment. `close()` stops the worker thread (it is `unref`'d: it never keeps a process alive). */
export class SyncHttpProvider implements HttpProvider {
  readonly #rules: Rule;
  readonly #bridge: Bridge;
  readonly #options: SyncHttpOptions;
  readonly #ca: string | undefined;

  constructor(options: SyncHttpOptions = {}, shared?: { rules: Rule; bridge: Bridge; ca: string }) {
    this.#options = options;
    this.#rules = shared?.rules ?? rules(options.blocklist ?? KYVERNO_DEFAULT_HTTP_BLOCKLIST, options.allowlist ?? []);
    this.#bridge = shared?.bridge ?? new Bridge();
    this.#ca = shared?.ca;
  }

  get(url: string, headers: Readonly<Record<string, string>>): unknown {
    return this.#send("GET", url, headers, undefined);
  }

  post(url: string, body: unknown, headers: Readonly<Record<string, string>>): unknown {
    // json.NewEncoder(buffer).Encode(data): the JSON text and a newline.
    return this.#send("POST", url, headers, `${goJsonMarshal(body)}\n`);
  }

  client(caBundle: string): HttpProvider {
    if (caBundle === "") return this;
    const blocks = caBundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    let parsed = 0;
    for (const b of blocks) {
      try {
        new X509Certificate(b);
        parsed++;
      } catch {
        // x509.CertPool.AppendCertsFromPEM skips blocks it cannot parse.
      }
    }
    if (parsed === 0) throw new ProviderError("failed to parse PEM CA bundle for APICall");
    return new SyncHttpProvider(this.#options, { rules: this.#rules, bridge: this.#bridge, ca: caBundle });
  }

  close(): void {
    this.#bridge.close();
  }

  #send(method: "GET" | "POST", url: string, headers: Readonly<Record<string, string>>, body: string | undefined): unknown {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new ProviderError(`failed to create request: parse ${JSON.stringify(url)}: invalid URL`);
    }
    const r = this.#rules;
    if (r.allow.length > 0 && !allowed(u, r.allow)) throw new ProviderError(`URL ${JSON.stringify(url)} is not permitted: no matching allowlist entry`);
    if (r.hosts.has(normalizeHost(u.hostname))) throw new ProviderError(`URL ${JSON.stringify(url)} is blocked: hostname ${JSON.stringify(u.hostname)} is on the blocklist`);
    const limit = this.#options.timeoutMs ?? 30_000;
    const remaining = this.#options.remainingMs?.();
    const what = `${method === "GET" ? "Get" : "Post"} ${JSON.stringify(url)}`;
    if (remaining !== undefined && remaining <= 0) throw new ProviderError(`${what}: not sent: the admission request's deadline has passed`);
    const byDeadline = remaining !== undefined && remaining < limit;
    const timeoutMs = Math.max(1, Math.floor(byDeadline ? remaining : limit));
    const cap = this.#options.maxResponseBytes ?? 2_000_000;
    const message = {
      method,
      url,
      headers: { ...headers },
      body,
      ca: this.#ca,
      timeoutMs,
      timeoutWhy: byDeadline ? "what was left of the admission request's deadline" : "the webhook's http call timeout",
      cap,
      cidrs: r.cidrs,
    };
    const out = this.#bridge.call(message, cap, timeoutMs + 1000);
    switch (out.state) {
      case 1: {
        let decoded: JsonValue = null;
        try {
          decoded = JSON.parse(fromUtf8(out.bytes)) as JsonValue;
        } catch {
          // json.Decoder.Decode failed: Kyverno returns a null body.
        }
        return liveHttpResult(decoded, out.status);
      }
      case 2:
        throw new ProviderError(fromUtf8(out.bytes));
      case 3:
        throw new ProviderError(`${what}: response body larger than ${cap} bytes`);
      default:
        throw new ProviderError(`${what}: no answer within ${timeoutMs + 1000} ms (the request thread was restarted)`);
    }
  }
}
