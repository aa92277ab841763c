/**
 * Parity: every MAP conformance case and the examples through three paths, which must agree
 * (same admitted object, or a denial with the same code and message):
 *
 * - conformance: the MAP case runner (`mapCaseInputs` → `loadMapCase` → `admit`, src/conformance/map.ts);
 * - eval: the engine as `celmap eval` calls it (`loadInputs`: every input is the cluster, policies
 *   validated and compiled; `admit` with the object as a client sends it);
 * - webhook: `celmap webhook -f`'s content builder and store (`contentFromDocuments`, `PolicyStore`)
 *   and its AdmissionReview handler (`handleReview`) on the AdmissionReview JSON the apiserver would
 *   send, the answer's patch applied as the apiserver applies it.
 *
 * What is comparable, and why the rest is not:
 * - the webhook answers a request the apiserver already built and defaulted: it gets the request
 *   the other paths admitted (the same object), not the raw case object;
 * - cases replaying upstream unit tests (harness patcher, compile, dispatcher, plugin) call the
 *   plugin without API validation, defaulting or reinvocation (or with a test's fake defaulter);
 *   eval and the webhook are a real apiserver, so they run the same request with the same options
 *   only through eval's loading (the webhook has no such options): conformance vs eval;
 * - a policy calling `authorizer` is answered by the case's authorizer in conformance, while eval
 *   and the webhook have none (every check "no opinion"): compared between conformance and eval
 *   with the case's authorizer, not with the webhook;
 * - eval refuses inputs a cluster would not hold (an unknown kind, a binding's param missing):
 *   such cases are counted as refused by eval, and not compared;
 * - validation before storage (`AdmitOptions.validate`) is a stage after admission: eval and the
 *   `apiserver` conformance harness run it, the webhook must not (the apiserver validates after its
 *   webhooks). The verdicts compared are the ADMISSION stage's (`result`), with validation on in
 *   eval and conformance; cases whose admitted object validation then rejects (`stage:
 *   "validation"`) are counted, and eval and conformance must agree on that stage too.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import type { EvaluateResult, JsonObject } from "../../src/admission/index.js";
import { admit } from "../../src/engine/index.js";
import { loadMapCase, loadMapCases, mapCaseInputs, type MapCase } from "../../src/conformance/map.js";
import { loadInputs } from "../../src/cli/render/session.js";
import { loadPaths, type LoadedDocument } from "../../src/io/load.js";
import { REPO_ROOT } from "../support/cli.js";
import { plain, review, reviewOutcome, webhookSnapshot, type ReviewOutcome } from "./support.js";

const SHARED = join(REPO_ROOT, "..", "shared", "conformance");

interface Verdict {
  readonly allowed: boolean;
  readonly object?: unknown;
  readonly denial?: string;
}

function verdictOf(r: EvaluateResult): Verdict {
  return r.allowed ? { allowed: true, object: plain(r.object) } : { allowed: false, denial: `${r.status!.code}: ${r.status!.message}` };
}

function webhookVerdict(o: ReviewOutcome): Verdict {
  return o.allowed ? { allowed: true, object: o.object } : { allowed: false, denial: `${o.status?.code ?? 0}: ${o.status?.message ?? ""}` };
}

function caseFiles(): { file: string; cases: MapCase[] }[] {
  const out: { file: string; cases: MapCase[] }[] = [];
  const own = join(REPO_ROOT, "conformance", "cases", "map");
  for (const f of readdirSync(own).filter((f) => f.endsWith(".yaml")).sort()) out.push({ file: `conformance/cases/map/${f}`, cases: loadMapCases(join(own, f)) });
  for (const f of ["map-cases.yaml", "map-oracle-cases.yaml"]) {
    if (existsSync(join(SHARED, f))) out.push({ file: `../shared/conformance/${f}`, cases: loadMapCases(join(SHARED, f)) });
  }
  return out;
}

const usesAuthorizer = (c: MapCase): boolean => JSON.stringify([c.policy ?? null, c.policies ?? []]).includes("authorizer");

interface Tally {
  three: number;
  two: number;
  decidedAtLoad: number;
  evalRefused: number;
  /** Admitted, then rejected by validation (eval and conformance; the webhook's answer is admission's). */
  validationRejected: number;
  differences: string[];
}

function runCase(c: MapCase, t: Tally): void {
  const inputs = mapCaseInputs(c);
  if ("error" in inputs) return;
  const loaded = loadMapCase(c, inputs);
  if ("outcome" in loaded) {
    // A policy the apiserver rejects on create: eval and the webhook refuse the inputs too.
    t.decidedAtLoad++;
    if (inputs.server) {
      const docs = inputs.documents as LoadedDocument[];
      if (loadInputs(docs).errors.length === 0) t.differences.push(`${c.name}: conformance rejects a policy at load, eval accepts it`);
      if (!("errors" in webhookSnapshot(docs))) t.differences.push(`${c.name}: conformance rejects a policy at load, the webhook accepts it`);
    }
    return;
  }
  const conf = admit(loaded.policySet, inputs.request, inputs.admit);
  if (!conf.ok) return;
  const want = verdictOf(conf.result);

  // eval: every input is the cluster, policies validated (compiled) unless the case replays a unit test.
  const docs = inputs.documents as LoadedDocument[];
  const evalLoad = loadInputs(docs, inputs.load);
  if (evalLoad.errors.length > 0) {
    t.evalRefused++;
    console.log(`  ${c.name}: refused by eval: ${evalLoad.errorLines.join("; ")}`);
    return;
  }
  const e = admit(evalLoad.policySet, inputs.request, inputs.admit);
  if (!e.ok) {
    t.differences.push(`${c.name}: eval: ${e.error.message}`);
    return;
  }
  const got = verdictOf(e.result);
  // Objects compare as Kubernetes does: field order does not matter.
  if (!isDeepStrictEqual(got, want)) t.differences.push(`${c.name}: eval ${JSON.stringify(got)} != conformance ${JSON.stringify(want)}`);
  if (e.stage !== conf.stage) t.differences.push(`${c.name}: eval's rejecting stage ${String(e.stage)} != conformance's ${String(conf.stage)}`);
  if (e.stage === "validation") t.validationRejected++;

  if (!inputs.server || usesAuthorizer(c)) {
    t.two++;
    return;
  }
  const snapshot = webhookSnapshot(docs);
  if ("errors" in snapshot) {
    t.differences.push(`${c.name}: webhook rejects the inputs eval accepts: ${snapshot.errors.join("; ")}`);
    return;
  }
  const w = webhookVerdict(reviewOutcome(review(snapshot, conf.request), conf.request));
  if (!isDeepStrictEqual(w, want)) t.differences.push(`${c.name}: webhook ${JSON.stringify(w)} != conformance ${JSON.stringify(want)}`);
  else t.three++;
}

describe("parity: conformance runner, eval, webhook", () => {
  const files = caseFiles();
  if (!existsSync(SHARED)) it.skip("../shared/conformance is absent: only the repository's own MAP cases run", () => {});

  for (const { file, cases } of files) {
    it(`${file}: every mutation case agrees`, () => {
      const t: Tally = { three: 0, two: 0, decidedAtLoad: 0, evalRefused: 0, validationRejected: 0, differences: [] };
      for (const c of cases) if (c.kind !== "expression" && c.kind !== "match") runCase(c, t);
      console.log(`${file}: ${t.three} three-way, ${t.two} conformance=eval only, ${t.decidedAtLoad} decided at load, ${t.evalRefused} refused by eval's input checks, ${t.validationRejected} admitted then rejected by validation (admission compared)`);
      expect(t.differences).toEqual([]);
      expect(t.three + t.two).toBeGreaterThan(0);
      // A large generated file (apiserver-validation.yaml: 740 cases, each loaded three ways) needs
      // more than the default 30 s on a loaded machine: half a second per case.
    }, Math.max(30_000, cases.length * 500));
  }

  it("examples/: eval and the webhook agree on every resource", () => {
    const policyDocs = loadPaths([join(REPO_ROOT, "examples", "policies")], { numbers: "cel" });
    expect(policyDocs.errors).toEqual([]);
    const resources = loadPaths([join(REPO_ROOT, "examples", "resources")], { numbers: "cel" }).documents;
    const gatekeeper = loadPaths([join(REPO_ROOT, "examples", "gatekeeper")], { numbers: "cel" });
    const gkPod = loadPaths([join(REPO_ROOT, "examples", "gatekeeper-pod.yaml")], { numbers: "cel" }).documents;
    let compared = 0;
    for (const [docs, objects] of [
      [policyDocs.documents, resources],
      [gatekeeper.documents, gkPod],
    ] as const) {
      const ev = loadInputs(docs);
      expect(ev.errorLines).toEqual([]);
      const snapshot = webhookSnapshot(docs);
      if ("errors" in snapshot) throw new Error(snapshot.errors.join("\n"));
      for (const d of objects) {
        // As eval admits (validation on); the webhook answers the admission stage.
        const a = admit(ev.policySet, { operation: "CREATE", object: d.value as JsonObject }, { validate: true });
        if (!a.ok) throw new Error(a.error.message);
        const w = webhookVerdict(reviewOutcome(review(snapshot, a.request), a.request));
        expect(w).toEqual(verdictOf(a.result));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(3);
  });
});
