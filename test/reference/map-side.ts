/** celmap's answer to a mapref request: the same policies through `src/admission`'s `evaluate`. */
import { SchemaRegistry } from "../../src/kube/schema.js";
import { crdSchemaNode, evaluate, inMemoryParamSource, newAdmissionRequest, policyCompileHook, ResourceCatalog, type JsonObject } from "../../src/admission/index.js";
import { collectPolicies } from "../../src/policy/index.js";

export interface MapRequest {
  readonly policies: readonly JsonObject[];
  readonly bindings: readonly JsonObject[];
  readonly namespaces: readonly JsonObject[];
  readonly operation: "CREATE" | "UPDATE";
  readonly object: JsonObject;
  readonly oldObject: JsonObject | null;
  readonly resource: { group: string; version: string; resource: string };
  /** Param objects (ConfigMaps) for paramRefs. */
  readonly params?: readonly JsonObject[];
  /** CustomResourceDefinitions (apiextensions.k8s.io/v1) the request's kind may be one of. */
  readonly crds?: readonly JsonObject[];
}

export interface MapAnswer {
  readonly allowed: boolean;
  readonly object?: unknown;
  readonly code?: number;
  readonly message?: string;
  readonly error?: string;
}

let builtin: { catalog: ResourceCatalog; schemas: SchemaRegistry } | undefined;
const withCrds = new Map<string, { catalog: ResourceCatalog; schemas: SchemaRegistry }>();

/** The resource catalog and schemas: the built-ins, plus the request's CRDs (as `src/engine/load.ts` registers them). */
function kinds(crds: readonly JsonObject[] | undefined): { catalog: ResourceCatalog; schemas: SchemaRegistry } {
  if (crds === undefined || crds.length === 0) return (builtin ??= { catalog: ResourceCatalog.builtin(), schemas: SchemaRegistry.builtin() });
  const key = JSON.stringify(crds);
  let k = withCrds.get(key);
  if (k === undefined) {
    k = { catalog: ResourceCatalog.builtin(), schemas: SchemaRegistry.builtin() };
    for (const crd of crds) {
      const err = k.catalog.addCustomResourceDefinition(crd as never);
      if (err !== undefined) throw new Error(err);
      const spec = crd.spec as { group: string; names: { kind: string }; versions: { name: string; schema?: { openAPIV3Schema?: JsonObject } }[] };
      for (const v of spec.versions) {
        if (v.schema?.openAPIV3Schema !== undefined) k.schemas.addKind(`${spec.group}/${v.name}`, spec.names.kind, crdSchemaNode(v.schema.openAPIV3Schema));
      }
    }
    withCrds.set(key, k);
  }
  return k;
}

export function celmapMapAnswer(req: MapRequest): MapAnswer {
  try {
    const { catalog, schemas } = kinds(req.crds);
    const set = collectPolicies([...req.policies, ...req.bindings].map((value) => ({ value })), { compileExpression: policyCompileHook });
    if (set.failures.length > 0) return { allowed: false, error: `invalid policy: ${JSON.stringify(set.failures[0])}` };
    const built = newAdmissionRequest({ operation: req.operation, object: req.object, oldObject: req.oldObject, dryRun: false }, catalog);
    if (!built.ok) return { allowed: false, error: built.error };
    const r = evaluate(built.request, {
      policies: set.policies.map((p) => p.object),
      bindings: set.bindings.map((b) => b.object),
      namespaces: req.namespaces,
      schemas,
      params: inMemoryParamSource(req.params ?? []),
      catalog,
    });
    if (r.allowed) return { allowed: true, object: r.object };
    return { allowed: false, code: r.status?.code ?? 0, message: r.status?.message ?? "" };
  } catch (e) {
    return { allowed: false, error: `crash: ${e instanceof Error ? e.stack : String(e)}` };
  }
}
