/**
 * Kyverno v1.19.0 chainsaw tests of mutating policies that need no cluster (kyverno.md §6.2:
 * class A, 13 directories, pure admission; class B, 8 directories, with mocked HTTP services,
 * global context, registry data, and cluster resources created by the case itself), played
 * offline by conformance/kyverno/chainsaw.ts against celmap's MutatingPolicy evaluator. Each case
 * runs its own chainsaw-test.yaml steps: the policies and exceptions it creates, the objects it
 * creates through admission, and its partial assertions (`assert`, `error`) on what was admitted.
 *
 * Class-B data that a real cluster would provide comes from `conformance/kyverno/chainsaw-mocks/`:
 * one file per case, each saying where its values come from (the case's own Flask apps,
 * GlobalContextEntry and ConfigMap, the image's registry config). `resource.Get/List` read the
 * objects the case created in earlier steps (there is no separate mock for them).
 *
 * `script` operations are not run; the equivalent check is given below (SCRIPTS) with the script's
 * text in mind. `assert` operations on `status` (a Pod reaching Running, used only to wait for a
 * helper service) are reported as not modelled.
 *
 * A case listed in KNOWN must fail, with the reason and evidence from Kyverno's source; none is
 * listed today.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { assertSubset, loadMocks, runChainsawCase, type CaseReport, type Cluster, type RunOptions } from "./kyverno/chainsaw.js";
import { upstreamPath } from "../test/support/upstream.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CHAINSAW_PATH = upstreamPath("kyverno-tests/test/conformance/chainsaw", "the Kyverno chainsaw cases (one test per case)");
const CHAINSAW = CHAINSAW_PATH ?? "";
const MOCKS = join(ROOT, "conformance/kyverno/chainsaw-mocks");

/** `kubectl get deployment skipped-deployment -o jsonpath='{.metadata.labels.foo}'` must print nothing. */
function noFooLabelOnSkippedDeployment(cluster: Cluster): string[] {
  const found = cluster.list("apps/v1", "Deployment").filter((d) => (d.metadata as { name?: string }).name === "skipped-deployment");
  return found.flatMap((d) => {
    const foo = ((d.metadata as { labels?: Record<string, string> }).labels ?? {}).foo;
    return foo !== undefined && foo !== "" ? [`foo label found on skipped-deployment: ${foo}`] : [];
  });
}

interface Case {
  readonly dir: string;
  readonly cls: "A" | "B";
  readonly mocks?: string;
  readonly scripts?: RunOptions["scripts"];
  /**
   * What this harness checks beyond the chainsaw steps, where the steps' partial assertions cannot
   * say it (chainsaw asserts absence only through `error` or scripts).
   */
  readonly extra?: (r: CaseReport) => void;
}

const CASES: readonly Case[] = [
  { dir: "mutate/mutating-policy/standard/cel-regex-replace", cls: "A" },
  { dir: "mutating-policies/admission/applyconfiguration", cls: "A" },
  { dir: "mutating-policies/admission/jsonpatch", cls: "A" },
  { dir: "mutating-policies/admission/multiple-policies-chaining", cls: "A" },
  { dir: "mutating-policies/apply-v1", cls: "A" },
  {
    dir: "mutating-policies/autogen/polex",
    cls: "A",
    // Step "assert-no-mutation": dev-deploy is exempted by the PolicyException (its condition reads
    // the Deployment's name); the Deployment outside the namespace and the StatefulSet (not in
    // podControllers.controllers) are not mutated.
    extra: (r) => {
      const containers = (ns: string, kind: string, name: string): Record<string, unknown>[] =>
        ((r.cluster.get("apps/v1", kind, ns, name)?.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec.containers);
      expect(containers("autogen-applyconfiguration", "Deployment", "dev-deploy").map((c) => c.securityContext)).toEqual([undefined, undefined]);
      expect(containers("chainsaw-ephemeral", "Deployment", "prod-deploy").map((c) => c.securityContext)).toEqual([undefined, undefined]);
      expect(containers("autogen-applyconfiguration", "StatefulSet", "prod-deploy").map((c) => c.securityContext)).toEqual([undefined, undefined]);
      const dev = r.admissions.find((a) => a.object === "Deployment autogen-applyconfiguration/dev-deploy")!.outcomes[0]!;
      expect(dev).toMatchObject({ result: "skip", exception: "check-name", autogen: "defaults" });
    },
  },
  {
    dir: "mutating-policies/autogen/standard",
    cls: "A",
    extra: (r) => {
      const t = r.admissions.find((a) => a.object === "Deployment autogen-applyconfiguration/dev-deploy")!.outcomes[0]!;
      expect(t).toMatchObject({ result: "pass", changed: true, autogen: "defaults" });
    },
  },
  { dir: "mutating-policies/context/image", cls: "A" },
  { dir: "mutating-policies/context/userinfo/admission", cls: "A" },
  {
    dir: "mutating-policies/exceptions/exclude-images",
    cls: "A",
    // The script looks for a Deployment named skipped-deployment, which this case never creates
    // (skipped-pod.yaml is a Pod named skipped-pod): it holds vacuously, in Kyverno's CI too.
    scripts: { "verify foo label not present on skipped deployment": noFooLabelOnSkippedDeployment },
  },
  {
    dir: "mutating-policies/exceptions/regular",
    cls: "A",
    scripts: { "verify foo label not present on skipped deployment": noFooLabelOnSkippedDeployment },
  },
  { dir: "mutating-policies/matchconditions/cel-libs", cls: "A" },
  { dir: "namespaced-mutating-policies/admission/jsonpatch", cls: "A" },
  { dir: "mutating-policies/context/api-call/http-get", cls: "B", mocks: "http-get.yaml" },
  { dir: "mutating-policies/context/api-call/http-post", cls: "B", mocks: "http-post.yaml" },
  { dir: "mutating-policies/context/globalcontextentry", cls: "B", mocks: "globalcontextentry.yaml" },
  { dir: "mutating-policies/context/image-data", cls: "B", mocks: "image-data.yaml" },
  { dir: "mutating-policies/context/resource/get", cls: "B" },
  { dir: "mutating-policies/context/resource/match-conditions", cls: "B" },
  { dir: "mutating-policies/gzip", cls: "B" },
  { dir: "mutating-policies/request-object", cls: "B" },
];

/** Cases whose Kyverno expectation encodes a Kyverno quirk: must fail, with the reason. */
const KNOWN: Readonly<Record<string, { reason: string; evidence: string }>> = {};

const tally = { A: { passed: 0, failed: 0, known: 0 }, B: { passed: 0, failed: 0, known: 0 } };

describe.skipIf(CHAINSAW_PATH === undefined)("Kyverno chainsaw cases without a cluster (classes A and B)", () => {
  it("lists 13 class-A and 8 class-B directories, all present", () => {
    expect(CASES.filter((c) => c.cls === "A")).toHaveLength(13);
    expect(CASES.filter((c) => c.cls === "B")).toHaveLength(8);
    for (const c of CASES) expect(existsSync(join(CHAINSAW, c.dir, "chainsaw-test.yaml")), c.dir).toBe(true);
  });

  for (const c of CASES) {
    it(`${c.cls}: ${c.dir}`, () => {
      const options: RunOptions = {
        ...(c.mocks !== undefined ? { mocks: loadMocks(join(MOCKS, c.mocks)) } : {}),
        ...(c.scripts !== undefined ? { scripts: c.scripts } : {}),
      };
      const r = runChainsawCase(join(CHAINSAW, c.dir), options);
      const failed = r.ops.filter((o) => o.status === "failed");
      const known = KNOWN[c.dir];
      if (known !== undefined) {
        tally[c.cls].known++;
        expect(failed.length, `${c.dir} is listed as a known divergence but passes: remove it from KNOWN`).toBeGreaterThan(0);
        return;
      }
      if (failed.length === 0) tally[c.cls].passed++;
      else tally[c.cls].failed++;
      expect(failed, JSON.stringify({ ops: r.ops, admissions: r.admissions }, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v), 1)).toEqual([]);
      // Every case asserts something about an admitted object.
      expect(r.ops.some((o) => (o.op.startsWith("assert") || o.op.startsWith("error")) && o.status === "passed")).toBe(true);
      // Every case's policies really ran on some object.
      expect(r.admissions.some((a) => a.outcomes.some((o) => o.result === "pass" && o.changed))).toBe(true);
      c.extra?.(r);
    });
  }

  afterAll(() => {
    const line = (k: "A" | "B"): string => `class ${k}: ${tally[k].passed} passed, ${tally[k].failed} failed${tally[k].known > 0 ? ` (+${tally[k].known} known divergences)` : ""}`;
    console.log(`kyverno chainsaw (offline): ${line("A")}; ${line("B")}`);
  });
});

describe("chainsaw partial assertion", () => {
  it("maps are subsets, lists match by length and position, numbers by value", () => {
    expect(assertSubset({ a: { b: 1 } }, { a: { b: 1n, c: 2 }, d: 3 })).toEqual([]);
    expect(assertSubset({ a: [{ n: "x" }] }, { a: [{ n: "x", v: 1 }] })).toEqual([]);
    expect(assertSubset({ a: [{ n: "x" }] }, { a: [{ n: "x" }, { n: "y" }] })).toHaveLength(1);
    expect(assertSubset({ a: { b: "1" } }, { a: { b: 1 } })).toHaveLength(1);
    expect(assertSubset({ a: 1 }, {})).toEqual(["/a: missing (expected 1)"]);
  });

  it("JMESPath filter keys select list elements", () => {
    const actual = { spec: { matchConditions: [{ name: "x", expression: "a" }, { name: "y", expression: "b" }] } };
    expect(assertSubset({ spec: { "(matchConditions[?name == 'y'])": [{ expression: "b" }] } }, actual)).toEqual([]);
    expect(assertSubset({ spec: { "(matchConditions[?name=='x'])": [{ expression: "b" }] } }, actual)).toHaveLength(1);
    expect(assertSubset({ spec: { "(matchConditions[?name == 'z'])": [{ expression: "b" }] } }, actual)).toHaveLength(1);
  });
});
