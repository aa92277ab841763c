/**
 * THE bare-namespace rule, applied by `admit` wherever a namespace is read (namespaceSelector,
 * `namespaceObject`, Kyverno's namespace checks, Gatekeeper's namespace match):
 *
 * A request names a namespace that exists (the apiserver refuses requests in a namespace that does
 * not), so when it is not among the given objects it is seen as a real apiserver's namespace
 * lister shows a namespace created with only a name: `metadata.name`, the
 * `kubernetes.io/metadata.name: <name>` label the apiserver sets on every namespace
 * (NamespaceDefaultLabelName), `spec.finalizers: [kubernetes]` (set by the namespace strategy on
 * create) and `status.phase: Active`. Server-assigned fields (uid, resourceVersion,
 * creationTimestamp) cannot be known offline and are left out.
 */
import type { JsonObject } from "../admission/index.js";

export function bareNamespace(name: string): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { "kubernetes.io/metadata.name": name } },
    spec: { finalizers: ["kubernetes"] },
    status: { phase: "Active" },
  };
}

/** A namespace lookup over given namespaces that falls back on {@link bareNamespace}, recording the names it made up. */
export function namespaceLookup(given: ReadonlyMap<string, JsonObject>, bare?: string[]): (name: string) => JsonObject {
  return (name) => {
    const g = given.get(name);
    if (g !== undefined) return g;
    if (bare !== undefined && !bare.includes(name)) bare.push(name);
    return bareNamespace(name);
  };
}

/**
 * A given Namespace as the apiserver stores it (namespace strategy, PrepareForCreate): the
 * `kubernetes.io/metadata.name` label set to its name, `kubernetes` in `spec.finalizers`, and
 * `status.phase: Active` when no phase is given. Returns the object itself when nothing changes.
 */
export function storedNamespace(ns: JsonObject): JsonObject {
  const md = isObject(ns.metadata) ? ns.metadata : {};
  const name = typeof md.name === "string" ? md.name : undefined;
  if (name === undefined) return ns;
  const labels = isObject(md.labels) ? md.labels : {};
  const spec = isObject(ns.spec) ? ns.spec : {};
  const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
  const status = isObject(ns.status) ? ns.status : {};
  const labelOk = labels["kubernetes.io/metadata.name"] === name;
  const finalizerOk = finalizers.includes("kubernetes");
  const phaseOk = typeof status.phase === "string" && status.phase !== "";
  if (labelOk && finalizerOk && phaseOk) return ns;
  return {
    ...ns,
    metadata: { ...md, labels: { ...labels, "kubernetes.io/metadata.name": name } },
    spec: { ...spec, finalizers: finalizerOk ? finalizers : [...finalizers, "kubernetes"] },
    status: { ...status, phase: phaseOk ? status.phase! : "Active" },
  };
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
