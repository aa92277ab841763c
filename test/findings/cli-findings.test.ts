/**
 * The CLI surprises a newcomer met (issue 22), each as it was reported, on real files: in-process
 * through `run(argv, io)`, and through the real executable where standard input is the point.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { mainHelp, run } from "../../src/cli/run.js";
import { captureIo } from "../support/memory-io.js";
import { assertBuilt, runCli } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "celmap-cli-findings-"));
function file(name: string, text: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
async function celmap(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await run(argv, io);
  return { code, out: io.out, err: io.err };
}

const POD_TEXT = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers: [{name: c, image: nginx:1}]\n";
const POD = file("pod.yaml", POD_TEXT);
const MAP = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: team}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'team': 'a'}}}"
`;
const POLICY = file("policy.yaml", `${MAP}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: team-binding}
spec: {policyName: team}
`);

beforeAll(() => assertBuilt());

describe("celmap cel: the apiserver's per-call cost limit and long expressions", () => {
  it("enforces the per-call limit by default: a three-deep comprehension over lists.range(1000) stops with the apiserver's message", async () => {
    const r = await celmap("cel", "lists.range(1000).map(i, lists.range(1000).map(j, lists.range(1000).map(k, i + j + k))).size()");
    expect(r.code).toBe(1);
    expect(r.err).toContain("operation cancelled: actual cost limit exceeded");
  });

  it("--no-cost-limit lifts it (a run over the limit completes)", async () => {
    const expr = "lists.range(2000).map(i, lists.range(600).map(j, i + j)).size()";
    expect((await celmap("cel", expr)).code).toBe(1);
    const r = await celmap("cel", expr, "--no-cost-limit");
    expect(r.err).toBe("");
    expect(r.out).toBe("2000\n");
  });

  it("-e @file reads a long expression from a file; a 1 MB one gets cel-go's size error, not echoed whole; -e with an argument is a usage error", async () => {
    const long = file("long.cel", `[${Array(30_000).fill("1").join(", ")}].size()`);
    const r = await celmap("cel", "-e", `@${long}`);
    expect(r.err).toBe("");
    expect(r.out).toBe("30000\n");
    const big = file("big.cel", `[${Array(350_000).fill("1").join(", ")}].size()`);
    const b = await celmap("cel", "-e", `@${big}`);
    expect(b.code).toBe(1);
    expect(b.err).toContain("expression code point size exceeds limit");
    expect(b.err.length).toBeLessThan(5_000);
    expect((await celmap("cel", "-e", "1", "2")).code).toBe(2);
    const missing = await celmap("cel", "-e", "@/nonexistent/x.cel");
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("-e @/nonexistent/x.cel: no such file");
  });

  it("-e - reads the expression from standard input (real process)", async () => {
    const r = await runCli(["cel", "-e", "-"], { stdin: "[1, 2, 3].map(x, x * 2)" });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("[2,4,6]\n");
  });
});

describe("celmap eval: long values, binary files, standard input, --exit-code, namespaceSelector warnings", () => {
  it("a 1 MB expression in a policy is not echoed whole: the line is cut with its size", async () => {
    const policy = file("big-policy.yaml", MAP.replace(`"Object{metadata: Object.metadata{labels: {'team': 'a'}}}"`, `"${"1 + ".repeat(250_000)} 'a'"`));
    const r = await celmap("eval", "-f", policy, "-r", POD);
    expect(r.code).toBe(2);
    expect(r.err.length).toBeLessThan(5_000);
    expect(r.err).toMatch(/… \[1,000,\d{3} characters; \d{3},\d{3} not shown\] …/);
    expect(r.err).toContain("big-policy.yaml#0: spec.mutations[0].applyConfiguration.expression");
  });

  it("a binary file is named as such, its bytes never printed", async () => {
    const bin = file("image.yaml", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x1b, 0x5b, 0x32, 0x4a]));
    const r = await celmap("eval", "-f", POLICY, "-r", bin);
    expect(r.code).toBe(2);
    expect(r.err).toContain("image.yaml: a binary file (a NUL byte at offset 8), not YAML or JSON text");
    expect(r.err).not.toContain("\u001b[2J");
    expect(r.err).not.toContain("PNG");
  });

  it("-r - reads the resources from standard input (real process)", async () => {
    const r = await runCli(["eval", "-f", POLICY, "-r", "-", "-o", "patch"], { stdin: POD_TEXT });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"path":"/metadata/labels"');
  });

  it("--exit-code: exit 1 when an object changed (as kubectl diff), 0 when not", async () => {
    const changed = await celmap("eval", "-f", POLICY, "-r", POD, "-o", "diff", "--exit-code");
    expect(changed.code).toBe(1);
    expect(changed.out).toContain("1 mutated");
    const cm = file("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n");
    expect((await celmap("eval", "-f", POLICY, "-r", cm, "-o", "diff", "--exit-code")).code).toBe(0);
    expect((await celmap("eval", "-f", POLICY, "-r", POD, "-o", "diff")).code).toBe(0);
  });

  it("a namespaceSelector that fails only because the namespace was not given is a warning without --trace", async () => {
    const policy = file("ns-policy.yaml", `${MAP}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: team-binding}
spec:
  policyName: team
  matchResources:
    namespaceSelector:
      matchLabels: {env: prod}
`);
    const r = await celmap("eval", "-f", policy, "-r", POD, "-o", "patch");
    expect(r.code).toBe(0);
    expect(r.out).toBe("[]\n");
    expect(r.err).toContain("warning: ");
    expect(r.err).toContain("policy team, binding team-binding: namespaceSelector 'env=prod' does not match namespace 'default'");
    expect(r.err).toContain('namespace "default" was not given with -f');
    const ns = file("ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: default, labels: {env: prod}}\n");
    const given = await celmap("eval", "-f", policy, "-f", ns, "-r", POD, "-o", "patch");
    expect(given.err).toBe("");
    expect(given.out).toContain("/metadata/labels");
  });
});

describe("options and help", () => {
  it("--max-body -5 says what is wrong with the value, not 'ambiguous'", async () => {
    const r = await celmap("webhook", "-f", POLICY, "--tls-cert", "x.crt", "--tls-key", "x.key", "--max-body", "-5");
    expect(r.code).toBe(2);
    expect(r.err).not.toContain("ambiguous");
    expect(r.err).toContain('--max-body must be an integer from 1024 to 1073741824, got "-5"');
  });

  it("translate --api-version v1 --min-kubernetes 1.32 is refused, naming the version 1.32 serves", async () => {
    const r = await celmap("translate", "-f", POLICY, "--api-version", "v1", "--min-kubernetes", "1.32");
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain("--api-version v1 is served from Kubernetes 1.36; Kubernetes 1.32 serves MutatingAdmissionPolicy as v1alpha1");
    const beta = await celmap("translate", "-f", POLICY, "--api-version", "v1beta1", "--min-kubernetes", "1.33");
    expect(beta.err).toContain("Kubernetes 1.33 serves MutatingAdmissionPolicy as v1alpha1");
  });

  it("the top-level help's exit codes say what 1 means for eval and test", () => {
    const help = mainHelp();
    expect(help).not.toContain("1 CEL compile or evaluation error, 2");
    expect(help).toMatch(/eval: a request was\s+rejected/);
    expect(help).toContain("test: a result row failed");
  });
});
