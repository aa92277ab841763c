/**
 * The webhook's HTTPS server (Node's own `https`):
 *
 * - `POST /mutate`: AdmissionReview v1 in, AdmissionReview v1 out (review.ts);
 * - `GET /healthz`: 200 while the process serves; `GET /readyz`: 200 once a policy set is loaded
 *   and until shutdown starts (a rejected reload keeps the last good set and stays ready);
 * - `GET /metrics`: Prometheus text (metrics.ts).
 *
 * Safety: TLS 1.2 minimum, certificate/key/client CA hot-reloaded (tls.ts), optional client
 * certificates; bodies over `maxBodyBytes` (3 MiB, the apiserver's own request limit) get 413 and
 * the rest of the body is read and discarded (up to a cap, then the connection is closed) so the
 * client reads the answer cleanly; header, request and TLS-handshake timeouts close slow clients;
 * keep-alive longer than the apiserver's 90 s idle timeout so it is the apiserver that closes idle
 * connections (no reuse race). Every request is logged (pino, JSON) and counted.
 *
 * Graceful shutdown (`shutdown()`): readiness turns false, the listener closes (new connections are
 * refused), every response from then on carries `Connection: close`, connections idle for
 * `drainIdleGraceMs` are closed, in-flight requests finish, and after `drainTimeoutMs` whatever
 * is left is destroyed.
 */
import { performance } from "node:perf_hooks";
import { Server as NetServer, type Socket } from "node:net";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Logger } from "pino";
import type { ResourceCatalog } from "../admission/index.js";
import type { SchemaRegistry } from "../kube/schema.js";
import { WebhookMetrics } from "./metrics.js";
import { PolicyStore, type PolicySource, type StoreEvent } from "./policies.js";
import { earlyFailureBody, handleReview, kyvernoPolicyName, type FailurePolicy, type ReviewReply, type ReviewSettings } from "./review.js";
import { readTlsMaterial, watchTlsFiles, type TlsFiles } from "./tls.js";
import { LogLimiter } from "./log-limit.js";
import { startProbes } from "./probes.js";

import { DEFAULT_CLIENT_CN, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT, DEFAULT_TIMEOUT_MS, defaultLogger } from "./defaults.js";

export { DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT, DEFAULT_TIMEOUT_MS, defaultLogger } from "./defaults.js";

export interface WebhookServerOptions {
  readonly tls: TlsFiles;
  readonly source: PolicySource;
  /** Default 8443; 0 picks a free port. */
  readonly port?: number;
  /** Default: every interface. */
  readonly address?: string;
  /** Per-request deadline (reading + evaluation). Default 9 s. */
  readonly timeoutMs?: number;
  /** What server-side failures answer (deadline, internal error, not ready). Default Fail. */
  readonly failurePolicy?: FailurePolicy;
  /** Never mutated (`--namespace`, POD_NAMESPACE). */
  readonly ownNamespace?: string;
  readonly exemptResources?: readonly string[];
  readonly maxBodyBytes?: number;
  /** Bytes of an oversized body read and discarded before the connection is closed. Default 32 MiB. */
  readonly maxDiscardBytes?: number;
  /** Time to receive a request's headers. Default 10 s. */
  readonly headersTimeoutMs?: number;
  /** Time to receive a whole request. Default: the deadline plus 1 s. */
  readonly requestTimeoutMs?: number;
  /** Idle keep-alive. Default 120 s (the apiserver's client closes idle connections at 90 s). */
  readonly keepAliveTimeoutMs?: number;
  /** TLS handshake. Default 10 s. */
  readonly handshakeTimeoutMs?: number;
  /** How often timeouts are checked. Default 1 s. */
  readonly connectionsCheckingIntervalMs?: number;
  /** Longest drain on shutdown. Default 25 s (below the 30 s default termination grace period). */
  readonly drainTimeoutMs?: number;
  /** Idle connections are closed this long after shutdown starts (so clients see `Connection: close` first). Default 1 s. */
  readonly drainIdleGraceMs?: number;
  readonly logger?: Logger;
  readonly metrics?: WebhookMetrics;
  /** Serves /metrics (default: this server's registry; `--workers` aggregates through the primary). */
  readonly metricsText?: () => Promise<string>;
  /** Resources and schemas of snapshots whose source brings none (the file source). Default: the built-ins. */
  readonly catalog?: ResourceCatalog;
  readonly schemas?: SchemaRegistry;
  /**
   * Fail `start()` when the source's first update gives no usable policy set (a wrong path, an
   * empty file, a policy that does not compile), with the reasons, instead of serving unready.
   * The CLI sets it unless `--allow-empty`. Default false.
   */
  readonly requirePolicySet?: boolean;
  /**
   * With a client CA: the common names a client certificate may have (Gatekeeper's
   * `--client-cn-name`). Default `["kube-apiserver"]`; empty: any certificate the CA signed.
   */
  readonly clientCommonNames?: readonly string[];
  /**
   * `[host]:port` of a plain-HTTP port for /healthz and /readyz (and /metrics when
   * `metricsAddress` is the same). Undefined: served on the webhook port.
   */
  readonly healthAddress?: string;
  /** `[host]:port` of a plain-HTTP port for /metrics; undefined: served on the webhook port. */
  readonly metricsAddress?: string;
  /**
   * Another process (the `--workers` primary) serves `healthAddress` and `metricsAddress`: this
   * server does not listen on them, and still leaves /metrics off the webhook port.
   */
  readonly probesElsewhere?: boolean;
  /** Log one in this many successful admissions at info (failures and denials always). Default 1: every one. */
  readonly logSample?: number;
}

export interface ListeningAddress {
  readonly address: string;
  readonly port: number;
}

/** `start()` found no usable policy set (see {@link WebhookServerOptions.requirePolicySet}). */
export class NoPolicySetError extends Error {
  override readonly name = "NoPolicySetError";
}

type Tracked = Socket & {
  __celmapInflight?: number;
  /** When the connection was accepted (`performance.now()`): the first request's deadline counts from it. */
  __celmapArrived?: number;
  /** A client error of this connection was counted (each is counted once, under one reason). */
  __celmapCounted?: boolean;
  /** Responses finished on this connection (the drain's idle sweeps compare it). */
  __celmapResponses?: number;
};

/**
 * Drain sweeps a keep-alive connection must stay idle through before it is closed: no request in
 * flight, no byte read and no response finished between them. Sweeps run in different event-loop
 * turns, each with a poll phase between, so a client that reuses the connection the moment it reads
 * a response (its request already on the wire, not yet read) is seen before its socket is closed.
 * Closing a connection only because no request was being handled at that instant reset such clients.
 */
const IDLE_SWEEPS = 3;
const IDLE_SWEEP_MS = 50;

export class WebhookServer {
  readonly store: PolicyStore;
  readonly metrics: WebhookMetrics;
  readonly logger: Logger;
  readonly #o: WebhookServerOptions;
  readonly #settings: ReviewSettings;
  readonly #timeoutMs: number;
  readonly #maxBody: number;
  readonly #maxDiscard: number;
  #server: Server | undefined;
  readonly #sockets = new Set<Tracked>();
  readonly #rawSockets = new Set<Socket>();
  #draining = false;
  #stopTlsWatch: (() => void) | undefined;
  #shutdown: Promise<void> | undefined;
  #probes: { close(): Promise<void> } | undefined;
  readonly #logLimit = new LogLimiter();
  #sampleCount = 0;

  constructor(options: WebhookServerOptions) {
    this.#o = options;
    // Snapshots carry their catalog and schemas (the cluster source's: built-ins plus its CRDs); these are the defaults.
    this.store = new PolicyStore({
      ...(options.catalog !== undefined ? { catalog: options.catalog } : {}),
      ...(options.schemas !== undefined ? { schemas: options.schemas } : {}),
    });
    this.metrics = options.metrics ?? new WebhookMetrics();
    this.logger = options.logger ?? defaultLogger();
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#maxDiscard = options.maxDiscardBytes ?? 32 * 1024 * 1024;
    this.#settings = {
      failurePolicy: options.failurePolicy ?? "Fail",
      ...(options.ownNamespace !== undefined && options.ownNamespace !== "" ? { ownNamespace: options.ownNamespace } : {}),
      ...(options.exemptResources !== undefined ? { exemptResources: options.exemptResources } : {}),
    };
    this.store.onEvent(this.#onStoreEvent);
  }

  /** Ready: listening, a policy set loaded, not shutting down. */
  get ready(): boolean {
    return this.#server?.listening === true && this.store.loaded && !this.#draining;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Reads the TLS files, listens, then loads the policies (readiness follows the load). */
  async start(): Promise<ListeningAddress> {
    const o = this.#o;
    const material = readTlsMaterial(o.tls);
    this.metrics.certificateExpiry.set(material.notAfter / 1000);
    const headersTimeout = o.headersTimeoutMs ?? 10_000;
    const server = createServer(
      {
        ...material.options,
        ...(o.tls.clientCaFile !== undefined ? { requestCert: true, rejectUnauthorized: true } : {}),
        handshakeTimeout: o.handshakeTimeoutMs ?? 10_000,
        headersTimeout,
        requestTimeout: Math.max(headersTimeout, o.requestTimeoutMs ?? this.#timeoutMs + 1_000),
        keepAliveTimeout: o.keepAliveTimeoutMs ?? 120_000,
        connectionsCheckingInterval: o.connectionsCheckingIntervalMs ?? 1_000,
        noDelay: true,
      },
      (req, res) => this.#onRequest(req, res),
    );
    server.keepAliveTimeout = o.keepAliveTimeoutMs ?? 120_000;
    server.on("connection", (s: Socket) => {
      (s as Tracked).__celmapArrived = performance.now();
      this.#rawSockets.add(s);
      s.on("close", () => this.#rawSockets.delete(s));
    });
    const allowedNames = o.tls.clientCaFile !== undefined ? new Set(o.clientCommonNames ?? [DEFAULT_CLIENT_CN]) : new Set<string>();
    server.on("secureConnection", (s: TLSSocket) => {
      const t = s as Tracked;
      t.__celmapInflight = 0;
      t.__celmapArrived = performance.now();
      if (allowedNames.size > 0) {
        const cn = s.getPeerCertificate()?.subject?.CN;
        const name = Array.isArray(cn) ? cn.join(",") : (cn ?? "");
        if (!allowedNames.has(name)) {
          t.__celmapCounted = true;
          this.metrics.clientErrors.inc({ reason: "client_cn" });
          this.#warnLimited("client_cn", { commonName: name, allowed: [...allowedNames] }, "client certificate common name not allowed; connection closed");
          s.destroy();
          return;
        }
      }
      this.#sockets.add(t);
      s.on("close", () => this.#sockets.delete(t));
    });
    server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => this.#onClientError(err, socket));
    server.on("tlsClientError", (err: Error, socket: TLSSocket) => {
      (socket as Tracked).__celmapCounted = true;
      this.metrics.clientErrors.inc({ reason: "tls" });
      this.#warnLimited("tls_error", { error: err.message }, "TLS handshake failed");
    });
    this.#server = server;
    const addr = await new Promise<ListeningAddress>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port: o.port ?? DEFAULT_PORT, ...(o.address !== undefined ? { host: o.address } : {}) }, () => {
        server.off("error", reject);
        const a = server.address();
        resolve(typeof a === "object" && a !== null ? { address: a.address, port: a.port } : { address: String(a), port: 0 });
      });
    });
    server.on("error", (e) => this.logger.error({ event: "server_error", error: e.message }, "server error"));
    const elsewhere = o.probesElsewhere === true;
    const probes = await startProbes(elsewhere ? undefined : o.healthAddress, elsewhere ? undefined : o.metricsAddress, {
      notReady: () => this.#notReady(),
      metrics: async () => ({ contentType: this.metrics.registry.contentType, text: await (o.metricsText ?? (() => this.metrics.text()))() }),
    }).catch(async (e: unknown) => {
      await new Promise<void>((r) => server.close(() => r()));
      throw e;
    });
    this.#probes = probes;
    this.logger.info(
      {
        event: "listening",
        ...addr,
        certificate: material.subject,
        clientCa: o.tls.clientCaFile !== undefined,
        ...(allowedNames.size > 0 ? { clientCommonNames: [...allowedNames] } : {}),
        tlsMinVersion: material.options.minVersion,
        ...(probes.health !== undefined ? { healthPort: probes.health.port, healthAddress: probes.health.host } : {}),
        ...(probes.metrics !== undefined ? { metricsPort: probes.metrics.port, metricsAddress: probes.metrics.host } : {}),
      },
      "listening",
    );
    this.#stopTlsWatch = watchTlsFiles(o.tls, () => this.reloadTls());
    await o.source.start(this.store.apply);
    if (o.requirePolicySet === true && !this.store.loaded) {
      const reasons = this.store.lastErrors.length > 0 ? this.store.lastErrors : ["the source delivered nothing"];
      await this.shutdown("no usable policy set");
      throw new NoPolicySetError(`no usable policy set from ${o.source.description}: ${reasons.join("; ")}`);
    }
    return addr;
  }

  /** Re-reads the certificate, key and client CA; keeps the old ones when they are not usable. */
  reloadTls(): boolean {
    try {
      const m = readTlsMaterial(this.#o.tls);
      this.#server?.setSecureContext(m.options);
      this.metrics.certificateReloads.inc({ result: "success" });
      this.metrics.certificateExpiry.set(m.notAfter / 1000);
      this.logger.info({ event: "certificate_reloaded", subject: m.subject, notAfter: new Date(m.notAfter).toISOString() }, "certificate reloaded");
      return true;
    } catch (e) {
      this.metrics.certificateReloads.inc({ result: "error" });
      this.logger.error({ event: "certificate_reload_failed", error: e instanceof Error ? e.message : String(e) }, "certificate reload failed; keeping the previous one");
      return false;
    }
  }

  #onStoreEvent = (e: StoreEvent): void => {
    const m = this.metrics;
    if (e.type === "loaded") {
      const s = e.snapshot;
      m.policyReloads.inc({ result: "success" });
      m.policyReloadSuccess.set(1);
      m.policyGeneration.set(s.generation);
      m.policies.set({ kind: "MutatingAdmissionPolicy" }, s.policies.length);
      m.policies.set({ kind: "MutatingAdmissionPolicyBinding" }, s.bindings.length);
      m.policies.set({ kind: "Namespace" }, s.namespaces.size);
      m.policies.set({ kind: "MutatingPolicy" }, s.kyvernoPolicies.length);
      m.policies.set({ kind: "PolicyException" }, s.kyvernoExceptions.length);
      m.retainPolicies(new Set([...s.policies.map((p) => p.metadata.name), ...s.kyvernoPolicies.map(kyvernoPolicyName)]));
      this.logger.info(
        {
          event: "policies_loaded",
          generation: s.generation,
          policies: s.policies.length,
          bindings: s.bindings.length,
          kyvernoPolicies: s.kyvernoPolicies.length,
          origin: s.origin,
          ...(s.notes.length > 0 ? { notes: s.notes } : {}),
        },
        e.previous === undefined ? "policy set loaded" : "policy set reloaded",
      );
    } else if (e.type === "unchanged") {
      m.policyReloads.inc({ result: "unchanged" });
      m.policyReloadSuccess.set(1);
    } else {
      m.policyReloads.inc({ result: "error" });
      m.policyReloadSuccess.set(0);
      this.logger.error(
        { event: "policies_rejected", origin: e.origin, errors: e.errors, keptGeneration: e.kept?.generation ?? null },
        e.kept === undefined ? "policy set rejected; no policy set loaded yet" : "policy set rejected; keeping the last good one",
      );
    }
  };

  /** A warning a client can cause at any rate: at most a few lines per 10 s per event. */
  #warnLimited(event: string, fields: Record<string, unknown>, message: string): void {
    const t = this.#logLimit.take(event);
    if (t.log) this.logger.warn({ event, ...fields, ...(t.suppressed > 0 ? { suppressed: t.suppressed } : {}) }, message);
  }

  /** Counts a client error once per connection (a request aborted mid-body is not also a reset). */
  #countClientError(socket: Socket, reason: string): boolean {
    const t = socket as Tracked;
    if (t.__celmapCounted === true) return false;
    t.__celmapCounted = true;
    this.metrics.clientErrors.inc({ reason });
    return true;
  }

  #notReady(): string | undefined {
    return this.#draining ? "shutting down" : !this.store.loaded ? "no policy set loaded" : this.#server?.listening !== true ? "not listening" : undefined;
  }

  #onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
    const code = err.code ?? "";
    const reason =
      code === "ERR_HTTP_REQUEST_TIMEOUT" ? "request_timeout" : code === "ECONNRESET" ? "connection_reset" : code === "HPE_HEADER_OVERFLOW" ? "header_overflow" : "bad_request";
    const counted = this.#countClientError(socket, reason);
    if (counted && reason !== "connection_reset") this.#warnLimited("client_error", { reason, error: err.message }, "client error; connection closed");
    if (reason !== "connection_reset" && socket.writable && !socket.destroyed) {
      const status = reason === "request_timeout" ? "408 Request Timeout" : reason === "header_overflow" ? "431 Request Header Fields Too Large" : "400 Bad Request";
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      setTimeout(() => socket.destroy(), 1_000).unref();
    } else {
      socket.destroy();
    }
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket as Tracked;
    socket.__celmapInflight = (socket.__celmapInflight ?? 0) + 1;
    res.once("close", () => {
      socket.__celmapInflight = Math.max(0, (socket.__celmapInflight ?? 1) - 1);
      socket.__celmapResponses = (socket.__celmapResponses ?? 0) + 1;
    });
    const path = (req.url ?? "/").split("?", 1)[0];
    try {
      switch (path) {
        case "/mutate":
          this.#mutate(req, res);
          return;
        case "/healthz":
          this.#send(res, 200, "text/plain; charset=utf-8", "ok");
          return;
        case "/readyz": {
          const why = this.#notReady();
          if (why === undefined) this.#send(res, 200, "text/plain; charset=utf-8", "ok");
          else this.#send(res, 503, "text/plain; charset=utf-8", why);
          return;
        }
        case "/metrics":
          if (this.#o.metricsAddress !== undefined) {
            this.#send(res, 404, "text/plain; charset=utf-8", "not found (metrics are served on --metrics-addr)");
            return;
          }
          if (req.method !== "GET") {
            this.#send(res, 405, "text/plain; charset=utf-8", "method not allowed", { Allow: "GET" });
            return;
          }
          (this.#o.metricsText ?? (() => this.metrics.text()))().then(
            (text) => this.#send(res, 200, this.metrics.registry.contentType, text),
            (e: unknown) => this.#send(res, 500, "text/plain; charset=utf-8", `metrics: ${e instanceof Error ? e.message : String(e)}`),
          );
          return;
        default:
          this.#send(res, 404, "text/plain; charset=utf-8", "not found");
      }
    } catch (e) {
      this.logger.error({ event: "internal_error", path, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }, "internal error");
      if (!res.headersSent) this.#send(res, 500, "text/plain; charset=utf-8", "internal error");
    }
  }

  #send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
    if (res.headersSent || res.destroyed) return;
    const h: Record<string, string | number> = { "Content-Type": contentType, "Content-Length": Buffer.byteLength(body), ...headers };
    if (this.#draining) h.Connection = "close";
    res.writeHead(status, h);
    res.end(body);
  }

  #finish(
    res: ServerResponse,
    started: number,
    reply: Pick<ReviewReply, "httpStatus" | "body" | "outcome" | "dryRun" | "log" | "checks"> & Partial<Pick<ReviewReply, "invocations" | "matchConditions" | "operation">>,
  ): void {
    this.#send(res, reply.httpStatus, "application/json", reply.body);
    const seconds = (performance.now() - started) / 1000;
    const m = this.metrics;
    m.requests.inc({ outcome: reply.outcome, dry_run: String(reply.dryRun) });
    m.requestDuration.observe({ outcome: reply.outcome }, seconds);
    m.observePolicies(reply);
    const patchBytes = reply.outcome === "mutated" ? patchSize(reply.body) : 0;
    const fields = { event: "admission", outcome: reply.outcome, httpStatus: reply.httpStatus, durationMs: Math.round(seconds * 1e6) / 1e3, patchBytes, ...reply.log };
    switch (reply.outcome) {
      case "invalid":
      case "too_large":
      case "timeout":
      case "error":
      case "not_ready":
        this.logger.warn(fields, "admission request failed");
        break;
      case "denied":
        this.logger.info(fields, "admission request denied");
        break;
      default: {
        // One info line per admission (`--log-sample N`: one in N under high rates; the rest at debug).
        const sample = this.#o.logSample ?? 1;
        if (sample <= 1 || this.#sampleCount++ % sample === 0) this.logger.info(sample > 1 ? { ...fields, sampled: sample } : fields, "admission request");
        else this.logger.debug(fields, "admission request");
      }
    }
  }

  #mutate(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    // The deadline counts from the request's arrival: for the first request of a connection, from
    // its accept (it may have waited while this process was busy), else from its headers. A
    // connection accepted longer ago than the deadline was idle (a wait behind a busy evaluation
    // is bounded by the deadline): its request counts from its headers.
    const socket = req.socket as Tracked;
    const accepted = socket.__celmapArrived;
    const arrived = accepted !== undefined && accepted <= started && started - accepted <= this.#timeoutMs ? accepted : started;
    socket.__celmapArrived = undefined;
    const deadline = arrived + this.#timeoutMs;
    // In flight from arrival until the answer is written (or the connection is gone).
    this.metrics.inflight.inc();
    res.once("close", () => this.metrics.inflight.dec());
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      return true;
    };
    const early = (outcome: "invalid" | "too_large" | "timeout", status: number, reason: string, message: string, extra: Record<string, unknown> = {}): void => {
      this.#finish(res, started, { httpStatus: status, body: earlyFailureBody(status, reason, message), outcome, dryRun: false, log: { error: message, ...extra }, checks: [] });
    };
    const timer = setTimeout(() => {
      if (!settle()) return;
      early("timeout", 408, "Timeout", "request body not received before the deadline");
      req.socket.destroySoon();
    }, Math.max(0, deadline - started));
    timer.unref();

    if (req.method !== "POST") {
      settle();
      this.#finish(res, started, {
        httpStatus: 405,
        body: earlyFailureBody(405, "MethodNotAllowed", `method ${req.method ?? ""} not allowed; POST an AdmissionReview`),
        outcome: "invalid",
        dryRun: false,
        log: { error: `method ${req.method ?? ""}` },
        checks: [],
      });
      return;
    }
    const declared = Number(req.headers["content-length"] ?? Number.NaN);
    const tooLarge = (size: number): void => {
      if (!settle()) return;
      early("too_large", 413, "RequestEntityTooLarge", `request body of ${size} bytes exceeds the limit of ${this.#maxBody} bytes`, { bytes: size });
    };
    let size = 0;
    let discarded = 0;
    const chunks: Buffer[] = [];
    if (Number.isFinite(declared) && declared > this.#maxBody) {
      tooLarge(declared);
      if (declared > this.#maxDiscard) {
        // Not worth reading: close once the answer is out.
        res.once("finish", () => req.socket.destroySoon());
      }
    }
    req.on("data", (chunk: Buffer) => {
      if (settled) {
        // Discarding an oversized (or abandoned) body so the client can read the answer.
        discarded += chunk.length;
        if (discarded > this.#maxDiscard) req.socket.destroy();
        return;
      }
      size += chunk.length;
      if (size > this.#maxBody) {
        chunks.length = 0;
        tooLarge(size);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!settle()) return;
      const text = Buffer.concat(chunks, size).toString("utf8");
      let reply: ReviewReply;
      try {
        reply = handleReview(text, { settings: this.#settings, snapshot: this.store.current, deadline, now: () => performance.now() });
      } catch (e) {
        const message = `internal error: ${e instanceof Error ? e.message : String(e)}`;
        reply = { httpStatus: 500, body: earlyFailureBody(500, "InternalError", message), outcome: "error", dryRun: false, log: { error: message }, checks: [], invocations: [], matchConditions: [] };
      }
      this.#finish(res, started, reply);
    });
    req.on("error", (e) => {
      if (!settle()) return;
      if (this.#countClientError(req.socket, "aborted")) this.#warnLimited("client_error", { reason: "aborted", error: e.message }, "request aborted by the client");
    });
    req.on("aborted", () => {
      if (!settle()) return;
      if (this.#countClientError(req.socket, "aborted")) this.#warnLimited("client_error", { reason: "aborted" }, "request aborted by the client");
    });
  }

  /**
   * Graceful shutdown (idempotent): stop accepting, drain in-flight requests, close connections.
   * Resolves when every connection is closed.
   */
  shutdown(reason = "shutdown requested"): Promise<void> {
    if (this.#shutdown !== undefined) return this.#shutdown;
    this.#shutdown = this.#drain(reason);
    return this.#shutdown;
  }

  async #drain(reason: string): Promise<void> {
    const server = this.#server;
    this.#draining = true;
    this.#o.source.close();
    this.#stopTlsWatch?.();
    const inflight = (): number => [...this.#sockets].reduce((n, s) => n + (s.__celmapInflight ?? 0), 0);
    this.logger.info({ event: "shutdown", reason, connections: this.#sockets.size, inflight: inflight() }, "shutting down: draining");
    if (server === undefined) return;
    const started = performance.now();
    // net.Server's close: stop accepting without http.Server's immediate closeIdleConnections()
    // (a client could be sending on an "idle" connection right now; it gets Connection: close instead).
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
    const graceMs = this.#o.drainIdleGraceMs ?? 1_000;
    const drainMs = this.#o.drainTimeoutMs ?? 25_000;
    const quiet = new Map<Tracked, { activity: string; sweeps: number }>();
    const closeIdle = (): void => {
      for (const s of this.#sockets) {
        const activity = `${s.bytesRead}/${s.__celmapResponses ?? 0}`;
        const before = quiet.get(s);
        const sweeps = (s.__celmapInflight ?? 0) === 0 && before?.activity === activity ? before.sweeps + 1 : 0;
        quiet.set(s, { activity, sweeps });
        if (sweeps >= IDLE_SWEEPS) s.end();
      }
    };
    const idleTimer = setTimeout(() => {
      closeIdle();
      // Responses carry Connection: close, so busy sockets close after their next one; idle ones close
      // once they have stayed idle through IDLE_SWEEPS sweeps.
      const again = setInterval(closeIdle, IDLE_SWEEP_MS);
      again.unref();
      void closed.then(() => clearInterval(again));
    }, graceMs);
    idleTimer.unref();
    let forced = false;
    const force = new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        forced = true;
        for (const s of this.#sockets) s.destroy();
        for (const s of this.#rawSockets) s.destroy();
        resolve();
      }, drainMs);
      t.unref();
      void closed.then(() => {
        clearTimeout(t);
        resolve();
      });
    });
    await Promise.race([closed, force]);
    clearTimeout(idleTimer);
    await this.#probes?.close();
    this.logger.info({ event: "shutdown_complete", drainedMs: Math.round(performance.now() - started), forced }, "shutdown complete");
  }
}

/** Bytes of the JSONPatch in an AdmissionReview answer (decoded from its base64), 0 without one. */
function patchSize(body: string): number {
  const m = /"patch":"([A-Za-z0-9+/=]*)"/.exec(body);
  return m === null ? 0 : Math.floor((m[1]!.length * 3) / 4) - (m[1]!.endsWith("==") ? 2 : m[1]!.endsWith("=") ? 1 : 0);
}
