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
import { deepClone, isJsonObject, type JsonObject, type JsonValue } from "../admission/json.js";
import { defaultPullPolicy } from "./image-ref.js";

export interface KindDefaults {
  /** Paths of the PodSpecs inside the object (`SetDefaults_PodSpec` and its children). */
  readonly podSpecs?: readonly (readonly string[])[];
  /** The object is a Pod (`SetDefaults_Pod`: limits copied to requests, enableServiceLinks, host-network ports). */
  readonly pod?: boolean;
  /** The kind's own `SetDefaults_<Kind>` (runs before the pod specs', as the generated code does). */
  readonly own?: (o: JsonObject) => void;
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
  "apps/ReplicaSet": { podSpecs: [TEMPLATE], own: (o) => setIfAbsent(obj(o, "spec"), "replicas", 1) },
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
 * The object as the apiserver's decoding leaves it: defaulted, `stringData` folded. Returns a new
 * object for a known kind (the input is not modified), the input itself for any other.
 */
export function defaultBuiltin(object: JsonObject, gvk: DefaultTarget): JsonObject {
  if (gvk.version !== "v1") return object;
  const d = KIND_DEFAULTS[`${gvk.group}/${gvk.kind}`];
  if (d === undefined) return object;
  const out = deepClone(object);
  d.own?.(out);
  for (const path of d.podSpecs ?? []) {
    // A template's ObjectMeta is a struct field: always printed (`metadata: {}`).
    if (path.length > 1) {
      const template = at(out, path.slice(0, -1));
      if (template !== undefined) obj(template, "metadata");
    }
    const spec = at(out, path);
    if (spec !== undefined) defaultPodSpec(spec, d.pod === true);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Helpers (all mutate the fresh copy)

function at(o: JsonObject, path: readonly string[]): JsonObject | undefined {
  let cur: JsonValue | undefined = o;
  for (const p of path) {
    if (!isJsonObject(cur)) return undefined;
    cur = cur[p];
  }
  return isJsonObject(cur) ? cur : undefined;
}

/** Go's "unset": absent, null, or the zero value the field's Go type cannot tell from unset. */
function unset(v: JsonValue | undefined, zero: JsonValue = null): boolean {
  return v === undefined || v === null || (zero !== null && v === zero);
}

function setIfAbsent(o: JsonObject | undefined, key: string, value: JsonValue): void {
  if (o !== undefined && (o[key] === undefined || o[key] === null)) o[key] = value;
}

/** A string field that Go cannot tell from "" (not a pointer). */
function setIfEmpty(o: JsonObject | undefined, key: string, value: JsonValue): void {
  if (o !== undefined && unset(o[key], "")) o[key] = value;
}

/** The object at `o[key]`, created when absent (a Go struct field without a pointer). */
function obj(o: JsonObject, key: string): JsonObject {
  const v = o[key];
  if (isJsonObject(v)) return v;
  const fresh: JsonObject = {};
  o[key] = fresh;
  return fresh;
}

function child(o: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = o?.[key];
  return isJsonObject(v) ? v : undefined;
}

function objects(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

function isZeroInt(v: JsonValue | undefined): boolean {
  return v === undefined || v === null || v === 0 || v === 0n;
}

// ---------------------------------------------------------------------------------------------
// Pod specs

const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

function defaultPodSpec(spec: JsonObject, isPod: boolean): void {
  if (isPod) {
    // SetDefaults_Pod
    for (const list of ["containers", "initContainers"]) {
      for (const c of objects(spec[list])) {
        const res = child(c, "resources");
        const limits = child(res, "limits");
        if (res === undefined || limits === undefined) continue;
        const requests = obj(res, "requests");
        for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined) requests[k] = deepClone(v as JsonValue);
      }
    }
    setIfAbsent(spec, "enableServiceLinks", true);
    if (spec.hostNetwork === true) {
      for (const list of ["containers", "initContainers"]) {
        for (const c of objects(spec[list])) for (const p of objects(c.ports)) if (isZeroInt(p.hostPort) && p.containerPort !== undefined) p.hostPort = p.containerPort;
      }
    }
  }
  // SetDefaults_PodSpec
  setIfEmpty(spec, "dnsPolicy", "ClusterFirst");
  setIfEmpty(spec, "restartPolicy", "Always");
  setIfAbsent(spec, "securityContext", {});
  setIfAbsent(spec, "terminationGracePeriodSeconds", 30);
  setIfEmpty(spec, "schedulerName", "default-scheduler");
  for (const v of objects(spec.volumes)) defaultVolume(v);
  // LocalObjectReference.name is omitempty: an empty name is not printed.
  for (const r of objects(spec.imagePullSecrets)) if (r.name === "") delete r.name;
  for (const list of CONTAINER_LISTS) for (const c of objects(spec[list])) defaultContainer(c);
}

const MODE_SOURCES = ["secret", "configMap", "downwardAPI", "projected"] as const;

function defaultVolume(v: JsonObject): void {
  const sources = Object.keys(v).filter((k) => k !== "name" && v[k] !== null && v[k] !== undefined);
  if (sources.length === 0) v.emptyDir = {};
  const hostPath = child(v, "hostPath");
  if (hostPath !== undefined) setIfAbsent(hostPath, "type", "");
  for (const s of MODE_SOURCES) setIfAbsent(child(v, s), "defaultMode", 420);
  for (const item of objects(child(v, "downwardAPI")?.items)) setIfEmpty(child(item, "fieldRef"), "apiVersion", "v1");
  for (const src of objects(child(v, "projected")?.sources)) {
    for (const item of objects(child(src, "downwardAPI")?.items)) setIfEmpty(child(item, "fieldRef"), "apiVersion", "v1");
    setIfAbsent(child(src, "serviceAccountToken"), "expirationSeconds", 3600);
  }
  const iscsi = child(v, "iscsi");
  setIfEmpty(iscsi, "iscsiInterface", "default");
  const rbd = child(v, "rbd");
  setIfEmpty(rbd, "pool", "rbd");
  setIfEmpty(rbd, "user", "admin");
  setIfEmpty(rbd, "keyring", "/etc/ceph/keyring");
  const azure = child(v, "azureDisk");
  setIfAbsent(azure, "cachingMode", "ReadWrite");
  setIfAbsent(azure, "fsType", "ext4");
  setIfAbsent(azure, "readOnly", false);
  setIfAbsent(azure, "kind", "Shared");
  const scaleIO = child(v, "scaleIO");
  setIfEmpty(scaleIO, "storageMode", "ThinProvisioned");
  setIfEmpty(scaleIO, "fsType", "xfs");
  const claim = child(child(child(v, "ephemeral"), "volumeClaimTemplate"), "spec");
  setIfAbsent(claim, "volumeMode", "Filesystem");
  const image = child(v, "image");
  if (image !== undefined && unset(image.pullPolicy, "")) image.pullPolicy = defaultPullPolicy(typeof image.reference === "string" ? image.reference : "");
}

function defaultContainer(c: JsonObject): void {
  // SetDefaults_Container
  if (unset(c.imagePullPolicy, "")) c.imagePullPolicy = defaultPullPolicy(typeof c.image === "string" ? c.image : "");
  setIfEmpty(c, "terminationMessagePath", "/dev/termination-log");
  setIfEmpty(c, "terminationMessagePolicy", "File");
  // ResourceRequirements is a struct field: always printed.
  obj(c, "resources");
  for (const p of objects(c.ports)) setIfEmpty(p, "protocol", "TCP");
  for (const e of objects(c.env)) {
    const from = child(e, "valueFrom");
    setIfEmpty(child(from, "fieldRef"), "apiVersion", "v1");
    setIfAbsent(child(from, "fileKeyRef"), "optional", false);
  }
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) {
    const p = child(c, probe);
    if (p === undefined) continue;
    for (const [k, d] of [["timeoutSeconds", 1], ["periodSeconds", 10], ["successThreshold", 1], ["failureThreshold", 3]] as const) if (isZeroInt(p[k])) p[k] = d;
    defaultHTTPGet(child(p, "httpGet"));
    setIfAbsent(child(p, "grpc"), "service", "");
  }
  const lifecycle = child(c, "lifecycle");
  defaultHTTPGet(child(child(lifecycle, "postStart"), "httpGet"));
  defaultHTTPGet(child(child(lifecycle, "preStop"), "httpGet"));
}

function defaultHTTPGet(h: JsonObject | undefined): void {
  setIfEmpty(h, "path", "/");
  setIfEmpty(h, "scheme", "HTTP");
}

// ---------------------------------------------------------------------------------------------
// Kinds

function defaultReplicationController(o: JsonObject): void {
  const spec = obj(o, "spec");
  const labels = child(child(child(spec, "template"), "metadata"), "labels");
  if (labels !== undefined) {
    if (!isJsonObject(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = deepClone(labels);
    const md = obj(o, "metadata");
    if (!isJsonObject(md.labels) || Object.keys(md.labels).length === 0) md.labels = deepClone(labels);
  }
  setIfAbsent(spec, "replicas", 1);
}

function defaultDeployment(o: JsonObject): void {
  const spec = obj(o, "spec");
  setIfAbsent(spec, "replicas", 1);
  const strategy = obj(spec, "strategy");
  setIfEmpty(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate") {
    const ru = obj(strategy, "rollingUpdate");
    setIfAbsent(ru, "maxUnavailable", "25%");
    setIfAbsent(ru, "maxSurge", "25%");
  }
  setIfAbsent(spec, "revisionHistoryLimit", 10);
  setIfAbsent(spec, "progressDeadlineSeconds", 600);
}

function defaultDaemonSet(o: JsonObject): void {
  const spec = obj(o, "spec");
  const strategy = obj(spec, "updateStrategy");
  setIfEmpty(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate") {
    const ru = obj(strategy, "rollingUpdate");
    setIfAbsent(ru, "maxUnavailable", 1);
    setIfAbsent(ru, "maxSurge", 0);
  }
  setIfAbsent(spec, "revisionHistoryLimit", 10);
}

function defaultStatefulSet(o: JsonObject): void {
  const spec = obj(o, "spec");
  setIfEmpty(spec, "podManagementPolicy", "OrderedReady");
  const strategy = obj(spec, "updateStrategy");
  if (unset(strategy.type, "")) {
    strategy.type = "RollingUpdate";
    setIfAbsent(strategy, "rollingUpdate", {});
  }
  const ru = child(strategy, "rollingUpdate");
  // MaxUnavailableStatefulSet is off by default in 1.36 (beta): no maxUnavailable default.
  if (strategy.type === "RollingUpdate" && ru !== undefined) setIfAbsent(ru, "partition", 0);
  const retention = obj(spec, "persistentVolumeClaimRetentionPolicy");
  setIfEmpty(retention, "whenDeleted", "Retain");
  setIfEmpty(retention, "whenScaled", "Retain");
  setIfAbsent(spec, "replicas", 1);
  setIfAbsent(spec, "revisionHistoryLimit", 10);
}

function defaultJobSpec(spec: JsonObject): void {
  for (const rule of objects(child(spec, "podFailurePolicy")?.rules)) for (const p of objects(rule.onPodConditions)) setIfEmpty(p, "status", "True");
}

function defaultJob(o: JsonObject): void {
  const spec = obj(o, "spec");
  if (unset(spec.completions) && unset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setIfAbsent(spec, "parallelism", 1);
  if (unset(spec.backoffLimit)) spec.backoffLimit = unset(spec.backoffLimitPerIndex) ? 6 : 2147483647;
  const labels = child(child(child(spec, "template"), "metadata"), "labels");
  const md = child(o, "metadata");
  if (labels !== undefined && (md === undefined || !isJsonObject(md.labels) || Object.keys(md.labels).length === 0)) obj(o, "metadata").labels = deepClone(labels);
  setIfAbsent(spec, "completionMode", "NonIndexed");
  setIfAbsent(spec, "suspend", false);
  // JobPodReplacementPolicy is GA.
  setIfAbsent(spec, "podReplacementPolicy", isJsonObject(spec.podFailurePolicy) ? "Failed" : "TerminatingOrFailed");
  setIfAbsent(spec, "manualSelector", false);
  defaultJobSpec(spec);
}

function defaultCronJob(o: JsonObject): void {
  const spec = obj(o, "spec");
  setIfEmpty(spec, "concurrencyPolicy", "Allow");
  setIfAbsent(spec, "suspend", false);
  setIfAbsent(spec, "successfulJobsHistoryLimit", 3);
  setIfAbsent(spec, "failedJobsHistoryLimit", 1);
  const jobTemplate = child(spec, "jobTemplate");
  if (jobTemplate !== undefined) obj(jobTemplate, "metadata");
  const jobSpec = child(jobTemplate, "spec");
  if (jobSpec !== undefined) defaultJobSpec(jobSpec);
}

/** `SetDefaults_Service` (the service REST storage allocates IPs and IP families later; not modelled). */
function defaultService(o: JsonObject): void {
  const spec = obj(o, "spec");
  setIfEmpty(spec, "sessionAffinity", "None");
  if (spec.sessionAffinity === "None") delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === "ClientIP") {
    const timeout = child(child(spec, "sessionAffinityConfig"), "clientIP")?.timeoutSeconds;
    if (unset(timeout)) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  setIfEmpty(spec, "type", "ClusterIP");
  for (const p of objects(spec.ports)) {
    setIfEmpty(p, "protocol", "TCP");
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === "") p.targetPort = p.port ?? 0;
  }
  const externallyAccessible = spec.type === "LoadBalancer" || spec.type === "NodePort" || (spec.type === "ClusterIP" && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
  if (externallyAccessible) setIfEmpty(spec, "externalTrafficPolicy", "Cluster");
  if (spec.type === "NodePort" || spec.type === "LoadBalancer" || spec.type === "ClusterIP") setIfAbsent(spec, "internalTrafficPolicy", "Cluster");
  if (spec.type === "LoadBalancer") setIfAbsent(spec, "allocateLoadBalancerNodePorts", true);
  // ServiceStatus and its LoadBalancerStatus are struct fields: always printed.
  obj(obj(o, "status"), "loadBalancer");
}

/** `SetDefaults_Secret` and the v1 → internal conversion's folding of `stringData` into `data`. */
function defaultSecret(o: JsonObject): void {
  setIfEmpty(o, "type", "Opaque");
  const stringData = child(o, "stringData");
  if (stringData !== undefined) {
    if (Object.keys(stringData).length > 0) {
      const data = obj(o, "data");
      for (const [k, v] of Object.entries(stringData)) data[k] = base64(typeof v === "string" ? v : "");
    }
    delete o.stringData;
  }
}

function base64(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** `SetDefaults_Namespace` (label `kubernetes.io/metadata.name`), `SetDefaults_NamespaceStatus` (phase Active). */
function defaultNamespace(o: JsonObject): void {
  const md = child(o, "metadata");
  if (md !== undefined && typeof md.name === "string" && md.name !== "") obj(md, "labels")["kubernetes.io/metadata.name"] = md.name;
  setIfEmpty(obj(o, "status"), "phase", "Active");
}
