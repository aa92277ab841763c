/**
 * Generated invalid (and some valid) results of admission, to compare celmap's validation with
 * kube-apiserver's: a valid object of each kind, and mutations that break one rule each, as a
 * mutating policy might (an image set to "", a containerPort of 70000, a template label that no
 * longer matches the selector, ...). Every case is independent: `{id, object, oldObject?}`.
 *
 * The expected outcome is not here: it is what the apiserver answers (the Go oracle running the
 * registry strategies, `e2e/validation-oracle`, or a real apiserver through kubectl).
 */
import type { JsonObject, JsonValue } from "../../src/admission/json.js";

export interface ValidationCase {
  readonly id: string;
  readonly object: JsonObject;
  readonly oldObject?: JsonObject;
  /** The CustomResourceDefinition of a custom resource. */
  readonly crd?: JsonObject;
}

type Mutate = (o: JsonObject) => void;

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const CONTAINER = { name: "app", image: "nginx:1.27", ports: [{ name: "http", containerPort: 80 }] };

function podSpec(restartPolicy?: string): JsonObject {
  return {
    ...(restartPolicy !== undefined ? { restartPolicy } : {}),
    containers: [clone(CONTAINER)],
    volumes: [{ name: "data", emptyDir: {} }],
  };
}

const LABELS = { app: "web" };
const meta = (name: string): JsonObject => ({ name, namespace: "default", labels: { ...LABELS } });

/** Valid objects, one per kind; `spec` is where the pod spec sits. */
export const BASES: readonly { readonly kind: string; readonly object: JsonObject; readonly podSpec?: readonly string[] }[] = [
  { kind: "Pod", object: { apiVersion: "v1", kind: "Pod", metadata: meta("web"), spec: podSpec() }, podSpec: ["spec"] },
  {
    kind: "Deployment",
    object: { apiVersion: "apps/v1", kind: "Deployment", metadata: meta("web"), spec: { replicas: 2, selector: { matchLabels: { ...LABELS } }, template: { metadata: { labels: { ...LABELS } }, spec: podSpec() } } },
    podSpec: ["spec", "template", "spec"],
  },
  {
    kind: "ReplicaSet",
    object: { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: meta("web"), spec: { replicas: 2, selector: { matchLabels: { ...LABELS } }, template: { metadata: { labels: { ...LABELS } }, spec: podSpec() } } },
    podSpec: ["spec", "template", "spec"],
  },
  {
    kind: "StatefulSet",
    object: { apiVersion: "apps/v1", kind: "StatefulSet", metadata: meta("web"), spec: { serviceName: "web", replicas: 1, selector: { matchLabels: { ...LABELS } }, template: { metadata: { labels: { ...LABELS } }, spec: podSpec() } } },
    podSpec: ["spec", "template", "spec"],
  },
  {
    kind: "DaemonSet",
    object: { apiVersion: "apps/v1", kind: "DaemonSet", metadata: meta("web"), spec: { selector: { matchLabels: { ...LABELS } }, template: { metadata: { labels: { ...LABELS } }, spec: podSpec() } } },
    podSpec: ["spec", "template", "spec"],
  },
  {
    kind: "Job",
    object: { apiVersion: "batch/v1", kind: "Job", metadata: meta("batch"), spec: { template: { metadata: { labels: { ...LABELS } }, spec: podSpec("Never") } } },
    podSpec: ["spec", "template", "spec"],
  },
  {
    kind: "CronJob",
    object: {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: meta("nightly"),
      spec: { schedule: "0 3 * * *", jobTemplate: { spec: { template: { metadata: { labels: { ...LABELS } }, spec: podSpec("OnFailure") } } } },
    },
    podSpec: ["spec", "jobTemplate", "spec", "template", "spec"],
  },
  {
    kind: "Service",
    object: {
      apiVersion: "v1",
      kind: "Service",
      metadata: meta("web"),
      spec: { selector: { ...LABELS }, ports: [{ name: "http", port: 80, targetPort: 8080 }], clusterIP: "10.96.0.10", clusterIPs: ["10.96.0.10"], ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" },
    },
  },
  { kind: "ConfigMap", object: { apiVersion: "v1", kind: "ConfigMap", metadata: meta("settings"), data: { "app.conf": "x=1" } } },
  { kind: "Secret", object: { apiVersion: "v1", kind: "Secret", metadata: meta("creds"), data: { password: "c2VjcmV0" } } },
  { kind: "ServiceAccount", object: { apiVersion: "v1", kind: "ServiceAccount", metadata: meta("builder") } },
  { kind: "Namespace", object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a", labels: { ...LABELS } } } },
];

function at(o: JsonObject, path: readonly string[]): JsonObject {
  let cur = o;
  for (const p of path) cur = cur[p] as JsonObject;
  return cur;
}

const container = (spec: JsonObject, i = 0): JsonObject => (spec.containers as JsonObject[])[i]!;

/** Mutations of a metadata object (any kind). */
const META_MUTATIONS: Readonly<Record<string, (md: JsonObject, kind: string) => void>> = {
  "name-uppercase": (md) => void (md.name = "Web"),
  "name-underscore": (md) => void (md.name = "web_1"),
  "name-dot": (md) => void (md.name = "web.v1"),
  "name-too-long": (md) => void (md.name = "w".repeat(254)),
  "label-value-space": (md) => void ((md.labels as JsonObject).team = "bad value!"),
  "label-key-slashes": (md) => void ((md.labels as JsonObject)["a/b/c"] = "x"),
  "label-key-prefix-upper": (md) => void ((md.labels as JsonObject)["Example.com/x"] = "x"),
  "label-value-too-long": (md) => void ((md.labels as JsonObject).team = "v".repeat(64)),
  "annotation-key-invalid": (md) => void (md.annotations = { "bad key": "x" }),
  "finalizer-unqualified": (md) => void (md.finalizers = ["cleanup"]),
  "finalizer-qualified": (md) => void (md.finalizers = ["example.com/cleanup"]),
  "finalizers-orphan-foreground": (md) => void (md.finalizers = ["orphan", "foregroundDeletion"]),
  "generate-name-upper": (md) => {
    delete md.name;
    md.generateName = "Web-";
  },
  "owner-ref-no-uid": (md) => void (md.ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "" }]),
};

/** Mutations of a pod spec (Pods and every template). */
const POD_MUTATIONS: Readonly<Record<string, Mutate>> = {
  "image-empty": (s) => void (container(s).image = ""),
  "container-name-invalid": (s) => void (container(s).name = "App_1"),
  "container-name-empty": (s) => void (container(s).name = ""),
  "container-duplicate": (s) => void (s.containers as JsonValue[]).push({ name: "app", image: "busybox" }),
  "init-duplicates-container": (s) => void (s.initContainers = [{ name: "app", image: "busybox" }]),
  "init-duplicate": (s) => void (s.initContainers = [{ name: "init", image: "busybox" }, { name: "init", image: "busybox" }]),
  "containers-empty": (s) => void (s.containers = []),
  "port-70000": (s) => void ((container(s).ports as JsonObject[])[0]!.containerPort = 70000),
  "port-negative": (s) => void ((container(s).ports as JsonObject[])[0]!.containerPort = -1),
  "port-zero": (s) => void ((container(s).ports as JsonObject[])[0]!.containerPort = 0),
  "host-port-70000": (s) => void ((container(s).ports as JsonObject[])[0]!.hostPort = 70000),
  "port-name-too-long": (s) => void ((container(s).ports as JsonObject[])[0]!.name = "http-port-number-one"),
  "port-name-upper": (s) => void ((container(s).ports as JsonObject[])[0]!.name = "HTTP"),
  "port-name-digits": (s) => void ((container(s).ports as JsonObject[])[0]!.name = "8080"),
  "port-name-duplicate": (s) => void (container(s).ports as JsonValue[]).push({ name: "http", containerPort: 81 }),
  "port-protocol-bogus": (s) => void ((container(s).ports as JsonObject[])[0]!.protocol = "HTTP"),
  "host-port-conflict": (s) => void (container(s).ports = [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81, hostPort: 8080 }]),
  "env-name-equals": (s) => void (container(s).env = [{ name: "A=B", value: "x" }]),
  "env-name-empty": (s) => void (container(s).env = [{ name: "", value: "x" }]),
  "mount-unknown-volume": (s) => void (container(s).volumeMounts = [{ name: "missing", mountPath: "/data" }]),
  "mount-path-empty": (s) => void (container(s).volumeMounts = [{ name: "data", mountPath: "" }]),
  "mount-path-duplicate": (s) => void (container(s).volumeMounts = [{ name: "data", mountPath: "/data" }, { name: "data", mountPath: "/data" }]),
  "pull-policy-bogus": (s) => void (container(s).imagePullPolicy = "Sometimes"),
  "termination-message-policy-bogus": (s) => void (container(s).terminationMessagePolicy = "Stdout"),
  "container-restart-policy-bogus": (s) => void (container(s).restartPolicy = "Sometimes"),
  "init-restart-policy-bogus": (s) => void (s.initContainers = [{ name: "init", image: "busybox", restartPolicy: "Sometimes" }]),
  "init-probe-without-sidecar": (s) => void (s.initContainers = [{ name: "init", image: "busybox", readinessProbe: { exec: { command: ["true"] } } }]),
  "init-lifecycle-without-sidecar": (s) => void (s.initContainers = [{ name: "init", image: "busybox", lifecycle: { preStop: { exec: { command: ["true"] } } } }]),
  "volume-duplicate": (s) => void (s.volumes as JsonValue[]).push({ name: "data", emptyDir: {} }),
  "volume-name-invalid": (s) => void ((s.volumes as JsonObject[])[0]!.name = "Data"),
  "volume-two-sources": (s) => void ((s.volumes as JsonObject[])[0]!.hostPath = { path: "/tmp" }),
  "dns-policy-bogus": (s) => void (s.dnsPolicy = "Google"),
  "restart-policy-bogus": (s) => void (s.restartPolicy = "Sometimes"),
  "active-deadline-zero": (s) => void (s.activeDeadlineSeconds = 0),
  "hostname-invalid": (s) => void (s.hostname = "Web_1"),
  "subdomain-invalid": (s) => void (s.subdomain = "a.b"),
  "service-account-invalid": (s) => void (s.serviceAccountName = "Builder"),
  "node-selector-invalid": (s) => void (s.nodeSelector = { "disk type": "ssd" }),
  "priority-class-invalid": (s) => void (s.priorityClassName = "High_Priority"),
  "image-pull-secret-empty": (s) => void (s.imagePullSecrets = [{ name: "" }]),
  "sidecar-valid": (s) => void (s.initContainers = [{ name: "proxy", image: "envoy:1.30", restartPolicy: "Always", readinessProbe: { tcpSocket: { port: 9901 } } }]),
  "second-container-valid": (s) => void (s.containers as JsonValue[]).push({ name: "sidecar", image: "busybox" }),
};

/** Mutations of one kind. */
const KIND_MUTATIONS: Readonly<Record<string, Readonly<Record<string, Mutate>>>> = {
  Pod: {},
  Deployment: {
    "replicas-negative": (o) => void (at(o, ["spec"]).replicas = -1),
    "selector-mismatch": (o) => void (at(o, ["spec", "template", "metadata"]).labels = { app: "other" }),
    "template-labels-removed": (o) => void delete at(o, ["spec", "template", "metadata"]).labels,
    "template-restart-never": (o) => void (at(o, ["spec", "template", "spec"]).restartPolicy = "Never"),
    "template-restart-onfailure": (o) => void (at(o, ["spec", "template", "spec"]).restartPolicy = "OnFailure"),
    "selector-empty": (o) => void (at(o, ["spec"]).selector = {}),
    "selector-missing": (o) => void delete at(o, ["spec"]).selector,
    "min-ready-negative": (o) => void (at(o, ["spec"]).minReadySeconds = -5),
    "revision-history-negative": (o) => void (at(o, ["spec"]).revisionHistoryLimit = -1),
    "progress-deadline-below-min-ready": (o) => {
      at(o, ["spec"]).minReadySeconds = 600;
      at(o, ["spec"]).progressDeadlineSeconds = 300;
    },
    "strategy-bogus": (o) => void (at(o, ["spec"]).strategy = { type: "BlueGreen" }),
    "strategy-recreate-with-rolling": (o) => void (at(o, ["spec"]).strategy = { type: "Recreate", rollingUpdate: { maxSurge: 1 } }),
    "rolling-both-zero": (o) => void (at(o, ["spec"]).strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }),
    "rolling-over-100": (o) => void (at(o, ["spec"]).strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "120%" } }),
    "rolling-bad-percent": (o) => void (at(o, ["spec"]).strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: "abc" } }),
    "rolling-negative": (o) => void (at(o, ["spec"]).strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: -1 } }),
    "template-active-deadline": (o) => void (at(o, ["spec", "template", "spec"]).activeDeadlineSeconds = 30),
    "template-label-invalid": (o) => void (at(o, ["spec", "template", "metadata"]).labels = { ...LABELS, "bad key!": "x" }),
  },
  ReplicaSet: {
    "replicas-negative": (o) => void (at(o, ["spec"]).replicas = -1),
    "selector-mismatch": (o) => void (at(o, ["spec", "template", "metadata"]).labels = { app: "other" }),
    "template-restart-never": (o) => void (at(o, ["spec", "template", "spec"]).restartPolicy = "Never"),
    "selector-empty": (o) => void (at(o, ["spec"]).selector = {}),
    "min-ready-negative": (o) => void (at(o, ["spec"]).minReadySeconds = -5),
  },
  StatefulSet: {
    "replicas-negative": (o) => void (at(o, ["spec"]).replicas = -1),
    "selector-mismatch": (o) => void (at(o, ["spec", "template", "metadata"]).labels = { app: "other" }),
    "template-restart-never": (o) => void (at(o, ["spec", "template", "spec"]).restartPolicy = "Never"),
    "selector-empty": (o) => void (at(o, ["spec"]).selector = {}),
    "pod-management-bogus": (o) => void (at(o, ["spec"]).podManagementPolicy = "Random"),
    "service-name-invalid": (o) => void (at(o, ["spec"]).serviceName = "Web_Svc"),
    "partition-negative": (o) => void (at(o, ["spec"]).updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: -1 } }),
    "ondelete-with-rolling": (o) => void (at(o, ["spec"]).updateStrategy = { type: "OnDelete", rollingUpdate: { partition: 1 } }),
    "retention-bogus": (o) => void (at(o, ["spec"]).persistentVolumeClaimRetentionPolicy = { whenDeleted: "Keep" }),
  },
  DaemonSet: {
    "selector-mismatch": (o) => void (at(o, ["spec", "template", "metadata"]).labels = { app: "other" }),
    "template-restart-never": (o) => void (at(o, ["spec", "template", "spec"]).restartPolicy = "Never"),
    "update-strategy-bogus": (o) => void (at(o, ["spec"]).updateStrategy = { type: "Surge" }),
    "min-ready-negative": (o) => void (at(o, ["spec"]).minReadySeconds = -1),
    "rolling-both-zero": (o) => void (at(o, ["spec"]).updateStrategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }),
  },
  Job: {
    "parallelism-negative": (o) => void (at(o, ["spec"]).parallelism = -1),
    "completions-negative": (o) => void (at(o, ["spec"]).completions = -1),
    "backoff-negative": (o) => void (at(o, ["spec"]).backoffLimit = -1),
    "active-deadline-negative": (o) => void (at(o, ["spec"]).activeDeadlineSeconds = -1),
    "ttl-negative": (o) => void (at(o, ["spec"]).ttlSecondsAfterFinished = -1),
    "template-restart-always": (o) => void (at(o, ["spec", "template", "spec"]).restartPolicy = "Always"),
    "template-restart-bogus": (o) => void (at(o, ["spec", "template", "spec"]).restartPolicy = "Sometimes"),
    "completion-mode-bogus": (o) => void (at(o, ["spec"]).completionMode = "Ordered"),
    "indexed-without-completions": (o) => {
      at(o, ["spec"]).completionMode = "Indexed";
      at(o, ["spec"]).parallelism = 2;
    },
    "backoff-per-index-nonindexed": (o) => void (at(o, ["spec"]).backoffLimitPerIndex = 1),
  },
  CronJob: {
    "schedule-empty": (o) => void (at(o, ["spec"]).schedule = ""),
    "concurrency-bogus": (o) => void (at(o, ["spec"]).concurrencyPolicy = "Sometimes"),
    "history-negative": (o) => void (at(o, ["spec"]).successfulJobsHistoryLimit = -1),
    "failed-history-negative": (o) => void (at(o, ["spec"]).failedJobsHistoryLimit = -1),
    "starting-deadline-negative": (o) => void (at(o, ["spec"]).startingDeadlineSeconds = -1),
    "name-53": (o) => void ((o.metadata as JsonObject).name = "n".repeat(53)),
    "template-restart-always": (o) => void (at(o, ["spec", "jobTemplate", "spec", "template", "spec"]).restartPolicy = "Always"),
    "job-template-selector": (o) => void (at(o, ["spec", "jobTemplate", "spec"]).selector = { matchLabels: { ...LABELS } }),
    "job-template-parallelism-negative": (o) => void (at(o, ["spec", "jobTemplate", "spec"]).parallelism = -2),
  },
  Service: {
    "type-bogus": (o) => void (at(o, ["spec"]).type = "Bogus"),
    "port-zero": (o) => void ((at(o, ["spec"]).ports as JsonObject[])[0]!.port = 0),
    "port-70000": (o) => void ((at(o, ["spec"]).ports as JsonObject[])[0]!.port = 70000),
    "protocol-bogus": (o) => void ((at(o, ["spec"]).ports as JsonObject[])[0]!.protocol = "HTTP"),
    "second-port-unnamed": (o) => void ((at(o, ["spec"]).ports as JsonValue[]).push({ port: 443 }), (at(o, ["spec"]).ports as JsonObject[])[0]!),
    "port-name-duplicate": (o) => void (at(o, ["spec"]).ports as JsonValue[]).push({ name: "http", port: 443 }),
    "port-name-invalid": (o) => void ((at(o, ["spec"]).ports as JsonObject[])[0]!.name = "HTTP"),
    "target-port-70000": (o) => void ((at(o, ["spec"]).ports as JsonObject[])[0]!.targetPort = 70000),
    "target-port-name-invalid": (o) => void ((at(o, ["spec"]).ports as JsonObject[])[0]!.targetPort = "Web_Port"),
    "session-affinity-bogus": (o) => void (at(o, ["spec"]).sessionAffinity = "Cookie"),
    "node-port-on-clusterip": (o) => void ((at(o, ["spec"]).ports as JsonObject[])[0]!.nodePort = 30080),
    "selector-invalid": (o) => void (at(o, ["spec"]).selector = { "app name": "web" }),
    "duplicate-port": (o) => void (at(o, ["spec"]).ports as JsonValue[]).push({ name: "http2", port: 80 }),
    "ports-removed": (o) => void delete at(o, ["spec"]).ports,
    "app-protocol-invalid": (o) => void ((at(o, ["spec"]).ports as JsonObject[])[0]!.appProtocol = "bad proto"),
  },
  ConfigMap: {
    "key-invalid": (o) => void ((o.data as JsonObject)["bad key"] = "x"),
    "key-dotdot": (o) => void ((o.data as JsonObject)[".."] = "x"),
    "key-dotdot-prefix": (o) => void ((o.data as JsonObject)["..conf"] = "x"),
    "binary-duplicate": (o) => void (o.binaryData = { "app.conf": "eA==" }),
  },
  Secret: {
    "key-invalid": (o) => void ((o.data as JsonObject)["bad/key"] = "eA=="),
    "tls-missing-keys": (o) => void (o.type = "kubernetes.io/tls"),
    "basic-auth-missing": (o) => void (o.type = "kubernetes.io/basic-auth"),
    "ssh-missing": (o) => void (o.type = "kubernetes.io/ssh-auth"),
    "dockerconfigjson-missing": (o) => void (o.type = "kubernetes.io/dockerconfigjson"),
    "sa-token-missing-annotation": (o) => void (o.type = "kubernetes.io/service-account-token"),
    "string-data-folded": (o) => void (o.stringData = { username: "admin" }),
  },
  ServiceAccount: {},
  Namespace: {},
};

/** UPDATE cases: [name, kind, mutation of the new object]. */
const UPDATE_MUTATIONS: readonly (readonly [string, string, Mutate])[] = [
  ["selector-changed", "Deployment", (o) => {
    at(o, ["spec"]).selector = { matchLabels: { app: "web", tier: "x" } };
    at(o, ["spec", "template", "metadata"]).labels = { app: "web", tier: "x" };
  }],
  ["selector-changed", "ReplicaSet", (o) => {
    at(o, ["spec"]).selector = { matchLabels: { app: "web", tier: "x" } };
    at(o, ["spec", "template", "metadata"]).labels = { app: "web", tier: "x" };
  }],
  ["selector-changed", "DaemonSet", (o) => {
    at(o, ["spec"]).selector = { matchLabels: { app: "web", tier: "x" } };
    at(o, ["spec", "template", "metadata"]).labels = { app: "web", tier: "x" };
  }],
  ["replicas-scaled", "Deployment", (o) => void (at(o, ["spec"]).replicas = 5)],
  ["image-changed", "Pod", (o) => void (container(at(o, ["spec"])).image = "nginx:1.28")],
  ["port-changed", "Pod", (o) => void ((container(at(o, ["spec"])).ports as JsonObject[])[0]!.containerPort = 81)],
  ["secret-type-changed", "Secret", (o) => void (o.type = "kubernetes.io/basic-auth")],
  ["cluster-ip-changed", "Service", (o) => {
    at(o, ["spec"]).clusterIP = "10.96.0.11";
    at(o, ["spec"]).clusterIPs = ["10.96.0.11"];
  }],
  ["label-invalid", "ConfigMap", (o) => void ((o.metadata as JsonObject).labels = { "bad key!": "x" })],
  ["data-changed", "ConfigMap", (o) => void (o.data = { "app.conf": "x=2" })],
  ["label-added", "ServiceAccount", (o) => void ((o.metadata as JsonObject).labels = { team: "a" })],
  ["label-invalid", "ServiceAccount", (o) => void ((o.metadata as JsonObject).labels = { team: "bad value!" })],
  ["finalizer-unqualified", "Namespace", (o) => void ((o.metadata as JsonObject).finalizers = ["cleanup"])],
];

function withRv(o: JsonObject): JsonObject {
  const c = clone(o);
  (c.metadata as JsonObject).resourceVersion = "1";
  (c.metadata as JsonObject).uid = "0d6a1d3e-6c1f-4bb5-9d7e-6f0b5c3a2f10";
  return c;
}

/** All cases: valid bases, metadata mutations per kind, pod-spec mutations per pod kind, kind mutations, updates. */
export function generateCases(): ValidationCase[] {
  const out: ValidationCase[] = [];
  for (const b of BASES) {
    out.push({ id: `${b.kind}/valid`, object: clone(b.object) });
    for (const [name, m] of Object.entries(META_MUTATIONS)) {
      if (b.kind === "Namespace" && name === "generate-name-upper") continue;
      const o = clone(b.object);
      m(o.metadata as JsonObject, b.kind);
      out.push({ id: `${b.kind}/metadata/${name}`, object: o });
    }
    if (b.podSpec !== undefined) {
      for (const [name, m] of Object.entries(POD_MUTATIONS)) {
        const o = clone(b.object);
        m(at(o, b.podSpec));
        out.push({ id: `${b.kind}/pod/${name}`, object: o });
      }
    }
    for (const [name, m] of Object.entries(KIND_MUTATIONS[b.kind] ?? {})) {
      const o = clone(b.object);
      m(o);
      out.push({ id: `${b.kind}/${name}`, object: o });
    }
  }
  for (const [name, kind, m] of UPDATE_MUTATIONS) {
    const base = BASES.find((b) => b.kind === kind)!;
    const old = withRv(base.object);
    if (kind === "ConfigMap" && name === "data-changed") old.immutable = true;
    const o = clone(old);
    if (kind === "ConfigMap" && name === "data-changed") o.immutable = true;
    m(o);
    out.push({ id: `${kind}/update/${name}`, object: o, oldObject: old });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Custom resources: one CRD with the schema features the apiserver validates.

export const WIDGET_CRD: JsonObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
    scope: "Namespaced",
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
                required: ["size"],
                "x-kubernetes-validations": [
                  { rule: "self.minReplicas <= self.replicas", message: "minReplicas must not exceed replicas" },
                  { rule: "!has(self.color) || self.color != 'blue' || self.size != 'small'", messageExpression: "'a ' + self.size + ' widget cannot be blue'" },
                  { rule: "self.replicas != 7", fieldPath: ".replicas", reason: "FieldValueForbidden", message: "seven is unlucky" },
                  { rule: "self.owner == oldSelf.owner", message: "owner is immutable" },
                ],
                properties: {
                  size: { type: "string", enum: ["small", "large"] },
                  replicas: { type: "integer", minimum: 1, maximum: 10, default: 1 },
                  minReplicas: { type: "integer", minimum: 0, default: 0 },
                  color: { type: "string", enum: ["red", "blue"] },
                  name: { type: "string", minLength: 1, maxLength: 10, pattern: "^[a-z]+$" },
                  owner: { type: "string" },
                  ratio: { type: "number", exclusiveMinimum: true, minimum: 0, multipleOf: 0.5 },
                  when: { type: "string", format: "date-time" },
                  id: { type: "string", format: "uuid" },
                  enabled: { type: "boolean" },
                  tags: { type: "array", maxItems: 3, items: { type: "string" }, "x-kubernetes-list-type": "set" },
                  ports: {
                    type: "array",
                    minItems: 1,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    items: {
                      type: "object",
                      required: ["name"],
                      properties: { name: { type: "string" }, port: { type: "integer", format: "int32", minimum: 1, maximum: 65535 } },
                      "x-kubernetes-validations": [{ rule: "self.port % 2 == 0", message: "port must be even" }],
                    },
                  },
                  labels: { type: "object", maxProperties: 2, additionalProperties: { type: "string", maxLength: 5 } },
                  nested: { type: "object", properties: { level: { type: "integer", "x-kubernetes-validations": [{ rule: "self < 100" }] } } },
                  extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const WIDGET: JsonObject = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w1", namespace: "default", labels: { app: "web" } },
  spec: { size: "small", replicas: 2, color: "red", name: "alpha", owner: "team-a", tags: ["a", "b"], ports: [{ name: "http", port: 80 }], labels: { a: "x" } },
};

const CR_MUTATIONS: Readonly<Record<string, Mutate>> = {
  "replicas-string": (s) => void (s.replicas = "three"),
  "replicas-float": (s) => void (s.replicas = 2.5),
  "replicas-below-minimum": (s) => void (s.replicas = 0),
  "replicas-above-maximum": (s) => void (s.replicas = 11),
  "size-missing": (s) => void delete s.size,
  "size-not-in-enum": (s) => void (s.size = "medium"),
  "color-number": (s) => void (s.color = 3),
  "name-too-long": (s) => void (s.name = "abcdefghijk"),
  "name-empty": (s) => void (s.name = ""),
  "name-pattern": (s) => void (s.name = "Alpha1"),
  "ratio-zero": (s) => void (s.ratio = 0),
  "ratio-not-multiple": (s) => void (s.ratio = 0.7),
  "when-not-date-time": (s) => void (s.when = "yesterday"),
  "id-not-uuid": (s) => void (s.id = "not-a-uuid"),
  "enabled-string": (s) => void (s.enabled = "yes"),
  "tags-duplicate": (s) => void (s.tags = ["a", "b", "a"]),
  "tags-too-many": (s) => void (s.tags = ["a", "b", "c", "d"]),
  "tags-number": (s) => void (s.tags = ["a", 1]),
  "ports-duplicate-key": (s) => void (s.ports = [{ name: "http", port: 80 }, { name: "http", port: 82 }]),
  "ports-empty": (s) => void (s.ports = []),
  "ports-missing-name": (s) => void (s.ports = [{ port: 80 }]),
  "ports-out-of-range": (s) => void (s.ports = [{ name: "http", port: 70000 }]),
  "ports-odd-rule": (s) => void (s.ports = [{ name: "http", port: 81 }]),
  "labels-too-many": (s) => void (s.labels = { a: "x", b: "y", c: "z" }),
  "labels-value-too-long": (s) => void (s.labels = { a: "toolong" }),
  "labels-value-number": (s) => void (s.labels = { a: 1 }),
  "min-replicas-rule": (s) => void (s.minReplicas = 5),
  "message-expression-rule": (s) => void (s.color = "blue"),
  "field-path-reason-rule": (s) => void (s.replicas = 7),
  "nested-rule-default-message": (s) => void (s.nested = { level: 100 }),
  "nested-wrong-type": (s) => void (s.nested = { level: "high" }),
  "unknown-field-pruned": (s) => void (s.bogus = 1),
  "preserve-unknown-extra": (s) => void (s.extra = { anything: [1, 2] }),
  "spec-not-object": (o) => void o,
  "valid-large": (s) => void (s.size = "large"),
};

function crCases(): ValidationCase[] {
  const out: ValidationCase[] = [{ id: "Widget/valid", object: clone(WIDGET), crd: WIDGET_CRD }];
  for (const [name, m] of Object.entries(CR_MUTATIONS)) {
    const o = clone(WIDGET);
    if (name === "spec-not-object") o.spec = "text";
    else m(o.spec as JsonObject);
    out.push({ id: `Widget/${name}`, object: o, crd: WIDGET_CRD });
  }
  for (const [name, m] of Object.entries(META_MUTATIONS)) {
    const o = clone(WIDGET);
    m(o.metadata as JsonObject, "Widget");
    out.push({ id: `Widget/metadata/${name}`, object: o, crd: WIDGET_CRD });
  }
  const old = withRv(WIDGET);
  const upd = (name: string, m: Mutate, oldM?: Mutate): void => {
    const before = clone(old);
    oldM?.(before.spec as JsonObject);
    const o = clone(before);
    m(o.spec as JsonObject);
    out.push({ id: `Widget/update/${name}`, object: o, oldObject: before, crd: WIDGET_CRD });
  };
  upd("owner-changed", (s) => void (s.owner = "team-b"));
  upd("owner-unchanged", (s) => void (s.replicas = 3));
  upd("ratchet-unchanged-invalid", (s) => void (s.color = "red"), (s) => void (s.name = "Invalid1"));
  upd("ratchet-changed-invalid", (s) => void (s.name = "Invalid2"), (s) => void (s.name = "Invalid1"));
  upd("tags-duplicate-added", (s) => void (s.tags = ["a", "a"]));
  return out;
}

/** Generated cases of both kinds: built-in objects and custom resources. */
export function generateAllCases(): ValidationCase[] {
  return [...generateCases(), ...crCases()];
}
