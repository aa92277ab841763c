/**
 * The webhook's lifecycle under traffic: policy reloads (good and bad edits) with zero failed
 * requests, graceful shutdown under load with zero dropped requests, certificate hot reload and
 * client-certificate verification.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { Agent, request as httpsRequest } from "node:https";
import { connect } from "node:tls";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  call,
  issue,
  labelPolicy,
  makePki,
  metricValue,
  metricsText,
  patchOf,
  removeDir,
  responseOf,
  review,
  startServer,
  waitFor,
  type Pki,
} from "./support.js";

let pki: Pki;
beforeAll(() => {
  pki = makePki();
});
afterAll(() => {
  if (pki !== undefined) removeDir(pki.dir);
});

/** Atomic replace, as kubelet (ConfigMap symlink swap) and most editors do. */
function replaceFile(file: string, text: string): void {
  const dir = join(file, "..");
  const tmp = join(dir, `.tmp-${process.pid}-${Date.now()}`);
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

interface Traffic {
  stop(): Promise<void>;
  readonly ok: number;
  readonly failures: string[];
  /** Label values seen, per loop, in order. */
  readonly seen: string[][];
  readonly refused: number;
}

/** `loops` concurrent clients sending reviews back to back over keep-alive connections. */
function traffic(port: number, loops: number, stopOnRefused = false): Traffic {
  const agent = new Agent({ keepAlive: true, maxSockets: loops });
  let running = true;
  const state = { ok: 0, refused: 0, failures: [] as string[], seen: [] as string[][] };
  const runs: Promise<void>[] = [];
  for (let i = 0; i < loops; i++) {
    const seen: string[] = [];
    state.seen.push(seen);
    runs.push(
      (async () => {
        while (running) {
          try {
            const r = await call(pki, port, review().body, { agent });
            const res = r.status === 200 ? responseOf(r) : undefined;
            if (res?.allowed !== true) {
              state.failures.push(`HTTP ${r.status}: ${r.text.slice(0, 200)}`);
              continue;
            }
            const label = patchOf(res).find((p) => p.path === "/metadata/labels/celmap");
            seen.push(label === undefined ? "(none)" : String(label.value));
            state.ok++;
          } catch (e) {
            const code = (e as NodeJS.ErrnoException).code;
            if (stopOnRefused && code === "ECONNREFUSED") {
              state.refused++;
              return;
            }
            state.failures.push(`${code ?? ""} ${(e as Error).message}`);
          }
        }
      })(),
    );
  }
  return {
    async stop() {
      running = false;
      await Promise.all(runs);
      agent.destroy();
    },
    get ok() {
      return state.ok;
    },
    get refused() {
      return state.refused;
    },
    failures: state.failures,
    seen: state.seen,
  };
}

describe("policy reload in the middle of traffic", () => {
  it("good edits are picked up atomically, bad edits keep the last good set; zero failed requests", async () => {
    const dir = join(pki.dir, "reload");
    mkdirSync(dir);
    const file = join(dir, "policy.yaml");
    writeFileSync(file, labelPolicy("add-label", "celmap", '"v1"'));
    const s = await startServer(pki, [dir]);
    const t = traffic(s.port, 8);
    try {
      await waitFor(() => t.ok > 50, 5_000, "first responses");
      replaceFile(file, labelPolicy("add-label", "celmap", '"v2"'));
      await waitFor(() => t.seen.some((l) => l.at(-1) === "v2"), 5_000, "v2 responses");
      expect(s.server.store.current?.generation).toBe(2);

      // A YAML syntax error.
      const rejections = (): Record<string, unknown>[] => s.log.lines.filter((l) => l.event === "policies_rejected");
      replaceFile(file, "apiVersion: admissionregistration.k8s.io/v1\nkind: [unclosed\n");
      await waitFor(() => rejections().some((l) => String((l.errors as string[])[0]).includes("Flow sequence")), 5_000, "rejection");
      // A policy the apiserver would reject (CEL compile error).
      replaceFile(file, labelPolicy("add-label", "celmap", "object.nope("));
      await waitFor(() => rejections().some((l) => String((l.errors as string[])[0]).includes("compilation failed")), 5_000, "second rejection");
      const rejected = rejections().find((l) => String((l.errors as string[])[0]).includes("compilation failed"))!;
      expect(String((rejected.errors as string[])[0])).toMatch(/policy\.yaml#\d+: .*compilation failed/);
      expect(rejected.keptGeneration).toBe(2);
      expect(s.server.store.current?.generation).toBe(2);
      expect((await call(pki, s.port, undefined, { path: "/readyz" })).status).toBe(200);
      const m = await metricsText(pki, s.port);
      expect(metricValue(m, "celmap_webhook_policy_set_last_reload_success")).toBe(0);
      expect(metricValue(m, "celmap_webhook_policy_reloads_total", { result: "error" })).toBeGreaterThanOrEqual(2);
      const okBefore = t.ok;
      await waitFor(() => t.ok > okBefore + 50, 5_000, "traffic continuing on the last good set");

      replaceFile(file, labelPolicy("add-label", "celmap", '"v3"'));
      await waitFor(() => t.seen.every((l) => l.at(-1) === "v3"), 5_000, "v3 everywhere");
      expect(metricValue(await metricsText(pki, s.port), "celmap_webhook_policy_set_last_reload_success")).toBe(1);
    } finally {
      await t.stop();
      await s.server.shutdown();
    }
    expect(t.failures).toEqual([]);
    for (const loop of t.seen) {
      // Never a response without the policy, never an older set after a newer one.
      expect(loop.every((v) => ["v1", "v2", "v3"].includes(v))).toBe(true);
      expect([...loop].sort()).toEqual(loop);
    }
  });

  it("not ready until a policy set loads; a missing path is reported", async () => {
    const dir = join(pki.dir, "late");
    const s = await startServer(pki, [dir]);
    try {
      const r = await call(pki, s.port, undefined, { path: "/readyz" });
      expect(r.status).toBe(503);
      expect(r.text).toBe("no policy set loaded");
      expect(s.log.find((l) => l.event === "policies_rejected")?.errors).toEqual([`${dir}: no such file or directory`]);
      // Requests meanwhile follow the failure policy (Fail: 503).
      const res = responseOf(await call(pki, s.port, review().body));
      expect(res).toMatchObject({ allowed: false, status: { code: 503 } });
    } finally {
      await s.server.shutdown();
    }
  });
});

describe("graceful shutdown", () => {
  it("a keep-alive connection reused just as the drain's idle close runs is answered, not reset", async () => {
    // The client sends its next request on the reused connection in the same event-loop turn as the
    // drain's idle-close timer, before the server has read it: the connection is not idle, and the
    // request gets its answer (with Connection: close). Closing every connection with no request in
    // progress at that instant reset it.
    const dir = join(pki.dir, "reuse");
    mkdirSync(dir);
    writeFileSync(join(dir, "policy.yaml"), labelPolicy("add-label", "celmap", '"x"'));
    const graceMs = 300;
    const s = await startServer(pki, [dir], { drainIdleGraceMs: graceMs });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await call(pki, s.port, review().body, { agent })).status).toBe(200);
      // Created before shutdown's own timer of the same length, so it runs first in that turn.
      const second = new Promise<Awaited<ReturnType<typeof call>> | string>((resolve) => {
        setTimeout(() => void call(pki, s.port, review().body, { agent }).then(resolve, (e: NodeJS.ErrnoException) => resolve(`${e.code ?? ""} ${e.message}`)), graceMs);
      });
      const shutdown = s.server.shutdown("test");
      const r = await second;
      expect(typeof r === "string" ? r : r.status).toBe(200);
      expect(typeof r === "string" ? undefined : r.headers.connection).toBe("close");
      await shutdown;
      expect(s.log.find((l) => l.event === "shutdown_complete")?.forced).toBe(false);
    } finally {
      agent.destroy();
    }
  });

  it("drains in-flight requests under load: zero dropped", async () => {
    // Behaviour, not timing: every step waits for an event (connections up and reused, a request
    // accepted, shutdown begun), never for a duration. The server closes an idle keep-alive
    // connection only after it stayed idle through several drain sweeps, so a client reusing its
    // connection the moment it read a response is never reset (ECONNRESET under load before).
    const dir = join(pki.dir, "shutdown");
    mkdirSync(dir);
    writeFileSync(join(dir, "policy.yaml"), labelPolicy("add-label", "celmap", '"x"'));
    const s = await startServer(pki, [dir], { drainIdleGraceMs: 500 });
    const t = traffic(s.port, 16, true);
    await waitFor(() => t.seen.every((loop) => loop.length >= 3), 60_000, "three answers on every keep-alive connection");

    // A request whose body is still arriving when shutdown starts: its connection is accepted and its
    // headers and first bytes are sent before shutdown; the rest only after shutdown has begun.
    const { uid, body } = review();
    let slowStatus = 0;
    let slowUid = "";
    let finishBody: () => void = () => {};
    let headersSent: () => void = () => {};
    const sent = new Promise<void>((resolve) => (headersSent = resolve));
    const slow = new Promise<void>((resolve, reject) => {
      const req = httpsRequest(
        { host: "127.0.0.1", port: s.port, method: "POST", path: "/mutate", ca: pki.ca, agent: false, headers: { "Content-Type": "application/json", "Content-Length": String(body.length) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            slowStatus = res.statusCode ?? 0;
            slowUid = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { response: { uid: string } }).response.uid;
            resolve();
          });
        },
      );
      req.on("error", reject);
      req.on("socket", (sock) => sock.once("secureConnect", () => req.write(body.slice(0, 100), () => headersSent())));
      finishBody = () => req.end(body.slice(100));
    });
    await sent;
    const shutdown = s.server.shutdown("test");
    expect((await call(pki, s.port, undefined, { path: "/readyz", agent: undefined }).catch((e: NodeJS.ErrnoException) => ({ status: e.code }))).status).toBe("ECONNREFUSED");
    finishBody();
    await slow;
    await shutdown;
    // Every load loop goes on until its next connection is refused (the listener is closed).
    await waitFor(() => t.refused + t.failures.length === 16, 60_000, "every load loop refused");
    await t.stop();
    expect(slowStatus).toBe(200);
    expect(slowUid).toBe(uid);
    expect(t.failures).toEqual([]);
    expect(t.refused).toBe(16);
    const done = s.log.find((l) => l.event === "shutdown_complete");
    expect(done?.forced).toBe(false);
  }, 120_000);
});

describe("TLS", () => {
  function peerCn(port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const sock = connect({ host: "127.0.0.1", port, ca: pki.ca, servername: "localhost" }, () => {
        const cn = sock.getPeerCertificate().subject.CN;
        sock.destroy();
        resolve(Array.isArray(cn) ? cn.join(",") : String(cn));
      });
      sock.on("error", reject);
    });
  }

  it("certificate and key hot-reloaded on change; a bad pair keeps the old one", async () => {
    const dir = join(pki.dir, "rotate");
    mkdirSync(dir);
    const certFile = join(dir, "tls.crt");
    const keyFile = join(dir, "tls.key");
    writeFileSync(certFile, readFileSync(pki.serverCert));
    writeFileSync(keyFile, readFileSync(pki.serverKey));
    const pdir = join(pki.dir, "rotate-policies");
    mkdirSync(pdir);
    writeFileSync(join(pdir, "p.yaml"), labelPolicy("add-label", "celmap", '"x"'));
    const s = await startServer(pki, [pdir], { tls: { certFile, keyFile } });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await peerCn(s.port)).toBe("celmap-webhook.test");
      expect(responseOf(await call(pki, s.port, review().body, { agent })).allowed).toBe(true);

      // A key that does not match: rejected, the old pair stays.
      const other = issue(pki, "other", "other", true);
      replaceFile(keyFile, readFileSync(other.key, "utf8"));
      await waitFor(() => s.log.find((l) => l.event === "certificate_reload_failed") !== undefined, 5_000, "reload failure");
      expect(await peerCn(s.port)).toBe("celmap-webhook.test");

      // A new pair.
      const rotated = issue(pki, "rotated", "rotated", true);
      replaceFile(certFile, readFileSync(rotated.cert, "utf8"));
      replaceFile(keyFile, readFileSync(rotated.key, "utf8"));
      await waitFor(async () => (await peerCn(s.port)) === "rotated", 5_000, "rotated certificate");
      // The open keep-alive connection keeps working; new ones see the new certificate.
      expect(responseOf(await call(pki, s.port, review().body, { agent })).allowed).toBe(true);
      const m = await metricsText(pki, s.port);
      expect(metricValue(m, "celmap_webhook_certificate_reloads_total", { result: "success" })).toBeGreaterThanOrEqual(1);
      expect(metricValue(m, "celmap_webhook_certificate_reloads_total", { result: "error" })).toBeGreaterThanOrEqual(1);
    } finally {
      agent.destroy();
      await s.server.shutdown();
    }
  });

  it("--client-ca: a client without a certificate is refused, one with a certificate is served", async () => {
    const pdir = join(pki.dir, "mtls-policies");
    mkdirSync(pdir);
    writeFileSync(join(pdir, "p.yaml"), labelPolicy("add-label", "celmap", '"x"'));
    const s = await startServer(pki, [pdir], { tls: { certFile: pki.serverCert, keyFile: pki.serverKey, clientCaFile: pki.caCert } });
    try {
      await expect(call(pki, s.port, review().body)).rejects.toThrow();
      const res = responseOf(await call(pki, s.port, review().body, { cert: readFileSync(pki.clientCert), key: readFileSync(pki.clientKey) }));
      expect(res.allowed).toBe(true);
      await waitFor(() => s.log.find((l) => l.event === "tls_error") !== undefined, 2_000, "TLS error log");
    } finally {
      await s.server.shutdown();
    }
  });
});
