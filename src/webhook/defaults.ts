/**
 * The webhook's defaults and logger: what the CLI command and the `--workers` primary need, kept
 * apart from the server so that neither loads the admission pipeline for them.
 */
import { pino, type Logger } from "pino";

export const DEFAULT_PORT = 8443;
/** kube-apiserver's maximum request body (3 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;
/** Below the 10 s default webhook timeout. */
export const DEFAULT_TIMEOUT_MS = 9_000;

export function defaultLogger(level = "info"): Logger {
  return pino({ name: "celmap-webhook", level, timestamp: pino.stdTimeFunctions.isoTime });
}
