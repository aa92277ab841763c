/** celmap's answer to a mapref request: the same policies through `src/admission`'s `evaluate`. */
import { evaluate, newAdmissionRequest, policyCompileHook, ResourceCatalog, type JsonObject } from "../../src/admission/index.js";
import { collectPolicies } from "../../src/policy/index.js";

export interface MapRequest {
  readonly policies: readonly JsonObject[];
  readonly bindings: readonly JsonObject[];
  readonly namespaces: readonly JsonObject[];
  readonly operation: "CREATE" | "UPDATE";
  readonly object: JsonObject;
  readonly oldObject: JsonObject | null;
  readonly resource: { group: string; version: string; resource: string };
}

export interface MapAnswer {
  readonly allowed: boolean;
  readonly object?: unknown;
  readonly code?: number;
  readonly message?: string;
  readonly error?: string;
}

let catalog: ResourceCatalog | undefined;

export function celmapMapAnswer(req: MapRequest): MapAnswer {
  catalog ??= ResourceCatalog.builtin();
  try {
    const set = collectPolicies([...req.policies, ...req.bindings].map((value) => ({ value })), { compileExpression: policyCompileHook });
    if (set.failures.length > 0) return { allowed: false, error: `invalid policy: ${JSON.stringify(set.failures[0])}` };
    const built = newAdmissionRequest({ operation: req.operation, object: req.object, oldObject: req.oldObject, dryRun: false }, catalog);
    if (!built.ok) return { allowed: false, error: built.error };
    const r = evaluate(built.request, {
      policies: set.policies.map((p) => p.object),
      bindings: set.bindings.map((b) => b.object),
      namespaces: req.namespaces,
      catalog,
    });
    if (r.allowed) return { allowed: true, object: r.object };
    return { allowed: false, code: r.status?.code ?? 0, message: r.status?.message ?? "" };
  } catch (e) {
    return { allowed: false, error: `crash: ${e instanceof Error ? e.stack : String(e)}` };
  }
}
