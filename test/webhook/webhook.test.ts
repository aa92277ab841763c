/**
 * The webhook end to end: the real server on loopback with a generated CA, real AdmissionReview
 * requests over TLS from Node's https client. Each bad input gets its proper answer, is logged and
 * counted, and the server keeps serving.
 */
import { connect } from "node:tls";
import { Agent } from "node:https";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  COST_BOMB,
  call,
  labelIs,
  labelPolicy,
  makePki,
  metricValue,
  metricsText,
  patchOf,
  policyYaml,
  removeDir,
  responseOf,
  review,
  startServer,
  type Pki,
  type Started,
} from "./support.js";

let pki: Pki;
let s: Started;

beforeAll(async () => {
  pki = makePki();
  const dir = join(pki.dir, "policies");
  mkdirSync(dir);
  writeFileSync(join(dir, "10-label.yaml"), labelPolicy("add-label", "celmap", `request.dryRun ? "dry" : "real"`, { matchCondition: `!(${labelIs("cost", "fail")}) && !(${labelIs("cost", "ignore")})` }));
  writeFileSync(join(dir, "20-cost-fail.yaml"), policyYaml({ name: "cost-fail", failurePolicy: "Fail", matchCondition: labelIs("cost", "fail"), mutation: COST_BOMB }));
  writeFileSync(join(dir, "30-cost-ignore.yaml"), policyYaml({ name: "cost-ignore", failurePolicy: "Ignore", matchCondition: labelIs("cost", "ignore"), mutation: COST_BOMB }));
  s = await startServer(pki, [dir], { ownNamespace: "celmap-system" });
});

afterAll(async () => {
  await s?.server.shutdown("test over");
  if (pki !== undefined) removeDir(pki.dir);
});

describe("health and metrics", () => {
  it("/healthz, /readyz, /metrics, 404", async () => {
    expect((await call(pki, s.port, undefined, { path: "/healthz" })).status).toBe(200);
    expect((await call(pki, s.port, undefined, { path: "/readyz" })).status).toBe(200);
    const m = await metricsText(pki, s.port);
    expect(m).toContain("celmap_webhook_policies");
    expect(metricValue(m, "celmap_webhook_policies", { kind: "MutatingAdmissionPolicy" })).toBe(3);
    expect((await call(pki, s.port, undefined, { path: "/nope" })).status).toBe(404);
  });

  it("negotiates TLS 1.2 or later only", async () => {
    const err = await new Promise<Error | undefined>((resolve) => {
      const sock = connect({ host: "127.0.0.1", port: s.port, ca: pki.ca, maxVersion: "TLSv1.1", minVersion: "TLSv1" });
      sock.on("secureConnect", () => {
        sock.destroy();
        resolve(undefined);
      });
      sock.on("error", (e) => resolve(e));
    });
    expect(err).toBeDefined();
  });
});

describe("AdmissionReview", () => {
  it("CREATE: a base64 JSONPatch with the policy's label", async () => {
    const { uid, body } = review({ operation: "CREATE" });
    const r = await call(pki, s.port, body);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    const res = responseOf(r);
    expect(res.uid).toBe(uid);
    expect(res.allowed).toBe(true);
    expect(res.patchType).toBe("JSONPatch");
    expect(patchOf(res)).toEqual([{ op: "add", path: "/metadata/labels/celmap", value: "real" }]);
  });

  it("UPDATE: evaluated against the new object, oldObject available", async () => {
    const { uid, body } = review({ operation: "UPDATE", labels: { app: "web" }, oldLabels: { app: "old" } });
    const res = responseOf(await call(pki, s.port, body));
    expect(res).toMatchObject({ uid, allowed: true, patchType: "JSONPatch" });
    expect(patchOf(res)).toEqual([{ op: "add", path: "/metadata/labels/celmap", value: "real" }]);
  });

  it("dryRun: request.dryRun is true for the policies, and the patch is still returned", async () => {
    const { body } = review({ dryRun: true });
    const res = responseOf(await call(pki, s.port, body));
    expect(res.allowed).toBe(true);
    expect(patchOf(res)).toEqual([{ op: "add", path: "/metadata/labels/celmap", value: "dry" }]);
    expect(metricValue(await metricsText(pki, s.port), "celmap_webhook_requests_total", { outcome: "mutated", dry_run: "true" })).toBeGreaterThanOrEqual(1);
  });

  it("DELETE: MAP never handles it: allowed, no patch", async () => {
    const res = responseOf(await call(pki, s.port, review({ operation: "DELETE" }).body));
    expect(res.allowed).toBe(true);
    expect(res.patch).toBeUndefined();
  });

  it("never mutates its own namespace", async () => {
    const res = responseOf(await call(pki, s.port, review({ namespace: "celmap-system" }).body));
    expect(res.allowed).toBe(true);
    expect(res.patch).toBeUndefined();
    expect(s.log.find((l) => l.skipped === "the webhook's own namespace")).toBeDefined();
  });

  it("cost limit with failurePolicy Fail: denied with 403 Invalid, logged and counted", async () => {
    const { uid, body } = review({ labels: { cost: "fail" } });
    const r = await call(pki, s.port, body);
    const res = responseOf(r);
    expect(res.uid).toBe(uid);
    expect(res.allowed).toBe(false);
    expect(res.status?.code).toBe(403);
    expect(res.status?.message).toMatch(/policy 'cost-fail' with binding 'cost-fail' denied request: .*cost limit exceeded/);
    expect(s.log.find((l) => l.uid === uid && l.outcome === "denied")).toBeDefined();
    const m = await metricsText(pki, s.port);
    // The per-call limit stopped one expression: the apiserver classifies its message ("expression '…' resulted in
    // error: operation cancelled: actual cost limit exceeded") as invalid_error (mutating/errors.go ErrorType,
    // k8s.io/apiserver v0.36.3); out_of_budget is the request's whole budget running out.
    expect(metricValue(m, "apiserver_mutating_admission_policy_check_total", { policy: "cost-fail", error_type: "invalid_error" })).toBeGreaterThanOrEqual(1);
    expect(metricValue(m, "apiserver_mutating_admission_policy_check_total", { policy: "cost-fail", error_type: "out_of_budget" })).toBe(0);
    expect(metricValue(m, "celmap_webhook_requests_total", { outcome: "denied" })).toBeGreaterThanOrEqual(1);
  });

  it("per-policy metrics: invocations by outcome, matchCondition exclusions, mutation checks", async () => {
    const res = responseOf(await call(pki, s.port, review({ operation: "CREATE", labels: { cost: "fail" } }).body));
    expect(res.allowed).toBe(false);
    expect(responseOf(await call(pki, s.port, review({ operation: "CREATE" }).body)).allowed).toBe(true);
    const m = await metricsText(pki, s.port);
    expect(metricValue(m, "celmap_webhook_policy_invocations_total", { policy: "add-label", policy_binding: "add-label", outcome: "mutated" })).toBeGreaterThanOrEqual(1);
    expect(metricValue(m, "celmap_webhook_policy_invocations_total", { policy: "add-label", outcome: "excluded" })).toBeGreaterThanOrEqual(1);
    expect(metricValue(m, "celmap_webhook_policy_invocations_total", { policy: "cost-fail", outcome: "error" })).toBeGreaterThanOrEqual(1);
    expect(metricValue(m, "celmap_webhook_policy_invocations_total", { policy: "cost-fail", outcome: "excluded" })).toBeGreaterThanOrEqual(1);
    expect(metricValue(m, "apiserver_admission_match_condition_exclusions_total", { name: "cost-fail", kind: "policy", type: "validate", operation: "CREATE" })).toBeGreaterThanOrEqual(1);
    expect(metricValue(m, "apiserver_mutating_admission_policy_check_total", { policy: "add-label", policy_binding: "add-label", error_type: "no_error" })).toBeGreaterThanOrEqual(1);
  });

  it("cost limit with failurePolicy Ignore: admitted unchanged, no warning (as native admission)", async () => {
    const res = responseOf(await call(pki, s.port, review({ labels: { cost: "ignore" } }).body));
    expect(res.allowed).toBe(true);
    expect(res.patch).toBeUndefined();
    expect(res.warnings ?? []).toEqual([]);
  });
});

describe("keep-alive", () => {
  it("an idle connection outlives the header timeout and is reused (the apiserver reuses connections)", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ports: number[] = [];
    agent.on("free", (sock: { localPort: number }) => ports.push(sock.localPort));
    try {
      expect(responseOf(await call(pki, s.port, review().body, { agent })).allowed).toBe(true);
      await new Promise((r) => setTimeout(r, 1_800)); // headersTimeout is 1 s here
      expect(responseOf(await call(pki, s.port, review().body, { agent })).allowed).toBe(true);
      expect(ports).toHaveLength(2);
      expect(ports[1]).toBe(ports[0]);
    } finally {
      agent.destroy();
    }
  });
});

describe("bad input: proper answers, logged, counted, server keeps serving", () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  afterAll(() => agent.destroy());

  async function stillServes(): Promise<void> {
    const res = responseOf(await call(pki, s.port, review().body, { agent }));
    expect(res.allowed).toBe(true);
    expect(patchOf(res)).toHaveLength(1);
  }

  it("malformed JSON: HTTP 400 Status", async () => {
    const r = await call(pki, s.port, "{not json", { agent });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ kind: "Status", code: 400, reason: "BadRequest" });
    expect(String(r.json().message)).toMatch(/malformed JSON/);
    expect(s.log.find((l) => l.outcome === "invalid" && String(l.error).startsWith("malformed JSON"))).toBeDefined();
    await stillServes();
  });

  it("wrong apiVersion/kind: HTTP 400 AdmissionReview echoing the uid", async () => {
    const { uid, body } = review();
    const wrong = JSON.stringify({ ...JSON.parse(body), apiVersion: "admission.k8s.io/v1beta1" });
    const r = await call(pki, s.port, wrong, { agent });
    expect(r.status).toBe(400);
    const res = responseOf(r);
    expect(res).toMatchObject({ uid, allowed: false, status: { code: 400 } });
    expect(res.status?.message).toContain("expected admission.k8s.io/v1 AdmissionReview");
    const wrongKind = JSON.stringify({ ...JSON.parse(body), kind: "ConversionReview" });
    expect(responseOf(await call(pki, s.port, wrongKind, { agent })).uid).toBe(uid);
    await stillServes();
  });

  it("missing request: HTTP 400 Status", async () => {
    const r = await call(pki, s.port, JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }), { agent });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ kind: "Status", code: 400, message: "AdmissionReview has no request" });
    await stillServes();
  });

  it("malformed request (unknown operation): HTTP 400 with the uid", async () => {
    const { uid, body } = review();
    const j = JSON.parse(body) as { request: Record<string, unknown> };
    j.request.operation = "PATCH";
    const r = await call(pki, s.port, JSON.stringify(j), { agent });
    expect(r.status).toBe(400);
    expect(responseOf(r)).toMatchObject({ uid, allowed: false });
  });

  it("a 10 MB body: 413, the connection stays usable", async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 0x20);
    const r = await call(pki, s.port, big, { agent });
    expect(r.status).toBe(413);
    expect(r.json()).toMatchObject({ kind: "Status", code: 413, reason: "RequestEntityTooLarge" });
    expect(s.log.find((l) => l.outcome === "too_large")).toBeDefined();
    expect(metricValue(await metricsText(pki, s.port), "celmap_webhook_requests_total", { outcome: "too_large" })).toBe(1);
    await stillServes();
  });

  it("a chunked 10 MB body (no Content-Length): 413 too", async () => {
    const r = await new Promise<number>((resolve, reject) => {
      import("node:https").then(({ request }) => {
        const req = request({ host: "127.0.0.1", port: s.port, method: "POST", path: "/mutate", ca: pki.ca, agent: false, headers: { "Content-Type": "application/json" } }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        for (let i = 0; i < 10; i++) req.write(chunk);
        req.end();
      }, reject);
    });
    expect(r).toBe(413);
    await stillServes();
  });

  it("slow-loris: headers trickling in are cut off with 408 while others are served", async () => {
    const before = metricValue(await metricsText(pki, s.port), "celmap_webhook_client_errors_total", { reason: "request_timeout" });
    const started = Date.now();
    const outcome = await new Promise<{ data: string; closedAfterMs: number }>((resolve, reject) => {
      const sock = connect({ host: "127.0.0.1", port: s.port, ca: pki.ca, servername: "localhost" }, () => {
        sock.write("POST /mutate HTTP/1.1\r\nHost: localhost\r\n");
        let n = 0;
        const t = setInterval(() => {
          if (!sock.destroyed && sock.writable) sock.write(`X-Slow-${n++}: a\r\n`);
        }, 150);
        let data = "";
        sock.on("data", (d: Buffer) => (data += d.toString("utf8")));
        sock.on("close", () => {
          clearInterval(t);
          resolve({ data, closedAfterMs: Date.now() - started });
        });
      });
      sock.on("error", () => undefined);
      setTimeout(() => reject(new Error("slow client never cut off")), 8_000);
    });
    // Meanwhile (and after) other clients are served.
    await stillServes();
    expect(outcome.data).toMatch(/^HTTP\/1\.1 408/);
    expect(outcome.closedAfterMs).toBeLessThan(4_000);
    const m = await metricsText(pki, s.port);
    expect(metricValue(m, "celmap_webhook_client_errors_total", { reason: "request_timeout" })).toBe(before + 1);
    expect(s.log.find((l) => l.event === "client_error" && l.reason === "request_timeout")).toBeDefined();
  });

  it("slow body: cut off by the request timeout", async () => {
    const local = await startServer(pki, [join(pki.dir, "policies")], { timeoutMs: 800, requestTimeoutMs: 1_000 });
    try {
      const data = await new Promise<string>((resolve) => {
        const sock = connect({ host: "127.0.0.1", port: local.port, ca: pki.ca, servername: "localhost" }, () => {
          sock.write("POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
          const t = setInterval(() => {
            if (!sock.destroyed && sock.writable) sock.write(" ");
          }, 100);
          let d = "";
          sock.on("data", (b: Buffer) => (d += b.toString("utf8")));
          sock.on("close", () => {
            clearInterval(t);
            resolve(d);
          });
        });
        sock.on("error", () => undefined);
      });
      expect(data).toMatch(/^HTTP\/1\.1 408/);
      expect(local.log.find((l) => l.outcome === "timeout" || l.reason === "request_timeout")).toBeDefined();
      expect(responseOf(await call(pki, local.port, review().body)).allowed).toBe(true);
    } finally {
      await local.server.shutdown();
    }
  });

  it("GET /mutate: 405", async () => {
    const r = await call(pki, s.port, undefined, { agent });
    expect(r.status).toBe(405);
    await stillServes();
  });
});

describe("server-side failure policy (per-request deadline)", () => {
  for (const failurePolicy of ["Fail", "Ignore"] as const) {
    it(`deadline exceeded during evaluation, --failure-policy ${failurePolicy}`, async () => {
      // 1 ms deadline: the cost-limit evaluation alone takes longer.
      const local = await startServer(pki, [join(pki.dir, "policies")], { timeoutMs: 1, failurePolicy });
      try {
        const { uid, body } = review({ labels: { cost: "fail" } });
        const res = responseOf(await call(pki, local.port, body));
        expect(res.uid).toBe(uid);
        if (failurePolicy === "Fail") {
          expect(res.allowed).toBe(false);
          expect(res.status).toMatchObject({ code: 504, reason: "Timeout" });
        } else {
          expect(res.allowed).toBe(true);
          expect(res.patch).toBeUndefined();
          expect(res.warnings?.[0]).toMatch(/deadline exceeded.*failure policy Ignore/);
        }
        expect(local.log.find((l) => l.uid === uid && l.outcome === "timeout")).toBeDefined();
        expect(metricValue(await metricsText(pki, local.port), "celmap_webhook_requests_total", { outcome: "timeout" })).toBe(1);
      } finally {
        await local.server.shutdown();
      }
    });
  }
});
