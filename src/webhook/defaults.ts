/**
 * The webhook's defaults and logger: what the CLI command and the `--workers` primary need, kept
 * apart from the server so that neither loads the admission pipeline for them.
 */
import { pino, type Logger } from "pino";

export const DEFAULT_PORT = 8443;
/** kube-apiserver's maximum request body (3 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;
/** With --client-ca, the client certificate common name allowed by default (Gatekeeper's --client-cn-name default). */
export const DEFAULT_CLIENT_CN = "kube-apiserver";
/** Plain-HTTP health and readiness (Gatekeeper's --health-addr default). */
export const DEFAULT_HEALTH_ADDR = ":9090";
/** Plain-HTTP metrics (Gatekeeper's Prometheus port). */
export const DEFAULT_METRICS_ADDR = ":8888";
/** Below the 10 s default webhook timeout. */
export const DEFAULT_TIMEOUT_MS = 9_000;

export function defaultLogger(level = "info"): Logger {
  return pino({ name: "celmap-webhook", level, timestamp: pino.stdTimeFunctions.isoTime });
}

/**
 * The largest string (UTF-16 units), bytes or list one CEL concatenation may build while a request
 * is evaluated (a memory guard; a larger one fails the expression with the cost-limit error).
 * 4 Mi is above anything the apiserver can store (its request body limit is 3 MiB, etcd's 1.5 MiB)
 * and, at two bytes per unit, 8 MB: well inside a worker's 128 MB heap (run.ts).
 */
export const MAX_VALUE_SIZE = 4 * 1024 * 1024;
