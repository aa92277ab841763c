/**
 * Test support (it uses fast-check, a development dependency, so it lives outside src/).
 * Differential testing of the translator: fast-check generators of (mutator set, objects) on
 * real kinds — Pod, Deployment, Service, ConfigMap (built-in schemas: locations and values are
 * kept schema-valid, since MAP strictly decodes built-in objects) and a schemaless custom
 * resource `example.com/v1 Widget` (anything goes, type mismatches included), and Namespace
 * (cluster-scoped, matched by its own name and labels) — and the check
 * that the translated policies, run through the MAP pipeline, give what Gatekeeper's reference
 * semantics give: the same object, or an error in both (Gatekeeper's webhook error ↔ a denied
 * request). Built-in objects always carry the parts the apiserver always serialises
 * (`spec`, a Pod's `containers`, a Deployment's `template.spec`): both Gatekeeper's webhook and
 * MAP see those, so an object without them would compare two different inputs.
 */
import fc from "fast-check";
import { compileMutator, type Mutator } from "../../src/gatekeeper/index.js";
import { mutate } from "../../src/gatekeeper/index.js";
import { jsonEqual } from "../../src/gatekeeper/index.js";
import { normalizeResult } from "../../src/translate/gatekeeper/translate/cases.js";
import { translate, type TranslateResult } from "../../src/translate/gatekeeper/translate/index.js";
import { fastPathRan, runTranslated } from "../../src/translate/gatekeeper/translate/run.js";

type Json = unknown;
type Obj = Record<string, unknown>;

export interface KindSpec {
  readonly apiVersion: string;
  readonly kind: string;
  readonly group: string;
  readonly version: string;
  readonly object: fc.Arbitrary<Obj>;
  /** Location + value templates for Assign; ModifySet locations; AssignImage locations. */
  readonly assigns: fc.Arbitrary<{ location: string; value: Json; tests?: { subPath: string; condition: string }[] }>;
  readonly sets: readonly { location: string; values: fc.Arbitrary<Json[]> }[];
  readonly images: readonly string[];
}

const NAMES = ["a", "b", "net"] as const;
const name = fc.constantFrom(...NAMES);
const IMAGES = ["nginx", "nginx:1.2", "library/busybox:v1", "docker.io/library/busybox:v1", "localhost/x", "localhost:5000/a/b@sha256:" + "a".repeat(32), "a.b.c:5000//not.good:ABC", "x@sha256:" + "b".repeat(40), ""];
const ARGS = ["--v", "--alsologtostderr", "-x", "--port=80"];

const labels = fc.dictionary(fc.constantFrom("app", "team", "env", "owner", "tier"), fc.constantFrom("web", "db", "prod", "admin"), { maxKeys: 3 });

function metadata(kindNs: boolean): fc.Arbitrary<Obj> {
  return fc.record(
    {
      name: fc.constantFrom("web-1", "db-0", "prod-x", "kube-a"),
      namespace: kindNs ? fc.constantFrom("default", "prod-ns", "kube-system") : fc.constant(undefined),
      labels,
      annotations: fc.dictionary(fc.constantFrom("note", "owner"), fc.constantFrom("x", "y"), { maxKeys: 2 }),
    },
    { requiredKeys: kindNs ? ["name", "namespace"] : ["name"] },
  ).map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)));
}

const container = fc.record(
  {
    name,
    image: fc.constantFrom(...IMAGES.filter((i) => i !== "")),
    imagePullPolicy: fc.constantFrom("Always", "IfNotPresent"),
    args: fc.array(fc.constantFrom(...ARGS), { maxLength: 3 }),
    env: fc.array(fc.record({ name: fc.constantFrom("A", "B"), value: fc.constantFrom("1", "2") }), { maxLength: 2 }),
    securityContext: fc.record({ runAsNonRoot: fc.boolean() }, { requiredKeys: [] }),
  },
  { requiredKeys: ["name"] },
);

const podSpec = fc.record(
  {
    containers: fc.array(container, { maxLength: 3 }),
    dnsPolicy: fc.constantFrom("ClusterFirst", "Default"),
    securityContext: fc.record({ runAsUser: fc.integer({ min: 0, max: 2000 }) }, { requiredKeys: [] }),
  },
  { requiredKeys: ["containers"] },
);

const POD_ASSIGN = fc.oneof(
  fc.record({ location: fc.constant("spec.containers[name: *].imagePullPolicy"), value: fc.constantFrom("Always", "Never") }),
  name.chain((n) => fc.record({ location: fc.constant(`spec.containers[name: ${n}].imagePullPolicy`), value: fc.constantFrom("Always", "Never") })),
  fc.record({ location: fc.constant("spec.dnsPolicy"), value: fc.constantFrom("None", "ClusterFirst") }),
  fc.record({ location: fc.constant("spec.containers[name: *].securityContext.runAsNonRoot"), value: fc.boolean() }),
  name.chain((n) => fc.record({ location: fc.constant(`spec.containers[name: ${n}]`), value: fc.constant({ name: n, image: "sidecar:1" }) })),
  fc.record({ location: fc.constant("spec.securityContext.runAsUser"), value: fc.integer({ min: 0, max: 3000 }) }),
  fc.record({ location: fc.constant("spec.containers[name: *].env[name: A].value"), value: fc.constantFrom("1", "3") }),
  fc.record({ location: fc.constant("spec.containers[name: *].args"), value: fc.constantFrom(["--a"], []) }),
);

export const POD: KindSpec = {
  apiVersion: "v1",
  kind: "Pod",
  group: "",
  version: "v1",
  object: fc.record({ metadata: metadata(true), spec: podSpec }, { requiredKeys: ["metadata", "spec"] }).map((o) => ({ apiVersion: "v1", kind: "Pod", ...o })),
  assigns: POD_ASSIGN,
  sets: [
    { location: "spec.containers[name: *].args", values: fc.array(fc.constantFrom(...ARGS), { maxLength: 3 }) },
    { location: "spec.containers[name: a].args", values: fc.array(fc.constantFrom(...ARGS), { maxLength: 2 }) },
  ],
  images: ["spec.containers[name: *].image", "spec.containers[name: net].image"],
};

export const DEPLOYMENT: KindSpec = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  group: "apps",
  version: "v1",
  object: fc
    .record(
      {
        metadata: metadata(true),
        spec: fc.record(
          { replicas: fc.integer({ min: 0, max: 5 }), template: fc.record({ metadata: fc.record({ labels }, { requiredKeys: [] }), spec: podSpec }, { requiredKeys: ["spec"] }) },
          { requiredKeys: ["template"] },
        ),
      },
      { requiredKeys: ["metadata", "spec"] },
    )
    .map((o) => ({ apiVersion: "apps/v1", kind: "Deployment", ...o })),
  assigns: fc.oneof(
    fc.record({ location: fc.constant("spec.replicas"), value: fc.integer({ min: 1, max: 3 }) }),
    fc.record({ location: fc.constant("spec.template.spec.containers[name: *].imagePullPolicy"), value: fc.constantFrom("Always", "Never") }),
    fc.record({ location: fc.constant("spec.template.metadata.labels.team"), value: fc.constantFrom("web", "ops") }),
    name.chain((n) => fc.record({ location: fc.constant(`spec.template.spec.containers[name: ${n}].image`), value: fc.constantFrom("x:1", "y") })),
  ),
  sets: [{ location: "spec.template.spec.containers[name: *].args", values: fc.array(fc.constantFrom(...ARGS), { maxLength: 3 }) }],
  images: ["spec.template.spec.containers[name: *].image"],
};

export const SERVICE: KindSpec = {
  apiVersion: "v1",
  kind: "Service",
  group: "",
  version: "v1",
  object: fc
    .record(
      {
        metadata: metadata(true),
        spec: fc.record(
          {
            type: fc.constantFrom("ClusterIP", "NodePort"),
            ports: fc.array(fc.record({ name: fc.constantFrom("http", "https"), port: fc.constantFrom(80, 443), protocol: fc.constantFrom("TCP", "UDP") }, { requiredKeys: ["port"] }), { maxLength: 2 }),
            externalIPs: fc.array(fc.constantFrom("1.1.1.1", "2.2.2.2"), { maxLength: 2 }),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ["metadata", "spec"] },
    )
    .map((o) => ({ apiVersion: "v1", kind: "Service", ...o })),
  assigns: fc.oneof(
    fc.record({ location: fc.constant("spec.type"), value: fc.constantFrom("ClusterIP", "NodePort") }),
    fc.record({ location: fc.constant("spec.ports[name: *].protocol"), value: fc.constantFrom("TCP", "UDP") }),
    fc.record({ location: fc.constant("spec.ports[port: 80].name"), value: fc.constantFrom("http", "web") }),
    fc.record({ location: fc.constant('spec.ports[name: "http"].port'), value: fc.constantFrom(8080, 80) }),
  ),
  sets: [{ location: "spec.externalIPs", values: fc.array(fc.constantFrom("1.1.1.1", "3.3.3.3"), { maxLength: 2 }) }],
  images: [],
};

export const CONFIGMAP: KindSpec = {
  apiVersion: "v1",
  kind: "ConfigMap",
  group: "",
  version: "v1",
  object: fc
    .record({ metadata: metadata(true), data: fc.dictionary(fc.constantFrom("k", "x.y", "a/b"), fc.constantFrom("1", "v"), { maxKeys: 2 }) }, { requiredKeys: ["metadata"] })
    .map((o) => ({ apiVersion: "v1", kind: "ConfigMap", ...o })),
  assigns: fc.oneof(
    fc.record({ location: fc.constant("data.k"), value: fc.constantFrom("1", "2") }),
    fc.record({ location: fc.constant('data."x.y"'), value: fc.constantFrom("1", "2") }),
    fc.record({ location: fc.constant('data."a/b"'), value: fc.constant("z") }),
  ),
  sets: [],
  images: [],
};

const anyJson: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom("s", "t", 1, 2, true, null),
  fc.constant({}),
  fc.constant([]),
  fc.constant({ name: "x", v: 1 }),
  fc.constant(["s", 1]),
);

export const WIDGET: KindSpec = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  group: "example.com",
  version: "v1",
  object: fc
    .record(
      {
        metadata: metadata(true),
        spec: fc.oneof(
          fc.record(
            {
              a: fc.oneof(fc.record({ b: anyJson }, { requiredKeys: [] }), anyJson),
              items: fc.oneof(fc.array(fc.oneof(fc.record({ name: fc.constantFrom("x", "y", 1), v: anyJson }, { requiredKeys: [] }), anyJson), { maxLength: 3 }), anyJson),
              list: fc.oneof(fc.array(fc.constantFrom("s", "t", 1, 2), { maxLength: 3 }), anyJson),
            },
            { requiredKeys: [] },
          ),
          anyJson,
        ),
      },
      { requiredKeys: ["metadata"] },
    )
    .map((o) => ({ apiVersion: "example.com/v1", kind: "Widget", ...o })),
  assigns: fc.oneof(
    fc.record({ location: fc.constant("spec.a.b"), value: anyJson.filter((v) => v !== null) }),
    fc.record({ location: fc.constant("spec.items[name: *].v"), value: fc.constantFrom("s", 2, true) }),
    fc.record({ location: fc.constantFrom("spec.items[name: x].v", "spec.items[name: y].v.w"), value: fc.constantFrom("s", 2) }),
    fc.record({ location: fc.constant("spec.items[name: x]"), value: fc.constant({ name: "x", v: "new" }) }),
    fc.record({ location: fc.constant("spec.deep.er.path"), value: fc.constant("d") }),
  ),
  sets: [
    { location: "spec.list", values: fc.array(fc.constantFrom("s", "u", 2), { maxLength: 3 }) },
    { location: "spec.items[name: x].list", values: fc.array(fc.constantFrom("s", "u"), { maxLength: 2 }) },
  ],
  images: ["spec.items[name: *].image", "spec.a.b"],
};

/** Cluster-scoped, and matched by its own name and labels (namespaces, namespaceSelector, scope). */
export const NAMESPACE: KindSpec = {
  apiVersion: "v1",
  kind: "Namespace",
  group: "",
  version: "v1",
  object: fc
    .record(
      {
        metadata: fc.record({ name: fc.constantFrom("default", "prod-ns", "kube-system"), labels }, { requiredKeys: ["name"] }),
        spec: fc.record({ finalizers: fc.array(fc.constantFrom("kubernetes", "x.io/y"), { maxLength: 2 }) }, { requiredKeys: [] }),
      },
      { requiredKeys: ["metadata", "spec"] },
    )
    .map((o) => ({ apiVersion: "v1", kind: "Namespace", ...o })),
  assigns: fc.record({ location: fc.constant("spec.finalizers"), value: fc.constantFrom(["kubernetes"], []) }),
  sets: [{ location: "spec.finalizers", values: fc.array(fc.constantFrom("kubernetes", "a.io/b"), { maxLength: 2 }) }],
  images: [],
};

export const KINDS: readonly KindSpec[] = [POD, DEPLOYMENT, SERVICE, CONFIGMAP, WIDGET, NAMESPACE];

/** Every prefix of a location (for pathTests), by re-printing the parsed path. */
function prefixes(location: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (let i = 0; i < location.length; i++) {
    const ch = location[i]!;
    if (ch === "[") depth++;
    if (ch === "]") {
      depth--;
      cur += ch;
      out.push(cur);
      continue;
    }
    if (ch === "." && depth === 0) out.push(cur);
    cur += ch;
  }
  out.push(cur);
  return [...new Set(out)];
}

const condition = fc.constantFrom("MustExist", "MustNotExist");

function pathTests(location: string): fc.Arbitrary<{ subPath: string; condition: string }[]> {
  const ps = prefixes(location);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant<{ subPath: string; condition: string }[]>([]) },
    { weight: 2, arbitrary: fc.record({ subPath: fc.constantFrom(...ps), condition }).map((t): { subPath: string; condition: string }[] => [t]) },
  );
}

const wildcard = fc.constantFrom("default", "prod-*", "*-system", "*od*", "kube-system", "*");

const match: fc.Arbitrary<Obj> = fc
  .record(
    {
      namespaces: fc.array(wildcard, { minLength: 1, maxLength: 2 }),
      excludedNamespaces: fc.array(wildcard, { minLength: 1, maxLength: 2 }),
      labelSelector: fc.oneof(
        fc.record({ matchLabels: fc.dictionary(fc.constantFrom("app", "team"), fc.constantFrom("web", "db"), { minKeys: 1, maxKeys: 1 }) }),
        fc.record({ matchExpressions: fc.array(fc.record({ key: fc.constantFrom("app", "owner"), operator: fc.constantFrom("Exists", "DoesNotExist") }), { minLength: 1, maxLength: 1 }) }),
        fc.record({ matchExpressions: fc.array(fc.record({ key: fc.constantFrom("app", "owner"), operator: fc.constantFrom("In", "NotIn"), values: fc.constant(["web", "admin"]) }), { minLength: 1, maxLength: 1 }) }),
      ),
      namespaceSelector: fc.record({ matchLabels: fc.constant({ tier: "prod" }) }),
      name: fc.constantFrom("web-*", "*-0", "db-0", "*"),
      scope: fc.constantFrom("Namespaced", "Cluster", "*"),
      kinds: fc.constantFrom([{ apiGroups: ["*"], kinds: ["*"] }], [{ apiGroups: [""], kinds: ["Pod"] }], [{ apiGroups: ["apps"], kinds: ["Deployment"] }]),
    },
    { requiredKeys: [] },
  )
  .map((m) => m as Obj);

function applyTo(k: KindSpec): fc.Arbitrary<Obj[]> {
  return fc.constantFrom<Obj[]>(
    [{ groups: [k.group], versions: [k.version], kinds: [k.kind] }],
    [{ groups: [k.group], versions: [k.version], kinds: [k.kind], operations: ["CREATE"] }],
    [{ groups: [k.group], versions: [k.version], kinds: [k.kind], operations: ["UPDATE"] }],
  );
}

/** One mutator document for kind `k` (name made unique by the caller). */
export function mutatorDoc(k: KindSpec): fc.Arbitrary<Obj> {
  const assign = fc
    .record({ a: k.assigns, applyTo: applyTo(k), match: fc.option(match, { nil: undefined, freq: 2 }) })
    .chain(({ a, applyTo, match }) =>
      pathTests(a.location).map((tests) => ({
        apiVersion: "mutations.gatekeeper.sh/v1",
        kind: "Assign",
        spec: {
          applyTo,
          ...(match !== undefined ? { match } : {}),
          location: a.location,
          parameters: { assign: { value: a.value }, ...(tests.length > 0 ? { pathTests: tests } : {}) },
        },
      })),
    );
  const fromMeta = fc.record({ applyTo: applyTo(k), field: fc.constantFrom("name", "namespace") }).map(({ applyTo, field }) => ({
    apiVersion: "mutations.gatekeeper.sh/v1",
    kind: "AssignMetadata",
    spec: { location: `metadata.labels.from-${field}`, parameters: { assign: { fromMetadata: { field } } } },
    _applyTo: applyTo,
  }));
  const meta = fc
    .record({ key: fc.constantFrom("owner", "team", '"example.com/x"'), where: fc.constantFrom("labels", "annotations"), value: fc.constantFrom("admin", "web"), match: fc.option(match, { nil: undefined, freq: 3 }) })
    .map(({ key, where, value, match }) => ({
      apiVersion: "mutations.gatekeeper.sh/v1",
      kind: "AssignMetadata",
      spec: { ...(match !== undefined ? { match } : {}), location: `metadata.${where}.${key}`, parameters: { assign: { value } } },
    }));
  const arbs: fc.Arbitrary<Obj>[] = [assign, assign, meta, fromMeta.map(({ _applyTo, ...d }) => (void _applyTo, d))];
  if (k.sets.length > 0) {
    arbs.push(
      fc
        .record({ s: fc.constantFrom(...k.sets), op: fc.constantFrom("merge", "prune"), applyTo: applyTo(k) })
        .chain(({ s, op, applyTo }) =>
          fc.record({ values: s.values, tests: pathTests(s.location) }).map(({ values, tests }) => ({
            apiVersion: "mutations.gatekeeper.sh/v1",
            kind: "ModifySet",
            spec: { applyTo, location: s.location, parameters: { operation: op, values: { fromList: values }, ...(tests.length > 0 ? { pathTests: tests } : {}) } },
          })),
        ),
    );
  }
  if (k.images.length > 0) {
    arbs.push(
      fc
        .record({
          location: fc.constantFrom(...k.images),
          applyTo: applyTo(k),
          domain: fc.constantFrom("", "my.reg", "localhost:5000"),
          path: fc.constantFrom("", "lib/app"),
          tag: fc.constantFrom("", ":v2", "@sha256:" + "c".repeat(32)),
        })
        .filter((x) => x.domain !== "" || x.path !== "" || x.tag !== "")
        .map((x) => ({
          apiVersion: "mutations.gatekeeper.sh/v1alpha1",
          kind: "AssignImage",
          spec: {
            applyTo: x.applyTo,
            location: x.location,
            parameters: { ...(x.domain !== "" ? { assignDomain: x.domain } : {}), ...(x.path !== "" ? { assignPath: x.path } : {}), ...(x.tag !== "" ? { assignTag: x.tag } : {}) },
          },
        })),
    );
  }
  return fc.oneof(...arbs);
}

export interface Scenario {
  readonly kind: KindSpec;
  readonly docs: Obj[];
  readonly mutators: Mutator[];
  readonly translation: TranslateResult;
}

/** A set of 1–4 mutators, mostly for kind `k` (some for other kinds: applyTo filtering, grouping). */
export function scenario(k: KindSpec): fc.Arbitrary<{ kind: string; docs: Obj[] }> {
  const other = fc.constantFrom(...KINDS.filter((x) => x !== k)).chain((x) => mutatorDoc(x));
  const doc = fc.oneof({ weight: 4, arbitrary: mutatorDoc(k) }, { weight: 1, arbitrary: other });
  return fc.array(doc, { minLength: 1, maxLength: 4 }).map((ds) => ({
    kind: k.kind,
    docs: ds.map((d, i) => ({ ...d, metadata: { name: `m${i}` } })),
  }));
}

export const namespaceObj = fc.record({ tier: fc.constantFrom("prod", "dev") }).map((l) => l);

/** What the reference did on the pairs compared so far (to see that the test exercises something). */
/** Outcomes of the comparisons so far; `fast`: pairs where a group's fast path (`fast.ts`) ran. */
export const stats = { changed: 0, errors: 0, unchanged: 0, fast: 0 };

/** Reference vs translated on one object; undefined when they agree, else a description. */
export function compareOne(s: Scenario, object: Obj, operation: "CREATE" | "UPDATE", nsLabels: Obj): string | undefined {
  const md = (object.metadata ?? {}) as Obj;
  const nsName = typeof md.namespace === "string" ? md.namespace : undefined;
  const ns = nsName === undefined ? undefined : { apiVersion: "v1", kind: "Namespace", metadata: { name: nsName, labels: nsLabels } };
  const ref = mutate(object, s.mutators, { operation, ...(ns !== undefined ? { namespace: ns } : {}) });
  const got = runTranslated(s.translation, object, { operation, ...(ns !== undefined ? { namespace: ns } : {}) });
  if (ref.error !== undefined) stats.errors++;
  else if (ref.changed) stats.changed++;
  else stats.unchanged++;
  if (fastPathRan(got)) stats.fast++;
  if (ref.error !== undefined) return got.allowed ? `Gatekeeper: error ${ref.error}; MAP admitted ${JSON.stringify(normalizeResult(got.object, object))}` : undefined;
  if (!got.allowed) return `Gatekeeper: ${JSON.stringify(ref.object, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}; MAP denied: ${got.message ?? ""}`;
  const a = normalizeResult(ref.object, object);
  const b = normalizeResult(got.object, object);
  const show = (v: unknown) => JSON.stringify(v, (_, x: unknown) => (typeof x === "bigint" ? `${x}n` : x));
  return jsonEqual(a, b) ? undefined : `Gatekeeper: ${show(a)}\n      MAP: ${show(b)}`;
}

/** Compiles and translates a generated set; undefined when Gatekeeper rejects a mutator or one is refused. */
export function buildScenario(kindName: string, docs: Obj[]): Scenario | undefined {
  const kind = KINDS.find((k) => k.kind === kindName)!;
  const mutators: Mutator[] = [];
  for (const d of docs) {
    const r = compileMutator(d);
    if (!r.ok) return undefined;
    mutators.push(r.mutator);
  }
  const translation = translate(docs);
  if (translation.issues.length > 0) throw new Error(`translation does not validate: ${translation.issues.join("; ")}`);
  if (translation.verdicts.some((v) => v.verdict !== "exact")) return undefined;
  return { kind, docs, mutators, translation };
}

/**
 * The seed of the Gatekeeper property tests: GK_PROP_SEED when given; under CI a fixed one (a red
 * build is then a change's doing, never the draw); elsewhere a new draw each run, named in every
 * failure so that what it finds becomes a regression case.
 */
export function propertySeed(): number {
  if (process.env.GK_PROP_SEED !== undefined) return Number(process.env.GK_PROP_SEED);
  if (process.env.CI !== undefined && process.env.CI !== "") return 20261129;
  return Date.now() ^ (Math.random() * 0x7fffffff);
}
