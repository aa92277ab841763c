/**
 * The synchronous HTTP provider (`http.Get/Post` in webhook mode) against a real HTTPS server in a
 * child process: Kyverno's result shapes, Client(caBundle), the SSRF blocklist and allowlist, the
 * per-call timeout and the request deadline, the response size cap; and through CEL, the errors
 * as Kyverno words them (`request failed: …`).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kyvernoEnv } from "../../src/kyverno/index.js";
import { SyncHttpProvider } from "../../src/webhook/kyverno-http.js";
import { toJson } from "../../src/cel/runtime/json.js";
import { startHttpTarget, type HttpTarget } from "./http-target.js";
import { makePki, removeDir, type Pki } from "./support.js";

describe("SyncHttpProvider (worker thread + Atomics.wait) against a real HTTPS server", () => {
  let pki: Pki;
  let target: HttpTarget;
  let ca: string;
  const providers: SyncHttpProvider[] = [];
  const make = (o: ConstructorParameters<typeof SyncHttpProvider>[0] = {}): SyncHttpProvider => {
    const p = new SyncHttpProvider({ blocklist: [], ...o });
    providers.push(p);
    return p;
  };

  beforeAll(async () => {
    pki = makePki();
    target = await startHttpTarget(pki);
    ca = readFileSync(pki.caCert, "utf8");
  });
  afterAll(async () => {
    for (const p of providers) p.close();
    await target.close();
    removeDir(pki.dir);
  });

  it("returns Kyverno's shapes: an object body with statusCode, anything else as {body, statusCode}; non-2xx is not an error", () => {
    const h = make().client(ca);
    expect(h.get(target.url("/json"), {})).toEqual({ team: "payments", replicas: 3, statusCode: 200 });
    expect(h.get(target.url("/list"), {})).toEqual({ body: [1, "two"], statusCode: 200 });
    expect(h.get(target.url("/text"), {})).toEqual({ body: null, statusCode: 200 });
    expect(h.get(target.url("/missing"), {})).toEqual({ error: "nope", statusCode: 404 });
  });

  it("POST sends encoding/json of the body and a newline, with the headers given", () => {
    const h = make().client(ca);
    const r = h.post(target.url("/echo"), { a: 1, b: ["x"] }, { "X-Team": "payments" }) as { method: string; body: string; headers: Record<string, string> };
    expect(r.method).toBe("POST");
    expect(r.body).toBe('{"a":1,"b":["x"]}\n');
    expect(r.headers["x-team"]).toBe("payments");
  });

  it("Client(caBundle): trusts only that bundle; an unparsable bundle is Kyverno's error; without it the test CA is not trusted", () => {
    expect(() => make().client("not a pem")).toThrow("failed to parse PEM CA bundle for APICall");
    expect(() => make().get(target.url("/json"), {})).toThrow(/^Get "https:\/\/127\.0\.0\.1:\d+\/json": .*(certificate|self.signed)/i);
  });

  it("times out at timeoutMs, or at what is left of the request deadline; the deadline passed: not sent", () => {
    const h = make({ timeoutMs: 300 }).client(ca);
    const t0 = Date.now();
    expect(() => h.get(target.url("/slow?ms=3000"), {})).toThrow(/timeout after 300 ms \(the webhook's http call timeout\)/);
    expect(Date.now() - t0).toBeLessThan(2500);
    let remaining = 200;
    const d = make({ timeoutMs: 30_000, remainingMs: () => remaining }).client(ca);
    expect(() => d.get(target.url("/slow?ms=3000"), {})).toThrow(/timeout after 200 ms \(what was left of the admission request's deadline\)/);
    remaining = 0;
    expect(() => d.get(target.url("/json"), {})).toThrow(/not sent: the admission request's deadline has passed/);
    // The bridge is usable after a timeout.
    remaining = 5_000;
    expect(d.get(target.url("/json"), {})).toMatchObject({ statusCode: 200 });
  });

  it("caps the response size", () => {
    const h = make({ maxResponseBytes: 100_000 }).client(ca);
    expect(() => h.get(target.url("/big?bytes=500000"), {})).toThrow(/response body larger than 100000 bytes/);
    expect(h.get(target.url("/big?bytes=1000"), {})).toMatchObject({ statusCode: 200 });
  });

  it("applies Kyverno's blocklist (default: loopback, metadata) and the allowlist", () => {
    const def = new SyncHttpProvider();
    providers.push(def);
    expect(() => def.get(target.url("/json"), {})).toThrow(/connection to 127\.0\.0\.1:\d+ blocked: IP 127\.0\.0\.1 falls in blocked range 127\.0\.0\.0\/8/);
    expect(() => def.get("http://metadata.google.internal/x", {})).toThrow('URL "http://metadata.google.internal/x" is blocked: hostname "metadata.google.internal" is on the blocklist');
    expect(() => make({ blocklist: ["localhost/8"] })).toThrow(/invalid CIDR/);
    const allow = make({ allowlist: [`https://127.0.0.1:${target.port}/js`] }).client(ca);
    expect(() => allow.get(target.url("/json"), {})).toThrow(/is not permitted: no matching allowlist entry/);
    const allow2 = make({ allowlist: [`https://127.0.0.1:${target.port}/`] }).client(ca);
    expect(allow2.get(target.url("/json"), {})).toMatchObject({ team: "payments" });
  });

  it("through CEL: results as Go decodes JSON (doubles), errors as `request failed: …`", () => {
    const h = make({ timeoutMs: 300 });
    const k = kyvernoEnv({ http: h });
    const ev = (expr: string): unknown => {
      const prog = k.env.program(k.env.compile(expr));
      return toJson(prog.eval(k.activation({})) as never);
    };
    const caLit = JSON.stringify(ca);
    expect(ev(`http.Client(${caLit}).Get("${target.url("/json")}").replicas == 3.0`)).toBe(true);
    expect(() => ev(`http.Client(${caLit}).Get("${target.url("/slow?ms=2000")}")`)).toThrow(/request failed: Get ".*\/slow\?ms=2000": timeout after 300 ms/);
  });
});
