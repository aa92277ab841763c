/**
 * `npm run test:reference` (after scripts/test-reference.mjs has built the Go programs):
 * runs the differential suites and prints `reference <suite>: N compared, N differ`, then
 * `N passed, N failed`. Exit 1 on an unexplained difference.
 *
 *   node dist-reference/test/reference/run.js [--seed N] [--cel N] [--map N] [--gatekeeper N] [--suite cel,map,gatekeeper]
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCelSuite, shrinkCel } from "./cel-suite.js";
import { Ledger, type Difference } from "./differences.js";
import { GoProcess } from "./go-process.js";

interface Options {
  seed: number;
  counts: Record<string, number>;
  suites: string[];
  root: string;
}

function options(argv: readonly string[]): Options {
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const envSeed = process.env.REFERENCE_SEED;
  const seed = Number(get("seed") ?? envSeed ?? (Date.now() % 2 ** 31));
  return {
    seed,
    counts: { cel: Number(get("cel") ?? 20_000), map: Number(get("map") ?? 5_000), gatekeeper: Number(get("gatekeeper") ?? 5_000) },
    suites: (get("suite") ?? "cel,map,gatekeeper").split(","),
    root: get("root") ?? process.cwd(),
  };
}

const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));

function show(d: Difference): string {
  return `  ${d.aspect} differs on ${d.input}\n    reference: ${json(d.reference)}\n    celmap:    ${json(d.celmap)}`;
}

async function main(): Promise<number> {
  const o = options(process.argv.slice(2));
  console.log(`reference: seed ${o.seed} (repeat with REFERENCE_SEED=${o.seed} npm run test:reference)`);
  const ledger = new Ledger(join(o.root, "conformance/reference/known-differences.json"));
  let passed = 0;
  let failed = 0;
  const bin = (name: string) => join(o.root, "reference/bin", name);

  if (o.suites.includes("cel")) {
    const celref = new GoProcess(bin("celref"));
    try {
      // The recorded regression cases (conformance/reference/cel-regressions.json) must still be cel-go's answers.
      const reg = JSON.parse(readFileSync(join(o.root, "conformance/reference/cel-regressions.json"), "utf8")) as {
        vars: Record<string, unknown>;
        cases: { expr: string; mode: "base" | "mutation"; reference: unknown }[];
      };
      const live = await celref.askAll(reg.cases.map((c) => ({ expr: c.expr, mode: c.mode, vars: reg.vars })));
      const stale = reg.cases.filter((c, i) => JSON.stringify(c.reference) !== JSON.stringify(live[i]));
      console.log(`reference cel-regressions: ${reg.cases.length} compared, ${stale.length} differ`);
      for (const c of stale) console.log(`  recorded answer is stale for ${c.expr}: cel-go now says ${JSON.stringify(live[reg.cases.indexOf(c)])}`);
      if (stale.length === 0) passed++;
      else failed++;
      const dumpPath = process.env.REFERENCE_DUMP;
      if (dumpPath !== undefined) writeFileSync(dumpPath, "");
      const dump = dumpPath === undefined ? undefined : (d: Difference) => appendFileSync(dumpPath, JSON.stringify(d) + "\n");
      const r = await runCelSuite(celref, ledger, o.seed, o.counts.cel!, dump);
      console.log(`reference cel: ${r.compared} compared, ${r.differ} differ (${r.known} known, ${r.unexplained.length} unexplained)`);
      if (r.unexplained.length === 0) passed++;
      else {
        failed++;
        for (const d of r.unexplained.slice(0, 5)) console.log(show(d));
        console.log("  shrunk:\n" + (await shrinkCel(celref, ledger, o.seed, o.counts.cel!)));
      }
    } finally {
      celref.close();
    }
  }

  if (o.suites.includes("map") && existsSync(bin("mapref"))) {
    const { runMapSuite, canonicalJson } = await import("./map-suite.js");
    const reg = JSON.parse(readFileSync(join(o.root, "conformance/reference/map-regressions.json"), "utf8")) as { cases: { request: unknown; reference: unknown }[] };
    const mapref = new GoProcess(bin("mapref"));
    const live = await mapref.askAll(reg.cases.map((c) => c.request));
    mapref.close();
    const stale = reg.cases.filter((c, i) => canonicalJson(c.reference) !== canonicalJson(live[i]));
    console.log(`reference map-regressions: ${reg.cases.length} compared, ${stale.length} differ`);
    if (stale.length === 0) passed++;
    else failed++;
    const dumpPath = process.env.REFERENCE_DUMP_MAP;
    if (dumpPath !== undefined) writeFileSync(dumpPath, "");
    const dump = dumpPath === undefined ? undefined : (d: Difference) => appendFileSync(dumpPath, json(d) + "\n");
    const r = await runMapSuite(bin("mapref"), ledger, o.seed, o.counts.map!, dump);
    console.log(`reference map: ${r.compared} compared, ${r.differ} differ (${r.known} known, ${r.unexplained.length} unexplained)`);
    if (r.unexplained.length === 0) passed++;
    else {
      failed++;
      for (const d of r.unexplained.slice(0, 5)) console.log(show(d));
      if (r.shrunk !== undefined) console.log("  shrunk:\n" + r.shrunk);
    }
  }

  const gkBin = join(o.root, "reference/gatekeeper/bin/gkref");
  if (o.suites.includes("gatekeeper") && existsSync(gkBin)) {
    const { runGkSuites } = await import("./gk-suite.js");
    const { canonicalJson } = await import("./map-suite.js");
    // The recorded regression cases (conformance/reference/gatekeeper-regressions.yaml) must still be Gatekeeper's answers.
    const { parse } = await import("yaml");
    const reg = parse(readFileSync(join(o.root, "conformance/reference/gatekeeper-regressions.yaml"), "utf8")) as {
      name: string;
      mutators: unknown[];
      object: unknown;
      namespace?: unknown;
      expect: { object?: unknown; unchanged?: boolean; error?: string };
    }[];
    const gk = new GoProcess(gkBin);
    const live = await gk.askAll<{ ok: boolean; mutated?: boolean; object?: unknown; error?: string }>(
      reg.map((c) => ({ mutators: c.mutators, object: c.object, namespace: c.namespace ?? null, operation: "CREATE" })),
    );
    gk.close();
    const stale = reg.filter((c, i) => {
      const a = live[i]!;
      if (c.expect.error !== undefined) return a.ok || !(a.error ?? "").includes(c.expect.error);
      if (c.expect.unchanged === true) return !a.ok || a.mutated === true;
      return !a.ok || canonicalJson(a.object) !== canonicalJson(c.expect.object);
    });
    console.log(`reference gatekeeper-regressions: ${reg.length} compared, ${stale.length} differ`);
    for (const c of stale) console.log(`  recorded answer is stale for ${c.name}: gkref now says ${JSON.stringify(live[reg.indexOf(c)])}`);
    if (stale.length === 0) passed++;
    else failed++;
    const dumpPath = process.env.REFERENCE_DUMP_GATEKEEPER;
    if (dumpPath !== undefined) writeFileSync(dumpPath, "");
    const dump = dumpPath === undefined ? undefined : (d: Difference) => appendFileSync(dumpPath, json(d) + "\n");
    const r = await runGkSuites(gkBin, ledger, o.seed, o.counts.gatekeeper!, dump);
    for (const [name, s] of [["gatekeeper", r.own], ["gatekeeper-translated", r.translated]] as const) {
      const extra = s.untranslatable !== undefined ? `, ${s.untranslatable} not translatable (not compared)` : "";
      const stated = s.stated !== undefined ? `${s.stated} stated by the translator, ` : "";
      console.log(`reference ${name}: ${s.compared} compared, ${s.differ} differ (${stated}${s.known} known, ${s.unexplained.length} unexplained)${extra}`);
      if (s.unexplained.length === 0) passed++;
      else {
        failed++;
        for (const d of s.unexplained.slice(0, 5)) console.log(show(d));
        if (s.shrunk !== undefined) console.log("  shrunk:\n" + s.shrunk);
      }
    }
  }

  for (const [id, n] of ledger.hits) console.log(`  known difference ${id}: ${n} case(s)`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(2);
  },
);
