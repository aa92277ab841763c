/**
 * `celmap translate` and Gatekeeper mutators in `celmap eval`, through the real executable (child
 * processes): the examples translate exactly, the output re-validates by being loaded with
 * `celmap eval` and gives the same Pod as `celmap eval --engine gatekeeper`; --strict, a refused
 * mutator (external data), bad input (exit 2 with Gatekeeper's message at the field), -o json.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, runCli } from "./support/cli.js";

let dir: string;
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const EXAMPLES = "examples/gatekeeper/";
const POD = "examples/gatekeeper-pod.yaml";

const EXTERNAL_DATA = `apiVersion: mutations.gatekeeper.sh/v1alpha1
kind: AssignImage
metadata:
  name: keep
spec:
  applyTo:
  - groups: [""]
    kinds: ["Pod"]
    versions: ["v1"]
  location: "spec.containers[name:*].image"
  parameters:
    assignTag: ":v2"
---
apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: image-digests
spec:
  applyTo:
  - groups: [""]
    kinds: ["Pod"]
    versions: ["v1"]
  location: "spec.initContainers[name:*].image"
  parameters:
    assign:
      externalData:
        provider: digests
        dataSource: ValueAtLocation
`;

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), "celmap-translate-"));
});

describe("celmap translate", () => {
  it("translates the examples exactly; the output loads in celmap eval and matches --engine gatekeeper", async () => {
    const t = await runCli(["translate", "-f", EXAMPLES]);
    expect(t.stderr).toContain("Assign/set-image-pull-policy: exact");
    expect(t.stderr).toContain("ModifySet/remove-err-logging: exact");
    expect(t.stderr).toMatch(/6 mutators: 6 exact, 0 with a difference, 0 refused/);
    expect(t.code).toBe(0);
    const docs = t.stdout.split(/^---$/m).map((d) => parse(d) as { kind: string });
    expect(docs.filter((d) => d.kind === "MutatingAdmissionPolicy").length).toBeGreaterThan(0);
    expect(docs.filter((d) => d.kind === "MutatingAdmissionPolicyBinding").length).toBe(docs.filter((d) => d.kind === "MutatingAdmissionPolicy").length);
    const out = file("translated.yaml", t.stdout);

    const [viaMap, viaGatekeeper, viaMutators] = await Promise.all([
      runCli(["eval", "-f", out, "-r", POD, "-o", "yaml"]),
      runCli(["eval", "--engine", "gatekeeper", "-f", EXAMPLES, "-r", POD, "-o", "yaml"]),
      runCli(["eval", "-f", EXAMPLES, "-r", POD, "-o", "yaml"]),
    ]);
    for (const r of [viaMap, viaGatekeeper, viaMutators]) {
      expect(r.stderr).not.toMatch(/error/);
      expect(r.code).toBe(0);
    }
    expect(parse(viaMap.stdout)).toEqual(parse(viaGatekeeper.stdout));
    expect(viaMutators.stdout).toBe(viaMap.stdout);
    const pod = parse(viaMap.stdout) as { metadata: { annotations: Record<string, string> }; spec: { dnsPolicy: string; containers: { image: string; imagePullPolicy: string; args?: string[] }[] } };
    expect(pod.metadata.annotations.owner).toBe("admin");
    expect(pod.spec.dnsPolicy).toBe("None");
    expect(pod.spec.containers.map((c) => c.imagePullPolicy)).toEqual(["Always", "Always"]);
    expect(pod.spec.containers[0]!.image).toBe("nginx@sha256:abcde67890123456789abc345678901a");
    expect(pod.spec.containers[0]!.args).toEqual(["--v=2"]);
  });

  it("a group gets a fast policy and its own one; --no-fast-path leaves only the latter, with the same result", async () => {
    const [fast, plain] = await Promise.all([runCli(["translate", "-f", EXAMPLES]), runCli(["translate", "-f", EXAMPLES, "--no-fast-path"])]);
    expect(fast.code).toBe(0);
    expect(plain.code).toBe(0);
    const names = (out: string) =>
      out
        .split(/^---$/m)
        .map((d) => parse(d) as { kind: string; metadata: { name: string } })
        .filter((d) => d.kind === "MutatingAdmissionPolicy")
        .map((d) => d.metadata.name);
    expect(names(fast.stdout)).toEqual(expect.arrayContaining(["gatekeeper-assign-set-image-pull-policy-group-fast", "gatekeeper-assign-set-image-pull-policy-group-full"]));
    expect(names(plain.stdout).some((n) => n.endsWith("-fast"))).toBe(false);
    expect(fast.stderr).toContain("note: fast path: policy gatekeeper-assign-set-image-pull-policy-group-fast runs the whole group as one mutation");
    const fastFile = file("fast.yaml", fast.stdout);
    const [a, b, traced] = await Promise.all([
      runCli(["eval", "-f", fastFile, "-r", POD, "-o", "yaml"]),
      runCli(["eval", "-f", file("plain.yaml", plain.stdout), "-r", POD, "-o", "yaml"]),
      runCli(["eval", "-f", fastFile, "-r", POD, "-o", "yaml", "--trace"]),
    ]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    // On this Pod the fast policy does the work and the group's own policy does not match.
    const trace = traced.stdout + traced.stderr;
    expect(trace).toContain("matchCondition gatekeeper-fast-path: true");
    expect(trace).toContain("matchCondition gatekeeper-not-fast-path: false");
  });

  it("-o json: policies, bindings and verdicts; --api-version/--min-kubernetes", async () => {
    const r = await runCli(["translate", "-f", `${EXAMPLES}image-pull-policy.yaml`, "-o", "json", "--api-version", "v1beta1", "--min-kubernetes", "1.34"]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { policies: { apiVersion: string }[]; bindings: unknown[]; verdicts: { mutator: string; verdict: string }[] };
    expect(j.policies.map((p) => p.apiVersion)).toEqual(["admissionregistration.k8s.io/v1beta1"]);
    expect(j.bindings).toHaveLength(1);
    expect(j.verdicts).toMatchObject([{ mutator: "Assign/set-image-pull-policy", verdict: "exact" }]);
  });

  it("--form readable (default) vs exact: the same Pod from both; --explain names the policy, the form and why", async () => {
    const f = `${EXAMPLES}image-pull-policy.yaml`;
    const [readable, exact] = await Promise.all([runCli(["translate", "-f", f, "--explain"]), runCli(["translate", "-f", f, "--form", "exact"])]);
    expect(readable.code).toBe(0);
    expect(exact.code).toBe(0);
    expect(readable.stdout).toContain(".transformList(i, c,");
    expect(readable.stdout).not.toContain("type(");
    expect(exact.stdout).toContain("type(");
    expect(readable.stderr).toMatch(/explain: policy gatekeeper-assign-\S+, readable JSONPatch, 1 pass\n/);
    expect(readable.stderr).toContain("explain: why: a constant under a glob over a typed list");
    expect(exact.stderr).not.toContain("explain:");
    const [a, b] = await Promise.all([
      runCli(["eval", "-f", file("readable.yaml", readable.stdout), "-r", POD, "-o", "yaml"]),
      runCli(["eval", "-f", file("exact.yaml", exact.stdout), "-r", POD, "-o", "yaml"]),
    ]);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect((await runCli(["translate", "-f", f, "--form", "short"])).code).toBe(2);
  });

  it("--min-kubernetes 1.32: a single glob of a constant is translated (transformList, no flatten)", async () => {
    const r = await runCli(["translate", "-f", `${EXAMPLES}image-pull-policy.yaml`, "--api-version", "v1alpha1", "--min-kubernetes", "1.32", "--strict"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("flatten");
    const e = await runCli(["translate", "-f", `${EXAMPLES}image-pull-policy.yaml`, "--api-version", "v1alpha1", "--min-kubernetes", "1.32", "--form", "exact"]);
    expect(e.stderr).toContain("refused at spec.location");
  });

  it("refuses external data at its field path; --strict exits 1, without it 0", async () => {
    const f = file("external.yaml", EXTERNAL_DATA);
    const [plain, strict] = await Promise.all([runCli(["translate", "-f", f]), runCli(["translate", "-f", f, "--strict"])]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toMatch(/^Assign\/image-digests: refused at spec\.parameters\.assign\.externalData: .+/m);
    expect(plain.stderr).toContain("AssignImage/keep: exact");
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe(plain.stdout);
    // The refused mutator is not evaluated by celmap eval (warned); the other one is.
    const ev = await runCli(["eval", "-f", f, "-r", POD, "-o", "yaml"]);
    expect(ev.code).toBe(0);
    expect(ev.stderr).toMatch(/warning: not evaluated: Assign\/image-digests: refused/);
    expect(ev.stdout).toContain("image: nginx:v2");
    // --strict passes on the exact examples.
    expect((await runCli(["translate", "-f", EXAMPLES, "--strict"])).code).toBe(0);
  });

  it("bad input exits 2 with a clear error and prints nothing", async () => {
    const invalid = file(
      "invalid.yaml",
      `apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: bad
spec:
  applyTo:
  - groups: [""]
    kinds: ["Pod"]
    versions: ["v1"]
  location: "metadata.labels.team"
  parameters:
    assign:
      value: x
`,
    );
    const malformed = file("malformed.yaml", "apiVersion: mutations.gatekeeper.sh/v1\nkind: Assign\nmetadata: [\n");
    const notMutator = file("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n");
    const [a, b, c, d, e] = await Promise.all([
      runCli(["translate", "-f", invalid]),
      runCli(["translate", "-f", malformed]),
      runCli(["translate", "-f", notMutator]),
      runCli(["translate", "-f", EXAMPLES, "--api-version", "v2"]),
      runCli(["eval", "-f", invalid, "-r", POD]),
    ]);
    for (const r of [a, b, c, d, e]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
    expect(a.stderr).toMatch(/invalid\.yaml#0: spec\.location: .*metadata/);
    expect(b.stderr).toMatch(/malformed\.yaml:\d+:\d+: /);
    expect(c.stderr).toContain("not a Gatekeeper mutator");
    expect(d.stderr).toContain("--api-version must be");
    expect(e.stderr).toMatch(/invalid\.yaml#0: spec\.location: /);
  });

  it("--help teaches with the examples", async () => {
    const r = await runCli(["translate", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("celmap translate -f examples/gatekeeper/");
    expect(r.stdout).toContain("Exit codes");
    expect(r.stdout).toContain("refused at spec.parameters.assign.externalData");
  });
});
