/**
 * The playground's budgets (issue 19): the initial download at most 1.5 MB gzipped, editor
 * included, and the first result shown within 1 s of load.
 *
 * Serves dist/playground (build it first: `npm run bench:playground` does) on 127.0.0.1 and opens
 * `#example=quick-start` in Debian's chromium (playwright-core, headless) REPS times, each in a
 * fresh profile (no cache, no service worker). Download: every file the page fetched before its
 * first result, at its gzip -9 size (what a static host sends compressed). First result:
 * `window.celmapFirstResult`, the page's own mark when it showed the first admitted objects, in ms
 * after navigation start. Prints Markdown; BENCH_STRICT=1 exits 1 on a missed budget.
 */
import { readFileSync, existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";

const REPO = resolve(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const DIST = join(REPO, "dist", "playground");
const REPS = Number(process.env["REPS"] ?? 7);
const STRICT = process.env["BENCH_STRICT"] === "1";
const CHROMIUM = process.env["CHROMIUM"] ?? "/usr/bin/chromium";
const BUDGET_BYTES = 1.5 * 1024 * 1024;
const BUDGET_MS = 1000;

if (!existsSync(join(DIST, "index.html"))) throw new Error(`${DIST} is not built: npm run build:playground`);
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);

/** What the page exposes (playground/src/main.ts); bench is compiled without the DOM library. */
interface PageGlobals {
  celmapFirstResult?: number;
  celmapTimings?: { workerLoaded: number; firstEvalMs: number };
}
declare const globalThis: PageGlobals;

const { startServer } = (await import(pathToFileURL(join(REPO, "playground", "serve.mjs")).href)) as {
  startServer(root: string, port: number): Promise<{ server: { close(): void }; url: string }>;
};
const { server, url } = await startServer(DIST, 0);
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });

const times: number[] = [];
const workerLoaded: number[] = [];
const firstEval: number[] = [];
let files: string[] = [];
const load0 = loadavg()[0]!;
try {
  for (let i = 0; i < REPS; i++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, serviceWorkers: "block" });
    const page = await context.newPage();
    const fetched: string[] = [];
    page.on("requestfinished", (r) => fetched.push(new URL(r.url()).pathname));
    await page.goto(`${url}#example=quick-start`);
    await page.waitForFunction(() => globalThis.celmapFirstResult !== undefined, null, { timeout: 60_000 });
    const m = await page.evaluate(() => ({ first: globalThis.celmapFirstResult!, t: globalThis.celmapTimings }));
    times.push(m.first);
    if (m.t !== undefined) {
      workerLoaded.push(m.t.workerLoaded);
      firstEval.push(m.t.firstEvalMs);
    }
    files = fetched;
    await context.close();
  }
} finally {
  await browser.close();
  server.close();
}

const sizes = [...new Set(files)].map((p) => {
  const body = readFileSync(join(DIST, p.endsWith("/") ? `${p}index.html` : p));
  return { path: p, raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
});
const total = sizes.reduce((a, s) => ({ raw: a.raw + s.raw, gzip: a.gzip + s.gzip }), { raw: 0, gzip: 0 });
const sorted = [...times].sort((a, b) => a - b);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;

console.log(`## Playground budgets (${cpus().length} cores, load average ${load0.toFixed(1)} at start, ${REPS} fresh loads of #example=quick-start)\n`);
console.log("| file | size | gzip -9 |\n|---|---:|---:|");
for (const s of sizes) console.log(`| ${s.path} | ${kb(s.raw)} | ${kb(s.gzip)} |`);
console.log(`| **initial download** | ${kb(total.raw)} | **${kb(total.gzip)}** (budget ${kb(BUDGET_BYTES)}) |\n`);
console.log(`first result shown: median ${Math.round(median(times))} ms, min ${Math.round(sorted[0]!)} ms, max ${Math.round(sorted[sorted.length - 1]!)} ms after navigation start (budget ${BUDGET_MS} ms)`);
console.log(`  of which: worker code running at median ${Math.round(median(workerLoaded))} ms; first evaluation inside the worker median ${Math.round(median(firstEval))} ms`);
const ok = total.gzip <= BUDGET_BYTES && median(times) <= BUDGET_MS;
console.log(ok ? "both budgets met" : "a budget was missed");
if (STRICT && !ok) process.exit(1);
