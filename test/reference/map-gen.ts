/**
 * Random MutatingAdmissionPolicy cases on built-in kinds (ConfigMap, Pod, Deployment, Service):
 * one to three policies with bindings, variables, match conditions and ApplyConfiguration or
 * JSONPatch mutations drawn from templates over the kind's fields (map lists merged by key,
 * set and atomic lists, maps, scalars), on a random object of that kind.
 */
import fc from "fast-check";
import { lit } from "./cel-gen.js";

const word = fc.constantFrom("a", "b", "web", "app", "x-y", "c.d", "team/a", "");
const name = fc.constantFrom("a", "web", "api", "b1");
const image = fc.constantFrom("nginx", "nginx:1.25", "busybox");
const labelKey = fc.constantFrom("app", "tier", "team", "a.b/c");
// Mostly non-empty: an empty map of a built-in type vanishes in the apiserver's typed decoding (ledgered).
const labels = fc.oneof(
  { arbitrary: fc.constant({}), weight: 1 },
  { arbitrary: fc.dictionary(labelKey, fc.constantFrom("x", "y", "web"), { minKeys: 1, maxKeys: 2 }), weight: 6 },
);

interface Kind {
  readonly resource: { group: string; version: string; resource: string };
  readonly apiGroup: string;
  readonly object: fc.Arbitrary<Record<string, unknown>>;
  readonly mutations: fc.Arbitrary<{ patchType: string; expression: string }>;
}

const ac = (expression: fc.Arbitrary<string>) => expression.map((e) => ({ patchType: "ApplyConfiguration", expression: e }));
const jp = (expression: fc.Arbitrary<string>) => expression.map((e) => ({ patchType: "JSONPatch", expression: e }));
const L = (a: fc.Arbitrary<string>) => a.map(lit);
const meta = (kindLabels = labels) =>
  fc.record({ name, namespace: fc.constantFrom("default", "team-a"), labels: kindLabels }, { requiredKeys: ["name", "namespace"] });

const common = [
  ac(fc.tuple(L(labelKey), L(word)).map(([k, v]) => `Object{metadata: Object.metadata{labels: {${k}: ${v}}}}`)),
  ac(fc.tuple(L(labelKey)).map(([k]) => `Object{metadata: Object.metadata{annotations: {${k}: variables.v}}}`)),
  ac(fc.constantFrom("Object{metadata: Object.metadata{finalizers: ['example.com/f']}}")),
  jp(fc.tuple(L(labelKey), L(word)).map(([k, v]) => `[JSONPatch{op: "add", path: "/metadata/labels", value: {${k}: ${v}}}]`)),
  jp(fc.tuple(L(labelKey), L(word)).map(([k, v]) => `[JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey(${k}), value: ${v}}]`)),
  jp(fc.constantFrom(`[JSONPatch{op: "remove", path: "/metadata/labels/app"}]`, `[JSONPatch{op: "test", path: "/metadata/name", value: "a"}]`)),
  ac(fc.constantFrom("Object{metadata: Object.metadata{labels: {'n': string(variables.size)}}}")),
];

const KINDS: Record<string, Kind> = {
  ConfigMap: {
    resource: { group: "", version: "v1", resource: "configmaps" },
    apiGroup: "",
    object: fc.record({ apiVersion: fc.constant("v1"), kind: fc.constant("ConfigMap"), metadata: meta(), data: fc.oneof(
        { arbitrary: fc.constant({}), weight: 1 },
        { arbitrary: fc.dictionary(fc.constantFrom("x", "k", "a.b"), word, { minKeys: 1, maxKeys: 2 }), weight: 6 },
      ) }),
    mutations: fc.oneof(
      ...common,
      ac(fc.tuple(L(fc.constantFrom("x", "k", "n")), L(word)).map(([k, v]) => `Object{data: {${k}: ${v}}}`)),
      jp(fc.tuple(L(word)).map(([v]) => `[JSONPatch{op: "replace", path: "/data/x", value: ${v}}]`)),
      jp(fc.constantFrom(`[JSONPatch{op: "add", path: "/data", value: {"k": "v"}}]`, `[JSONPatch{op: "copy", from: "/metadata/name", path: "/data/name"}]`)),
    ),
  },
  Pod: {
    resource: { group: "", version: "v1", resource: "pods" },
    apiGroup: "",
    object: fc.record({
      apiVersion: fc.constant("v1"),
      kind: fc.constant("Pod"),
      metadata: meta(),
      spec: fc.record({
        containers: fc.uniqueArray(fc.record({ name, image }), { minLength: 1, maxLength: 2, selector: (c) => c.name }),
      }),
    }),
    mutations: fc.oneof(
      ...common,
      ac(fc.tuple(L(name), L(image)).map(([n, i]) => `Object{spec: Object.spec{containers: [Object.spec.containers{name: ${n}, image: ${i}}]}}`)),
      ac(fc.tuple(L(name), L(word)).map(([n, v]) => `Object{spec: Object.spec{containers: [Object.spec.containers{name: ${n}, env: [Object.spec.containers.env{name: "E", value: ${v}}]}]}}`)),
      ac(fc.tuple(L(word)).map(([k]) => `Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: ${k}, operator: "Exists"}]}}`)),
      ac(fc.constantFrom(`Object{spec: Object.spec{nodeSelector: {"disk": "ssd"}}}`, `Object{spec: Object.spec{restartPolicy: "Never"}}`)),
      jp(fc.tuple(L(name), L(image)).map(([n, i]) => `[JSONPatch{op: "add", path: "/spec/containers/-", value: {"name": ${n}, "image": ${i}}}]`)),
      jp(fc.tuple(L(image)).map(([i]) => `[JSONPatch{op: "replace", path: "/spec/containers/0/image", value: ${i}}]`)),
      jp(fc.constantFrom(`object.spec.containers.map(c, JSONPatch{op: "add", path: "/metadata/labels/" + c.name, value: "c"})`)),
    ),
  },
  Deployment: {
    resource: { group: "apps", version: "v1", resource: "deployments" },
    apiGroup: "apps",
    object: fc.record({
      apiVersion: fc.constant("apps/v1"),
      kind: fc.constant("Deployment"),
      metadata: meta(),
      spec: fc.record({
        replicas: fc.integer({ min: 0, max: 5 }),
        selector: fc.constant({ matchLabels: { app: "web" } }),
        template: fc.record({ metadata: fc.constant({ labels: { app: "web" } }), spec: fc.record({ containers: fc.constant([{ name: "web", image: "nginx" }]) }) }),
      }),
    }),
    mutations: fc.oneof(
      ...common,
      ac(fc.integer({ min: 0, max: 10 }).map((r) => `Object{spec: Object.spec{replicas: ${r}}}`)),
      ac(fc.tuple(L(labelKey), L(word)).map(([k, v]) => `Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {${k}: ${v}}}}}}`)),
      jp(fc.integer({ min: -1, max: 10 }).map((r) => `[JSONPatch{op: "replace", path: "/spec/replicas", value: ${r}}]`)),
      jp(fc.constantFrom(`[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/env", value: [{"name": "A", "value": "1"}]}]`)),
    ),
  },
  Service: {
    resource: { group: "", version: "v1", resource: "services" },
    apiGroup: "",
    object: fc.record({
      apiVersion: fc.constant("v1"),
      kind: fc.constant("Service"),
      metadata: meta(),
      spec: fc.record({ ports: fc.uniqueArray(fc.record({ port: fc.constantFrom(80, 443, 8080), protocol: fc.constant("TCP") }), { minLength: 1, maxLength: 2, selector: (p) => p.port }) }),
    }),
    mutations: fc.oneof(
      ...common,
      ac(fc.tuple(fc.constantFrom(80, 443, 9090), fc.constantFrom(8080, 8443)).map(([p, t]) => `Object{spec: Object.spec{ports: [Object.spec.ports{port: ${p}, protocol: "TCP", targetPort: ${t}}]}}`)),
      ac(fc.constantFrom(`Object{spec: Object.spec{type: "ClusterIP"}}`, `Object{spec: Object.spec{selector: {"app": "web"}}}`)),
      jp(fc.constantFrom(`[JSONPatch{op: "add", path: "/spec/ports/-", value: {"port": dyn(9000), "protocol": dyn("TCP")}}]`, `[JSONPatch{op: "replace", path: "/spec/ports/0/port", value: 81}]`)),
    ),
  },
};

const VARIABLES = [
  { name: "v", expression: "object.metadata.name + '-x'" },
  { name: "size", expression: "size(object.metadata.name)" },
];
const MATCH_CONDITIONS = [
  "object.metadata.name.startsWith('a')",
  "has(object.metadata.labels)",
  "request.operation == 'CREATE'",
  "object.metadata.namespace == 'default'",
];

function policyArb(kindName: string, index: number) {
  const k = KINDS[kindName]!;
  return fc
    .record({
      failurePolicy: fc.constantFrom("Fail", "Ignore"),
      conditions: fc.subarray(MATCH_CONDITIONS, { maxLength: 2 }),
      mutations: fc.array(k.mutations, { minLength: 1, maxLength: 2 }),
      selector: fc.option(fc.constantFrom({ matchLabels: { env: "prod" } }, { matchExpressions: [{ key: "env", operator: "Exists" }] }), { nil: undefined }),
    })
    .map(({ failurePolicy, conditions, mutations, selector }) => {
      const policyName = `p${index}`;
      const policy = {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingAdmissionPolicy",
        metadata: { name: policyName },
        spec: {
          matchConstraints: {
            resourceRules: [{ apiGroups: [k.apiGroup], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: [k.resource.resource] }],
            ...(selector === undefined ? {} : { namespaceSelector: selector }),
          },
          failurePolicy,
          reinvocationPolicy: "Never",
          variables: VARIABLES,
          ...(conditions.length === 0 ? {} : { matchConditions: conditions.map((expression, i) => ({ name: `m${i}`, expression })) }),
          mutations: mutations.map((m) =>
            m.patchType === "JSONPatch" ? { patchType: "JSONPatch", jsonPatch: { expression: m.expression } } : { patchType: "ApplyConfiguration", applyConfiguration: { expression: m.expression } },
          ),
        },
      };
      const binding = {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingAdmissionPolicyBinding",
        metadata: { name: `b${index}` },
        spec: { policyName },
      };
      return { policy, binding };
    });
}

export const mapCaseArb = fc.constantFrom(...Object.keys(KINDS)).chain((kindName) =>
  fc
    .record({
      object: KINDS[kindName]!.object,
      policies: fc.integer({ min: 1, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => policyArb(kindName, i)))),
      nsLabels: fc.constantFrom({}, { env: "prod" }),
    })
    .map(({ object, policies, nsLabels }) => ({
      policies: policies.map((p) => p.policy),
      bindings: policies.map((p) => p.binding),
      namespaces: ["default", "team-a"].map((n) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name: n, labels: { "kubernetes.io/metadata.name": n, ...nsLabels } } })),
      operation: "CREATE" as const,
      object,
      oldObject: null,
      resource: KINDS[kindName]!.resource,
    })),
);
