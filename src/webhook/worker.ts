/**
 * Entry point of a `celmap webhook --workers N` worker process (run.ts forks it with its
 * configuration in `CELMAP_WEBHOOK_WORKER_CONFIG`). It loads the webhook modules only, not the CLI
 * and its other commands, which keeps a worker's memory down (README, `npm run bench:webhook-memory`).
 */
import { runWorkerFromEnv } from "./run.js";

process.exitCode = await runWorkerFromEnv();
