/**
 * Kyverno v1.19 CLI tests for native MutatingAdmissionPolicies
 * (`../shared/kyverno-tests/test/cli/test-mutating-admission-policy/*`), run through the real
 * `celmap eval` executable and compared, as objects, with their `patchedResources` files.
 *
 * Each `kyverno-test.yaml` is translated into `celmap eval` inputs:
 * - `policies` and `paramResources` → `-f`; `resources` → `-r`;
 * - `userinfo` (cli.kyverno.io UserInfo) → `--user` / `--groups`;
 * - `variables` (cli.kyverno.io Value) `namespaceSelector: [{name, labels}]` → Namespace objects;
 * - a policy without any binding gets `{policyName}` bound with no matchResources and no paramRef:
 *   Kyverno's CLI applies an unbound MAP "as if bound" (shared/spec/kyverno.md §5.1); on a real
 *   apiserver an unbound MAP does nothing, so the test supplies the binding Kyverno implies.
 * Each `results[]` entry names resources (by name, or every resource of its kind when absent):
 * `pass` → the admitted object equals the document of the same name in `patchedResources`;
 * `skip` → the object is admitted unchanged.
 *
 * Compared as objects, with one normalisation: a namespaced object created without a namespace
 * is created in `default` (kubectl's default; the apiserver fills `metadata.namespace` before
 * admission), so `metadata.namespace: default` is ignored when the expected object has none.
 *
 * Where Kyverno's CLI and kube-apiserver differ, the test asserts the apiserver's behaviour
 * and the exact difference (see QUIRKS).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, parse as parseYaml, stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { upstreamPath } from "../test/support/upstream.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(ROOT, "dist/src/cli/main.js");
const SUITES_PATH = upstreamPath("kyverno-tests/test/cli/test-mutating-admission-policy", "the Kyverno MAP CLI suites (15 tests: the count and one per suite)");
const SUITES = SUITES_PATH ?? "";

type Obj = Record<string, unknown>;

interface KyvernoTest {
  policies?: string[];
  resources?: string[];
  paramResources?: string[];
  userinfo?: string;
  variables?: string;
  results: { kind: string; policy: string; resources?: string[]; patchedResources?: string; result: string }[];
}

interface EvalResult {
  source: string;
  resource: { apiVersion: string; kind: string; namespace: string; name: string };
  allowed: boolean;
  object: Obj | null;
  patch: unknown[];
  status?: { code: number; reason: string; message: string; causes?: { message: string }[] };
}

function docs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJS() as Obj | null)
    .filter((d): d is Obj => d !== null);
}

function meta(o: Obj): Obj {
  return (o.metadata ?? {}) as Obj;
}

function runEval(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, "eval", ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      const c = (err as { code?: unknown } | null)?.code;
      resolve({ code: err === null ? 0 : typeof c === "number" ? c : -1, stdout, stderr });
    });
  });
}

/** The celmap eval inputs of one Kyverno test directory. */
function inputs(dir: string, t: KyvernoTest): string[] {
  const tmp = mkdtempSync(join(tmpdir(), "celmap-kyverno-"));
  const policyFiles = (t.policies ?? []).map((p) => join(dir, p));
  const args: string[] = [];
  for (const f of [...policyFiles, ...(t.paramResources ?? []).map((p) => join(dir, p))]) args.push("-f", f);
  // Kyverno applies an unbound MAP as if bound: supply that binding.
  const all = policyFiles.flatMap(docs);
  const bound = new Set(all.filter((d) => d.kind === "MutatingAdmissionPolicyBinding").map((d) => (d.spec as Obj).policyName));
  const implicit = all
    .filter((d) => d.kind === "MutatingAdmissionPolicy" && !bound.has(meta(d).name))
    .map((p) => ({
      apiVersion: p.apiVersion,
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name: `${String(meta(p).name)}-implicit-binding` },
      spec: { policyName: meta(p).name },
    }));
  if (implicit.length > 0) {
    writeFileSync(join(tmp, "bindings.yaml"), implicit.map((b) => stringify(b)).join("---\n"));
    args.push("-f", join(tmp, "bindings.yaml"));
  }
  if (t.variables !== undefined) {
    const values = parseYaml(readFileSync(join(dir, t.variables), "utf8")) as { namespaceSelector?: { name: string; labels?: Obj }[] };
    const namespaces = (values.namespaceSelector ?? []).map((n) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name: n.name, labels: n.labels ?? {} } }));
    writeFileSync(join(tmp, "namespaces.yaml"), namespaces.map((n) => stringify(n)).join("---\n"));
    args.push("-f", join(tmp, "namespaces.yaml"));
  }
  if (t.userinfo !== undefined) {
    const u = parseYaml(readFileSync(join(dir, t.userinfo), "utf8")) as { userInfo?: { username?: string; groups?: string[] } };
    if (u.userInfo?.username !== undefined) args.push("--user", u.userInfo.username);
    if (u.userInfo?.groups !== undefined) args.push("--groups", u.userInfo.groups.join(","));
  }
  for (const r of t.resources ?? []) args.push("-r", join(dir, r));
  // Kyverno's CLI neither defaults nor validates the objects as kube-apiserver does: compare like with like,
  // except where a quirk asserts the apiserver's defaulting (mutate-namespace).
  args.push("-o", "json", "--no-validate");
  if (!dir.endsWith("/mutate-namespace")) args.push("--no-defaults");
  return args;
}

/** `metadata.namespace: default` filled by the request is not in Kyverno's expected objects. */
function normalise(got: Obj, want: Obj): Obj {
  if (meta(want).namespace !== undefined || meta(got).namespace !== "default") return got;
  const { namespace: _ns, ...md } = meta(got);
  return { ...got, metadata: md };
}

/**
 * Differences between Kyverno's CLI and kube-apiserver. For each, the test checks celmap gives the
 * apiserver's answer, and that the difference from Kyverno's expectation is exactly this.
 */
const QUIRKS: Record<string, { why: string; check: (results: EvalResult[], t: KyvernoTest, dir: string) => void }> = {
  "mutate-namespace": {
    why:
      "Kyverno's CLI does not default objects. kube-apiserver's SetDefaults_Namespace (pkg/apis/core/v1/defaults.go) adds the label " +
      "kubernetes.io/metadata.name=<name> and status.phase Active to every Namespace it decodes (the map-cases oracle case " +
      "it-mutate-status-subresource shows the label on a real 1.36 server). Everything else matches.",
    check: (results, t, dir) => {
      const want = docs(join(dir, t.results[0]!.patchedResources!))[0]!;
      const got = results[0]!;
      expect(got.allowed).toBe(true);
      const obj = got.object!;
      expect((meta(obj).labels as Obj)["kubernetes.io/metadata.name"]).toBe("test-namespace");
      expect((obj.status as Obj).phase).toBe("Active");
      const labels = { ...(meta(obj).labels as Obj) };
      delete labels["kubernetes.io/metadata.name"];
      const { status: _s, ...rest } = obj;
      expect({ ...rest, metadata: { ...meta(obj), labels } }).toEqual(want);
    },
  },
  "with-two-params": {
    why:
      "The binding's paramRef uses a selector matching two ConfigMaps. Kyverno's CLI passes them as one List (params.items[…]; " +
      "kyverno.md §5.1: 'by selector (a List is passed as params)'). kube-apiserver runs one invocation per matching param, with " +
      "params bound to that one object (map.md §2.4, generic policy_dispatcher.go), so params.items is 'no such key' and, with " +
      "failurePolicy Fail, the request is denied: once per param invocation.",
    check: (results) => {
      const got = results[0]!;
      expect(got.allowed).toBe(false);
      expect(got.status!.code).toBe(403);
      expect(got.status!.message).toContain("policy 'change-deployment-replicas-labels' with binding 'binding' denied request");
      expect(got.status!.message).toContain("no such key: items");
      expect(got.status!.causes).toHaveLength(2);
    },
  },
};

const dirs = SUITES_PATH !== undefined ? readdirSync(SUITES).sort() : [];

describe.skipIf(SUITES_PATH === undefined)("Kyverno CLI tests for native MAPs through celmap eval", () => {
  it("finds the 14 suites", () => {
    expect(dirs.length).toBe(14);
  });

  for (const name of dirs) {
    const dir = join(SUITES, name);
    const t = parseYaml(readFileSync(join(dir, "kyverno-test.yaml"), "utf8")) as KyvernoTest;
    const quirk = QUIRKS[name];
    it(`${name}${quirk !== undefined ? " (Kyverno quirk: apiserver behaviour asserted)" : ""}`, async () => {
      const r = await runEval(inputs(dir, t));
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      const results = JSON.parse(r.stdout) as EvalResult[];
      if (quirk !== undefined) {
        quirk.check(results, t, dir);
        return;
      }
      expect(r.code, r.stderr).toBe(0);
      for (const res of t.results) {
        const names = res.resources ?? results.filter((x) => x.resource.kind === res.kind).map((x) => x.resource.name);
        expect(names.length).toBeGreaterThan(0);
        const expected = res.patchedResources !== undefined ? docs(join(dir, res.patchedResources)) : [];
        for (const n of names) {
          const got = results.find((x) => x.resource.kind === res.kind && x.resource.name === n);
          expect(got, `no result for ${res.kind} ${n}`).toBeDefined();
          expect(got!.allowed, got!.status?.message).toBe(true);
          if (res.result === "skip") {
            expect(got!.patch, `${n} should be unchanged`).toEqual([]);
            continue;
          }
          const want = expected.find((d) => d.kind === res.kind && meta(d).name === n);
          expect(want, `no patched resource named ${n}`).toBeDefined();
          expect(normalise(got!.object!, want!)).toEqual(want);
        }
      }
    });
  }
});
