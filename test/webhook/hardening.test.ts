/**
 * TLS and endpoints hardened as Gatekeeper's (issue 16, findings 5 and 6), against a real server on
 * loopback with `openssl s_client` as the client: TLS 1.2 suites without forward secrecy or with
 * CBC are refused, 1.3 is offered, `--tls-min-version 1.3` refuses 1.2; `--client-ca` admits only
 * the allowed common names; health, readiness and metrics on their own plain-HTTP ports (no client
 * certificate), /metrics not on the webhook port; one info line per admission (sampled with
 * `logSample`); TLS handshake failures counted each time but logged at a bounded rate; a client
 * error counted once; in-flight requests counted until answered.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import { connect as tlsConnect } from "node:tls";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, issue, labelPolicy, makePki, metricValue, removeDir, responseOf, review, startServer, waitFor, type Pki } from "./support.js";

let pki: Pki;
let dir: string;
beforeAll(() => {
  pki = makePki();
  dir = join(pki.dir, "policies");
  mkdirSync(dir);
  writeFileSync(join(dir, "p.yaml"), labelPolicy("add-label", "celmap", '"on"'));
});
afterAll(() => {
  if (pki !== undefined) removeDir(pki.dir);
});

/** `openssl s_client` against the port: whether the handshake completed, and the negotiated protocol/cipher. */
function sClient(port: number, args: readonly string[]): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      "openssl",
      ["s_client", "-connect", `127.0.0.1:${port}`, "-servername", "localhost", "-CAfile", pki.caCert, ...args],
      { timeout: 10_000 },
      (err, stdout, stderr) => {
        const out = `${stdout}\n${stderr}`;
        // A completed handshake prints the negotiated cipher; a refused one "Cipher is (NONE)" or an alert.
        const ok = err === null && /Cipher is (?!\(NONE\))/.test(out);
        resolve({ ok, out });
      },
    );
    child.stdin?.end("");
  });
}

function plainGet(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    httpGet({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    }).on("error", reject);
  });
}

describe("TLS protocol and suites", () => {
  it("default: TLS 1.2 only with forward-secret AEAD suites (AES128-SHA, ECDHE CBC refused), TLS 1.3 offered", async () => {
    const { server, port } = await startServer(pki, [dir]);
    try {
      const weak = await sClient(port, ["-tls1_2", "-cipher", "AES128-SHA"]);
      expect(weak.ok, weak.out).toBe(false);
      const cbc = await sClient(port, ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"]);
      expect(cbc.ok, cbc.out).toBe(false);
      const gcm = await sClient(port, ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"]);
      expect(gcm.ok, gcm.out).toBe(true);
      const tls13 = await sClient(port, ["-tls1_3"]);
      expect(tls13.ok, tls13.out).toBe(true);
      expect(tls13.out).toContain("TLSv1.3");
      const old = await sClient(port, ["-tls1_1"]);
      expect(old.ok).toBe(false);
    } finally {
      await server.shutdown();
    }
  }, 60_000);

  it("minVersion 1.3 refuses TLS 1.2; named suites replace the default set", async () => {
    const a = await startServer(pki, [dir], { tls: { certFile: pki.serverCert, keyFile: pki.serverKey, minVersion: "1.3" } });
    try {
      expect((await sClient(a.port, ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"])).ok).toBe(false);
      expect((await sClient(a.port, ["-tls1_3"])).ok).toBe(true);
    } finally {
      await a.server.shutdown();
    }
    const b = await startServer(pki, [dir], { tls: { certFile: pki.serverCert, keyFile: pki.serverKey, cipherSuites: ["TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"] } });
    try {
      expect((await sClient(b.port, ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"])).ok).toBe(false);
      expect((await sClient(b.port, ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES256-GCM-SHA384"])).ok).toBe(true);
    } finally {
      await b.server.shutdown();
    }
  }, 60_000);
});

describe("client certificates and probe ports", () => {
  it("--client-ca admits only the allowed common name (default kube-apiserver); probes need no certificate on their own port; /metrics is not on the webhook port", async () => {
    const other = issue(pki, "other", "not-the-apiserver", false);
    const { server, port, log } = await startServer(pki, [dir], {
      tls: { certFile: pki.serverCert, keyFile: pki.serverKey, clientCaFile: pki.caCert },
      healthAddress: "127.0.0.1:0",
      metricsAddress: "127.0.0.1:0",
    });
    try {
      const listening = log.find((l) => l.event === "listening")!;
      const healthPort = listening.healthPort as number;
      const metricsPort = listening.metricsPort as number;
      expect(healthPort).toBeGreaterThan(0);
      expect(metricsPort).toBeGreaterThan(0);
      expect(healthPort).not.toBe(metricsPort);

      const good = await call(pki, port, review().body, { cert: readFileSync(pki.clientCert), key: readFileSync(pki.clientKey) });
      expect(responseOf(good).allowed).toBe(true);
      await expect(call(pki, port, review().body, { cert: readFileSync(other.cert), key: readFileSync(other.key) })).rejects.toThrow();

      expect(await plainGet(healthPort, "/healthz")).toEqual({ status: 200, text: "ok" });
      expect(await plainGet(healthPort, "/readyz")).toEqual({ status: 200, text: "ok" });
      expect((await plainGet(healthPort, "/metrics")).status).toBe(404);
      const m = await plainGet(metricsPort, "/metrics");
      expect(m.status).toBe(200);
      expect(metricValue(m.text, "celmap_webhook_client_errors_total", { reason: "client_cn" })).toBe(1);
      const onWebhook = await call(pki, port, undefined, { path: "/metrics", cert: readFileSync(pki.clientCert), key: readFileSync(pki.clientKey) });
      expect(onWebhook.status).toBe(404);
    } finally {
      await server.shutdown();
    }
  }, 60_000);
});

describe("logs and metrics", () => {
  it("one info line per admission with uid, kind, namespace/name, operation, outcome, patch size and latency; logSample 3 logs one in three", async () => {
    const { server, port, log } = await startServer(pki, [dir], { metricsAddress: "127.0.0.1:0" });
    try {
      const r = review({ name: "web-1" });
      expect(responseOf(await call(pki, port, r.body)).allowed).toBe(true);
      const line = log.find((l) => l.event === "admission" && l.uid === r.uid)!;
      expect(line).toMatchObject({ level: 30, outcome: "mutated", kind: "v1/Pod", namespace: "default", name: "web-1", operation: "CREATE" });
      expect(line.patchBytes as number).toBeGreaterThan(10);
      expect(typeof line.durationMs).toBe("number");
    } finally {
      await server.shutdown();
    }
    const s = await startServer(pki, [dir], { logSample: 3 });
    try {
      for (let i = 0; i < 6; i++) await call(pki, s.port, review().body);
      const lines = s.log.lines.filter((l) => l.event === "admission");
      expect(lines.length).toBe(6);
      expect(lines.filter((l) => l.level === 30).length).toBe(2);
      expect(lines.filter((l) => l.level === 20).length).toBe(4);
    } finally {
      await s.server.shutdown();
    }
  }, 60_000);

  it("TLS handshake failures: each counted, warnings at a bounded rate; an aborted request counted once; in-flight until answered", async () => {
    const { server, port, log } = await startServer(pki, [dir], { metricsAddress: "127.0.0.1:0" });
    try {
      const metricsPort = log.find((l) => l.event === "listening")!.metricsPort as number;
      for (let i = 0; i < 20; i++) {
        await new Promise<void>((resolve) => {
          const s = tlsConnect({ host: "127.0.0.1", port, ca: pki.ca, servername: "localhost", maxVersion: "TLSv1.2", ciphers: "AES128-SHA" });
          s.on("error", () => resolve());
          s.on("secureConnect", () => {
            s.destroy();
            resolve();
          });
        });
      }
      await waitFor(async () => metricValue((await plainGet(metricsPort, "/metrics")).text, "celmap_webhook_client_errors_total", { reason: "tls" }) === 20, 5_000, "20 TLS errors counted");
      expect(log.lines.filter((l) => l.event === "tls_error").length).toBeLessThanOrEqual(5);

      // Headers and half a body, then the client goes away: one client error, under one reason.
      const before = metricValue((await plainGet(metricsPort, "/metrics")).text, "celmap_webhook_client_errors_total");
      const body = review().body;
      const sock = tlsConnect({ host: "127.0.0.1", port, ca: pki.ca, servername: "localhost" });
      await new Promise<void>((resolve) => sock.once("secureConnect", () => resolve()));
      sock.write(`POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 50)}`);
      await waitFor(async () => metricValue((await plainGet(metricsPort, "/metrics")).text, "celmap_webhook_inflight_requests") === 1, 5_000, "in flight while the body arrives");
      sock.destroy();
      await waitFor(async () => metricValue((await plainGet(metricsPort, "/metrics")).text, "celmap_webhook_inflight_requests") === 0, 5_000, "not in flight once gone");
      await new Promise((r) => setTimeout(r, 300));
      const after = metricValue((await plainGet(metricsPort, "/metrics")).text, "celmap_webhook_client_errors_total");
      expect(after - before).toBe(1);
    } finally {
      await server.shutdown();
    }
  }, 60_000);
});
