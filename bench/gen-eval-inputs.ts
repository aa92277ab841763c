/**
 * The `celmap eval` benchmark's inputs: 1,000 varied Pods and 10 MutatingAdmissionPolicies (with
 * their bindings, a param and namespaces), as YAML text — deterministic (seeded), so runs compare.
 *
 *     node dist/bench/gen-eval-inputs.js <out-dir>    writes policies.yaml and pods.yaml there
 *
 * The policies are the kinds platform teams write: labels and annotations (ApplyConfiguration and
 * JSONPatch), a sidecar, securityContext defaults, imagePullPolicy for :latest images, default
 * resource requests, tolerations, an env var from params, a node selector (JSONPatch: nodeSelector is an atomic map and tolerations an atomic list, which ApplyConfiguration may not set), and one guarded by a
 * matchCondition. Pods vary in namespace, labels, container count (1–4), images, ports, resources,
 * volumes and security settings.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";

export const NAMESPACES = ["shop", "payments", "search", "batch", "edge"];

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const IMAGES = ["nginx:1.25", "redis:7.2", "registry.example.com/api:latest", "envoyproxy/envoy:v1.30.1", "busybox:latest", "postgres:16", "registry.example.com/worker:2.3.1"];

export function generatePods(n = 1000, seed = 42): Record<string, unknown>[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const pods: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const app = pick(["checkout", "cart", "search", "indexer", "gateway", "report"]);
    const labels: Record<string, string> = { app, "pod-template-hash": Math.floor(r() * 1e9).toString(36) };
    if (r() < 0.5) labels["tier"] = pick(["frontend", "backend", "data"]);
    if (r() < 0.3) labels["sidecar.example.com/inject"] = "true";
    if (r() < 0.2) labels["example.com/gpu"] = "true";
    const containers = [];
    const count = 1 + Math.floor(r() * 4);
    for (let c = 0; c < count; c++) {
      const container: Record<string, unknown> = { name: `c${c}-${app}`, image: pick(IMAGES) };
      if (r() < 0.6) container["ports"] = [{ containerPort: BigInt(8000 + Math.floor(r() * 100)), protocol: "TCP" }];
      if (r() < 0.5) container["resources"] = { limits: { cpu: `${1 + Math.floor(r() * 4)}`, memory: `${128 * (1 + Math.floor(r() * 8))}Mi` } };
      if (r() < 0.4) container["env"] = [{ name: "MODE", value: pick(["prod", "canary"]) }];
      if (r() < 0.3) container["securityContext"] = { readOnlyRootFilesystem: true };
      containers.push(container);
    }
    const spec: Record<string, unknown> = { containers, restartPolicy: "Always", terminationGracePeriodSeconds: 30n };
    if (r() < 0.4) spec["volumes"] = [{ name: "data", emptyDir: {} }];
    if (r() < 0.3) spec["securityContext"] = { runAsNonRoot: true, fsGroup: 2000n };
    if (r() < 0.2) spec["tolerations"] = [{ key: "dedicated", operator: "Equal", value: app, effect: "NoSchedule" }];
    pods.push({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `${app}-${i}`, namespace: pick(NAMESPACES), labels, annotations: { "example.com/owner": `team-${i % 17}` } },
      spec,
    });
  }
  return pods;
}

const PODS_RULE = { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] };

function map(name: string, mutations: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name },
    spec: { matchConstraints: { resourceRules: [PODS_RULE] }, failurePolicy: "Fail", reinvocationPolicy: "Never", ...extra, mutations },
  };
}
const ac = (expression: string) => ({ patchType: "ApplyConfiguration", applyConfiguration: { expression } });
const jp = (expression: string) => ({ patchType: "JSONPatch", jsonPatch: { expression } });

/** The ten policies, in the order of the "1 matching MAP" measurement (the first is that one). */
export function generatePolicies(): Record<string, unknown>[] {
  const policies = [
    map("add-managed-label", [ac("Object{metadata: Object.metadata{labels: {'example.com/managed-by': 'platform'}}}")]),
    map("owner-annotation", [
      jp(
        "has(object.metadata.annotations) ? [JSONPatch{op: 'add', path: '/metadata/annotations/' + jsonpatch.escapeKey('example.com/audited'), value: 'true'}] : [JSONPatch{op: 'add', path: '/metadata/annotations', value: {'example.com/audited': 'true'}}]",
      ),
    ]),
    map(
      "inject-sidecar",
      [
        ac(
          "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'log-shipper', image: 'fluent/fluent-bit:3.1', resources: Object.spec.containers.resources{requests: {'cpu': '10m', 'memory': '32Mi'}}}]}}",
        ),
      ],
      { matchConditions: [{ name: "wants-sidecar", expression: "object.metadata.?labels[?'sidecar.example.com/inject'].orValue('') == 'true'" }] },
    ),
    map("run-as-non-root", [ac("Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: object.spec.?securityContext.?runAsNonRoot.orValue(true)}}}")]),
    map("pull-latest-always", [
      jp(
        "object.spec.containers.filter(c, c.image.endsWith(':latest')).map(c, JSONPatch{op: 'add', path: '/spec/containers/' + string(object.spec.containers.map(x, x.name).indexOf(c.name)) + '/imagePullPolicy', value: 'Always'})",
      ),
    ]),
    map("default-requests", [
      ac(
        "Object{spec: Object.spec{containers: object.spec.containers.filter(c, !has(c.resources)).map(c, Object.spec.containers{name: c.name, resources: Object.spec.containers.resources{requests: {'cpu': '100m', 'memory': '128Mi'}}})}}",
      ),
    ]),
    map("spot-toleration", [
      jp(
        "has(object.spec.tolerations) ? [JSONPatch{op: 'add', path: '/spec/tolerations/-', value: {'key': 'spot', 'operator': 'Exists', 'effect': 'NoSchedule'}}] : [JSONPatch{op: 'add', path: '/spec/tolerations', value: [{'key': 'spot', 'operator': 'Exists', 'effect': 'NoSchedule'}]}]",
      ),
    ]),
    map(
      "cluster-env",
      [
        ac(
          "Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, env: [Object.spec.containers.env{name: 'CLUSTER', value: params.data.cluster}]})}}",
        ),
      ],
      { paramKind: { apiVersion: "v1", kind: "ConfigMap" } },
    ),
    map("gpu-node-selector", [jp("[JSONPatch{op: 'add', path: '/spec/nodeSelector', value: {'example.com/accelerator': 'nvidia'}}]")], {
      matchConditions: [{ name: "wants-gpu", expression: "'example.com/gpu' in object.metadata.labels" }],
    }),
    map("team-label-from-namespace", [
      ac("Object{metadata: Object.metadata{labels: {'example.com/namespace-env': namespaceObject.metadata.?labels[?'env'].orValue('unknown')}}}"),
    ]),
  ];
  return policies;
}

export function generateBindings(policies: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return policies.map((p) => {
    const name = (p.metadata as { name: string }).name;
    const spec: Record<string, unknown> = { policyName: name };
    if (name === "cluster-env") spec["paramRef"] = { name: "cluster-info", namespace: "platform", parameterNotFoundAction: "Deny" };
    return { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingAdmissionPolicyBinding", metadata: { name: `${name}-binding` }, spec };
  });
}

export function generateSupport(): Record<string, unknown>[] {
  return [
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cluster-info", namespace: "platform" }, data: { cluster: "eu-west-1a" } },
    ...NAMESPACES.map((n, i) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name: n, labels: { "kubernetes.io/metadata.name": n, env: i % 2 === 0 ? "prod" : "dev" } } })),
  ];
}

/** policies.yaml: the given policies (default all ten), their bindings, the param and the namespaces. */
export function policiesYaml(policies = generatePolicies()): string {
  return [...policies, ...generateBindings(policies), ...generateSupport()].map((d) => stringify(d, { lineWidth: 0 })).join("---\n");
}

export function podsYaml(pods = generatePods()): string {
  return pods.map((d) => stringify(d, { lineWidth: 0 })).join("---\n");
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2] ?? "bench-inputs";
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "policies.yaml"), policiesYaml());
  writeFileSync(join(out, "pods.yaml"), podsYaml());
  process.stdout.write(`wrote ${join(out, "policies.yaml")} (10 MAPs) and ${join(out, "pods.yaml")} (1000 Pods)\n`);
}
