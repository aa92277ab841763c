/**
 * `celmap conformance` through the real executable: format detection, the report lines, --json,
 * the ledger and exit codes.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, REPO_ROOT, runCli } from "./support/cli.js";

const SHARED = join(REPO_ROOT, "conformance/data");
let dir: string;

const OWN_CASES = `cases:
- name: label-added
  harness: compile
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
  policy:
    mutations:
    - patchType: ApplyConfiguration
      expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"
  expect:
    object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: b}}}
- name: wrong-expectation
  harness: compile
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
  policy:
    mutations:
    - patchType: ApplyConfiguration
      expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"
  expect:
    object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: c}}}
`;

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), "celmap-conf-"));
});

describe("celmap conformance", () => {
  it("runs the MAP cases: a line per suite and a last line; failures in the --known-failures ledger do not fail the run", async () => {
    const r = await runCli(["conformance", join(SHARED, "map-cases.yaml"), "--known-failures", join(REPO_ROOT, "conformance/map/known-failures.yaml")], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.at(-2)).toMatch(/^map: \d+ passed, \d+ failed/);
    expect(lines.at(-1)).toMatch(/^\d+ passed, \d+ failed$/);
    const [, passed, failed] = /^(\d+) passed, (\d+) failed$/.exec(lines.at(-1)!)!;
    expect(Number(passed) / (Number(passed) + Number(failed))).toBeGreaterThanOrEqual(0.95);
  });

  it("ships no ledger of its own: without --known-failures a failing case fails the run; a malformed ledger is a usage error", async () => {
    const r = await runCli(["conformance", join(SHARED, "map-cases.yaml")], { timeoutMs: 120_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL map\/apiserver\/it-mutate-status-subresource: /m);
    const bad = join(dir, "ledger.yaml");
    writeFileSync(bad, "- path: apiserver/x\n");
    const b = await runCli(["conformance", join(SHARED, "map-cases.yaml"), "--known-failures", bad]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("ledger.yaml: [0].reason: want the reason the case fails");
  }, 150_000);

  it("detects the Gatekeeper format and prints one JSON object per case with --json", async () => {
    const r = await runCli(["conformance", join(SHARED, "gatekeeper-oracle-cases.yaml"), "--json"], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const cases = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { name: string; status: string; message: string });
    expect(cases.length).toBeGreaterThan(10);
    for (const c of cases) {
      expect(Object.keys(c)).toEqual(expect.arrayContaining(["name", "status", "message"]));
      expect(["passed", "failed", "skipped"]).toContain(c.status);
    }
  });

  it("exits 1 when a case outside the ledger fails, with the difference on its line", async () => {
    const f = join(dir, "own-cases.yaml");
    writeFileSync(f, OWN_CASES);
    const r = await runCli(["conformance", f]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('FAIL own/compile/wrong-expectation: object differs: .metadata.labels.a: got "b", want "c"');
    expect(r.stdout).toContain("own: 1 passed, 1 failed");
    expect(r.stdout.trim().split("\n").at(-1)).toBe("1 passed, 1 failed");
  });

  it("bad usage: no files, a file in neither format (exit 2)", async () => {
    const none = await runCli(["conformance"]);
    expect(none.code).toBe(2);
    const bad = join(dir, "other.yaml");
    writeFileSync(bad, "apiVersion: v1\nkind: ConfigMap\n");
    const r = await runCli(["conformance", bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("neither a MAP case file");
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
