/**
 * Health, readiness and metrics on their own plain-HTTP port(s), apart from the webhook's TLS port,
 * as Gatekeeper (`--health-addr`, `--metrics-addr`) and Kyverno do: kubelet probes need no client
 * certificate when the webhook demands one (`--client-ca`), and /metrics is not served on the port
 * the API server reaches. With `--workers`, the primary serves them (it never evaluates, so a
 * worker busy with a slow request does not delay a probe).
 *
 * - `GET /healthz`: 200 `ok` while the process serves;
 * - `GET /readyz`: 200 when `ready()` says so, else 503 with the reason;
 * - `GET /metrics`: Prometheus text.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export interface ProbeHandlers {
  /** Undefined when ready, else why not. */
  readonly notReady: () => string | undefined;
  readonly metrics: () => Promise<{ readonly contentType: string; readonly text: string }>;
}

export interface ProbeAddress {
  readonly host: string;
  readonly port: number;
}

/** `[host]:port` (`:9090`, `127.0.0.1:0`, `[::1]:9090`); an empty host is every interface. */
export function parseAddress(text: string): ProbeAddress {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  const port = m === null ? Number.NaN : Number(m[3]);
  if (m === null || port > 65535) throw new Error(`invalid address ${JSON.stringify(text)}: use [host]:port, e.g. :9090 or 127.0.0.1:9090`);
  return { host: m[1] ?? m[2] ?? "", port };
}

export type ProbeRoute = "health" | "metrics";

/** One plain-HTTP server for some of the routes. `close()` stops it. */
export class ProbeServer {
  readonly #server: Server;
  readonly #routes: ReadonlySet<ProbeRoute>;
  readonly #h: ProbeHandlers;

  constructor(routes: readonly ProbeRoute[], handlers: ProbeHandlers) {
    this.#routes = new Set(routes);
    this.#h = handlers;
    this.#server = createServer({ headersTimeout: 10_000, requestTimeout: 15_000, keepAliveTimeout: 5_000 }, (req, res) => this.#handle(req, res));
  }

  listen(address: ProbeAddress): Promise<ProbeAddress> {
    const server = this.#server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port: address.port, ...(address.host !== "" ? { host: address.host } : {}) }, () => {
        server.off("error", reject);
        const a = server.address();
        resolve(typeof a === "object" && a !== null ? { host: a.address, port: a.port } : { host: String(a), port: 0 });
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? "/").split("?", 1)[0];
    const send = (status: number, type: string, body: string): void => {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
      res.end(body);
    };
    const text = "text/plain; charset=utf-8";
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET");
      send(405, text, "method not allowed");
      return;
    }
    if (this.#routes.has("health") && path === "/healthz") return send(200, text, "ok");
    if (this.#routes.has("health") && path === "/readyz") {
      const why = this.#h.notReady();
      return why === undefined ? send(200, text, "ok") : send(503, text, why);
    }
    if (this.#routes.has("metrics") && path === "/metrics") {
      this.#h.metrics().then(
        (m) => send(200, m.contentType, m.text),
        (e: unknown) => send(500, text, `metrics: ${e instanceof Error ? e.message : String(e)}`),
      );
      return;
    }
    send(404, text, "not found");
  }
}

/**
 * Starts the probe servers for these addresses (one server when both are the same port; an
 * undefined address serves nothing). Resolves with what listens where, and a closer.
 */
export async function startProbes(
  healthAddress: string | undefined,
  metricsAddress: string | undefined,
  handlers: ProbeHandlers,
): Promise<{ readonly health?: ProbeAddress; readonly metrics?: ProbeAddress; close(): Promise<void> }> {
  const servers: ProbeServer[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(servers.map((s) => s.close()));
  };
  try {
    // The same fixed address: one server for both (port 0 asks for two ports).
    if (healthAddress !== undefined && healthAddress === metricsAddress && parseAddress(healthAddress).port !== 0) {
      const s = new ProbeServer(["health", "metrics"], handlers);
      servers.push(s);
      const a = await s.listen(parseAddress(healthAddress));
      return { health: a, metrics: a, close };
    }
    let health: ProbeAddress | undefined;
    let metrics: ProbeAddress | undefined;
    if (healthAddress !== undefined) {
      const s = new ProbeServer(["health"], handlers);
      servers.push(s);
      health = await s.listen(parseAddress(healthAddress));
    }
    if (metricsAddress !== undefined) {
      const s = new ProbeServer(["metrics"], handlers);
      servers.push(s);
      metrics = await s.listen(parseAddress(metricsAddress));
    }
    return { ...(health !== undefined ? { health } : {}), ...(metrics !== undefined ? { metrics } : {}), close };
  } catch (e) {
    await close();
    throw e;
  }
}
