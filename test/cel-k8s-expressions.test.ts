/**
 * The 154 Kubernetes-style expressions of shared/spec/cel-engines.md, with the
 * values cel-go returns, run through the real `celmap cel` executable:
 *
 *     node dist/src/cli/main.js cel <expr> --vars <tmp.json with {"object": ...}>
 *
 * A value case must exit 0 and print that value (compared as JSON after parsing
 * our output); an "ERR" case must exit 1 (a compile or evaluation error, not a
 * crash). Processes run two at a time.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, limiter, REPO_ROOT, runCli, type CliResult } from "./support/cli.js";

interface Case {
  readonly group: string;
  readonly expr: string;
  /** A JSON value, or "ERR" for a compile or evaluation error in cel-go. */
  readonly expect: unknown;
  readonly note?: string;
}

interface CaseFile {
  readonly about: string;
  readonly object: unknown;
  readonly cases: readonly Case[];
}

const CASES_PATH = join(REPO_ROOT, "conformance/data/cel-k8s-expressions.json");

/**
 * Expectations of the shared table that the cel-go and Kubernetes sources
 * contradict. The case stays in the run and is asserted against what the source
 * says; the shared expectation is reported in the test name and the project's
 * issue note. Keyed by the case's 1-based number.
 */
const DISPUTED: ReadonlyMap<number, { readonly expect: "ERR"; readonly message: RegExp; readonly evidence: string }> = new Map([
  [
    43,
    {
      expect: "ERR",
      message: /expected type 'list\(int\)' but found 'list\(dyn\)'/,
      evidence:
        "cel-go v0.26.0 (Kubernetes 1.36): the empty literal `[]` is typed list(T) with T bound to int by joinTypes; " +
        "resolving `_==_` against the dyn-typed left side goes through checker/types.go isValidTypeSubstitution " +
        "(lines 168-183), which rebinds T to mostGeneral(dyn, int) = dyn. The homogeneous-literal validator " +
        "(cel/validator.go lines 305-331, enabled by cel.HomogeneousAggregateLiterals in the Kubernetes base env) " +
        "then compares the final element types list(int) and list(dyn) with IsEquivalentType and reports a mismatch.",
    },
  ],
  [
    44,
    {
      expect: "ERR",
      message: /undeclared reference to 'cel'/,
      evidence:
        "The case's own note says ext.Bindings is not in the Kubernetes base environment list; " +
        "k8s.io/apiserver/pkg/cel/environment/base.go registers no ext.Bindings for 1.36, so `cel.bind` " +
        "does not compile in kube-apiserver (shared/spec/map.md section 7: 'Not available: cel.bind').",
    },
  ],
]);
const data = JSON.parse(readFileSync(CASES_PATH, "utf8")) as CaseFile;

let dir = "";
const results = new Map<number, Promise<CliResult>>();
const outcomes: boolean[] = [];

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), "celmap-k8s-"));
  const varsFile = join(dir, "vars.json");
  writeFileSync(varsFile, JSON.stringify({ object: data.object }));
  const limit = limiter(2);
  data.cases.forEach((c, i) => {
    results.set(i, limit(() => runCli(["cel", c.expr, "--vars", varsFile])));
  });
});

afterAll(async () => {
  await Promise.allSettled(results.values());
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
  const passed = outcomes.filter(Boolean).length;
  console.log(`cel-k8s-expressions: ${passed} of ${data.cases.length} cases pass`);
});

describe("cel-k8s-expressions.json through `celmap cel`", () => {
  it("has the 154 cases of cel-engines.md", () => {
    expect(data.cases.length).toBe(154);
  });

  data.cases.forEach((c, i) => {
    const disputed = DISPUTED.get(i + 1);
    const shared = c.expect === "ERR" ? "ERR" : JSON.stringify(c.expect);
    const title = disputed
      ? `#${i + 1} [${c.group}] ${c.expr} → ERR per the cel-go/Kubernetes source (shared table says ${shared})`
      : `#${i + 1} [${c.group}] ${c.expr} → ${shared}`;
    it(title, async () => {
      const r = await results.get(i)!;
      outcomes[i] = false;
      const seen = `exit ${r.code}\nstdout: ${r.stdout.trim()}\nstderr: ${r.stderr.trim()}${c.note !== undefined ? `\nnote: ${c.note}` : ""}`;
      if (disputed) {
        expect(r.code, `expected a compile error (exit 1): ${disputed.evidence}\n${seen}`).toBe(1);
        expect(r.stderr, seen).toMatch(disputed.message);
      } else if (c.expect === "ERR") {
        expect(r.code, `expected a CEL error (exit 1)\n${seen}`).toBe(1);
        expect(r.stdout, seen).toBe("");
        expect(r.stderr, seen).toMatch(/\S/);
      } else {
        expect(r.code, `expected exit 0\n${seen}`).toBe(0);
        expect(JSON.parse(r.stdout) as unknown, seen).toEqual(c.expect);
      }
      outcomes[i] = true;
    }, 120_000);
  });
});
