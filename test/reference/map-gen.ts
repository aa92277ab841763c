/**
 * Random MutatingAdmissionPolicy cases on built-in kinds (ConfigMap, Pod, Deployment, Service):
 * one to three policies with bindings, variables, match conditions and ApplyConfiguration or
 * JSONPatch mutations drawn from templates over the kind's fields (map lists merged by key,
 * set and atomic lists, maps, scalars), on a random object of that kind; CREATE, or UPDATE with
 * an old object; policies with params (paramKind ConfigMap, paramRef by name or selector,
 * namespaced, parameterNotFoundAction Allow/Deny) and reinvocationPolicy Never or IfNeeded.
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
  // Reads what other policies write (reinvocation makes a difference), and the old object.
  ac(fc.constantFrom(
    "Object{metadata: Object.metadata{annotations: {'labels': string(size(object.metadata.?labels.orValue({})))}}}",
    "Object{metadata: Object.metadata{annotations: {'old': oldObject == null ? 'none' : oldObject.metadata.name + string(size(oldObject.metadata.?labels.orValue({})))}}}",
  )),
  jp(fc.constantFrom(
    `[JSONPatch{op: "add", path: "/metadata/annotations", value: {"count": string(size(object.metadata.?annotations.orValue({})))}}]`,
    `oldObject == null ? [] : [JSONPatch{op: "add", path: "/metadata/labels/was", value: oldObject.metadata.?labels.?app.orValue("none")}]`,
  )),
];

/**
 * Mutations of a policy with `paramKind: ConfigMap` (params may be null: no paramRef). A paramRef
 * selector gives one invocation per param in the order of the informer cache's List, a Go map
 * iteration (client-go tools/cache thread_safe_store.go List), which the apiserver leaves
 * unspecified: each invocation writes keys of its own param's name, so the result does not
 * depend on that order.
 */
const PN = `(params == null ? "none" : params.metadata.name)`;
const withParams = [
  ac(fc.constantFrom(
    `Object{metadata: Object.metadata{labels: {"p-" + ${PN}: params == null ? "none" : params.data.?k.orValue("none")}}}`,
    `Object{metadata: Object.metadata{annotations: {"param-" + params.metadata.name: "1"}}}`,
  )),
  jp(fc.constantFrom(
    `object.metadata.?annotations.hasValue() ? [JSONPatch{op: "add", path: "/metadata/annotations/from-" + ${PN}, value: params == null ? "none" : params.metadata.namespace}] : [JSONPatch{op: "add", path: "/metadata/annotations", value: {"from-" + ${PN}: params == null ? "none" : params.metadata.namespace}}]`,
    // Creates the labels map where it is absent: otherwise the first of several params of a selector fails its adds and
    // a later one does not, and which param comes first is the informer cache's Go map order (flaky at seed 633168559).
    `params == null ? [] : (object.metadata.?labels.hasValue() ? [] : [JSONPatch{op: "add", path: "/metadata/labels", value: {}}]) + params.data.map(k, JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey(params.metadata.name + "-" + k), value: params.data[k]})`,
  )),
];
const PARAM_CONDITIONS = ["params == null || params.data.?skip.orValue('') != 'yes'", "params != null"];

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

/**
 * A namespaced custom resource with a structural schema: a map list keyed by name, a set, an
 * atomic list, a granular and an atomic map, scalars (mapref builds its type converter from this
 * CRD as the apiserver's OpenAPI controller does).
 */
export const WIDGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  ports: {
                    type: "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } },
                  },
                  tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
                  args: { type: "array", "x-kubernetes-list-type": "atomic", items: { type: "string" } },
                  labels: { type: "object", additionalProperties: { type: "string" } },
                  config: { type: "object", "x-kubernetes-map-type": "atomic", additionalProperties: { type: "string" } },
                  replicas: { type: "integer" },
                  mode: { type: "string" },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const portName = fc.constantFrom("http", "https", "metrics");
const tag = fc.constantFrom("a", "b", "c");
KINDS.Widget = {
  resource: { group: "example.com", version: "v1", resource: "widgets" },
  apiGroup: "example.com",
  object: fc.record({
    apiVersion: fc.constant("example.com/v1"),
    kind: fc.constant("Widget"),
    // Labels not empty: a custom resource is not decoded into a Go type, and the ledger's
    // typed-decoding entries would match any case with an empty labels map.
    metadata: meta(fc.dictionary(labelKey, fc.constantFrom("x", "y", "web"), { minKeys: 1, maxKeys: 2 })),
    spec: fc.record(
      {
        ports: fc.uniqueArray(fc.record({ name: portName, port: fc.constantFrom(80, 443, 9090) }), { minLength: 1, maxLength: 2, selector: (p) => p.name }),
        tags: fc.uniqueArray(tag, { minLength: 1, maxLength: 2 }),
        args: fc.array(fc.constantFrom("--v", "-q", "x"), { minLength: 1, maxLength: 2 }),
        labels: fc.dictionary(labelKey, fc.constantFrom("x", "y"), { minKeys: 1, maxKeys: 2 }),
        config: fc.dictionary(fc.constantFrom("k", "j"), fc.constantFrom("1", "2"), { minKeys: 1, maxKeys: 2 }),
        replicas: fc.integer({ min: 0, max: 5 }),
        mode: fc.constantFrom("fast", "slow"),
      },
      { requiredKeys: [] },
    ),
  }),
  mutations: fc.oneof(
    ...common,
    ac(fc.tuple(L(portName), fc.constantFrom(80, 8080)).map(([n, p]) => `Object{spec: Object.spec{ports: [Object.spec.ports{name: ${n}, port: ${p}}]}}`)),
    ac(fc.tuple(L(tag), L(tag)).map(([a, b]) => `Object{spec: Object.spec{tags: [${a}, ${b}]}}`)),
    ac(fc.constantFrom(`Object{spec: Object.spec{args: ["--v", "-z"]}}`, `Object{spec: Object.spec{config: {"k": "3"}}}`, `Object{spec: Object.spec{labels: {"k": "v"}}}`)),
    ac(fc.constantFrom(`Object{spec: Object.spec{replicas: 3, mode: "slow"}}`, `Object{spec: Object.spec{ports: object.spec.?ports.orValue([]).map(p, Object.spec.ports{name: p.name, port: p.port + 1})}}`)),
    jp(fc.constantFrom(
      `[JSONPatch{op: "add", path: "/spec/tags/-", value: "z"}]`,
      `[JSONPatch{op: "replace", path: "/spec/replicas", value: 7}]`,
      `[JSONPatch{op: "add", path: "/spec/ports/-", value: {"name": dyn("extra"), "port": dyn(1)}}]`,
      `[JSONPatch{op: "add", path: "/spec/config", value: {"a": "b"}}]`,
    )),
  ),
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
  "oldObject == null || oldObject.metadata.?labels != object.metadata.?labels",
];

const notFound = fc.constantFrom("Allow", "Deny");
const paramRef = fc.oneof(
  fc.record({ name: fc.constantFrom("p1", "p2", "missing"), parameterNotFoundAction: notFound }),
  fc.record({ name: fc.constant("p1"), namespace: fc.constantFrom("default", "team-a"), parameterNotFoundAction: notFound }),
  fc.record({ selector: fc.constantFrom({ matchLabels: { role: "param" } }, {}, { matchExpressions: [{ key: "role", operator: "DoesNotExist" }] }), parameterNotFoundAction: notFound }),
  fc.record({
    selector: fc.constant({ matchLabels: { role: "param" } }),
    namespace: fc.constant("team-a"),
    parameterNotFoundAction: notFound,
  }),
);
/** Param ConfigMaps: p1 and p2 in the two namespaces, some labelled role=param. */
const paramObjects = fc.subarray(
  ["default", "team-a"].flatMap((ns) => ["p1", "p2"].map((n) => ({ ns, n }))),
).chain((slots) =>
  fc.tuple(
    ...slots.map(({ ns, n }) =>
      fc.record({
        labelled: fc.boolean(),
        // Not empty: the ledger's typed-decoding entries match any case with an empty data map.
        data: fc.dictionary(fc.constantFrom("k", "skip", "a.b"), fc.constantFrom("v", "yes", "x-y"), { minKeys: 1, maxKeys: 2 }),
      }).map(({ labelled, data }) => ({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: n, namespace: ns, ...(labelled ? { labels: { role: "param" } } : {}) },
        data,
      })),
    ),
  ),
);

function policyArb(kindName: string, index: number) {
  const k = KINDS[kindName]!;
  return fc
    .record({
      failurePolicy: fc.constantFrom("Fail", "Ignore"),
      reinvocationPolicy: fc.constantFrom("Never", "IfNeeded"),
      params: fc.option(fc.record({ ref: fc.option(paramRef, { nil: undefined, freq: 6 }), conditions: fc.subarray(PARAM_CONDITIONS, { maxLength: 1 }) }), {
        nil: undefined,
        freq: 2,
      }),
      conditions: fc.subarray(MATCH_CONDITIONS, { maxLength: 2 }),
      mutations: fc.array(k.mutations, { minLength: 1, maxLength: 2 }),
      paramMutations: fc.array(fc.oneof(...withParams), { minLength: 1, maxLength: 2 }),
      selector: fc.option(fc.constantFrom({ matchLabels: { env: "prod" } }, { matchExpressions: [{ key: "env", operator: "Exists" }] }), { nil: undefined }),
    })
    .map(({ failurePolicy, reinvocationPolicy, params, conditions: plain, mutations: own, paramMutations, selector }) => {
      const conditions = params === undefined ? plain : [...plain.slice(0, 1), ...params.conditions];
      // Only param mutations in a policy with params: with a selector each param is an invocation
      // in an unspecified order (see withParams), and the kind's own mutations (a JSONPatch that
      // sets the whole labels map) would make the result depend on it.
      const mutations = params === undefined ? own : paramMutations;
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
          ...(params === undefined ? {} : { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }),
          failurePolicy,
          reinvocationPolicy,
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
        spec: { policyName, ...(params?.ref === undefined ? {} : { paramRef: params.ref }) },
      };
      return { policy, binding };
    });
}

/** `old` renamed as `object` (an UPDATE keeps name and namespace). */
function sameName(old: Record<string, unknown>, object: Record<string, unknown>): Record<string, unknown> {
  const m = object.metadata as { name: string; namespace: string };
  return { ...old, metadata: { ...(old.metadata as object), name: m.name, namespace: m.namespace } };
}

export const mapCaseArb = fc.constantFrom(...Object.keys(KINDS)).chain((kindName) =>
  fc
    .record({
      object: KINDS[kindName]!.object,
      policies: fc.integer({ min: 1, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => policyArb(kindName, i)))),
      nsLabels: fc.constantFrom({}, { env: "prod" }),
      params: paramObjects,
      old: fc.option(KINDS[kindName]!.object, { nil: undefined, freq: 1 }),
    })
    .map(({ object, policies, nsLabels, params, old }) => ({
      policies: policies.map((p) => p.policy),
      bindings: policies.map((p) => p.binding),
      namespaces: ["default", "team-a"].map((n) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name: n, labels: { "kubernetes.io/metadata.name": n, ...nsLabels } } })),
      operation: old === undefined ? ("CREATE" as const) : ("UPDATE" as const),
      object,
      oldObject: old === undefined ? null : sameName(old, object),
      params,
      ...(kindName === "Widget" ? { crds: [WIDGET_CRD] } : {}),
      resource: KINDS[kindName]!.resource,
    })),
);
