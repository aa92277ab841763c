/**
 * A Pod's spec and a pod template as kube-apiserver 1.36 validates them (`ValidatePodSpec`,
 * `ValidatePodTemplateSpec` in `k8s.io/kubernetes/pkg/apis/core/validation`), for the rules that
 * mutations typically break: volumes (a source, names, duplicates), containers (required, names
 * unique across containers and init containers, image, ports, env names, volume mounts,
 * pull policy, termination message policy, restart policy), init containers (restartPolicy
 * Always only; probes and lifecycle only for sidecars), pod restartPolicy and dnsPolicy,
 * nodeSelector, serviceAccountName, activeDeadlineSeconds, hostname, subdomain, priorityClassName.
 * Errors come in the apiserver's order. Not checked: resources, security contexts, probes'
 * handlers, affinity, tolerations, topology spread, DNS config, OS-specific rules.
 */
import { duplicate, forbidden, invalid, notFound, notSupported, required, named, type FieldError } from "../../diag/field-error.js";
import type { FieldPath } from "../../diag/field-path.js";
import { isDNS1123Label, isDNS1123Subdomain } from "./dns.js";
import { validateLabels } from "../../policy/label-selector.js";
import type { JsonObject } from "../../admission/json.js";
import { validateAnnotations } from "./meta.js";
import { has, int, intOrString, intPtr, obj, objects, rawInt, str, stringMap } from "./values.js";

const PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const CONTAINER_RESTART_POLICIES = ["Always", "Never", "OnFailure"];

export function dns1123Label(value: string, path: FieldPath): FieldError[] {
  return isDNS1123Label(value).map((m) => invalid(path, value, m));
}

/** `validation.IsValidPortNum`. */
export function portNumProblems(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : ["must be between 1 and 65535, inclusive"];
}

/** `validation.IsValidPortName`. */
export function portNameProblems(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(port)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-"))) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** `ValidatePortNumOrName`. */
export function portNumOrName(o: JsonObject, key: string, path: FieldPath): FieldError[] {
  const p = intOrString(o, key) ?? { type: "int" as const, value: 0 };
  if (p.type === "int") return portNumProblems(p.value).map((m) => invalid(path, p.value, m));
  return portNameProblems(p.value).map((m) => invalid(path, p.value, m));
}

const VOLUME_SOURCES = [
  "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi", "glusterfs", "flocker",
  "persistentVolumeClaim", "rbd", "quobyte", "cephfs", "cinder", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume",
  "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
];

/** `ValidateVolumes` (names, duplicates, one source each); returns the names of the valid volumes. */
function validateVolumes(spec: JsonObject, path: FieldPath): { names: Set<string>; errs: FieldError[] } {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objects(spec, "volumes").forEach((vol, i) => {
    const idx = path.index(i);
    const el: FieldError[] = [];
    let count = 0;
    for (const s of VOLUME_SOURCES) {
      if (!has(vol, s)) continue;
      if (count > 0) el.push(forbidden(idx.child(s), "may not specify more than 1 volume type"));
      else count++;
    }
    if (count === 0) el.push(required(idx, "must specify a volume type"));
    const name = str(vol, "name");
    if (name === "") el.push(required(idx.child("name")));
    else el.push(...dns1123Label(name, idx.child("name")));
    if (names.has(name)) el.push(duplicate(idx.child("name"), name));
    if (el.length === 0) names.add(name);
    else errs.push(...el);
  });
  return { names, errs };
}

function validatePorts(c: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objects(c, "ports").forEach((p, i) => {
    const idx = path.index(i);
    const name = str(p, "name");
    if (name !== "") {
      const msgs = portNameProblems(name);
      if (msgs.length > 0) for (const m of msgs) errs.push(invalid(idx.child("name"), name, m));
      else if (names.has(name)) errs.push(duplicate(idx.child("name"), name));
      else names.add(name);
    }
    const cp = int(p, "containerPort");
    if (cp === 0) errs.push(required(idx.child("containerPort")));
    else for (const m of portNumProblems(cp)) errs.push(invalid(idx.child("containerPort"), cp, m));
    const hp = int(p, "hostPort");
    if (hp !== 0) for (const m of portNumProblems(hp)) errs.push(invalid(idx.child("hostPort"), hp, m));
    const proto = str(p, "protocol");
    if (proto === "") errs.push(required(idx.child("protocol")));
    else if (!PORT_PROTOCOLS.includes(proto)) errs.push(notSupported(idx.child("protocol"), named(proto), PORT_PROTOCOLS));
  });
  return errs;
}

function validateEnv(c: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  objects(c, "env").forEach((e, i) => {
    const name = str(e, "name");
    if (name === "") errs.push(required(path.index(i).child("name")));
    // RelaxedEnvironmentVariableValidation is GA: printable ASCII other than '='.
    else if ([...name].some((ch) => ch.charCodeAt(0) > 126 || ch.charCodeAt(0) < 32 || ch === "=")) {
      errs.push(invalid(path.index(i).child("name"), name, "a valid environment variable name must consist only of printable ASCII characters other than '='"));
    }
  });
  return errs;
}

function validateVolumeMounts(c: JsonObject, volumes: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const mountPoints = new Set<string>();
  objects(c, "volumeMounts").forEach((m, i) => {
    const idx = path.index(i);
    const name = str(m, "name");
    if (name === "") errs.push(required(idx.child("name")));
    if (!volumes.has(name)) errs.push(notFound(idx.child("name"), name));
    const mountPath = str(m, "mountPath");
    if (mountPath === "") errs.push(required(idx.child("mountPath")));
    if (mountPoints.has(mountPath)) errs.push(invalid(idx.child("mountPath"), mountPath, "must be unique"));
    mountPoints.add(mountPath);
    if (str(m, "subPathExpr") !== "" && str(m, "subPath") !== "") errs.push(invalid(idx.child("subPathExpr"), str(m, "subPathExpr"), "subPathExpr and subPath are mutually exclusive"));
  });
  return errs;
}

/** `validateContainerCommon`. */
function validateContainerCommon(c: JsonObject, volumes: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c, "name");
  if (name === "") errs.push(required(path.child("name")));
  else errs.push(...dns1123Label(name, path.child("name")));
  if (str(c, "image") === "") errs.push(required(path.child("image")));
  const tmp = str(c, "terminationMessagePolicy");
  if (tmp === "") errs.push(required(path.child("terminationMessagePolicy")));
  else if (tmp !== "File" && tmp !== "FallbackToLogsOnError") errs.push(notSupported(path.child("terminationMessagePolicy"), named(tmp), ["File", "FallbackToLogsOnError"]));
  errs.push(...validatePorts(c, path.child("ports")));
  errs.push(...validateEnv(c, path.child("env")));
  errs.push(...validateVolumeMounts(c, volumes, path.child("volumeMounts")));
  const pull = str(c, "imagePullPolicy");
  if (pull === "") errs.push(required(path.child("imagePullPolicy")));
  else if (!PULL_POLICIES.includes(pull)) errs.push(notSupported(path.child("imagePullPolicy"), named(pull), PULL_POLICIES));
  return errs;
}

/** `AccumulateUniqueHostPorts`: `<hostPort>/<protocol>` unique. */
function hostPortConflicts(containers: readonly JsonObject[], path: FieldPath, seen = new Set<string>()): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((c, ci) => {
    objects(c, "ports").forEach((p, pi) => {
      const hp = int(p, "hostPort");
      if (hp === 0) return;
      const key = `${str(p, "protocol")}/${str(p, "hostIP")}/${hp}`;
      if (seen.has(key)) errs.push(duplicate(path.index(ci).child("ports").index(pi).child("hostPort"), key));
      else seen.add(key);
    });
  });
  return errs;
}

const FORBIDDEN_FOR_INIT = ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"];

/** `ValidatePodSpec` (the rules listed in the module comment). `isPod`: a Pod rather than a template. */
export function validatePodSpec(spec: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!has(spec, "terminationGracePeriodSeconds")) errs.push(required(path.child("terminationGracePeriodSeconds")));
  const vols = validateVolumes(spec, path.child("volumes"));
  errs.push(...vols.errs);

  // containers
  const containers = objects(spec, "containers");
  const cPath = path.child("containers");
  if (containers.length === 0) errs.push(required(cPath));
  else {
    const names = new Set<string>();
    containers.forEach((c, i) => {
      const p = cPath.index(i);
      errs.push(...validateContainerCommon(c, vols.names, p));
      const name = str(c, "name");
      if (names.has(name)) errs.push(duplicate(p.child("name"), name));
      else names.add(name);
      // ContainerRestartRules is on (beta): a regular container may set Always, Never or OnFailure.
      if (has(c, "restartPolicy") && !CONTAINER_RESTART_POLICIES.includes(str(c, "restartPolicy"))) {
        errs.push(notSupported(p.child("restartPolicy"), named(str(c, "restartPolicy")), CONTAINER_RESTART_POLICIES));
      }
    });
    errs.push(...hostPortConflicts(containers, cPath));
  }

  // initContainers
  const iPath = path.child("initContainers");
  const all = new Set(containers.map((c) => str(c, "name")));
  objects(spec, "initContainers").forEach((c, i) => {
    const p = iPath.index(i);
    errs.push(...validateContainerCommon(c, vols.names, p));
    const policy = has(c, "restartPolicy") ? str(c, "restartPolicy") : undefined;
    if (policy !== undefined && policy !== "Always" && !CONTAINER_RESTART_POLICIES.includes(policy)) {
      errs.push(notSupported(p.child("restartPolicy"), named(policy), CONTAINER_RESTART_POLICIES));
    }
    const name = str(c, "name");
    if (all.has(name)) errs.push(duplicate(p.child("name"), name));
    else if (name !== "") all.add(name);
    errs.push(...hostPortConflicts([c], iPath));
    if (policy !== "Always") {
      for (const f of FORBIDDEN_FOR_INIT) if (has(c, f)) errs.push(forbidden(p.child(f), "may not be set for init containers without restartPolicy=Always"));
    }
  });

  const restart = str(spec, "restartPolicy");
  if (restart === "") errs.push(required(path.child("restartPolicy")));
  else if (!["Always", "OnFailure", "Never"].includes(restart)) errs.push(notSupported(path.child("restartPolicy"), named(restart), ["Always", "OnFailure", "Never"]));
  const dns = str(spec, "dnsPolicy");
  if (dns === "") errs.push(required(path.child("dnsPolicy")));
  else if (!["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"].includes(dns)) {
    errs.push(notSupported(path.child("dnsPolicy"), named(dns), ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]));
  }
  errs.push(...validateLabels(stringMap(spec, "nodeSelector"), path.child("nodeSelector")));
  const sa = str(spec, "serviceAccountName");
  if (sa !== "") for (const m of isDNS1123Subdomain(sa)) errs.push(invalid(path.child("serviceAccountName"), sa, m));
  const node = str(spec, "nodeName");
  if (node !== "") for (const m of isDNS1123Subdomain(node)) errs.push(invalid(path.child("nodeName"), node, m));
  const ads = intPtr(spec, "activeDeadlineSeconds");
  if (ads !== undefined && (ads < 1 || ads > 2147483647)) errs.push(invalid(path.child("activeDeadlineSeconds"), rawInt(spec, "activeDeadlineSeconds") ?? ads, "must be between 1 and 2147483647, inclusive"));
  if (str(spec, "hostname") !== "") errs.push(...dns1123Label(str(spec, "hostname"), path.child("hostname")));
  if (str(spec, "subdomain") !== "") errs.push(...dns1123Label(str(spec, "subdomain"), path.child("subdomain")));
  const pc = str(spec, "priorityClassName");
  if (pc !== "") for (const m of isDNS1123Subdomain(pc)) errs.push(invalid(path.child("priorityClassName"), pc, m));
  return errs;
}

/** `ValidatePodTemplateSpec`: labels, annotations, the spec; no ephemeral containers. */
export function validatePodTemplateSpec(template: JsonObject | undefined, path: FieldPath): FieldError[] {
  const t = template ?? {};
  const md = obj(t, "metadata");
  const errs: FieldError[] = [];
  errs.push(...validateLabels(stringMap(md, "labels"), path.child("labels")));
  errs.push(...validateAnnotations(stringMap(md, "annotations"), path.child("annotations")));
  const spec = obj(t, "spec") ?? {};
  errs.push(...validatePodSpec(spec, path.child("spec")));
  if (objects(spec, "ephemeralContainers").length > 0) errs.push(forbidden(path.child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"));
  return errs;
}
