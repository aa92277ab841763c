/**
 * `admit`: one admission request through the MAP plugin and, after it in each pass, Kyverno's
 * mutating webhook (`kyvernoWebhookStage`), exactly as `evaluate` (src/admission) runs them, then,
 * with `validate`, the apiserver's validation before storage (src/validation).
 */
import { evaluate, gvkOfObject, jsonDiff, newAdmissionRequest, type AdmissionRequest, type Defaulter, type EvaluateResult, type GroupVersionKind, type JsonObject } from "../admission/index.js";
import { kyvernoWebhookStage, type KyvernoContext } from "../kyverno/index.js";
import { coerceObject, storedObject, validateStored } from "../validation/index.js";
import { namespaceLookup } from "./namespace.js";
import type { Admission, AdmitOptions, AdmitRequest, EngineError, ObjectRequest, PolicySet } from "./types.js";

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function inputError(message: string): { readonly ok: false; readonly error: EngineError } {
  return { ok: false, error: { kind: "input", message } };
}

/** A message when the object's kind is served by neither Kubernetes 1.36 nor a CRD of the set; `undefined` when it is known. */
export function unknownKind(set: PolicySet, o: JsonObject): string | undefined {
  const gvk = gvkOfObject(o);
  if ("error" in gvk) return gvk.error;
  if (set.catalog.resourceForKind(gvk) !== undefined) return undefined;
  return `kind: unknown kind ${JSON.stringify(`${String(o.apiVersion)} ${String(o.kind)}`)}: no built-in resource of Kubernetes 1.36 or given CustomResourceDefinition serves it (give the CRD with -f)`;
}

/** The object with the request's namespace, placed after the name, where people write it (as the apiserver's create handler sets it). */
function withNamespace(o: JsonObject, namespace: string, gvk: GroupVersionKind): JsonObject {
  const md0 = isObject(o.metadata) ? o.metadata : {};
  if (namespace === "" || typeof md0.namespace === "string" || (gvk.group === "" && gvk.kind === "Namespace")) return o;
  const md: JsonObject = {};
  if ("name" in md0) md.name = md0.name!;
  if ("generateName" in md0) md.generateName = md0.generateName!;
  md.namespace = namespace;
  for (const [k, v] of Object.entries(md0)) if (!(k in md)) md[k] = v;
  return { ...o, metadata: md };
}

/** The defaulter `admit` uses for one request, or none. */
function defaulterOf(set: PolicySet, options: AdmitOptions): Defaulter | undefined {
  if (options.defaulting === false) return undefined;
  return options.defaulter ?? set.requestDefaulter();
}

/**
 * The request as kube-apiserver hands it to admission. The defaulting decision is made here:
 * - an {@link ObjectRequest} is what a user sends: the apiserver decodes it into its Go type,
 *   which defaults it, and sets the request's namespace on it, before admission; so do we;
 * - a `review` is what the apiserver sends a webhook: already namespaced and defaulted by the
 *   apiserver (with every defaulter of the cluster, not celmap's subset), so evaluated as it is.
 * In both cases the defaulter also runs after every mutation, as the MAP plugin does (for a
 * webhook this only adds to the patch what the apiserver's defaulting after the patch would add).
 */
function admissionRequest(set: PolicySet, req: AdmitRequest, defaulter: Defaulter | undefined): { ok: true; request: AdmissionRequest } | { ok: false; error: EngineError } {
  if (req.review !== undefined) return { ok: true, request: req.review };
  const r: ObjectRequest = req;
  const subject = r.object ?? r.oldObject ?? null;
  if (subject !== null && r.kind === undefined) {
    const problem = unknownKind(set, subject);
    if (problem !== undefined) return inputError(problem);
  }
  const first = newAdmissionRequest(r, set.catalog);
  if (!first.ok) return inputError(first.error);
  const ns = first.scope === "Namespaced" ? first.request.namespace : "";
  const gvk = first.request.kind;
  const prepare = (o: JsonObject | null): JsonObject | null => {
    if (o === null) return null;
    const placed = withNamespace(o, ns, gvk);
    // Decoding a custom resource also prunes it (coerceObject); the defaulter after a mutation does not.
    return defaulter !== undefined ? defaulter(coerceObject(placed, set.validation), gvk) : placed;
  };
  return { ok: true, request: { ...first.request, object: prepare(first.request.object), oldObject: prepare(first.request.oldObject) } };
}

/** The context Kyverno policies run in: the set's catalog, schemas, namespaces (bare-namespace rule), exceptions and library data. */
export function kyvernoContext(set: PolicySet, options: AdmitOptions = {}, bare?: string[], defaulter: Defaulter | undefined = defaulterOf(set, options)): KyvernoContext {
  return {
    catalog: set.catalog,
    schemas: set.schemas,
    namespaces: namespaceLookup(set.namespaces, bare),
    providers: options.kyvernoProviders ?? set.kyverno.providers,
    exceptions: set.kyverno.exceptions,
    ...(defaulter !== undefined ? { defaulter } : {}),
  };
}

/** One request through the policy set. Never throws for bad input (returns it as an `input` error). */
export function admit(set: PolicySet, req: AdmitRequest, options: AdmitOptions = {}): Admission {
  const defaulter = defaulterOf(set, options);
  const built = admissionRequest(set, req, defaulter);
  if (!built.ok) return built;
  const request = built.request;
  const bare: string[] = [];
  const namespaces = namespaceLookup(set.namespaces, bare);
  // Kyverno MutatingPolicies run as Kyverno's mutating webhook after the MAP plugin (the stage keeps per-request state: one per request).
  // The apiserver decodes a webhook's patched object with the resource's codec: a custom resource is pruned again.
  const webhookDefaulter: Defaulter | undefined = defaulter !== undefined ? (o, gvk) => defaulter(coerceObject(o, set.validation), gvk) : undefined;
  const webhooks = set.kyverno.policies.length > 0 ? [kyvernoWebhookStage(set.kyverno.policies, kyvernoContext(set, options, bare, webhookDefaulter))] : [];
  const result = evaluate(request, {
    webhooks,
    policies: set.policies,
    bindings: set.bindings,
    params: set.params,
    namespaces,
    catalog: set.catalog,
    schemas: set.schemas,
    ...(options.authorizer !== undefined ? { authorizer: options.authorizer } : {}),
    options: {
      ...(options.reinvocation !== undefined ? { reinvocation: options.reinvocation } : {}),
      ...(defaulter !== undefined ? { defaulter } : {}),
      ...(options.expired !== undefined ? { expired: options.expired } : {}),
      ...(options.policyOrder !== undefined ? { policyOrder: options.policyOrder } : {}),
      // matchPolicy Equivalent across a CRD's versions: admission's behaviour, with or without validation.
      converter: set.converter,
    },
  });
  const base = { ok: true as const, input: request.object, request, result: stored(set, request, result, defaulter !== undefined), bareNamespaces: bare };
  if (!result.allowed) return { ...base, stage: "admission" };
  if (options.validate !== true || result.object === null) return base;
  // The object after the last mutation is defaulted already (the defaulter runs after each mutation);
  // the apiserver validates it before the storage encoding prunes it (a field the schema does not
  // declare, or a null a policy wrote into a non-nullable field, is still there to be judged).
  const validation = validateStored(result.object, request.oldObject, set.validation);
  return { ...base, validation, ...(validation.ok ? {} : { stage: "validation" as const }) };
}

/**
 * The result with the object as storage gives it back: a custom resource pruned as the storage
 * codec does at its storage version and again at the request's (`storedObject`), the patch
 * recomputed from the request's object. With defaulting off, as it came.
 */
function stored(set: PolicySet, request: AdmissionRequest, result: EvaluateResult, defaulting: boolean): EvaluateResult {
  if (!defaulting || !result.allowed || result.object === null) return result;
  const object = storedObject(result.object, set.validation);
  if (object === result.object) return result;
  return { ...result, object, patch: request.object !== null ? jsonDiff(request.object, object) : [] };
}
