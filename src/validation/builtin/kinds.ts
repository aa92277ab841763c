/**
 * Validation of built-in kinds after admission, as their registry strategies run it
 * (`k8s.io/kubernetes/pkg/registry/<group>/<resource>/strategy.go` → `pkg/apis/<group>/validation`,
 * v1.36.3, facts read there; celmap's own code). One table entry per kind: whether it is
 * namespaced, how its name is checked, its spec rules on CREATE, and what UPDATE adds
 * (immutable fields). Rules are listed in docs/validation.md.
 */
import { duplicate, forbidden, invalid, notSupported, required, named, tooLong, RawJson, type FieldError } from "../../diag/field-error.js";
import { goJSON } from "../../diag/go-format.js";
import { FieldPath } from "../../diag/field-path.js";
import { isQualifiedName } from "../../policy/names.js";
import { isDNS1123Subdomain } from "./dns.js";
import { validateLabelSelector, validateLabels } from "../../policy/label-selector.js";
import type { LabelSelector } from "../../policy/schemas/common.js";
import { labelSelectorAsSelector, selectorMatches } from "../../admission/selector.js";
import { deepEqual, isJsonObject, type JsonObject, type JsonValue } from "../../admission/json.js";
import { nameIsDNSLabel, nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate, type NameFn } from "./meta.js";
import { dns1123Label, portNumOrName, portNumProblems, validatePodSpec, validatePodTemplateSpec } from "./pod-spec.js";
import { byteLength, has, int, intOrString, intPtr, obj, objects, sortedKeys, str, stringMap, type IntOrString } from "./values.js";

export interface KindValidation {
  readonly namespaced: boolean;
  readonly name: NameFn;
  /** Rules after the metadata on CREATE (and on UPDATE unless `update` replaces them). */
  readonly spec: (o: JsonObject) => FieldError[];
  /** Rules after the metadata on UPDATE (default: `spec`), then immutable fields. */
  readonly update?: (o: JsonObject, old: JsonObject) => FieldError[];
  /** Extra checks after the spec on CREATE. */
  readonly afterCreate?: (o: JsonObject) => FieldError[];
  /** Rules BEFORE the metadata update checks on UPDATE (a strategy that validates the new object first). */
  readonly beforeMetaUpdate?: (o: JsonObject) => FieldError[];
}

const SPEC = FieldPath.root("spec");

/** A struct of an internal API type as `json.Marshal` prints it: Go field names, declaration order. */
function goStruct(fields: readonly (readonly [string, JsonValue | undefined])[]): RawJson {
  return new RawJson(`{${fields.map(([k, v]) => `${JSON.stringify(k)}:${v === undefined ? "null" : goJSON(v)}`).join(",")}}`);
}

/** An `intstr.IntOrString` pointer as printed inside a struct. */
function intstrValue(o: JsonObject | undefined, key: string): JsonValue {
  const v = intOrString(o, key);
  return v === undefined ? null : v.value;
}

function rollingUpdateStruct(ru: JsonObject | undefined): JsonValue | RawJson {
  return ru === undefined ? null : goStruct([["MaxUnavailable", intstrValue(ru, "maxUnavailable")], ["MaxSurge", intstrValue(ru, "maxSurge")]]);
}

function strategyStruct(strategy: JsonObject): RawJson {
  const ru = obj(strategy, "rollingUpdate");
  return new RawJson(`{"Type":${goJSON(str(strategy, "type"))},"RollingUpdate":${ru === undefined ? "null" : (rollingUpdateStruct(ru) as RawJson).text}}`);
}

function statefulRollingStruct(ru: JsonObject): RawJson {
  return goStruct([["Partition", int(ru, "partition")], ["MaxUnavailable", intstrValue(ru, "maxUnavailable")]]);
}
const nonneg = (v: number | undefined, path: FieldPath): FieldError[] => (v !== undefined && v < 0 ? [invalid(path, v, "must be greater than or equal to 0")] : []);
const immutable = (a: JsonValue | undefined, b: JsonValue | undefined, path: FieldPath): FieldError[] => (deepEqual(a ?? null, b ?? null) ? [] : [invalid(path, a ?? null, "field is immutable")]);

/** The template's labels as Go prints a `map[string]string` (null when unset). */
function templateLabels(template: JsonObject | undefined): JsonValue {
  const labels = obj(obj(template, "metadata"), "labels");
  return labels ?? null;
}

function selectorMatchesLabels(selector: JsonObject | undefined, labels: JsonValue): { ok: boolean; empty: boolean } | undefined {
  const r = labelSelectorAsSelector(selector as LabelSelector | undefined);
  if (!r.ok) return undefined;
  const l = isJsonObject(labels) ? (labels as Record<string, string>) : {};
  return { ok: selectorMatches(r.selector, l), empty: r.selector.requirements.length === 0 && !r.selector.nothing };
}

function selectorCount(selector: JsonObject): number {
  return Object.keys(obj(selector, "matchLabels") ?? {}).length + objects(selector, "matchExpressions").length;
}

/** `ValidatePositiveIntOrPercent` + the rolling-update checks of apps validation. */
function intOrPercent(v: IntOrString | undefined, path: FieldPath): FieldError[] {
  if (v === undefined) return [];
  if (v.type === "string") {
    return /^[0-9]+%$/.test(v.value) ? [] : [invalid(path, v.value, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  }
  return nonneg(v.value, path);
}

function percentValue(v: IntOrString | undefined): { value: number; percent: boolean } {
  if (v === undefined) return { value: 0, percent: false };
  if (v.type === "string") return /^[0-9]+%$/.test(v.value) ? { value: Number.parseInt(v.value, 10), percent: true } : { value: 0, percent: false };
  return { value: v.value, percent: false };
}

function rollingUpdate(ru: JsonObject, path: FieldPath, surgeKey = "maxSurge"): FieldError[] {
  const errs: FieldError[] = [];
  const mu = intOrString(ru, "maxUnavailable");
  const ms = intOrString(ru, surgeKey);
  errs.push(...intOrPercent(mu, path.child("maxUnavailable")));
  errs.push(...intOrPercent(ms, path.child(surgeKey)));
  if (percentValue(mu).value === 0 && percentValue(ms).value === 0) errs.push(invalid(path.child("maxUnavailable"), mu?.value ?? 0, "may not be 0 when `maxSurge` is 0"));
  const p = percentValue(mu);
  if (p.percent && p.value > 100) errs.push(invalid(path.child("maxUnavailable"), mu!.value, "must not be greater than 100%"));
  return errs;
}

/** `ValidateRollingUpdateDaemonSet`. */
function rollingUpdateDaemonSet(ru: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const mu = intOrString(ru, "maxUnavailable");
  const ms = intOrString(ru, "maxSurge");
  errs.push(...intOrPercent(mu, path.child("maxUnavailable")));
  errs.push(...intOrPercent(ms, path.child("maxSurge")));
  for (const [v, f] of [[mu, "maxUnavailable"], [ms, "maxSurge"]] as const) {
    const p = percentValue(v);
    if (p.percent && p.value > 100) errs.push(invalid(path.child(f), v!.value, "must not be greater than 100%"));
  }
  const hasUnavailable = percentValue(mu).value !== 0;
  const hasSurge = percentValue(ms).value !== 0;
  if (hasUnavailable && hasSurge) errs.push(invalid(path.child("maxSurge"), ms?.value ?? 0, "may not be set when maxUnavailable is non-zero"));
  else if (!hasUnavailable && !hasSurge) errs.push(required(path.child("maxUnavailable"), "cannot be 0 when maxSurge is 0"));
  return errs;
}

/** `ValidatePodTemplateSpecForReplicaSet`-like: selector match, template, restartPolicy Always, no activeDeadlineSeconds. */
function replicatedTemplate(spec: JsonObject, kindName: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const template = obj(spec, "template");
  const tPath = path.child("template");
  const m = selectorMatchesLabels(obj(spec, "selector"), templateLabels(template));
  if (m !== undefined && !m.empty && !m.ok) errs.push(invalid(tPath.child("metadata", "labels"), templateLabels(template), "`selector` does not match template `labels`"));
  errs.push(...validatePodTemplateSpec(template, tPath));
  const restart = str(obj(template, "spec"), "restartPolicy");
  if (restart !== "Always") errs.push(notSupported(tPath.child("spec", "restartPolicy"), named(restart), ["Always"]));
  if (has(obj(template, "spec"), "activeDeadlineSeconds")) errs.push(forbidden(tPath.child("spec", "activeDeadlineSeconds"), `activeDeadlineSeconds in ${kindName} is not Supported`));
  return errs;
}

function requiredSelector(spec: JsonObject, what: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const sel = obj(spec, "selector");
  if (sel === undefined) return [required(path.child("selector"))];
  errs.push(...validateLabelSelector(sel as LabelSelector, path.child("selector")));
  if (selectorCount(sel) === 0) errs.push(invalid(path.child("selector"), sel, `empty selector is invalid for ${what}`));
  return errs;
}

// ---------------------------------------------------------------------------------------------

function deploymentSpec(o: JsonObject): FieldError[] {
  const spec = obj(o, "spec") ?? {};
  const errs: FieldError[] = [];
  errs.push(...nonneg(int(spec, "replicas"), SPEC.child("replicas")));
  errs.push(...requiredSelector(spec, "deployment", SPEC));
  // ValidatePodTemplateSpecForReplicaSet (selector match first, then template, restart policy)
  const template = obj(spec, "template");
  const tPath = SPEC.child("template");
  const m = selectorMatchesLabels(obj(spec, "selector"), templateLabels(template));
  if (m !== undefined && !m.empty && !m.ok) errs.push(invalid(tPath.child("metadata", "labels"), templateLabels(template), "`selector` does not match template `labels`"));
  errs.push(...validatePodTemplateSpec(template, tPath));
  const restart = str(obj(template, "spec"), "restartPolicy");
  if (restart !== "Always") errs.push(notSupported(tPath.child("spec", "restartPolicy"), named(restart), ["Always"]));
  if (has(obj(template, "spec"), "activeDeadlineSeconds")) errs.push(forbidden(tPath.child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"));
  // strategy
  const strategy = obj(spec, "strategy") ?? {};
  const sPath = SPEC.child("strategy");
  const type = str(strategy, "type");
  if (type === "Recreate") {
    if (has(strategy, "rollingUpdate")) errs.push(forbidden(sPath.child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"));
  } else if (type === "RollingUpdate") {
    const ru = obj(strategy, "rollingUpdate");
    if (ru === undefined) errs.push(required(sPath.child("rollingUpdate"), "this should be defaulted and never be nil"));
    else errs.push(...rollingUpdate(ru, sPath.child("rollingUpdate")));
  } else errs.push(notSupported(sPath, strategyStruct(strategy), ["Recreate", "RollingUpdate"]));
  errs.push(...nonneg(int(spec, "minReadySeconds"), SPEC.child("minReadySeconds")));
  errs.push(...nonneg(intPtr(spec, "revisionHistoryLimit"), SPEC.child("revisionHistoryLimit")));
  const pds = intPtr(spec, "progressDeadlineSeconds");
  if (pds !== undefined) {
    errs.push(...nonneg(pds, SPEC.child("progressDeadlineSeconds")));
    if (pds <= int(spec, "minReadySeconds")) errs.push(invalid(SPEC.child("progressDeadlineSeconds"), pds, "must be greater than minReadySeconds"));
  }
  return errs;
}

function replicaSetSpec(o: JsonObject): FieldError[] {
  const spec = obj(o, "spec") ?? {};
  const errs: FieldError[] = [];
  errs.push(...nonneg(int(spec, "replicas"), SPEC.child("replicas")));
  errs.push(...nonneg(int(spec, "minReadySeconds"), SPEC.child("minReadySeconds")));
  errs.push(...requiredSelector(spec, "deployment", SPEC));
  errs.push(...replicatedTemplate(spec, "ReplicaSet", SPEC));
  return errs;
}

function statefulSetSpec(o: JsonObject): FieldError[] {
  const spec = obj(o, "spec") ?? {};
  const errs: FieldError[] = [];
  const pmp = str(spec, "podManagementPolicy");
  if (pmp === "") errs.push(required(SPEC.child("podManagementPolicy")));
  else if (pmp !== "OrderedReady" && pmp !== "Parallel") errs.push(invalid(SPEC.child("podManagementPolicy"), named(pmp), "must be 'OrderedReady' or 'Parallel'"));
  const us = obj(spec, "updateStrategy") ?? {};
  const ut = str(us, "type");
  if (ut === "") errs.push(required(SPEC.child("updateStrategy")));
  else if (ut === "OnDelete") {
    if (has(us, "rollingUpdate")) errs.push(invalid(SPEC.child("updateStrategy", "rollingUpdate"), statefulRollingStruct(obj(us, "rollingUpdate") ?? {}), "only allowed for updateStrategy 'RollingUpdate'"));
  } else if (ut === "RollingUpdate") {
    const ru = obj(us, "rollingUpdate");
    if (ru !== undefined) errs.push(...nonneg(intPtr(ru, "partition"), SPEC.child("updateStrategy", "rollingUpdate", "partition")));
  } else {
    const ru = obj(us, "rollingUpdate");
    errs.push(invalid(SPEC.child("updateStrategy"), new RawJson(`{"Type":${goJSON(ut)},"RollingUpdate":${ru === undefined ? "null" : statefulRollingStruct(ru).text}}`), "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = obj(spec, "persistentVolumeClaimRetentionPolicy");
  if (retention !== undefined) {
    for (const f of ["whenDeleted", "whenScaled"]) {
      const v = str(retention, f);
      if (v !== "Retain" && v !== "Delete") errs.push(notSupported(SPEC.child("persistentVolumeClaimRetentionPolicy", f), named(v), ["Retain", "Delete"]));
    }
  }
  errs.push(...nonneg(int(spec, "replicas"), SPEC.child("replicas")));
  errs.push(...nonneg(int(spec, "minReadySeconds"), SPEC.child("minReadySeconds")));
  const svc = str(spec, "serviceName");
  if (svc !== "") errs.push(...dns1123Label(svc, SPEC.child("serviceName")));
  errs.push(...requiredSelector(spec, "statefulset", SPEC));
  // ValidatePodTemplateSpecForStatefulSet: match, template (hostname/subdomain cleared), labels and annotations again.
  const template = obj(spec, "template");
  const tPath = SPEC.child("template");
  const m = selectorMatchesLabels(obj(spec, "selector"), templateLabels(template));
  if (m !== undefined) {
    if (!m.empty && !m.ok) errs.push(invalid(tPath.child("metadata", "labels"), templateLabels(template), "`selector` does not match template `labels`"));
    const t = template === undefined ? undefined : { ...template, spec: { ...(obj(template, "spec") ?? {}), hostname: "", subdomain: "" } };
    errs.push(...validatePodTemplateSpec(t, tPath));
    errs.push(...validateLabels(stringMap(obj(template, "metadata"), "labels"), tPath.child("labels")));
  }
  const restart = str(obj(template, "spec"), "restartPolicy");
  if (restart !== "Always") errs.push(notSupported(tPath.child("spec", "restartPolicy"), named(restart), ["Always"]));
  if (has(obj(template, "spec"), "activeDeadlineSeconds")) errs.push(forbidden(tPath.child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in StatefulSet is not Supported"));
  return errs;
}

function daemonSetSpec(o: JsonObject): FieldError[] {
  const spec = obj(o, "spec") ?? {};
  const errs: FieldError[] = [];
  const sel = obj(spec, "selector");
  if (sel !== undefined) errs.push(...validateLabelSelector(sel as LabelSelector, SPEC.child("selector")));
  const template = obj(spec, "template");
  const m = selectorMatchesLabels(sel, templateLabels(template));
  if (m !== undefined && !m.ok) errs.push(invalid(SPEC.child("template", "metadata", "labels"), templateLabels(template), "`selector` does not match template `labels`"));
  if (sel !== undefined && selectorCount(sel) === 0) errs.push(invalid(SPEC.child("selector"), sel, "empty selector is invalid for daemonset"));
  errs.push(...validatePodTemplateSpec(template, SPEC.child("template")));
  const restart = str(obj(template, "spec"), "restartPolicy");
  if (restart !== "Always") errs.push(notSupported(SPEC.child("template", "spec", "restartPolicy"), named(restart), ["Always"]));
  if (has(obj(template, "spec"), "activeDeadlineSeconds")) errs.push(forbidden(SPEC.child("template", "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in DaemonSet is not Supported"));
  errs.push(...nonneg(int(spec, "minReadySeconds"), SPEC.child("minReadySeconds")));
  errs.push(...nonneg(int(spec, "templateGeneration"), SPEC.child("templateGeneration")));
  const us = obj(spec, "updateStrategy") ?? {};
  const ut = str(us, "type");
  const usPath = SPEC.child("updateStrategy");
  if (ut === "RollingUpdate") {
    const ru = obj(us, "rollingUpdate");
    if (ru === undefined) errs.push(required(usPath.child("rollingUpdate")));
    else errs.push(...rollingUpdateDaemonSet(ru, usPath.child("rollingUpdate")));
  } else if (ut !== "OnDelete") errs.push(notSupported(usPath, strategyStruct(us), ["RollingUpdate", "OnDelete"]));
  errs.push(...nonneg(intPtr(spec, "revisionHistoryLimit"), SPEC.child("revisionHistoryLimit")));
  return errs;
}

/** `validateJobSpec` (the parts common to Jobs and CronJob job templates). */
function jobSpecCommon(spec: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ["parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"]) {
    errs.push(...nonneg(intPtr(spec, f), path.child(f)));
  }
  const mode = has(spec, "completionMode") ? str(spec, "completionMode") : undefined;
  if (mode !== undefined && mode !== "NonIndexed" && mode !== "Indexed") errs.push(notSupported(path.child("completionMode"), named(mode), ["NonIndexed", "Indexed"]));
  if (mode === "Indexed" && !has(spec, "completions")) errs.push(required(path.child("completions"), "when completion mode is Indexed"));
  if (mode === undefined || mode === "NonIndexed") {
    const bl = intPtr(spec, "backoffLimitPerIndex");
    if (bl !== undefined) errs.push(invalid(path.child("backoffLimitPerIndex"), bl, "requires indexed completion mode"));
  }
  const prp = has(spec, "podReplacementPolicy") ? str(spec, "podReplacementPolicy") : undefined;
  if (prp !== undefined && prp !== "TerminatingOrFailed" && prp !== "Failed") errs.push(notSupported(path.child("podReplacementPolicy"), named(prp), ["Failed", "TerminatingOrFailed"]));
  const template = obj(spec, "template");
  errs.push(...validatePodTemplateSpec(template, path.child("template")));
  const restart = str(obj(template, "spec"), "restartPolicy");
  const rPath = path.child("template", "spec", "restartPolicy");
  if (restart === "Always" || restart === "") errs.push(required(rPath, 'valid values: "OnFailure", "Never"'));
  else if (restart !== "OnFailure" && restart !== "Never") errs.push(notSupported(rPath, named(restart), ["OnFailure", "Never"]));
  else if (has(spec, "podFailurePolicy") && restart !== "Never") errs.push(invalid(rPath, named(restart), 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

function jobSpec(o: JsonObject): FieldError[] {
  let spec = obj(o, "spec") ?? {};
  if (spec.manualSelector !== true) {
    // The job strategy generates the selector and labels the template with the job's name and uid.
    const name = str(obj(o, "metadata"), "name");
    const uid = str(obj(o, "metadata"), "uid") || "00000000-0000-0000-0000-000000000000";
    const t = obj(spec, "template") ?? {};
    const md = obj(t, "metadata") ?? {};
    const labels = { ...(obj(md, "labels") ?? {}), "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name, "controller-uid": uid, "job-name": name };
    spec = { ...spec, template: { ...t, metadata: { ...md, labels } } };
  }
  const errs = jobSpecCommon(spec, SPEC);
  // A non-manual selector is generated by the strategy (controller-uid labels) and matches.
  if (spec.manualSelector === true) {
    errs.push(...(has(spec, "selector") ? validateLabelSelector(obj(spec, "selector") as LabelSelector, SPEC.child("selector")) : [required(SPEC.child("selector"))]));
    const m = selectorMatchesLabels(obj(spec, "selector"), templateLabels(obj(spec, "template")));
    if (m !== undefined && !m.ok) errs.push(invalid(SPEC.child("template", "metadata", "labels"), templateLabels(obj(spec, "template")), "`selector` does not match template `labels`"));
  }
  return errs;
}

function cronJobSpec(o: JsonObject): FieldError[] {
  const spec = obj(o, "spec") ?? {};
  const errs: FieldError[] = [];
  if (str(spec, "schedule") === "") errs.push(required(SPEC.child("schedule")));
  errs.push(...nonneg(intPtr(spec, "startingDeadlineSeconds"), SPEC.child("startingDeadlineSeconds")));
  const cp = str(spec, "concurrencyPolicy");
  if (cp === "") errs.push(required(SPEC.child("concurrencyPolicy")));
  else if (!["Allow", "Forbid", "Replace"].includes(cp)) errs.push(notSupported(SPEC.child("concurrencyPolicy"), named(cp), ["Allow", "Forbid", "Replace"]));
  const jt = obj(obj(spec, "jobTemplate"), "spec") ?? {};
  const jtPath = SPEC.child("jobTemplate", "spec");
  errs.push(...jobSpecCommon(jt, jtPath));
  if (has(jt, "selector")) errs.push(invalid(jtPath.child("selector"), obj(jt, "selector") ?? null, "`selector` will be auto-generated"));
  if (jt.manualSelector === true) errs.push(notSupported(jtPath.child("manualSelector"), true, ["nil", "false"]));
  errs.push(...nonneg(intPtr(spec, "successfulJobsHistoryLimit"), SPEC.child("successfulJobsHistoryLimit")));
  errs.push(...nonneg(intPtr(spec, "failedJobsHistoryLimit"), SPEC.child("failedJobsHistoryLimit")));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Core kinds

const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];

function serviceSpec(o: JsonObject): FieldError[] {
  const spec = obj(o, "spec") ?? {};
  const errs: FieldError[] = [];
  const type = str(spec, "type");
  const headless = str(spec, "clusterIP") === "None";
  const ports = objects(spec, "ports");
  if (ports.length === 0 && !headless && type !== "ExternalName") errs.push(required(SPEC.child("ports")));
  if (type === "ExternalName") {
    const cname = str(spec, "externalName").replace(/\.$/, "");
    if (cname === "") errs.push(required(SPEC.child("externalName")));
    else for (const m of isDNS1123Subdomain(cname)) errs.push(invalid(SPEC.child("externalName"), cname, m));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const pp = SPEC.child("ports").index(i);
    const name = str(p, "name");
    if (ports.length > 1 && name === "") errs.push(required(pp.child("name")));
    else if (name !== "") {
      errs.push(...dns1123Label(name, pp.child("name")));
      if (names.has(name)) errs.push(duplicate(pp.child("name"), name));
      else names.add(name);
    }
    const port = int(p, "port");
    for (const m of portNumProblems(port)) errs.push(invalid(pp.child("port"), port, m));
    const proto = str(p, "protocol");
    if (proto === "") errs.push(required(pp.child("protocol")));
    else if (!["SCTP", "TCP", "UDP"].includes(proto)) errs.push(notSupported(pp.child("protocol"), named(proto), ["SCTP", "TCP", "UDP"]));
    errs.push(...portNumOrName(p, "targetPort", pp.child("targetPort")));
    if (has(p, "appProtocol")) for (const m of isQualifiedName(str(p, "appProtocol"))) errs.push(invalid(pp.child("appProtocol"), str(p, "appProtocol"), m));
  });
  if (has(spec, "selector")) errs.push(...validateLabels(stringMap(spec, "selector"), SPEC.child("selector")));
  const affinity = str(spec, "sessionAffinity");
  if (affinity === "") errs.push(required(SPEC.child("sessionAffinity")));
  else if (affinity !== "ClientIP" && affinity !== "None") errs.push(notSupported(SPEC.child("sessionAffinity"), named(affinity), ["ClientIP", "None"]));
  if (type === "") errs.push(required(SPEC.child("type")));
  else if (!SERVICE_TYPES.includes(type)) errs.push(notSupported(SPEC.child("type"), named(type), SERVICE_TYPES));
  if (type === "ClusterIP") ports.forEach((p, i) => {
    if (int(p, "nodePort") !== 0) errs.push(forbidden(SPEC.child("ports").index(i).child("nodePort"), "may not be used when `type` is 'ClusterIP'"));
  });
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    const np = int(p, "nodePort");
    if (np === 0) return;
    const key = `${str(p, "protocol")}/${np}`;
    if (nodePorts.has(key)) errs.push(duplicate(SPEC.child("ports").index(i).child("nodePort"), np));
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${str(p, "protocol")}/${int(p, "port")}`;
    // Go prints the ServicePort key struct with only Port and Protocol set.
    if (seen.has(key)) {
      const key_ = goStruct([["Name", ""], ["Protocol", str(p, "protocol")], ["AppProtocol", null], ["Port", int(p, "port")], ["TargetPort", 0], ["NodePort", 0]]);
      errs.push(duplicate(SPEC.child("ports").index(i), key_));
    }
    seen.add(key);
  });
  return errs;
}

/** `ValidateConfigMap` after the metadata. */
function configMapData(o: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  const data = stringMap(o, "data") ?? {};
  const binary = obj(o, "binaryData") ?? {};
  for (const k of sortedKeys(data)) {
    for (const m of configMapKeyProblems(k)) errs.push(invalid(FieldPath.root("data").key(k), k, m));
    if (binary[k] !== undefined) errs.push(invalid(FieldPath.root("data").key(k), k, "duplicate of key present in binaryData"));
    total += byteLength(data[k]!);
  }
  for (const k of sortedKeys(binary)) {
    for (const m of configMapKeyProblems(k)) errs.push(invalid(FieldPath.root("binaryData").key(k), k, m));
    total += base64Length(binary[k]);
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong(FieldPath.empty, MAX_SECRET_SIZE));
  return errs;
}

const MAX_SECRET_SIZE = 1024 * 1024;

function base64Length(b: JsonValue | undefined): number {
  if (typeof b !== "string") return 0;
  const pad = b.endsWith("==") ? 2 : b.endsWith("=") ? 1 : 0;
  return Math.floor((b.length * 3) / 4) - pad;
}

/** `validation.IsConfigMapKey`. */
function configMapKeyProblems(k: string): string[] {
  const errs: string[] = [];
  if (byteLength(k) > 253) errs.push("must be no more than 253 bytes");
  if (!/^[-._a-zA-Z0-9]+$/.test(k)) errs.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  if (k === ".") errs.push("must not be '.'");
  else if (k === "..") errs.push("must not be '..'");
  else if (k.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

/** `ValidateSecret` after the metadata. */
function secretData(o: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const data = obj(o, "data") ?? {};
  const dataPath = FieldPath.root("data");
  let total = 0;
  for (const k of sortedKeys(data)) {
    for (const m of configMapKeyProblems(k)) errs.push(invalid(dataPath.key(k), k, m));
    total += base64Length(data[k]);
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong(dataPath, MAX_SECRET_SIZE));
  const has_ = (k: string): boolean => data[k] !== undefined;
  switch (str(o, "type")) {
    case "kubernetes.io/service-account-token": {
      const ann = stringMap(obj(o, "metadata"), "annotations") ?? {};
      if ((ann["kubernetes.io/service-account.name"] ?? "") === "") errs.push(required(FieldPath.root("metadata", "annotations").key("kubernetes.io/service-account.name")));
      break;
    }
    case "kubernetes.io/dockercfg":
      if (!has_(".dockercfg")) errs.push(required(dataPath.key(".dockercfg")));
      break;
    case "kubernetes.io/dockerconfigjson":
      if (!has_(".dockerconfigjson")) errs.push(required(dataPath.key(".dockerconfigjson")));
      break;
    case "kubernetes.io/basic-auth":
      if (!has_("username") && !has_("password")) errs.push(required(dataPath.key("username")), required(dataPath.key("password")));
      break;
    case "kubernetes.io/ssh-auth":
      if (base64Length(data["ssh-privatekey"]) === 0) errs.push(required(dataPath.key("ssh-privatekey")));
      break;
    case "kubernetes.io/tls":
      if (!has_("tls.crt")) errs.push(required(dataPath.key("tls.crt")));
      if (!has_("tls.key")) errs.push(required(dataPath.key("tls.key")));
      break;
  }
  return errs;
}

/** Create-time metadata validation, which several UPDATE validations run again on the new object. */
function createMeta(o: JsonObject, name: NameFn): FieldError[] {
  return validateObjectMeta(obj(o, "metadata") ?? {}, true, name);
}

const KIND_TABLE: Readonly<Record<string, KindValidation>> = {
  "/Pod": {
    namespaced: true,
    name: nameIsDNSSubdomain,
    spec: (o) => validatePodSpec(obj(o, "spec") ?? {}, SPEC),
    update: (o, old) => podUpdate(o, old),
  },
  "/Service": {
    namespaced: true,
    // RelaxedServiceNameValidation is beta-on in 1.36: a DNS-1123 label.
    name: nameIsDNSLabel,
    spec: serviceSpec,
    update: (o, old) => [...serviceClusterIPsUpdate(o, old), ...serviceSpec(o)],
  },
  "/ConfigMap": {
    namespaced: true,
    name: nameIsDNSSubdomain,
    spec: configMapData,
    update: (o, old) => [...(old.immutable === true ? immutableData(o, old, ["data", "binaryData"]) : []), ...createMeta(o, nameIsDNSSubdomain), ...configMapData(o)],
  },
  "/Secret": {
    namespaced: true,
    name: nameIsDNSSubdomain,
    spec: secretData,
    update: (o, old) => [
      ...immutable(o.type ?? "", old.type ?? "", FieldPath.root("type")),
      ...(old.immutable === true ? immutableData(o, old, ["data"]) : []),
      ...createMeta(o, nameIsDNSSubdomain),
      ...secretData(o),
    ],
  },
  // namespaceStrategy.ValidateUpdate (pkg/registry/core/namespace/strategy.go:138): ValidateNamespace
  // (the object's metadata, as on CREATE) and then ValidateNamespaceUpdate (ValidateObjectMetaUpdate):
  // a bad finalizer name is reported twice.
  "/Namespace": { namespaced: false, name: nameIsDNSLabel, spec: () => [], update: () => [], beforeMetaUpdate: (o) => validateObjectMeta(obj(o, "metadata") ?? {}, false, nameIsDNSLabel) },
  "/ServiceAccount": { namespaced: true, name: nameIsDNSSubdomain, spec: () => [], update: (o) => createMeta(o, nameIsDNSSubdomain) },
  "apps/Deployment": {
    namespaced: true,
    name: nameIsDNSSubdomain,
    spec: deploymentSpec,
    update: (o, old) => [...deploymentSpec(o), ...immutable(obj(o, "spec")?.selector, obj(old, "spec")?.selector, SPEC.child("selector"))],
  },
  "apps/ReplicaSet": {
    namespaced: true,
    name: nameIsDNSSubdomain,
    spec: replicaSetSpec,
    update: (o, old) => [...replicaSetSpec(o), ...immutable(obj(o, "spec")?.selector, obj(old, "spec")?.selector, SPEC.child("selector"))],
  },
  "apps/StatefulSet": { namespaced: true, name: nameIsDNSLabel, spec: statefulSetSpec },
  "apps/DaemonSet": {
    namespaced: true,
    name: nameIsDNSSubdomain,
    spec: daemonSetSpec,
    update: (o, old) => [...daemonSetSpec(o), ...immutable(obj(o, "spec")?.selector, obj(old, "spec")?.selector, SPEC.child("selector"))],
  },
  "batch/Job": { namespaced: true, name: nameIsDNSSubdomain, spec: jobSpec },
  "batch/CronJob": {
    namespaced: true,
    name: nameIsDNSSubdomain,
    spec: cronJobSpec,
    afterCreate: (o) => {
      const name = str(obj(o, "metadata"), "name");
      return name.length > 52 ? [invalid(FieldPath.root("metadata", "name"), name, "must be no more than 52 characters")] : [];
    },
  },
};

/** `validateUpgradeDowngradeClusterIPs`: allocated cluster IPs do not change. */
function serviceClusterIPsUpdate(o: JsonObject, old: JsonObject): FieldError[] {
  const spec = obj(o, "spec") ?? {};
  const oldSpec = obj(old, "spec") ?? {};
  if (str(spec, "type") === "ExternalName" || str(oldSpec, "type") === "ExternalName") return [];
  if (str(spec, "clusterIP") === "None" && str(oldSpec, "clusterIP") === "None") return [];
  const ips = objectsOrStrings(spec.clusterIPs);
  const oldIps = objectsOrStrings(oldSpec.clusterIPs);
  const path = SPEC.child("clusterIPs");
  const value = (spec.clusterIPs ?? null) as JsonValue;
  if (ips.length === oldIps.length) return oldIps.flatMap((ip, i) => (ip !== ips[i] ? [invalid(path.index(i), value, "may not change once set")] : []));
  if (oldIps.length > ips.length && ips.length === 0) return [invalid(path.index(0), value, "primary clusterIP can not be unset")];
  return [];
}

function objectsOrStrings(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.map((x) => (typeof x === "string" ? x : "")) : [];
}

function immutableData(o: JsonObject, old: JsonObject, fields: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  if (o.immutable !== true) errs.push(forbidden(FieldPath.root("immutable"), "field is immutable when `immutable` is set"));
  for (const f of fields) if (!deepEqual(o[f] ?? null, old[f] ?? null)) errs.push(forbidden(FieldPath.root(f), "field is immutable when `immutable` is set"));
  return errs;
}

/** Pod updates: only a few spec fields may change (`ValidatePodUpdate`); reported as the apiserver's one Forbidden. */
function podUpdate(o: JsonObject, old: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o, "spec") ?? {};
  const oldSpec = obj(old, "spec") ?? {};
  errs.push(...validatePodSpec(spec, SPEC));
  // Mutable: container images, activeDeadlineSeconds, tolerations (additions), terminationGracePeriodSeconds, schedulingGates.
  const strip = (s: JsonObject): JsonObject => {
    const c: JsonObject = { ...s };
    for (const f of ["activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds", "schedulingGates"]) delete c[f];
    for (const l of ["containers", "initContainers"]) {
      if (Array.isArray(c[l])) c[l] = (c[l] as JsonValue[]).map((x) => (isJsonObject(x) ? { ...x, image: "", resources: null } : x));
    }
    return c;
  };
  if (!deepEqual(strip(spec), strip(oldSpec))) {
    errs.push(forbidden(SPEC, "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"));
  }
  return errs;
}

/** The validation of a built-in kind (`group/Kind` of apiVersion v1), or undefined when celmap has none. */
export function kindValidation(group: string, kind: string): KindValidation | undefined {
  return KIND_TABLE[`${group}/${kind}`];
}

/** Built-in validation of `o` on CREATE (`old` undefined) or UPDATE. */
export function validateBuiltin(v: KindValidation, o: JsonObject, old: JsonObject | undefined): FieldError[] {
  const md = obj(o, "metadata") ?? {};
  if (old === undefined) {
    return [...validateObjectMeta(md, v.namespaced, v.name), ...v.spec(o), ...(v.afterCreate?.(o) ?? [])];
  }
  const oldMd = obj(old, "metadata") ?? {};
  return [...(v.beforeMetaUpdate?.(o) ?? []), ...validateObjectMetaUpdate(md, oldMd), ...(v.update ?? v.spec)(o, old)];
}

