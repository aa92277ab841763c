/**
 * Random Gatekeeper mutator sets (1 to 4 of Assign, AssignMetadata, ModifySet, AssignImage) on
 * real kinds (Pod, Deployment, Service, ConfigMap) with a random object of the kind and its
 * Namespace: locations with `[name: *]` / `[name: web]` list globs, nested maps, pathTests,
 * assignIf, fromMetadata, ModifySet merge/prune, AssignImage domain/path/tag, and match
 * criteria (kinds, scope, namespaces, excludedNamespaces, labelSelector, namespaceSelector).
 * A few mutators are invalid on purpose (Gatekeeper's MutatorFor* must refuse them).
 */
import fc from "fast-check";

export interface GkRequest {
  readonly mutators: readonly Record<string, unknown>[];
  readonly object: Record<string, unknown>;
  readonly namespace: Record<string, unknown> | null;
  readonly operation: "CREATE" | "UPDATE";
}

interface Kind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly object: fc.Arbitrary<Record<string, unknown>>;
  /** Assign locations with values that fit them. */
  readonly assigns: readonly [string, fc.Arbitrary<unknown>][];
  /** ModifySet locations (lists of scalars) with their values. */
  readonly sets: readonly [string, fc.Arbitrary<unknown>][];
  /** AssignImage locations. */
  readonly images: readonly string[];
}

const NAMESPACES = ["default", "team-a"] as const;
const word = fc.constantFrom("a", "web", "x-y", "Always", "IfNotPresent", "");
const labelKey = fc.constantFrom("app", "tier", "team", "a.b/c");
const labelVal = fc.constantFrom("x", "y", "web");
const labels = fc.dictionary(labelKey, labelVal, { minKeys: 0, maxKeys: 2 });
const containerName = fc.constantFrom("web", "api", "sidecar");
const image = fc.constantFrom("nginx", "nginx:1.25", "docker.io/library/busybox:1.36", "registry.local:5000/team/app@sha256:" + "a".repeat(64), "gcr.io/x/y:v1");
const args = fc.array(fc.constantFrom("--a", "--b", "-v", "1"), { maxLength: 3 });
const scalar = fc.oneof(word, fc.integer({ min: -2, max: 100 }), fc.boolean());
const anyValue = fc.oneof(
  { arbitrary: scalar, weight: 4 },
  { arbitrary: fc.dictionary(fc.constantFrom("a", "b", "name"), scalar, { maxKeys: 2 }), weight: 1 },
  { arbitrary: fc.array(scalar, { maxLength: 2 }), weight: 1 },
);

const container = fc.record(
  {
    name: containerName,
    image,
    imagePullPolicy: fc.constantFrom("Always", "IfNotPresent"),
    args,
    env: fc.array(fc.record({ name: fc.constantFrom("A", "B"), value: fc.constantFrom("1", "x") }), { maxLength: 2 }),
    securityContext: fc.record({ runAsNonRoot: fc.boolean(), privileged: fc.boolean() }, { requiredKeys: [] }),
  },
  { requiredKeys: ["name", "image"] },
);
// Unique names, as the apiserver requires of a map list.
const containers = (min: number) => fc.uniqueArray(container, { minLength: min, maxLength: 3, selector: (c) => c.name });

const metadata = (ns: string) =>
  fc.record({ name: fc.constantFrom("a", "web", "api-1"), namespace: fc.constant(ns), labels, annotations: fc.dictionary(labelKey, labelVal, { maxKeys: 1 }) }, { requiredKeys: ["name", "namespace"] });

const podSpec = fc.record(
  {
    containers: containers(1),
    initContainers: containers(0),
    dnsPolicy: fc.constantFrom("ClusterFirst", "Default"),
    nodeSelector: fc.dictionary(fc.constantFrom("disk", "zone"), labelVal, { maxKeys: 2 }),
    securityContext: fc.record({ runAsUser: fc.integer({ min: 0, max: 2000 }) }, { requiredKeys: [] }),
    tolerations: fc.array(fc.record({ key: fc.constantFrom("k", "t"), operator: fc.constantFrom("Exists", "Equal"), effect: fc.constantFrom("NoSchedule") }), { maxLength: 2 }),
  },
  { requiredKeys: ["containers"] },
);

const podLocations = (prefix: string): [string, fc.Arbitrary<unknown>][] => [
  [`${prefix}containers[name: *].imagePullPolicy`, fc.constantFrom("Always", "IfNotPresent", "Never")],
  [`${prefix}containers[name: web].securityContext.runAsNonRoot`, fc.boolean()],
  [`${prefix}containers[name: *].securityContext`, fc.constantFrom({ privileged: false }, { runAsNonRoot: true, privileged: false })],
  [`${prefix}initContainers[name: *].imagePullPolicy`, fc.constantFrom("Always", "Never")],
  [`${prefix}containers[name: *].env[name: A].value`, fc.constantFrom("1", "2")],
  [`${prefix}containers[name: sidecar]`, fc.constant({ name: "sidecar", image: "envoy:1", args: ["--x"] })],
  [`${prefix}containers[name: api].args`, args],
  [`${prefix}dnsPolicy`, fc.constantFrom("ClusterFirst", "None")],
  [`${prefix}securityContext.runAsUser`, fc.integer({ min: 0, max: 2000 })],
  [`${prefix}nodeSelector.disk`, fc.constantFrom("ssd", "hdd")],
  [`${prefix}nodeSelector`, fc.constant({ zone: "a" })],
  [`${prefix}tolerations`, fc.constant([{ key: "k", operator: "Exists" }])],
  [`${prefix}extra.deep.value`, anyValue],
  // Treats containers as an object: a schema conflict with every mutator that globs it.
  [`${prefix}containers.image`, fc.constant("nginx")],
];

const KINDS: readonly Kind[] = [
  {
    group: "",
    version: "v1",
    kind: "Pod",
    object: fc.tuple(fc.constantFrom(...NAMESPACES), podSpec).chain(([ns, spec]) =>
      metadata(ns).map((m) => ({ apiVersion: "v1", kind: "Pod", metadata: m, spec })),
    ),
    assigns: podLocations("spec."),
    sets: [
      ["spec.containers[name: *].args", fc.array(fc.constantFrom("--a", "--c", "1", 1), { maxLength: 2 })],
      ["spec.containers[name: web].command", fc.array(fc.constantFrom("sh", "-c"), { maxLength: 2 })],
      ["spec.initContainers[name: *].args", fc.array(fc.constantFrom("--a", "--d"), { maxLength: 2 })],
    ],
    images: ["spec.containers[name: *].image", "spec.initContainers[name: *].image", "spec.containers[name: web].image"],
  },
  {
    group: "apps",
    version: "v1",
    kind: "Deployment",
    object: fc.tuple(fc.constantFrom(...NAMESPACES), podSpec, fc.integer({ min: 0, max: 5 }), labels).chain(([ns, spec, replicas, l]) =>
      metadata(ns).map((m) => ({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: m,
        spec: { replicas, selector: { matchLabels: l }, template: { metadata: { labels: l }, spec } },
      })),
    ),
    assigns: [
      ["spec.replicas", fc.integer({ min: 0, max: 5 })],
      ["spec.strategy.type", fc.constantFrom("Recreate", "RollingUpdate")],
      ["spec.template.metadata.labels.injected", labelVal],
      ...podLocations("spec.template.spec."),
    ],
    sets: [["spec.template.spec.containers[name: *].args", fc.array(fc.constantFrom("--a", "--c"), { maxLength: 2 })]],
    images: ["spec.template.spec.containers[name: *].image"],
  },
  {
    group: "",
    version: "v1",
    kind: "Service",
    object: fc
      .tuple(
        fc.constantFrom(...NAMESPACES),
        fc.uniqueArray(fc.record({ name: fc.constantFrom("http", "https"), port: fc.constantFrom(80, 443), protocol: fc.constantFrom("TCP", "UDP") }), {
          minLength: 1,
          maxLength: 2,
          selector: (p) => p.port,
        }),
        fc.constantFrom("ClusterIP", "NodePort"),
      )
      .chain(([ns, ports, type]) => metadata(ns).map((m) => ({ apiVersion: "v1", kind: "Service", metadata: m, spec: { type, ports, selector: { app: "web" } } }))),
    assigns: [
      ["spec.type", fc.constantFrom("ClusterIP", "LoadBalancer")],
      ["spec.ports[name: http].protocol", fc.constantFrom("TCP", "SCTP")],
      ["spec.ports[name: *].targetPort", fc.constantFrom(8080, "http")],
      ["spec.selector.tier", labelVal],
      ["spec.sessionAffinity", fc.constantFrom("None", "ClientIP")],
    ],
    sets: [["spec.externalIPs", fc.array(fc.constantFrom("10.0.0.1", "10.0.0.2"), { maxLength: 2 })]],
    images: [],
  },
  {
    group: "",
    version: "v1",
    kind: "ConfigMap",
    object: fc
      .tuple(fc.constantFrom(...NAMESPACES), fc.dictionary(fc.constantFrom("x", "k", "a.b"), fc.constantFrom("1", "v", ""), { maxKeys: 2 }))
      .chain(([ns, data]) => metadata(ns).map((m) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: m, data }))),
    assigns: [
      ["data.x", fc.constantFrom("1", "2", "")],
      ["data.new", fc.constantFrom("v")],
      ["data", fc.constant({ only: "one" })],
    ],
    sets: [],
    images: [],
  },
];

const applyTo = (k: Kind) => fc.constant([{ groups: [k.group], versions: [k.version], kinds: [k.kind] }]);

/** Each criterion absent most of the time (a set of restrictive criteria would rarely match). */
const sometimes = <T>(a: fc.Arbitrary<T>, weight = 1) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: a, weight });
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const match = (k: Kind) =>
  fc
    .record({
      scope: sometimes(fc.constantFrom("Namespaced", "Cluster", "*")),
      kinds: sometimes(fc.constantFrom([{ apiGroups: ["*"], kinds: [k.kind] }], [{ apiGroups: [k.group], kinds: ["*"] }], [{ apiGroups: ["*"], kinds: ["Namespace"] }], []), 3),
      namespaces: sometimes(fc.constantFrom(["default"], ["team-*"], ["kube-system"], ["default", "team-a"])),
      excludedNamespaces: sometimes(fc.constantFrom(["team-a"], ["def*"], ["kube-*"])),
      labelSelector: sometimes(
        fc.constantFrom(
          { matchLabels: { app: "x" } },
          { matchExpressions: [{ key: "tier", operator: "Exists" }] },
          { matchExpressions: [{ key: "app", operator: "NotIn", values: ["web"] }] },
          { matchExpressions: [{ key: "team", operator: "DoesNotExist" }] },
        ),
      ),
      namespaceSelector: sometimes(fc.constantFrom({ matchLabels: { env: "prod" } }, { matchExpressions: [{ key: "env", operator: "DoesNotExist" }] }, { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["default"] }] })),
      name: sometimes(fc.constantFrom("a", "api-*", "*", "web")),
    })
    .map(defined);

/** Proper prefixes of a location (pathTests subPaths), e.g. `spec.containers[name: *]`. */
function prefixes(location: string): string[] {
  const out: string[] = [];
  let depth = 0;
  for (let i = 0; i < location.length; i++) {
    const ch = location[i];
    if (ch === "[") depth++;
    else if (ch === "]") {
      depth--;
      if (depth === 0) out.push(location.slice(0, i + 1));
    } else if (ch === "." && depth === 0) out.push(location.slice(0, i));
  }
  return [...new Set(out.filter((p) => p.length > 0)), location];
}

const pathTests = (location: string) =>
  fc.oneof(
    { arbitrary: fc.constant([]), weight: 2 },
    { arbitrary: fc.array(fc.record({ subPath: fc.constantFrom(...prefixes(location)), condition: fc.constantFrom("MustExist", "MustNotExist") }), { minLength: 1, maxLength: 1 }), weight: 3 },
    { arbitrary: fc.array(fc.record({ subPath: fc.constantFrom(...prefixes(location)), condition: fc.constantFrom("MustExist", "MustNotExist") }), { minLength: 2, maxLength: 2 }), weight: 1 },
  );

const mutatorMeta = (kind: string, name: string) => ({ apiVersion: kind === "AssignImage" ? "mutations.gatekeeper.sh/v1alpha1" : "mutations.gatekeeper.sh/v1", kind, metadata: { name } });

function assignArb(k: Kind, name: string): fc.Arbitrary<Record<string, unknown>> {
  return fc.constantFrom(...k.assigns).chain(([location, value]) =>
    fc
      .record(
        {
          match: match(k),
          parameters: fc.record(
            {
              assign: fc.oneof(
                { arbitrary: value.map((v) => ({ value: v })), weight: 6 },
                { arbitrary: fc.constantFrom("namespace", "name").map((field) => ({ fromMetadata: { field } })), weight: 1 },
                { arbitrary: anyValue.map((v) => ({ value: v })), weight: 1 },
              ),
              pathTests: pathTests(location),
              assignIf: fc.oneof(value.map((v) => ({ in: [v] })), value.map((v) => ({ notIn: [v, "x"] }))),
            },
            { requiredKeys: ["assign"] },
          ),
          // A few invalid locations: top-level metadata (AssignMetadata's), a glob at the end.
          location: fc.oneof({ arbitrary: fc.constant(location), weight: 40 }, { arbitrary: fc.constantFrom("metadata.labels.x", "spec.containers[name: *]"), weight: 1 }),
        },
        { requiredKeys: ["location", "parameters", "match"] },
      )
      .map((spec) => ({ ...mutatorMeta("Assign", name), spec: { applyTo: [{ groups: [k.group], versions: [k.version], kinds: [k.kind] }], ...spec } })),
  );
}

function assignMetadataArb(k: Kind, name: string): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record(
      {
        match: match(k),
        location: fc.oneof(
          { arbitrary: fc.constantFrom("metadata.labels.app", "metadata.labels.injected", "metadata.annotations.team", 'metadata.annotations."a.b/c"', 'metadata.labels."example.com/x"'), weight: 30 },
          { arbitrary: fc.constantFrom("metadata.name", "metadata.annotations.a.b/c"), weight: 1 },
        ),
        parameters: fc.record({
          assign: fc.oneof(
            { arbitrary: labelVal.map((v) => ({ value: v })), weight: 25 },
            { arbitrary: fc.constantFrom("namespace", "name").map((field) => ({ fromMetadata: { field } })), weight: 10 },
            { arbitrary: fc.constantFrom(1, true).map((v) => ({ value: v })), weight: 1 },
          ),
        }),
      },
      { requiredKeys: ["location", "parameters", "match"] },
    )
    .map((spec) => ({ ...mutatorMeta("AssignMetadata", name), spec }));
}

function modifySetArb(k: Kind, name: string): fc.Arbitrary<Record<string, unknown>> {
  return fc.constantFrom(...k.sets).chain(([location, values]) =>
    fc
      .record(
        {
          match: match(k),
          applyTo: applyTo(k),
          location: fc.constant(location),
          parameters: fc.record(
            {
              operation: fc.constantFrom("merge", "prune"),
              values: values.map((fromList) => ({ fromList })),
              pathTests: pathTests(location),
            },
            { requiredKeys: ["values"] },
          ),
        },
        { requiredKeys: ["location", "parameters", "match", "applyTo"] },
      )
      .map((spec) => ({ ...mutatorMeta("ModifySet", name), spec })),
  );
}

function assignImageArb(k: Kind, name: string): fc.Arbitrary<Record<string, unknown>> {
  return fc.constantFrom(...k.images).chain((location) =>
    fc
      .record(
        {
          match: match(k),
          applyTo: applyTo(k),
          location: fc.constant(location),
          parameters: fc.record(
            {
              assignDomain: fc.oneof({ arbitrary: fc.constantFrom("my.registry.io", "localhost:5000", "docker.io", "localhost"), weight: 20 }, { arbitrary: fc.constant("bad_domain"), weight: 1 }),
              assignPath: fc.constantFrom("library/app", "team/x", "a", "x.y/z"),
              assignTag: fc.oneof({ arbitrary: fc.constantFrom(":latest", "@sha256:" + "b".repeat(64), ":v2"), weight: 20 }, { arbitrary: fc.constant("v3"), weight: 1 }),
              pathTests: pathTests(location),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: ["location", "parameters", "match", "applyTo"] },
      )
      .map((spec) => ({ ...mutatorMeta("AssignImage", name), spec })),
  );
}

function mutatorArb(k: Kind, i: number): fc.Arbitrary<Record<string, unknown>> {
  const name = `m${i}`;
  const arbs = [
    { arbitrary: assignArb(k, name), weight: 5 },
    { arbitrary: assignMetadataArb(k, name), weight: 2 },
    ...(k.sets.length > 0 ? [{ arbitrary: modifySetArb(k, name), weight: 2 }] : []),
    ...(k.images.length > 0 ? [{ arbitrary: assignImageArb(k, name), weight: 2 }] : []),
  ];
  return fc.oneof(...arbs);
}

const namespaceObject = (name: string) =>
  fc.dictionary(fc.constantFrom("env", "team"), fc.constantFrom("prod", "dev"), { maxKeys: 2 }).map((l) => ({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { ...l, "kubernetes.io/metadata.name": name } },
  }));

export const gkCaseArb: fc.Arbitrary<GkRequest> = fc
  .constantFrom(...KINDS)
  .chain((k) =>
    fc.tuple(fc.constant(k), k.object, fc.integer({ min: 1, max: 4 })).chain(([k2, object, n]) =>
      fc.record({
        mutators: fc.tuple(...Array.from({ length: n }, (_, i) => mutatorArb(k2, i))),
        object: fc.constant(object),
        namespace: namespaceObject(String((object["metadata"] as { namespace: string }).namespace)),
        operation: fc.constant("CREATE" as const),
      }),
    ),
  );
