/**
 * Generated MutatingAdmissionPolicy cases whose admitted result the apiserver then defaults and
 * validates before storage (issue 17): a valid object goes in, a JSONPatch (or apply configuration)
 * turns it into an object that breaks one validation rule (or stays valid: the controls), and the
 * question is what the apiserver answers: 422 Invalid with its message and causes, or the stored
 * object with its defaults.
 *
 * Sources of cases:
 * - the deterministic catalogue of test/validation/cases.ts (a valid object of each built-in kind
 *   and the Widget CRD, and one mutation per rule), each turned into the JSONPatch that performs it;
 * - apply-configuration cases (a container added to a template, a native sidecar, Secret stringData)
 *   whose stored object shows defaulting after admission;
 * - a multi-version CRD (Gadget, v1 and v2 served, None conversion) matched by a policy written for
 *   v1 with `matchPolicy: Equivalent`, the request made to v2;
 * - seeded variation (a small PRNG, seed fixed below): out-of-range numbers, bad label values,
 *   duplicate set/map list entries, drawn anew for each seed.
 *
 * Every case carries a marker label `apival-case: <id>` on its input; the batch policy's mutation
 * for that case only acts on the object with its marker, and removes the marker, so one policy
 * serves a whole batch of objects. Nothing here knows the expected answer: that is the apiserver's.
 */
import { BASES, generateAllCases, WIDGET_CRD, type ValidationCase } from "../test/validation/cases.js";

export type Obj = Record<string, unknown>;

export const MARKER = "apival-case";

export interface ApivalMutation {
  readonly patchType: "JSONPatch" | "ApplyConfiguration";
  readonly expression: string;
}

export interface ApivalCase {
  /** Where the case comes from and what it breaks: `Pod/pod/image-empty`, `seed3/Widget/tags-dup`. */
  readonly id: string;
  /** The marker label's value (unique, a valid label value). */
  readonly marker: string;
  readonly batch: string;
  readonly operation: "CREATE" | "UPDATE";
  /** CREATE: the object as sent (marker label set, namespace left to the runner). UPDATE: the change. */
  readonly object: Obj;
  /** UPDATE: the object created for real first (the request is it, stored, plus the marker). */
  readonly oldObject?: Obj;
  readonly mutation: ApivalMutation;
  readonly crd?: Obj;
  /** Whether the object needs a namespace of its own (UPDATE: the old object is stored). */
  readonly ownNamespace?: boolean;
}

export interface ApivalBatch {
  readonly name: string;
  readonly matchConstraints: Obj;
  readonly crd?: Obj;
  /** The binding's objectSelector: the markers of the batch's cases and its probe. */
  readonly selector: Obj;
  /** An object this batch's policy matches, for the activation probe (dry-run). */
  readonly probe: Obj;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------
// CEL literals and JSONPatch from a diff

/** A JSON value as a CEL literal; every aggregate element is `dyn(...)` so mixed types type-check. */
export function celLiteral(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(v).includes(".") || String(v).includes("e") ? String(v) : `${v}.0`;
  if (Array.isArray(v)) return `[${v.map((e) => `dyn(${celLiteral(e)})`).join(", ")}]`;
  if (isObj(v)) return `{${Object.entries(v).map(([k, e]) => `${JSON.stringify(k)}: dyn(${celLiteral(e)})`).join(", ")}}`;
  throw new Error(`no CEL literal for ${typeof v}`);
}

const pointer = (path: readonly string[]): string => path.map((p) => "/" + p.replace(/~/g, "~0").replace(/\//g, "~1")).join("");

interface Op {
  readonly op: "add" | "remove" | "replace";
  readonly path: string;
  readonly value?: unknown;
}

/** The RFC 6902 operations that turn `a` into `b` (objects by key, arrays by index or appended, else replaced). */
export function diff(a: unknown, b: unknown, path: string[] = []): Op[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (isObj(a) && isObj(b)) {
    const ops: Op[] = [];
    for (const k of Object.keys(a)) if (!(k in b)) ops.push({ op: "remove", path: pointer([...path, k]) });
    for (const [k, v] of Object.entries(b)) {
      if (!(k in a)) ops.push({ op: "add", path: pointer([...path, k]), value: v });
      else ops.push(...diff(a[k], v, [...path, k]));
    }
    return ops;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length === b.length) return a.flatMap((e, i) => diff(e, b[i], [...path, String(i)]));
    if (b.length > a.length && a.every((e, i) => JSON.stringify(e) === JSON.stringify(b[i]))) {
      return b.slice(a.length).map((v) => ({ op: "add", path: pointer([...path, "-"]), value: v }));
    }
  }
  return [{ op: "replace", path: pointer(path), value: b }];
}

const celOp = (o: Op): string =>
  `JSONPatch{op: ${JSON.stringify(o.op)}, path: ${JSON.stringify(o.path)}${o.op === "remove" ? "" : `, value: ${celLiteral(o.value)}`}}`;

/** `<object carries this case's marker> ? [ops] : []`. */
export function markerCondition(marker: string): string {
  return `has(object.metadata.labels) && ${JSON.stringify(MARKER)} in object.metadata.labels && object.metadata.labels[${JSON.stringify(MARKER)}] == ${JSON.stringify(marker)}`;
}

function jsonPatchMutation(marker: string, ops: readonly Op[]): ApivalMutation {
  const all = [...ops, { op: "remove", path: pointer(["metadata", "labels", MARKER]) } as Op];
  return { patchType: "JSONPatch", expression: `${markerCondition(marker)} ? [${all.map(celOp).join(", ")}] : []` };
}

function acMutation(marker: string, apply: string): ApivalMutation {
  // The marker goes with a JSONPatch-free apply configuration: labels are a map, so setting the
  // marker's value to null is not allowed; the runner removes nothing, the marker stays (a valid label).
  return { patchType: "ApplyConfiguration", expression: `${markerCondition(marker)} ? ${apply} : Object{}` };
}

function withMarker(o: Obj, marker: string): Obj {
  const c = clone(o);
  const md = (c.metadata ?? {}) as Obj;
  md.labels = { ...((md.labels as Obj | undefined) ?? {}), [MARKER]: marker };
  c.metadata = md;
  return c;
}

function stripForDiff(o: Obj): Obj {
  const c = clone(o);
  const md = c.metadata as Obj;
  delete md.resourceVersion;
  delete md.uid;
  delete md.namespace;
  return c;
}

// ---------------------------------------------------------------------------------------------
// Cases

const kindOf = (o: Obj): string => String(o.kind);

/** The catalogue of test/validation/cases.ts as MAP cases. */
function catalogueCases(next: () => string): ApivalCase[] {
  const out: ApivalCase[] = [];
  const bases = new Map<string, Obj>(BASES.map((b) => [b.kind, b.object as Obj]));
  for (const c of generateAllCases() as ValidationCase[]) {
    // Ratcheting needs an invalid object already stored, which the API refuses to create (the
    // in-process oracle of test/validation covers these two).
    if (c.id.startsWith("Widget/update/ratchet-")) continue;
    const target = c.object as Obj;
    const kind = String(target.kind);
    const marker = next();
    if (c.oldObject !== undefined) {
      const old = stripForDiff(c.oldObject as Obj);
      const ops = diff(old, stripForDiff(target));
      out.push({ id: c.id, marker, batch: kindOf(target), operation: "UPDATE", object: stripForDiff(target), oldObject: old, mutation: jsonPatchMutation(marker, ops), ...(c.crd ? { crd: c.crd as Obj } : {}), ownNamespace: true });
      continue;
    }
    const base = clone(kind === "Widget" ? WIDGET_BASE : bases.get(kind)!);
    delete (base.metadata as Obj).namespace;
    const want = stripForDiff(target);
    const input = withMarker(base, marker);
    const ops = diff(stripForDiff(base), want); // the marker's removal is appended by jsonPatchMutation
    out.push({ id: c.id, marker, batch: kindOf(target), operation: "CREATE", object: input, mutation: jsonPatchMutation(marker, ops), ...(c.crd ? { crd: c.crd as Obj } : {}) });
  }
  return out;
}

const WIDGET_BASE: Obj = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w1", labels: { app: "web" } },
  spec: { size: "small", replicas: 2, color: "red", name: "alpha", owner: "team-a", tags: ["a", "b"], ports: [{ name: "http", port: 80 }], labels: { a: "x" } },
};

// ---------------------------------------------------------------------------------------------
// Apply configurations: defaulting after admission

const DEPLOYMENT = BASES.find((b) => b.kind === "Deployment")!.object as Obj;
const POD = BASES.find((b) => b.kind === "Pod")!.object as Obj;
const SECRET = BASES.find((b) => b.kind === "Secret")!.object as Obj;
const SERVICE = BASES.find((b) => b.kind === "Service")!.object as Obj;
const JOB = BASES.find((b) => b.kind === "Job")!.object as Obj;

const AC_CASES: readonly { id: string; base: Obj; apply: string }[] = [
  { id: "Deployment/ac/container-added", base: DEPLOYMENT, apply: 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "sidecar", image: "busybox:1.36"}]}}}}' },
  { id: "Deployment/ac/native-sidecar", base: DEPLOYMENT, apply: 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{initContainers: [Object.spec.template.spec.initContainers{name: "proxy", image: "envoy:1.30", restartPolicy: "Always", ports: [Object.spec.template.spec.initContainers.ports{containerPort: 9901}]}]}}}}' },
  { id: "Deployment/ac/image-empty", base: DEPLOYMENT, apply: 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "app", image: ""}]}}}}' },
  { id: "Deployment/ac/replicas-negative", base: DEPLOYMENT, apply: "Object{spec: Object.spec{replicas: -1}}" },
  { id: "Deployment/ac/strategy-recreate", base: DEPLOYMENT, apply: 'Object{spec: Object.spec{strategy: Object.spec.strategy{type: "Recreate"}}}' },
  { id: "Deployment/ac/template-label-mismatch", base: DEPLOYMENT, apply: 'Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"app": "other"}}}}}' },
  { id: "Deployment/ac/probe-added", base: DEPLOYMENT, apply: 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "app", readinessProbe: Object.spec.template.spec.containers.readinessProbe{httpGet: Object.spec.template.spec.containers.readinessProbe.httpGet{port: 80}}}]}}}}' },
  { id: "Pod/ac/container-added", base: POD, apply: 'Object{spec: Object.spec{containers: [Object.spec.containers{name: "sidecar", image: "busybox:latest", env: [Object.spec.containers.env{name: "POD", valueFrom: Object.spec.containers.env.valueFrom{fieldRef: Object.spec.containers.env.valueFrom.fieldRef{fieldPath: "metadata.name"}}}]}]}}' },
  { id: "Pod/ac/limits-only", base: POD, apply: 'Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", resources: Object.spec.containers.resources{limits: {"cpu": "500m", "memory": "128Mi"}}}]}}' },
  { id: "Pod/ac/volume-no-source", base: POD, apply: 'Object{spec: Object.spec{volumes: [Object.spec.volumes{name: "scratch"}]}}' },
  { id: "Pod/ac/configmap-volume", base: POD, apply: 'Object{spec: Object.spec{volumes: [Object.spec.volumes{name: "cfg", configMap: Object.spec.volumes.configMap{name: "settings"}}]}}' },
  { id: "Pod/ac/restart-policy-bogus", base: POD, apply: 'Object{spec: Object.spec{restartPolicy: "Sometimes"}}' },
  { id: "Pod/ac/port-70000", base: POD, apply: 'Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", ports: [Object.spec.containers.ports{containerPort: 70000}]}]}}' },
  { id: "Secret/ac/string-data", base: SECRET, apply: 'Object{stringData: {"username": "admin"}}' },
  { id: "Secret/ac/type-tls", base: SECRET, apply: 'Object{type: "kubernetes.io/tls"}' },
  { id: "Service/ac/type-bogus", base: SERVICE, apply: 'Object{spec: Object.spec{type: "Bogus"}}' },
  { id: "Service/ac/port-added", base: SERVICE, apply: 'Object{spec: Object.spec{ports: [Object.spec.ports{name: "https", port: 443}]}}' },
  { id: "Service/ac/node-port-type", base: SERVICE, apply: 'Object{spec: Object.spec{type: "NodePort"}}' },
  { id: "Job/ac/restart-always", base: JOB, apply: 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{restartPolicy: "Always"}}}}' },
  { id: "Job/ac/indexed", base: JOB, apply: 'Object{spec: Object.spec{completionMode: "Indexed", completions: 3, parallelism: 2}}' },
  { id: "Widget/ac/replicas-11", base: WIDGET_BASE, apply: "Object{spec: Object.spec{replicas: 11}}" },
  { id: "Widget/ac/tags-merged-set", base: WIDGET_BASE, apply: 'Object{spec: Object.spec{tags: ["b", "c"]}}' },
  { id: "Widget/ac/ports-merged-map", base: WIDGET_BASE, apply: 'Object{spec: Object.spec{ports: [Object.spec.ports{name: "https", port: 443}]}}' },
  { id: "Widget/ac/nested-added", base: WIDGET_BASE, apply: "Object{spec: Object.spec{nested: Object.spec.nested{level: 5}}}" },
];

function acCases(next: () => string): ApivalCase[] {
  return AC_CASES.map((c) => {
    const marker = next();
    const object = withMarker(c.base, marker);
    delete (object.metadata as Obj).namespace;
    const kind = String(c.base.kind);
    return { id: c.id, marker, batch: kind, operation: "CREATE", object, mutation: acMutation(marker, c.apply), ...(kind === "Widget" ? { crd: WIDGET_CRD as Obj } : {}) };
  });
}

// ---------------------------------------------------------------------------------------------
// A multi-version CRD, matched with matchPolicy Equivalent

const gadgetSchema = (maxReplicas: number, extra: Obj = {}): Obj => ({
  openAPIV3Schema: {
    type: "object",
    properties: {
      spec: {
        type: "object",
        "x-kubernetes-validations": [
          { rule: "!oldSelf.hasValue() || self.mode == oldSelf.value().mode", message: "mode is immutable", optionalOldSelf: true },
          { rule: "self.replicas >= self.minReplicas", messageExpression: "'replicas below minReplicas in ' + self.mode + ' mode'" },
        ],
        properties: {
          replicas: { type: "integer", minimum: 0, maximum: maxReplicas, default: 1 },
          minReplicas: { type: "integer", default: 0 },
          mode: { type: "string", enum: ["fast", "safe"], default: "safe" },
          seen: { type: "string" },
          note: { type: "string", nullable: true },
          size: { "x-kubernetes-int-or-string": true, pattern: "^[0-9]+%$" },
          selector: { type: "object", "x-kubernetes-map-type": "atomic", additionalProperties: { type: "string" } },
          hosts: { type: "array", "x-kubernetes-list-type": "atomic", items: { type: "string", format: "hostname" } },
          zones: { type: "array", "x-kubernetes-list-type": "set", items: { type: "integer" } },
          backends: {
            type: "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name", "port"],
            items: { type: "object", required: ["name", "port"], properties: { name: { type: "string" }, port: { type: "integer" }, weight: { type: "integer", default: 1 } } },
          },
          email: { type: "string", format: "email" },
          config: { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { level: { type: "integer", default: 3 } } },
          ...extra,
        },
      },
    },
  },
});

export const GADGET_CRD: Obj = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.example.com" },
  spec: {
    group: "example.com",
    names: { kind: "Gadget", plural: "gadgets", singular: "gadget", listKind: "GadgetList" },
    scope: "Namespaced",
    conversion: { strategy: "None" },
    versions: [
      { name: "v1", served: true, storage: true, schema: gadgetSchema(100) },
      { name: "v2", served: true, storage: false, schema: gadgetSchema(10, { tier: { type: "string", maxLength: 4 } }) },
    ],
  },
};

const GADGET: Obj = { apiVersion: "example.com/v2", kind: "Gadget", metadata: { name: "g1", labels: { app: "web" } }, spec: { replicas: 2, mode: "fast" } };

/** Apply configurations (as the policy written for v1 sees it) on a v2 request. */
const GADGET_CASES: readonly { id: string; apply?: string; patch?: Op[]; update?: Obj }[] = [
  { id: "seen-versions", apply: 'Object{spec: Object.spec{seen: request.kind.version + "<-" + request.requestKind.version + " " + object.apiVersion}}' },
  { id: "replicas-50-v1-allows-v2-rejects", apply: "Object{spec: Object.spec{replicas: 50}}" },
  { id: "replicas-200-both-reject", apply: "Object{spec: Object.spec{replicas: 200}}" },
  { id: "v2-only-field-kept", patch: [{ op: "add", path: "/spec/tier", value: "gold" }] },
  { id: "v2-only-field-too-long", patch: [{ op: "add", path: "/spec/tier", value: "platinum" }] },
  { id: "min-replicas-message-expression", apply: "Object{spec: Object.spec{minReplicas: 5}}" },
  { id: "mode-enum", apply: 'Object{spec: Object.spec{mode: "turbo"}}' },
  { id: "mode-removed-defaulted", patch: [{ op: "remove", path: "/spec/mode" }] },
  { id: "note-null-nullable", patch: [{ op: "add", path: "/spec/note", value: null }] },
  { id: "seen-null-dropped", patch: [{ op: "add", path: "/spec/seen", value: null }] },
  { id: "size-int-or-string-ok", patch: [{ op: "add", path: "/spec/size", value: "50%" }] },
  { id: "size-int-or-string-bad", patch: [{ op: "add", path: "/spec/size", value: "fifty" }] },
  { id: "size-bool", patch: [{ op: "add", path: "/spec/size", value: true }] },
  { id: "selector-atomic-map", apply: 'Object{spec: Object.spec{selector: {"app": "web", "tier": "db"}}}' },
  { id: "selector-value-number", patch: [{ op: "add", path: "/spec/selector", value: { app: 1 } }] },
  { id: "hosts-hostname-format", patch: [{ op: "add", path: "/spec/hosts", value: ["ok.example.com", "Not_A_Host!"] }] },
  { id: "hosts-atomic-duplicates-ok", patch: [{ op: "add", path: "/spec/hosts", value: ["a.example.com", "a.example.com"] }] },
  { id: "zones-set-duplicate", patch: [{ op: "add", path: "/spec/zones", value: [1, 2, 1] }] },
  { id: "zones-set-string", patch: [{ op: "add", path: "/spec/zones", value: [1, "two"] }] },
  { id: "backends-map-composite-duplicate", patch: [{ op: "add", path: "/spec/backends", value: [{ name: "a", port: 80 }, { name: "a", port: 80, weight: 2 }] }] },
  { id: "backends-map-composite-distinct", patch: [{ op: "add", path: "/spec/backends", value: [{ name: "a", port: 80 }, { name: "a", port: 81 }] }] },
  { id: "backends-missing-key", patch: [{ op: "add", path: "/spec/backends", value: [{ name: "a" }] }] },
  { id: "email-format", patch: [{ op: "add", path: "/spec/email", value: "not an email" }] },
  { id: "config-preserved-unknown", patch: [{ op: "add", path: "/spec/config", value: { anything: { deep: [1, "x"] } } }] },
  { id: "config-level-wrong-type", patch: [{ op: "add", path: "/spec/config", value: { level: "high" } }] },
  { id: "unknown-field-pruned", patch: [{ op: "add", path: "/spec/bogus", value: "x" }, { op: "add", path: "/status", value: { ready: true } }] },
  { id: "update-mode-changed", update: { replicas: 2, mode: "fast" }, apply: 'Object{spec: Object.spec{mode: "safe"}}' },
  { id: "update-replicas-changed", update: { replicas: 2, mode: "fast" }, apply: "Object{spec: Object.spec{replicas: 3}}" },
  { id: "update-old-self-kind", update: { replicas: 2, mode: "fast" }, apply: 'Object{spec: Object.spec{seen: oldObject.apiVersion + " " + object.apiVersion}}' },
];

function gadgetCases(next: () => string): ApivalCase[] {
  return GADGET_CASES.map((c) => {
    const marker = next();
    const mutation = c.apply !== undefined ? acMutation(marker, c.apply) : jsonPatchMutation(marker, c.patch!);
    const id = `Gadget/equivalent/${c.id}`;
    if (c.update !== undefined) {
      const old = clone(GADGET);
      (old as Obj).spec = clone(c.update);
      return { id, marker, batch: "Gadget", operation: "UPDATE", object: clone(old), oldObject: old, mutation, crd: GADGET_CRD, ownNamespace: true };
    }
    return { id, marker, batch: "Gadget", operation: "CREATE", object: withMarker(GADGET, marker), mutation, crd: GADGET_CRD };
  });
}

// ---------------------------------------------------------------------------------------------
// Seeded variation

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const SEED = 20261129;
const SEEDED_ROUNDS = 6;

function seededCases(next: () => string): ApivalCase[] {
  const out: ApivalCase[] = [];
  const r = prng(SEED);
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const badChars = [" ", "!", "@", "_", "/", ":", "*", "é"];
  const word = (n: number): string => Array.from({ length: n }, () => pick("abcdefghijklmnopqrstuvwxyz0123456789".split(""))).join("");
  const push = (id: string, base: Obj, ops: Op[], crd?: Obj): void => {
    const marker = next();
    const object = withMarker(base, marker);
    delete (object.metadata as Obj).namespace;
    out.push({ id, marker, batch: String(base.kind), operation: "CREATE", object, mutation: jsonPatchMutation(marker, ops), ...(crd ? { crd } : {}) });
  };
  for (let round = 0; round < SEEDED_ROUNDS; round++) {
    const s = `seed${round}`;
    const port = pick([int(65536, 200000), int(-5000, 0)]);
    push(`${s}/Pod/container-port-${port}`, POD, [{ op: "replace", path: "/spec/containers/0/ports/0/containerPort", value: port }]);
    const hostPort = pick([int(65536, 99999), 80 + int(0, 10)]);
    push(`${s}/Pod/host-port-${hostPort}`, POD, [{ op: "add", path: "/spec/containers/0/ports/0/hostPort", value: hostPort }]);
    const value = word(int(1, 8)) + pick(badChars) + word(int(0, 4));
    push(`${s}/Pod/label-value-${value}`, POD, [{ op: "add", path: "/metadata/labels/team", value }]);
    const key = word(int(1, 6)) + pick(badChars) + word(int(1, 6));
    push(`${s}/ConfigMap/key-${key}`, BASES.find((b) => b.kind === "ConfigMap")!.object as Obj, [{ op: "add", path: `/data/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, value: "v" }]);
    const replicas = pick([int(-100, -1), int(0, 5)]);
    push(`${s}/Deployment/replicas-${replicas}`, DEPLOYMENT, [{ op: "replace", path: "/spec/replicas", value: replicas }]);
    const longName = word(int(60, 70));
    push(`${s}/Service/port-name-${longName.length}`, SERVICE, [{ op: "replace", path: "/spec/ports/0/name", value: longName.slice(0, int(10, 20)) }]);
    const svcPort = pick([int(65536, 99999), int(1, 65535), 0]);
    push(`${s}/Service/port-${svcPort}`, SERVICE, [{ op: "replace", path: "/spec/ports/0/port", value: svcPort }]);
    const wr = int(-3, 14);
    push(`${s}/Widget/replicas-${wr}`, WIDGET_BASE, [{ op: "replace", path: "/spec/replicas", value: wr }], WIDGET_CRD as Obj);
    const tags = Array.from({ length: int(1, 4) }, () => pick(["a", "b", "c"]));
    push(`${s}/Widget/tags-${tags.join("")}`, WIDGET_BASE, [{ op: "replace", path: "/spec/tags", value: tags }], WIDGET_CRD as Obj);
    const ports = Array.from({ length: int(1, 3) }, () => ({ name: pick(["http", "https"]), port: pick([80, 443, 81, 8080]) }));
    push(`${s}/Widget/ports-${ports.map((p) => p.name + p.port).join("-")}`, WIDGET_BASE, [{ op: "replace", path: "/spec/ports", value: ports }], WIDGET_CRD as Obj);
    const name = pick([word(int(1, 12)), word(3).toUpperCase(), ""]);
    push(`${s}/Widget/name-${name}`, WIDGET_BASE, [{ op: "replace", path: "/spec/name", value: name }], WIDGET_CRD as Obj);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

/** All cases, in a fixed order; markers c0, c1, ... */
export function generateApivalCases(): ApivalCase[] {
  let n = 0;
  const next = (): string => `c${n++}`;
  return chunked([...catalogueCases(next), ...acCases(next), ...gadgetCases(next), ...seededCases(next)]);
}

/** At most this many cases share one policy: every mutation of a policy runs on each request it matches. */
export const BATCH_SIZE = 20;

/**
 * The batches (one policy each): the cases of one kind in chunks of BATCH_SIZE, a case's `batch`
 * rewritten to its chunk (`Pod-0`, `Pod-1`, ...). Gadget's policy matches only v1, with matchPolicy
 * Equivalent; the others every resource.
 */
export function chunked(cases: readonly ApivalCase[]): ApivalCase[] {
  const seen = new Map<string, number>();
  return cases.map((c) => {
    // An apply configuration, even `Object{}`, round-trips the object through the schema's typed
    // form (ApplyStructuredMergeDiff, apiserver pkg/admission/plugin/policy/mutating/patch/smd.go:141),
    // which fails on fields an earlier JSONPatch added outside the schema: a case with an apply
    // configuration gets a policy of its own, so no other case's mutation runs around it.
    if (c.mutation.patchType === "ApplyConfiguration") return { ...c, batch: `${c.batch}-${c.marker}` };
    const n = seen.get(c.batch) ?? 0;
    seen.set(c.batch, n + 1);
    return { ...c, batch: `${c.batch}-${Math.floor(n / BATCH_SIZE)}` };
  });
}

export function batchOf(name: string, cases: readonly ApivalCase[]): ApivalBatch {
  const mine = cases.filter((c) => c.batch === name);
  const first = mine[0]!;
  const probeMarker = `probe-${name.toLowerCase()}`;
  const markers = [...mine.map((c) => c.marker), probeMarker];
  const selector = { matchExpressions: [{ key: MARKER, operator: "In", values: markers }] };
  if (first.crd === GADGET_CRD) {
    return {
      name,
      crd: GADGET_CRD,
      selector,
      matchConstraints: { matchPolicy: "Equivalent", resourceRules: [{ apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["gadgets"] }] },
      probe: { ...clone(GADGET), metadata: { name: "probe", labels: { [MARKER]: probeMarker } } },
    };
  }
  return {
    name,
    ...(first.crd ? { crd: first.crd } : {}),
    selector,
    matchConstraints: { resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["CREATE", "UPDATE"], resources: ["*"] }] },
    probe: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "probe", labels: { [MARKER]: probeMarker } } },
  };
}

export function batchesOf(cases: readonly ApivalCase[]): ApivalBatch[] {
  return [...new Set(cases.map((c) => c.batch))].map((name) => batchOf(name, cases));
}

/** The probe mutation of a batch: an annotation on its probe object. */
export function probeMutation(batch: string): ApivalMutation {
  return { patchType: "JSONPatch", expression: `${markerCondition(`probe-${batch.toLowerCase()}`)} ? [JSONPatch{op: "add", path: "/metadata/annotations", value: {"apival-probe": ${JSON.stringify(batch)}}}] : []` };
}
