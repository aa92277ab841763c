/**
 * The built-in defaulting of kube-apiserver 1.36 for the kinds people mutate most, as the
 * generated `SetObjectDefaults_*` of `k8s.io/kubernetes/pkg/apis/{core,apps,batch}/v1` apply the
 * `SetDefaults_*` functions (facts read from v1.36.3; this is celmap's own code), plus what the
 * typed round trip adds: a Go struct field without a pointer is always printed (`resources: {}`),
 * and a Secret's `stringData` is folded into `data` (base64) by conversion.
 *
 * Organised as a table: {@link KIND_DEFAULTS} maps `group/Kind` to the paths of its pod specs and
 * a function for its own fields. Another kind is another entry.
 *
 *     defaultObject({apiVersion: "v1", kind: "Pod", spec: {containers: [{name: "a", image: "nginx"}]}})
 *     // spec.containers[0].imagePullPolicy: Always, resources: {}, terminationMessagePath: /dev/termination-log, ...
 *     // spec.dnsPolicy: ClusterFirst, enableServiceLinks: true, restartPolicy: Always, schedulerName: default-scheduler, ...
 *
 * Not modelled (the apiserver's storage does them, not defaulting, or they need cluster state):
 * Service cluster IPs and IP families, a Job's generated selector and controller-uid labels,
 * pod-level resource aggregation (PodLevelResources), quantity rounding to milli-units.
 */
import { deepClone, type JsonObject, type JsonValue } from "../admission/json.js";
import { Draft } from "./draft.js";
import { defaultPullPolicy } from "./image-ref.js";

export interface KindDefaults {
  /** Paths of the PodSpecs inside the object (`SetDefaults_PodSpec` and its children). */
  readonly podSpecs?: readonly (readonly string[])[];
  /** The object is a Pod (`SetDefaults_Pod`: limits copied to requests, enableServiceLinks, host-network ports). */
  readonly pod?: boolean;
  /** The kind's own `SetDefaults_<Kind>` (runs before the pod specs', as the generated code does). */
  readonly own?: (o: Draft) => void;
}

const TEMPLATE = ["spec", "template", "spec"] as const;

/** `group/Kind` → its defaulting (apiVersion v1 of each group). */
export const KIND_DEFAULTS: Readonly<Record<string, KindDefaults>> = {
  "/Pod": { podSpecs: [["spec"]], pod: true },
  "/PodTemplate": { podSpecs: [["template", "spec"]] },
  "/ReplicationController": { podSpecs: [TEMPLATE], own: defaultReplicationController },
  "/Service": { own: defaultService },
  "/Secret": { own: defaultSecret },
  "/ConfigMap": {},
  "/Namespace": { own: defaultNamespace },
  "/ServiceAccount": {},
  "apps/Deployment": { podSpecs: [TEMPLATE], own: defaultDeployment },
  "apps/ReplicaSet": { podSpecs: [TEMPLATE], own: (o) => setIfAbsent(o.obj("spec"), "replicas", 1) },
  "apps/StatefulSet": { podSpecs: [TEMPLATE], own: defaultStatefulSet },
  "apps/DaemonSet": { podSpecs: [TEMPLATE], own: defaultDaemonSet },
  "batch/Job": { podSpecs: [TEMPLATE], own: defaultJob },
  "batch/CronJob": { podSpecs: [["spec", "jobTemplate", "spec", "template", "spec"]], own: defaultCronJob },
};

export interface DefaultTarget {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** Whether {@link defaultObject} knows the kind. */
export function hasBuiltinDefaults(gvk: DefaultTarget): boolean {
  return gvk.version === "v1" && KIND_DEFAULTS[`${gvk.group}/${gvk.kind}`] !== undefined;
}

/**
 * The object as the apiserver's decoding leaves it: defaulted, `stringData` folded. The input is
 * not modified: edits are copy-on-write ({@link Draft}), so the result is the input itself when
 * nothing applies, and otherwise shares every subtree that defaulting did not change (the
 * pipeline's identity-keyed memos keep working after the defaulter that runs after every mutation).
 */
export function defaultBuiltin(object: JsonObject, gvk: DefaultTarget, memo?: DefaultMemo): JsonObject {
  if (gvk.version !== "v1") return object;
  const key = `${gvk.group}/${gvk.kind}`;
  const d = KIND_DEFAULTS[key];
  if (d === undefined) return object;
  const out = new Draft(object);
  d.own?.(out);
  const isPod = d.pod === true;
  for (const path of d.podSpecs ?? []) {
    // A template's ObjectMeta is a struct field: always printed (`metadata: {}`).
    if (path.length > 1) {
      const template = at(out, path.slice(0, -1));
      if (template !== undefined) template.obj("metadata");
    }
    const spec = at(out, path);
    if (spec === undefined) continue;
    // A pod spec this request's defaulter returned before is defaulted (defaulting is idempotent).
    if (memo !== undefined && memo.specs.get(spec.original) === key && spec.unchanged()) continue;
    defaultPodSpec(spec, isPod, memo);
  }
  const result = out.done();
  if (memo !== undefined) remember(memo, result, key, d);
  return result;
}

/**
 * What one request's defaulter has returned, by identity: pod specs (with the kind they were
 * defaulted for), containers (with their context: list, Pod or template, host network) and
 * volumes, which
 * are fixpoints of defaulting and are skipped when a later call meets them again. Sound because
 * admission never modifies a value in place; a memo lives for one request (plain Maps, as in
 * src/admission/memo.ts).
 */
export class DefaultMemo {
  readonly specs = new Map<object, string>();
  readonly containers = new Map<object, string>();
  readonly volumes = new Set<object>();
}

function containerContext(list: string, isPod: boolean, hostNetwork: boolean): string {
  return `${list}:${isPod ? "pod" : "template"}:${hostNetwork ? "host" : "pod-network"}`;
}

function remember(memo: DefaultMemo, o: JsonObject, key: string, d: KindDefaults): void {
  for (const path of d.podSpecs ?? []) {
    let spec: JsonValue | undefined = o;
    for (const p of path) spec = typeof spec === "object" && spec !== null && !Array.isArray(spec) ? spec[p] : undefined;
    if (typeof spec !== "object" || spec === null || Array.isArray(spec)) continue;
    memo.specs.set(spec, key);
    if (Array.isArray(spec.volumes)) for (const v of spec.volumes) if (typeof v === "object" && v !== null && !Array.isArray(v)) memo.volumes.add(v);
    for (const list of CONTAINER_LISTS) {
      const cs = spec[list];
      if (!Array.isArray(cs)) continue;
      const context = containerContext(list, d.pod === true, spec.hostNetwork === true);
      for (const c of cs) if (typeof c === "object" && c !== null && !Array.isArray(c)) memo.containers.set(c, context);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers (all edit the draft, never the input)

function at(o: Draft, path: readonly string[]): Draft | undefined {
  let cur: Draft | undefined = o;
  for (const p of path) {
    cur = cur.child(p);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Go's "unset": absent, null, or the zero value the field's Go type cannot tell from unset. */
function unset(v: JsonValue | undefined, zero: JsonValue = null): boolean {
  return v === undefined || v === null || (zero !== null && v === zero);
}

function setIfAbsent(o: Draft | undefined, key: string, value: JsonValue): void {
  o?.setIfAbsent(key, value);
}

/** A string field that Go cannot tell from "" (not a pointer). */
function setIfEmpty(o: Draft | undefined, key: string, value: JsonValue): void {
  if (o !== undefined && unset(o.get(key), "")) o.set(key, value);
}

function child(o: Draft | undefined, key: string): Draft | undefined {
  return o?.child(key);
}

function objects(o: Draft | undefined, key: string): Draft[] {
  return o === undefined ? [] : o.objects(key);
}

function isZeroInt(v: JsonValue | undefined): boolean {
  return v === undefined || v === null || v === 0 || v === 0n;
}

/** Whether the value is an object with at least one key. */
function nonEmptyObject(v: JsonValue | undefined): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length > 0;
}

// ---------------------------------------------------------------------------------------------
// Pod specs

const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

function defaultPodSpec(spec: Draft, isPod: boolean, memo: DefaultMemo | undefined): void {
  // Containers this request's defaulter returned before, in the same context, are defaulted already.
  const hostNetwork = spec.get("hostNetwork") === true;
  const todo = (list: string): ((c: JsonObject) => boolean) | undefined => {
    if (memo === undefined) return undefined;
    const context = containerContext(list, isPod, hostNetwork);
    return (c) => memo.containers.get(c) !== context;
  };
  if (isPod) {
    // SetDefaults_Pod
    for (const list of ["containers", "initContainers"]) {
      for (const c of spec.objects(list, todo(list))) {
        const res = c.child("resources");
        const limits = res?.get("limits");
        if (res === undefined || typeof limits !== "object" || limits === null || Array.isArray(limits)) continue;
        const requests = res.obj("requests");
        for (const [k, v] of Object.entries(limits)) if (requests.get(k) === undefined) requests.set(k, deepClone(v as JsonValue));
      }
    }
    setIfAbsent(spec, "enableServiceLinks", true);
    if (hostNetwork) {
      for (const list of ["containers", "initContainers"]) {
        for (const c of spec.objects(list, todo(list))) {
          for (const p of c.objects("ports")) {
            const containerPort = p.get("containerPort");
            if (isZeroInt(p.get("hostPort")) && containerPort !== undefined) p.set("hostPort", containerPort);
          }
        }
      }
    }
  }
  // SetDefaults_PodSpec
  setIfEmpty(spec, "dnsPolicy", "ClusterFirst");
  setIfEmpty(spec, "restartPolicy", "Always");
  setIfAbsent(spec, "securityContext", {});
  setIfAbsent(spec, "terminationGracePeriodSeconds", 30);
  setIfEmpty(spec, "schedulerName", "default-scheduler");
  for (const v of spec.objects("volumes", memo === undefined ? undefined : (v) => !memo.volumes.has(v))) defaultVolume(v);
  // LocalObjectReference.name is omitempty: an empty name is not printed.
  for (const r of spec.objects("imagePullSecrets")) if (r.get("name") === "") r.delete("name");
  for (const list of CONTAINER_LISTS) for (const c of spec.objects(list, todo(list))) defaultContainer(c);
}

const MODE_SOURCES = ["secret", "configMap", "downwardAPI", "projected"] as const;

function defaultVolume(v: Draft): void {
  const sources = v.keys().filter((k) => k !== "name" && v.get(k) !== null && v.get(k) !== undefined);
  if (sources.length === 0) v.set("emptyDir", {});
  const hostPath = v.child("hostPath");
  if (hostPath !== undefined) setIfAbsent(hostPath, "type", "");
  for (const s of MODE_SOURCES) setIfAbsent(v.child(s), "defaultMode", 420);
  for (const item of objects(v.child("downwardAPI"), "items")) setIfEmpty(item.child("fieldRef"), "apiVersion", "v1");
  for (const src of objects(v.child("projected"), "sources")) {
    for (const item of objects(src.child("downwardAPI"), "items")) setIfEmpty(item.child("fieldRef"), "apiVersion", "v1");
    setIfAbsent(src.child("serviceAccountToken"), "expirationSeconds", 3600);
  }
  const iscsi = v.child("iscsi");
  setIfEmpty(iscsi, "iscsiInterface", "default");
  const rbd = v.child("rbd");
  setIfEmpty(rbd, "pool", "rbd");
  setIfEmpty(rbd, "user", "admin");
  setIfEmpty(rbd, "keyring", "/etc/ceph/keyring");
  const azure = v.child("azureDisk");
  setIfAbsent(azure, "cachingMode", "ReadWrite");
  setIfAbsent(azure, "fsType", "ext4");
  setIfAbsent(azure, "readOnly", false);
  setIfAbsent(azure, "kind", "Shared");
  const scaleIO = v.child("scaleIO");
  setIfEmpty(scaleIO, "storageMode", "ThinProvisioned");
  setIfEmpty(scaleIO, "fsType", "xfs");
  const claim = child(child(v.child("ephemeral"), "volumeClaimTemplate"), "spec");
  setIfAbsent(claim, "volumeMode", "Filesystem");
  const image = v.child("image");
  if (image !== undefined && unset(image.get("pullPolicy"), "")) {
    const reference = image.get("reference");
    image.set("pullPolicy", defaultPullPolicy(typeof reference === "string" ? reference : ""));
  }
}

function defaultContainer(c: Draft): void {
  // SetDefaults_Container
  if (unset(c.get("imagePullPolicy"), "")) {
    const image = c.get("image");
    c.set("imagePullPolicy", defaultPullPolicy(typeof image === "string" ? image : ""));
  }
  setIfEmpty(c, "terminationMessagePath", "/dev/termination-log");
  setIfEmpty(c, "terminationMessagePolicy", "File");
  // ResourceRequirements is a struct field: always printed.
  c.obj("resources");
  for (const p of c.objects("ports")) setIfEmpty(p, "protocol", "TCP");
  for (const e of c.objects("env")) {
    const from = e.child("valueFrom");
    setIfEmpty(child(from, "fieldRef"), "apiVersion", "v1");
    setIfAbsent(child(from, "fileKeyRef"), "optional", false);
  }
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) {
    const p = c.child(probe);
    if (p === undefined) continue;
    for (const [k, d] of [["timeoutSeconds", 1], ["periodSeconds", 10], ["successThreshold", 1], ["failureThreshold", 3]] as const) if (isZeroInt(p.get(k))) p.set(k, d);
    defaultHTTPGet(p.child("httpGet"));
    setIfAbsent(p.child("grpc"), "service", "");
  }
  const lifecycle = c.child("lifecycle");
  defaultHTTPGet(child(child(lifecycle, "postStart"), "httpGet"));
  defaultHTTPGet(child(child(lifecycle, "preStop"), "httpGet"));
}

function defaultHTTPGet(h: Draft | undefined): void {
  setIfEmpty(h, "path", "/");
  setIfEmpty(h, "scheme", "HTTP");
}

// ---------------------------------------------------------------------------------------------
// Kinds

function defaultReplicationController(o: Draft): void {
  const spec = o.obj("spec");
  const labels = child(child(spec.child("template"), "metadata"), "labels");
  if (labels !== undefined) {
    if (!nonEmptyObject(spec.get("selector"))) spec.set("selector", deepClone(labels.done()));
    const md = o.obj("metadata");
    if (!nonEmptyObject(md.get("labels"))) md.set("labels", deepClone(labels.done()));
  }
  setIfAbsent(spec, "replicas", 1);
}

function defaultDeployment(o: Draft): void {
  const spec = o.obj("spec");
  setIfAbsent(spec, "replicas", 1);
  const strategy = spec.obj("strategy");
  setIfEmpty(strategy, "type", "RollingUpdate");
  if (strategy.get("type") === "RollingUpdate") {
    const ru = strategy.obj("rollingUpdate");
    setIfAbsent(ru, "maxUnavailable", "25%");
    setIfAbsent(ru, "maxSurge", "25%");
  }
  setIfAbsent(spec, "revisionHistoryLimit", 10);
  setIfAbsent(spec, "progressDeadlineSeconds", 600);
}

function defaultDaemonSet(o: Draft): void {
  const spec = o.obj("spec");
  const strategy = spec.obj("updateStrategy");
  setIfEmpty(strategy, "type", "RollingUpdate");
  if (strategy.get("type") === "RollingUpdate") {
    const ru = strategy.obj("rollingUpdate");
    setIfAbsent(ru, "maxUnavailable", 1);
    setIfAbsent(ru, "maxSurge", 0);
  }
  setIfAbsent(spec, "revisionHistoryLimit", 10);
}

function defaultStatefulSet(o: Draft): void {
  const spec = o.obj("spec");
  setIfEmpty(spec, "podManagementPolicy", "OrderedReady");
  const strategy = spec.obj("updateStrategy");
  if (unset(strategy.get("type"), "")) {
    strategy.set("type", "RollingUpdate");
    setIfAbsent(strategy, "rollingUpdate", {});
  }
  const ru = strategy.child("rollingUpdate");
  // MaxUnavailableStatefulSet is off by default in 1.36 (beta): no maxUnavailable default.
  if (strategy.get("type") === "RollingUpdate" && ru !== undefined) setIfAbsent(ru, "partition", 0);
  const retention = spec.obj("persistentVolumeClaimRetentionPolicy");
  setIfEmpty(retention, "whenDeleted", "Retain");
  setIfEmpty(retention, "whenScaled", "Retain");
  setIfAbsent(spec, "replicas", 1);
  setIfAbsent(spec, "revisionHistoryLimit", 10);
}

function defaultJobSpec(spec: Draft): void {
  for (const rule of objects(spec.child("podFailurePolicy"), "rules")) for (const p of rule.objects("onPodConditions")) setIfEmpty(p, "status", "True");
}

function defaultJob(o: Draft): void {
  const spec = o.obj("spec");
  if (unset(spec.get("completions")) && unset(spec.get("parallelism"))) {
    spec.set("completions", 1);
    spec.set("parallelism", 1);
  }
  setIfAbsent(spec, "parallelism", 1);
  if (unset(spec.get("backoffLimit"))) spec.set("backoffLimit", unset(spec.get("backoffLimitPerIndex")) ? 6 : 2147483647);
  const labels = child(child(spec.child("template"), "metadata"), "labels");
  const md = o.child("metadata");
  if (labels !== undefined && (md === undefined || !nonEmptyObject(md.get("labels")))) o.obj("metadata").set("labels", deepClone(labels.done()));
  setIfAbsent(spec, "completionMode", "NonIndexed");
  setIfAbsent(spec, "suspend", false);
  // JobPodReplacementPolicy is GA.
  const pfp = spec.get("podFailurePolicy");
  setIfAbsent(spec, "podReplacementPolicy", typeof pfp === "object" && pfp !== null && !Array.isArray(pfp) ? "Failed" : "TerminatingOrFailed");
  setIfAbsent(spec, "manualSelector", false);
  defaultJobSpec(spec);
}

function defaultCronJob(o: Draft): void {
  const spec = o.obj("spec");
  setIfEmpty(spec, "concurrencyPolicy", "Allow");
  setIfAbsent(spec, "suspend", false);
  setIfAbsent(spec, "successfulJobsHistoryLimit", 3);
  setIfAbsent(spec, "failedJobsHistoryLimit", 1);
  const jobTemplate = spec.child("jobTemplate");
  if (jobTemplate !== undefined) jobTemplate.obj("metadata");
  const jobSpec = child(jobTemplate, "spec");
  if (jobSpec !== undefined) defaultJobSpec(jobSpec);
}

/** `SetDefaults_Service` (the service REST storage allocates IPs and IP families later; not modelled). */
function defaultService(o: Draft): void {
  const spec = o.obj("spec");
  setIfEmpty(spec, "sessionAffinity", "None");
  if (spec.get("sessionAffinity") === "None") spec.delete("sessionAffinityConfig");
  if (spec.get("sessionAffinity") === "ClientIP") {
    const clientIP = child(spec.child("sessionAffinityConfig"), "clientIP");
    if (unset(clientIP?.get("timeoutSeconds"))) spec.set("sessionAffinityConfig", { clientIP: { timeoutSeconds: 10800 } });
  }
  setIfEmpty(spec, "type", "ClusterIP");
  for (const p of spec.objects("ports")) {
    setIfEmpty(p, "protocol", "TCP");
    const targetPort = p.get("targetPort");
    if (targetPort === undefined || targetPort === null || targetPort === 0 || targetPort === "") p.set("targetPort", p.get("port") ?? 0);
  }
  const type = spec.get("type");
  const externalIPs = spec.get("externalIPs");
  const externallyAccessible = type === "LoadBalancer" || type === "NodePort" || (type === "ClusterIP" && Array.isArray(externalIPs) && externalIPs.length > 0);
  if (externallyAccessible) setIfEmpty(spec, "externalTrafficPolicy", "Cluster");
  if (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP") setIfAbsent(spec, "internalTrafficPolicy", "Cluster");
  if (type === "LoadBalancer") setIfAbsent(spec, "allocateLoadBalancerNodePorts", true);
  // ServiceStatus and its LoadBalancerStatus are struct fields: always printed.
  o.obj("status").obj("loadBalancer");
}

/** `SetDefaults_Secret` and the v1 → internal conversion's folding of `stringData` into `data`. */
function defaultSecret(o: Draft): void {
  setIfEmpty(o, "type", "Opaque");
  const stringData = o.child("stringData");
  if (stringData !== undefined) {
    const entries = Object.entries(stringData.done());
    if (entries.length > 0) {
      const data = o.obj("data");
      for (const [k, v] of entries) data.set(k, base64(typeof v === "string" ? v : ""));
    }
    o.delete("stringData");
  }
}

function base64(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** `SetDefaults_Namespace` (label `kubernetes.io/metadata.name`), `SetDefaults_NamespaceStatus` (phase Active). */
function defaultNamespace(o: Draft): void {
  const md = o.child("metadata");
  const name = md?.get("name");
  if (md !== undefined && typeof name === "string" && name !== "") {
    const labels = md.obj("labels");
    if (labels.get("kubernetes.io/metadata.name") !== name) labels.set("kubernetes.io/metadata.name", name);
  }
  setIfEmpty(o.obj("status"), "phase", "Active");
}
