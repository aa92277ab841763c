/**
 * `celmap eval` through the real executable (child processes): outputs, exit codes, and bad input —
 * malformed YAML, unknown kinds, invalid policies, CEL that does not compile, cost overruns,
 * missing params — each a clear message with its path, exit 2 (or the apiserver's rejection: 1),
 * never a stack trace.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, runCli, type CliResult } from "./support/cli.js";

let dir: string;
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  containers:
    - name: app
      image: nginx:1.25
`;

function policy(opts: { name?: string; mutation?: string; patchType?: string; failurePolicy?: string; paramKind?: string; matchConditions?: string } = {}): string {
  const name = opts.name ?? "p";
  const patchType = opts.patchType ?? "ApplyConfiguration";
  const body = patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration";
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ${name}
spec:
${opts.paramKind ?? ""}  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["pods"]
${opts.matchConditions ?? ""}  failurePolicy: ${opts.failurePolicy ?? "Fail"}
  reinvocationPolicy: Never
  mutations:
    - patchType: ${patchType}
      ${body}:
        expression: ${JSON.stringify(opts.mutation ?? "Object{metadata: Object.metadata{labels: {'team': 'a'}}}")}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ${name}-binding
spec:
  policyName: ${name}
`;
}

function noStack(r: CliResult): void {
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toContain("internal error");
}

const evalCli = (...args: string[]) => runCli(["eval", ...args]);

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), "celmap-eval-"));
});

describe("celmap eval: outputs", () => {
  it("prints the mutated resources as YAML when stdout is not a terminal", async () => {
    const r = await evalCli("-f", file("ok.yaml", policy()), "-r", file("pod.yaml", POD));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("team: a");
    expect(r.stdout).toContain("namespace: default");
    expect(r.stdout.startsWith("apiVersion: v1\nkind: Pod\n")).toBe(true);
  });

  it("runs the README quick start on examples/", async () => {
    const r = await evalCli("-f", "examples/policies/", "-r", "examples/resources/");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split(/^---$/m).length).toBeGreaterThanOrEqual(3);
    expect(r.stdout).toContain("name: log-shipper");
    expect(r.stdout).toContain("example.com/team: payments");
    expect(r.stdout).toContain("replicas: 2");
  });

  it("-o diff: a readable diff per resource, no colour without a terminal", async () => {
    const r = await evalCli("-f", "examples/policies/", "-r", "examples/resources/deployment.yaml", "-r", "examples/resources/pods.yaml", "-o", "diff");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("-  replicas: 1\n+  replicas: 2");
    expect(r.stdout).toContain("v1 Pod sandbox/scratch (examples/resources/pods.yaml#1): unchanged");
    expect(r.stdout).not.toContain("\u001b[");
    expect(r.stdout).toMatch(/3 resources: 2 mutated, 1 unchanged, 0 denied/);
  });

  it("-o json and -o patch: machine-readable results", async () => {
    const j = await evalCli("-f", "examples/policies/", "-r", "examples/resources/deployment.yaml", "-o", "json");
    expect(j.code, j.stderr).toBe(0);
    const results = JSON.parse(j.stdout) as { allowed: boolean; patch: unknown[]; resource: { name: string } }[];
    expect(results).toHaveLength(1);
    expect(results[0]!.allowed).toBe(true);
    expect(results[0]!.resource.name).toBe("payments-api");
    const p = await evalCli("-f", "examples/policies/", "-r", "examples/resources/deployment.yaml", "-o", "patch");
    expect(p.code).toBe(0);
    expect(JSON.parse(p.stdout.trim())).toEqual(results[0]!.patch);
    expect(results[0]!.patch).toContainEqual({ op: "replace", path: "/spec/replicas", value: 2 });
  });

  it("--trace explains matches, matchConditions and mutations on stderr", async () => {
    const r = await evalCli("-f", "examples/policies/", "-r", "examples/resources/", "--trace", "-o", "patch");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("policy inject-log-shipper: does not match — resource rule 0 does not match");
    expect(r.stderr).toContain("matchCondition too-few-replicas: true");
    expect(r.stderr).toContain("matchCondition wants-sidecar: false");
    expect(r.stderr).toMatch(/mutation 0 \(JSONPatch\): applied, 1 change \(cost \d+\)/);
    expect(r.stderr).toContain("params for binding team-labels: found — ConfigMap 'team-defaults' in namespace 'platform'");
    expect(r.stderr).toContain("result: admitted");
  });

  it("keeps int64 values exact in YAML and JSON", async () => {
    // From the input object, and from CEL through an ApplyConfiguration.
    const pol = policy({ mutation: "Object{spec: Object.spec{terminationGracePeriodSeconds: object.spec.activeDeadlineSeconds - 1}}" });
    const f = file("big.yaml", pol);
    const pod = file("big-pod.yaml", POD.replace("spec:\n", "spec:\n  activeDeadlineSeconds: 9223372036854775807\n"));
    // --no-validate: the apiserver would not store such a Pod (activeDeadlineSeconds is at most 2^31-1).
    const y = await evalCli("-f", f, "-r", pod, "--no-validate");
    expect(y.code, y.stderr).toBe(0);
    expect(y.stdout).toContain("activeDeadlineSeconds: 9223372036854775807");
    expect(y.stdout).toContain("terminationGracePeriodSeconds: 9223372036854775806");
    const j = await evalCli("-f", f, "-r", pod, "-o", "json", "--no-validate");
    expect(j.stdout).toContain('"activeDeadlineSeconds": 9223372036854775807');
    expect(j.stdout).toContain('"value": 9223372036854775806');
    const v = await evalCli("-f", f, "-r", pod);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain('Pod "web" is invalid: spec.activeDeadlineSeconds: Invalid value: 9223372036854775807: must be between 1 and 2147483647, inclusive');
  });

  it("a JSONPatch value beyond 2^53 becomes a string, as cel-go converts it, and the Pod fails to decode (500)", async () => {
    const pol = policy({ patchType: "JSONPatch", mutation: "[JSONPatch{op: 'add', path: '/spec/activeDeadlineSeconds', value: 9223372036854775807}]" });
    const r = await evalCli("-f", file("bigpatch.yaml", pol), "-r", file("bigpatch-pod.yaml", POD));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Error from server (InternalError): Internal error occurred: json: cannot unmarshal string into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64");
    noStack(r);
  });

  it("UPDATE with --old: oldObject is matched by kind, namespace and name", async () => {
    const pol = policy({ mutation: "Object{metadata: Object.metadata{annotations: {'previous-image': oldObject.spec.containers[0].image}}}" });
    const old = file("old.yaml", POD.replace("nginx:1.25", "nginx:1.24"));
    const r = await evalCli("-f", file("upd.yaml", pol), "-r", file("upd-pod.yaml", POD), "--old", old);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("previous-image: nginx:1.24");
    const missing = await evalCli("-f", file("upd2.yaml", pol), "-r", file("upd-pod2.yaml", POD.replace("name: web", "name: other")), "--old", old);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no old object for v1 Pod other in --old");
    noStack(missing);
  });

  it("--user and --groups reach request.userInfo", async () => {
    const pol = policy({ mutation: "Object{metadata: Object.metadata{labels: {'by': request.userInfo.username, 'admin': string('system:masters' in request.userInfo.groups)}}}" });
    const r = await evalCli("-f", file("user.yaml", pol), "-r", file("user-pod.yaml", POD), "--user", "alice", "--groups", "system:masters,dev");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("by: alice");
    expect(r.stdout).toContain('admin: "true"');
  });

  it("--help teaches with examples", async () => {
    const r = await evalCli("--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: celmap eval -f");
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout).toContain("Exit codes:");
  });
});

describe("celmap eval: bad input (exit 2, the path, no stack trace)", () => {
  it("malformed YAML in a policy file: file:line:column", async () => {
    const bad = file("bad.yaml", "apiVersion: v1\nkind: [unclosed\n");
    const r = await evalCli("-f", bad, "-r", file("p1.yaml", POD));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${bad.replace(/[.]/g, "\\.")}:\\d+:\\d+: `));
    expect(r.stderr).toContain("nothing evaluated");
    noStack(r);
  });

  it("malformed YAML in a resource file", async () => {
    const bad = file("bad-res.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n   bad: indent\n");
    const r = await evalCli("-f", file("ok2.yaml", policy()), "-r", bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}:`);
    noStack(r);
  });

  it("a missing file", async () => {
    const r = await evalCli("-f", join(dir, "nope.yaml"), "-r", file("p2.yaml", POD));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("nope.yaml: no such file or directory");
    noStack(r);
  });

  it("an unknown resource kind", async () => {
    const r = await evalCli("-f", file("ok3.yaml", policy()), "-r", file("unk.yaml", "apiVersion: apps/v1\nkind: Deploymnet\nmetadata:\n  name: x\n"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`unk.yaml#0: kind: unknown kind "apps/v1 Deploymnet"`);
    noStack(r);
  });

  it("an unknown kind among the policies (a typo in kind)", async () => {
    const r = await evalCli("-f", file("typo.yaml", policy().replace("kind: MutatingAdmissionPolicy\n", "kind: MutatingAdmisionPolicy\n")), "-r", file("p3.yaml", POD));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`typo.yaml#0: kind: unknown kind "admissionregistration.k8s.io/v1 MutatingAdmisionPolicy"`);
    noStack(r);
  });

  it("a document that is not an object, or has no kind", async () => {
    const r = await evalCli("-f", file("ok4.yaml", policy()), "-r", file("scalar.yaml", "just a string\n---\napiVersion: v1\nmetadata: {name: x}\n"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("scalar.yaml#0: not a Kubernetes object");
    expect(r.stderr).toContain("scalar.yaml#1: kind: Required value");
    noStack(r);
  });

  it("an invalid policy: file#doc: field.path: message, as the apiserver words it", async () => {
    const r = await evalCli("-f", file("merge.yaml", policy().replace("patchType: ApplyConfiguration", "patchType: Merge")), "-r", file("p4.yaml", POD));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('merge.yaml#0: spec.mutations[0].patchType: Unsupported value: "Merge"');
    noStack(r);
  });

  it("an invalid binding", async () => {
    const r = await evalCli("-f", file("nobind.yaml", policy().replace("  policyName: p\n", "")), "-r", file("p5.yaml", POD));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nobind\.yaml#1: spec\.policyName: Required value/);
    noStack(r);
  });

  it("a CEL expression that does not compile: at its field path", async () => {
    const r = await evalCli("-f", file("cel.yaml", policy({ mutation: "Object{metadata: Object.metadata{labels: {'a': 1 + 'x'}}}" })), "-r", file("p6.yaml", POD));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("cel.yaml#0: spec.mutations[0].applyConfiguration.expression: Invalid value:");
    expect(r.stderr).toContain("found no matching overload for '_+_' applied to '(int, string)'");
    noStack(r);
  });

  it("a matchCondition that does not compile", async () => {
    const mc = "  matchConditions:\n    - name: bad\n      expression: \"object.metadata.name ==\"\n";
    const r = await evalCli("-f", file("mc.yaml", policy({ matchConditions: mc })), "-r", file("p7.yaml", POD));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("mc.yaml#0: spec.matchConditions[0].expression: Invalid value:");
    noStack(r);
  });

  it("a missing param (paramRef by name, not among the inputs)", async () => {
    const pol = policy({ paramKind: "  paramKind:\n    apiVersion: v1\n    kind: ConfigMap\n", mutation: "Object{metadata: Object.metadata{labels: {'team': params.data.team}}}" }).replace(
      "  policyName: p\n",
      "  policyName: p\n  paramRef:\n    name: team\n    namespace: default\n    parameterNotFoundAction: Deny\n",
    );
    const r = await evalCli("-f", file("params.yaml", pol), "-r", file("p8.yaml", POD));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('params.yaml#1: spec.paramRef: Not found: ConfigMap "default/team"');
    noStack(r);
    // With the param given, it evaluates.
    const cm = file("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: team\n  namespace: default\ndata:\n  team: blue\n");
    const ok = await evalCli("-f", join(dir, "params.yaml"), "-f", cm, "-r", join(dir, "p8.yaml"));
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("team: blue");
  });

  it("bad options: missing -r, unknown -o, UPDATE without --old", async () => {
    const f = file("ok5.yaml", policy());
    for (const args of [["-f", f], ["-f", f, "-r", file("p9.yaml", POD), "-o", "xml"], ["-f", f, "-r", join(dir, "p9.yaml"), "--operation", "UPDATE"]]) {
      const r = await evalCli(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("Run 'celmap eval --help' for usage.");
      noStack(r);
    }
  });
});

describe("celmap eval: rejections (exit 1, the apiserver's message)", () => {
  it("a runtime error under failurePolicy Fail denies the request", async () => {
    const r = await evalCli("-f", file("fail.yaml", policy({ mutation: "Object{metadata: Object.metadata{labels: {'x': object.metadata.annotations['missing']}}}" })), "-r", file("r1.yaml", POD));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("denied: ");
    expect(r.stderr).toContain("Error from server (Invalid): policy 'p' with binding 'p-binding' denied request:");
    expect(r.stdout).toBe("");
    noStack(r);
  });

  it("a cost overrun: the apiserver's message; Ignore admits (exit 0, warning) unless --fail-on-error", async () => {
    const heavy = "lists.range(3000).all(i, lists.range(3000).all(j, i + j >= 0)) ? Object{metadata: Object.metadata{labels: {'heavy': 'yes'}}} : Object{}";
    const fail = await evalCli("-f", file("cost.yaml", policy({ mutation: heavy })), "-r", file("r2.yaml", POD));
    expect(fail.code).toBe(1);
    expect(fail.stderr).toContain("operation cancelled: actual cost limit exceeded");
    noStack(fail);
    const ignore = file("cost-ignore.yaml", policy({ mutation: heavy, failurePolicy: "Ignore" }));
    const ig = await evalCli("-f", ignore, "-r", join(dir, "r2.yaml"));
    expect(ig.code, ig.stderr).toBe(0);
    expect(ig.stderr).toContain("warning: ");
    expect(ig.stderr).toContain("ignored by failurePolicy Ignore");
    expect(ig.stdout).not.toContain("heavy");
    const strict = await evalCli("-f", ignore, "-r", join(dir, "r2.yaml"), "--fail-on-error");
    expect(strict.code).toBe(1);
  });

  it("a CRD's kind is known once its CustomResourceDefinition is given", async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: integer, default: 3}
                tags: {type: array, items: {type: string}, x-kubernetes-list-type: set}
`;
    const pol = policy({ mutation: "Object{spec: Object.spec{tags: ['blue']}}" }).replace('apiGroups: [""]', 'apiGroups: ["example.com"]').replace('resources: ["pods"]', 'resources: ["widgets"]');
    const widget = file("widget.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  tags: [red]\n");
    const without = await evalCli("-f", file("wpol.yaml", pol), "-r", widget);
    expect(without.code).toBe(2);
    expect(without.stderr).toContain("unknown kind");
    const r = await evalCli("-f", join(dir, "wpol.yaml"), "-f", file("crd.yaml", crd), "-r", widget, "-o", "json");
    expect(r.code, r.stderr).toBe(0);
    const [res] = JSON.parse(r.stdout) as { object: { spec: unknown } }[];
    expect(res!.object.spec).toEqual({ tags: ["red", "blue"], size: 3 });
  });
});

// ---------------------------------------------------------------------------
// Kyverno MutatingPolicies in celmap eval

function mpol(opts: { name?: string; kind?: string; namespace?: string; mutation?: string; extra?: string; matchConditions?: string; failurePolicy?: string } = {}): string {
  return `apiVersion: policies.kyverno.io/v1
kind: ${opts.kind ?? "MutatingPolicy"}
metadata:
  name: ${opts.name ?? "mp"}
${opts.namespace !== undefined ? `  namespace: ${opts.namespace}\n` : ""}spec:
  failurePolicy: ${opts.failurePolicy ?? "Fail"}
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["pods"]
${opts.matchConditions ?? ""}${opts.extra ?? ""}  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: ${JSON.stringify(opts.mutation ?? "Object{metadata: Object.metadata{labels: {'kyverno': 'yes'}}}")}
`;
}

describe("celmap eval: Kyverno MutatingPolicies (a webhook after the MAP plugin)", () => {
  it("applies a MutatingPolicy alongside a MAP and says which policy did what", async () => {
    const r = await evalCli("-f", file("k-map.yaml", policy()), "-f", file("k-mp.yaml", mpol()), "-r", file("k-pod.yaml", POD), "--trace");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("team: a");
    expect(r.stdout).toContain('kyverno: "yes"');
    expect(r.stderr).toContain("webhook kyverno: changed the object");
    expect(r.stderr).toContain("policy mp: pass — mutated");
    expect(r.stderr).toContain('add /metadata/labels/kyverno "yes"');
  });

  it("orders the plugins as kube-apiserver does: the MutatingPolicy sees the MAP's output, not the other way round", async () => {
    const mapPol = policy({ mutation: "Object{metadata: Object.metadata{labels: {'stage': 'map'}}}" });
    // The MP copies the MAP's label; a MAP reading the MP's label would need reinvocation (IfNeeded).
    const mp = mpol({ mutation: "Object{metadata: Object.metadata{labels: {'seen': object.metadata.labels.?stage.orValue('none')}}}" });
    const r = await evalCli("-f", file("o-map.yaml", mapPol), "-f", file("o-mp.yaml", mp), "-r", file("k-pod.yaml", POD), "-o", "json");
    expect(r.code, r.stderr).toBe(0);
    const [res] = JSON.parse(r.stdout) as { object: { metadata: { labels: Record<string, string> } } }[];
    expect(res!.object.metadata.labels).toMatchObject({ stage: "map", seen: "map" });
  });

  it("reinvokes IfNeeded MAPs after the Kyverno webhook changed the object (never the webhook: Kyverno registers it with reinvocationPolicy Never)", async () => {
    const mapPol = policy({ mutation: "Object{metadata: Object.metadata{labels: {'copy': object.metadata.labels.?kyverno.orValue('none')}}}" }).replace("reinvocationPolicy: Never", "reinvocationPolicy: IfNeeded");
    const r = await evalCli("-f", file("r-map.yaml", mapPol), "-f", file("k-mp.yaml", mpol()), "-r", file("k-pod.yaml", POD), "-o", "json", "--trace");
    expect(r.code, r.stderr).toBe(0);
    const [res] = JSON.parse(r.stdout) as { reinvoked: boolean; object: { metadata: { labels: Record<string, string> } } }[];
    expect(res!.reinvoked).toBe(true);
    expect(res!.object.metadata.labels).toMatchObject({ kyverno: "yes", copy: "yes" });
    expect(r.stderr).toContain("not reinvoked: reinvocationPolicy Never");
  });

  it("a Fail policy error denies with the webhook's message (exit 1); an exception exempts", async () => {
    const bad = mpol({ name: "bad", mutation: "Object{metadata: Object.metadata{labels: {'x': object.metadata.labels.nope}}}" });
    const r = await evalCli("-f", file("bad-mp.yaml", bad), "-r", file("k-pod.yaml", POD));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('admission webhook "mpol.validate.kyverno.svc-fail" denied the request: Policy bad: failed to evaluate policy');
    noStack(r);
    const exc = `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata:
  name: skip-web
  namespace: default
spec:
  policyRefs:
    - name: bad
      kind: MutatingPolicy
  matchConditions:
    - name: is-web
      expression: "object.metadata.name == 'web'"
`;
    const ok = await evalCli("-f", join(dir, "bad-mp.yaml"), "-f", file("exc.yaml", exc), "-r", file("k-pod.yaml", POD), "--trace", "-o", "patch");
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toBe("[]");
    expect(ok.stderr).toContain("policy bad: skip — exempted by PolicyException skip-web");
  });

  it("runs autogen variants on pod controllers and scopes NamespacedMutatingPolicies to their namespace", async () => {
    const deploy = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  namespace: team
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: c, image: nginx}]
`;
    const r = await evalCli("-f", file("k-mp.yaml", mpol()), "-r", file("deploy.yaml", deploy), "-o", "json", "--trace");
    expect(r.code, r.stderr).toBe(0);
    const [res] = JSON.parse(r.stdout) as { object: { spec: { template: { metadata: { labels: Record<string, string> } } } } }[];
    expect(res!.object.spec.template.metadata.labels).toEqual({ app: "d", kyverno: "yes" });
    expect(r.stderr).toContain("policy mp (autogen defaults): pass — mutated");
    const nm = await evalCli("-f", file("nmp.yaml", mpol({ kind: "NamespacedMutatingPolicy", name: "nm", namespace: "team" })), "-r", file("k-pod.yaml", POD), "-o", "patch");
    expect(nm.code, nm.stderr).toBe(0);
    expect(nm.stdout.trim()).toBe("[]"); // the Pod is in "default"
  });

  it("a MutatingPolicy whose CEL does not compile is bad input at its field path (exit 2)", async () => {
    const r = await evalCli("-f", file("cel-mp.yaml", mpol({ mutation: "Object{metadata: Object.metadata{labels: {'x': 1 +}}}" })), "-r", file("k-pod.yaml", POD));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("spec.mutations[0].applyConfiguration.expression: Invalid value");
    expect(r.stderr).toContain("(MutatingPolicy rejected)");
    noStack(r);
  });

  it("--target-resources: mutateExisting mutates the existing targets a trigger selects", async () => {
    const existing = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: label-cms
spec:
  evaluation:
    admission: {enabled: true}
    mutateExisting: {enabled: true}
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["pods"]
  targetMatchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["configmaps"]
    namespaceSelector: {}
    objectSelector: {matchLabels: {watch: "true"}}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "Object{metadata: Object.metadata{labels: {'last-pod': request.name}}}"
`;
    const cms = `apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: default, labels: {watch: "true"}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b, namespace: default}
`;
    const r = await evalCli("-f", file("existing.yaml", existing), "-r", file("k-pod.yaml", POD), "--target-resources", file("cms.yaml", cms), "-o", "json", "--trace");
    expect(r.code, r.stderr).toBe(0);
    const [res] = JSON.parse(r.stdout) as { patch: unknown[]; mutateExisting: { policy: string; triggered: boolean; targets: { resource: { name: string }; result: string; patch: unknown[] }[] }[] }[];
    expect(res!.patch).toEqual([]); // with targetMatchConstraints the trigger itself is not mutated
    expect(res!.mutateExisting[0]!.policy).toBe("label-cms");
    expect(res!.mutateExisting[0]!.targets.map((t) => t.resource.name)).toEqual(["a"]);
    // request is the trigger's admission request in the target phase (kyverno.md §4)
    expect(res!.mutateExisting[0]!.targets[0]!.patch).toEqual([{ op: "add", path: "/metadata/labels/last-pod", value: "web" }]);
    expect(r.stderr).toContain("policy label-cms: triggered, 1 target selected");
    const y = await evalCli("-f", join(dir, "existing.yaml"), "-r", file("k-pod.yaml", POD), "--target-resources", join(dir, "cms.yaml"));
    expect(y.code, y.stderr).toBe(0);
    expect(y.stdout).toContain("# mutateExisting target");
    expect(y.stdout).toContain("last-pod: web");
    const none = await evalCli("-f", file("k-mp.yaml", mpol()), "-r", file("k-pod.yaml", POD), "--target-resources", join(dir, "cms.yaml"));
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no Kyverno MutatingPolicy with evaluation.mutateExisting.enabled");
  });
});
