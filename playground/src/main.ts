/**
 * Entry: starts the evaluation worker and sends it the first case before the editor code loads
 * (ui.ts, a separate chunk), so the engine starts up while the page builds itself.
 */
import "./style.css";
import { evalJob, initialState } from "./boot.js";
import { renderProblemsText, renderResults } from "./render.js";
import { WorkerClient } from "./worker-client.js";

/** A worker busy for longer than this is terminated and restarted (`?worker-timeout=<seconds>` overrides). */
const timeoutSeconds = Number(new URLSearchParams(location.search).get("worker-timeout") ?? "10");
const worker = new WorkerClient((Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? timeoutSeconds : 10) * 1000);
performance.mark("celmap-worker-spawn");
worker.warm(window.celmapEarlyWorker);
const ui = import("./ui.js");
const initial = await initialState();
const job = evalJob(initial.state);
const firstEval = { key: JSON.stringify(job), outcome: worker.run(job) };
let started = false;
// Show the first result as soon as it is there, even before the editors have loaded.
void firstEval.outcome.then((r) => {
  if (started || !r.ok || r.result.kind !== "eval") return;
  renderProblemsText(r.result.output.problems);
  renderResults(r.result.output, r.ms);
});
(await ui).start({ worker, initial, firstEval });
started = true;

declare global {
  interface Window {
    /** The worker index.html's first script started (vite.config.ts `earlyWorker`), in the built page. */
    celmapEarlyWorker?: Worker;
    /** When the first evaluation result was shown (ms since navigation start), for the budget check. */
    celmapFirstResult?: number;
    /** Start-up breakdown (ms since navigation start; the first evaluation's own time). */
    celmapTimings?: { workerLoaded: number; firstEvalMs: number; requested: number };
    /** The page's whole state (what the link encodes), for the browser tests. */
    celmapState?: () => import("./state.js").State;
  }
}

// Offline: a service worker caches the page's files once loaded (only in the built app).
if ("serviceWorker" in navigator && import.meta.env.PROD) {
  void navigator.serviceWorker.register(new URL("./sw.js", location.href)).catch(() => undefined);
}
