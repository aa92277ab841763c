/**
 * Running the webhook as a process: one server, or (`workers > 1`) Node's `cluster` module with
 * `workers` processes sharing the port (the primary accepts and hands connections out round-robin).
 *
 * Primary: forks the workers, restarts one that dies (with a back-off when they crash in a loop),
 * aggregates `/metrics` across workers (prom-client's AggregatorRegistry, asked by whichever worker
 * serves the scrape), and on SIGTERM/SIGINT tells every worker to shut down gracefully, waits for
 * them (killing stragglers after the drain timeout) and exits.
 * Worker / single process: runs a {@link WebhookServer}; SIGTERM/SIGINT (or the primary's message)
 * starts its graceful shutdown; the process exits when it has drained.
 */
import cluster, { type Worker } from "node:cluster";
import { fileURLToPath } from "node:url";
import { AggregatorRegistry } from "prom-client";
import type { Logger } from "pino";
import type { ClusterSourceOptions } from "./cluster.js";
import { defaultLogger } from "./defaults.js";
import type { PolicySource } from "./policies.js";
import type { WebhookServerOptions } from "./server.js";
import { readTlsMaterial } from "./tls.js";

export interface WebhookRunConfig extends Omit<WebhookServerOptions, "source" | "logger" | "metricsText"> {
  /** Policy files and directories (watched). */
  readonly paths: readonly string[];
  /** Read the policies from the cluster (informers) instead of `paths`. */
  readonly cluster?: ClusterSourceOptions;
  /** Worker processes; 1 (default) serves in this process. */
  readonly workers?: number;
  readonly logLevel?: string;
  /** Policy reload debounce. */
  readonly debounceMs?: number;
  /**
   * Accept an empty policy source (no policies in the files) as a policy set, and start without
   * a usable set (unready until one loads). Default false: an empty or missing source never
   * replaces a set, and the webhook exits 1 at start-up without a usable set.
   */
  readonly allowEmpty?: boolean;
}

/** A worker's exit code when it cannot start for a reason a restart does not fix (no usable policy set). */
export const WORKER_CONFIG_EXIT = 78;

const SHUTDOWN = "celmap:webhook:shutdown";
/** The environment variable that carries a worker's configuration (JSON) from the primary. */
export const WORKER_CONFIG_ENV = "CELMAP_WEBHOOK_WORKER_CONFIG";
/**
 * V8 flags of the worker processes, measured with `npm run bench:webhook-memory` (README): with
 * V8's default heap sizing a worker under sustained load lets its old generation fill with
 * promoted per-request garbage before collecting it (RSS 150-210 MB with 100 policies, for a live
 * heap of about 26 MB); a 128 MB old-generation limit makes it collect earlier (RSS about 130 MB).
 * 128 MB is 5 x the live heap with 100 policies; a 2.8 MB Pod (the apiserver's body limit is
 * 3 MiB) through 100 policies was evaluated with a 64 MB limit. A flag given to the primary
 * (command line or NODE_OPTIONS) wins over this default.
 */
export const WORKER_EXEC_ARGV: readonly string[] = ["--max-old-space-size=128"];

/** The configuration a worker can rebuild from JSON, or undefined when it holds live objects (library use). */
function workerConfigJson(config: WebhookRunConfig): string | undefined {
  if (config.metrics !== undefined || config.catalog !== undefined || config.schemas !== undefined) return undefined;
  return JSON.stringify(config);
}

/** A worker started by {@link runPrimary} through `worker.js`: reads its configuration and serves. */
export async function runWorkerFromEnv(): Promise<number> {
  const text = process.env[WORKER_CONFIG_ENV];
  if (text === undefined || !cluster.isWorker) throw new Error(`celmap webhook worker: not started by the primary (${WORKER_CONFIG_ENV} is not set)`);
  return runServer(JSON.parse(text) as WebhookRunConfig, true);
}
const STATE = "celmap:webhook:state";
const METRICS_REQ = "celmap:webhook:metrics-req";
const METRICS_RES = "celmap:webhook:metrics-res";

type Message = { type?: unknown; id?: unknown; text?: unknown; error?: unknown; ready?: unknown };

/** Runs until shut down; resolves with the exit code. */
export async function runWebhook(config: WebhookRunConfig): Promise<number> {
  const workers = config.workers ?? 1;
  if (workers > 1 && cluster.isPrimary) return runPrimary(config, workers);
  return runServer(config, cluster.isWorker);
}

async function runServer(config: WebhookRunConfig, isWorker: boolean): Promise<number> {
  const base = defaultLogger(config.logLevel ?? "info");
  const logger: Logger = isWorker ? base.child({ worker: cluster.worker?.id }) : base;
  let metricsText: (() => Promise<string>) | undefined;
  if (isWorker) metricsText = askPrimaryForMetrics;
  // Imported here: the `--workers` primary never serves, and does not load the server and the
  // admission pipeline (about 40 MB of RSS).
  const [{ FilePolicySource }, { WebhookServer }] = await Promise.all([import("./policies.js"), import("./server.js")]);
  let source: PolicySource;
  if (config.cluster !== undefined) {
    // Loaded only in cluster mode: @kubernetes/client-node and its generated API models add about
    // 40-60 MB of RSS to every process that imports them.
    const { ClusterPolicySource } = await import("./cluster.js");
    source = new ClusterPolicySource(config.cluster);
  } else {
    source = new FilePolicySource(config.paths, { ...(config.debounceMs !== undefined ? { debounceMs: config.debounceMs } : {}), allowEmpty: config.allowEmpty === true });
  }
  // With workers, the primary serves the health and metrics ports (a busy worker delays no probe).
  const server = new WebhookServer({
    ...config,
    ...(isWorker ? { probesElsewhere: true } : {}),
    // Files: a start without a usable set is a configuration error. The cluster source keeps
    // retrying (an API server unreachable for a moment is not), unready meanwhile.
    requirePolicySet: config.allowEmpty !== true && config.cluster === undefined,
    source,
    logger,
    ...(metricsText !== undefined ? { metricsText } : {}),
  });
  if (isWorker) {
    // Answer the primary's aggregation requests from this server's registry.
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([server.metrics.registry]);
  }
  if (isWorker) {
    // Readiness as the primary's /readyz sees it.
    const report = (): void => {
      if (process.connected) process.send?.({ type: STATE, ready: server.ready });
    };
    server.store.onEvent(report);
    const timer = setInterval(report, 1_000);
    timer.unref();
  }
  try {
    await server.start();
    if (isWorker && process.connected) process.send?.({ type: STATE, ready: server.ready });
  } catch (e) {
    logger.fatal({ event: "start_failed", error: e instanceof Error ? e.message : String(e) }, "cannot start the webhook");
    if (isWorker) process.exit(e instanceof Error && e.name === "NoPolicySetError" ? WORKER_CONFIG_EXIT : 1);
    return 1;
  }
  return new Promise<number>((resolve) => {
    const stop = (why: string): void => {
      void server.shutdown(why).then(() => {
        if (isWorker) process.exit(0);
        resolve(0);
      });
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
    if (isWorker) {
      process.on("message", (m: Message) => {
        if (m?.type === SHUTDOWN) stop("primary requested shutdown");
      });
    }
  });
}

let metricsSeq = 0;
const pendingMetrics = new Map<number, { resolve: (t: string) => void; reject: (e: Error) => void }>();

function askPrimaryForMetrics(): Promise<string> {
  if (pendingMetrics.size === 0 && metricsSeq === 0) {
    process.on("message", (m: Message) => {
      if (m?.type !== METRICS_RES || typeof m.id !== "number") return;
      const p = pendingMetrics.get(m.id);
      if (p === undefined) return;
      pendingMetrics.delete(m.id);
      if (typeof m.text === "string") p.resolve(m.text);
      else p.reject(new Error(typeof m.error === "string" ? m.error : "no metrics"));
    });
  }
  const id = ++metricsSeq;
  return new Promise<string>((resolve, reject) => {
    pendingMetrics.set(id, { resolve, reject });
    process.send?.({ type: METRICS_REQ, id });
    setTimeout(() => {
      if (pendingMetrics.delete(id)) reject(new Error("the primary did not answer the metrics request"));
    }, 5_000).unref();
  });
}

async function runPrimary(config: WebhookRunConfig, count: number): Promise<number> {
  const logger = defaultLogger(config.logLevel ?? "info").child({ role: "primary" });
  // Fail fast on unusable TLS files rather than restarting workers that cannot start.
  try {
    readTlsMaterial(config.tls);
  } catch (e) {
    logger.fatal({ event: "start_failed", error: e instanceof Error ? e.message : String(e) }, "cannot start the webhook");
    return 1;
  }
  const aggregator = new AggregatorRegistry();
  let shuttingDown = false;
  const crashes: number[] = [];
  /** Worker id → its last reported readiness. */
  const readiness = new Map<number, boolean>();
  let everReady = false;
  let probes: { readonly health?: { port: number }; readonly metrics?: { port: number }; close(): Promise<void> } | undefined;
  try {
    const { startProbes } = await import("./probes.js");
    probes = await startProbes(config.healthAddress, config.metricsAddress, {
      notReady: () => (shuttingDown ? "shutting down" : [...readiness.values()].some((r) => r) ? undefined : "no worker ready"),
      metrics: async () => ({ contentType: aggregator.contentType, text: await aggregator.clusterMetrics() }),
    });
  } catch (e) {
    logger.fatal({ event: "start_failed", error: e instanceof Error ? e.message : String(e) }, "cannot start the webhook");
    return 1;
  }
  // The workers accept connections themselves from the shared listening socket (SCHED_NONE), not
  // through the primary: a connection is only ever held by the worker that accepted it, so a
  // worker that dies takes its connections with it (the clients see them closed at once) and
  // strands nothing in the primary; connections not yet accepted stay in the kernel's queue for
  // the other workers; and a worker busy evaluating accepts nothing meanwhile, so new connections
  // go to a free one instead of waiting in the busy one's queue. UV_TCP_SINGLE_ACCEPT makes a
  // worker take one connection per wake-up rather than all that are queued.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  // Workers run a slim entry point (worker.js: the webhook modules only, not the whole CLI) with the
  // configuration in the environment, unless the configuration holds live objects (library use),
  // in which case they re-run the primary's script as the cluster module does by default.
  const configJson = workerConfigJson(config);
  if (configJson !== undefined) {
    const flags = WORKER_EXEC_ARGV.filter((f) => {
      const name = f.split("=", 1)[0]!;
      return ![...process.execArgv, ...(process.env["NODE_OPTIONS"] ?? "").split(/\s+/)].some((g) => g.split("=", 1)[0] === name);
    });
    cluster.setupPrimary({ exec: fileURLToPath(new URL("./worker.js", import.meta.url)), args: [], execArgv: [...process.execArgv, ...flags] });
  }
  const fork = (): Worker => cluster.fork({ UV_TCP_SINGLE_ACCEPT: "1", ...(configJson !== undefined ? { [WORKER_CONFIG_ENV]: configJson } : {}) });

  let finish: ((code: number) => void) | undefined;
  cluster.on("message", (worker: Worker, m: Message) => {
    if (m?.type === STATE) {
      readiness.set(worker.id, m.ready === true);
      if (m.ready === true) everReady = true;
      return;
    }
    if (m?.type !== METRICS_REQ) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: METRICS_RES, id: m.id, text }),
      (e: unknown) => worker.send({ type: METRICS_RES, id: m.id, error: e instanceof Error ? e.message : String(e) }),
    );
  });
  cluster.on("exit", (worker, code, signal) => {
    readiness.delete(worker.id);
    if (shuttingDown) return;
    if (code === WORKER_CONFIG_EXIT && !everReady) {
      // No usable policy set at start-up: restarting does not fix it (the worker logged why).
      logger.fatal({ event: "start_failed", worker: worker.id, error: "no usable policy set (see the worker's start_failed line)" }, "cannot start the webhook");
      finish?.(1);
      return;
    }
    const now = Date.now();
    crashes.push(now);
    while (crashes.length > 0 && crashes[0]! < now - 60_000) crashes.shift();
    // Back off when workers crash in a loop (e.g. a port or certificate problem): up to 30 s.
    const delay = crashes.length <= 3 ? 0 : Math.min(30_000, 500 * 2 ** (crashes.length - 3));
    logger.error({ event: "worker_exit", worker: worker.id, pid: worker.process.pid, code, signal, restartInMs: delay }, "worker exited; restarting");
    setTimeout(() => {
      if (!shuttingDown) fork();
    }, delay);
  });
  for (let i = 0; i < count; i++) fork();
  logger.info(
    {
      event: "primary_started",
      workers: count,
      ...(probes.health !== undefined ? { healthPort: probes.health.port } : {}),
      ...(probes.metrics !== undefined ? { metricsPort: probes.metrics.port } : {}),
    },
    "started workers",
  );

  return new Promise<number>((resolveRun) => {
    const resolve = (code: number): void => {
      void (probes?.close() ?? Promise.resolve()).then(() => resolveRun(code));
    };
    const stop = (why: string, code = 0): void => {
      if (shuttingDown) return;
      shuttingDown = true;
      const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
      logger.info({ event: "shutdown", reason: why, workers: alive.length }, "shutting down workers");
      if (alive.length === 0) {
        resolve(code);
        return;
      }
      let left = alive.length;
      for (const w of alive) {
        w.once("exit", () => {
          if (--left === 0) {
            logger.info({ event: "shutdown_complete" }, "all workers exited");
            resolve(code);
          }
        });
        if (w.isConnected()) w.send({ type: SHUTDOWN });
        else w.process.kill("SIGTERM");
      }
      setTimeout(() => {
        for (const w of alive) if (!w.isDead()) w.process.kill("SIGKILL");
      }, (config.drainTimeoutMs ?? 25_000) + 5_000).unref();
    };
    finish = (code) => stop("no usable policy set", code);
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
}
