/**
 * Running translated policies through celmap's MAP admission pipeline (`src/admission`
 * `evaluate`), for the conformance suite, the differential tests and callers that want to try
 * a translation on an object:
 *
 *     const t = translate(mutators);
 *     const r = runTranslated(t, pod, { namespace: nsObject, operation: "CREATE" });
 *     // r.allowed, r.object (the admitted object), r.message (when denied)
 *
 * Kinds the built-in catalog does not know (test kinds such as `v1 Foo`) are registered as
 * schemaless resources (namespaced when the object has a namespace), so JSONPatch applies to
 * them as to a CRD with `x-kubernetes-preserve-unknown-fields`.
 */
import {
  crdSchemaNode,
  evaluate,
  newAdmissionRequest,
  policyCompileHook,
  ResourceCatalog,
  type JsonObject,
  type Trace,
} from "../../../admission/index.js";
import { SchemaRegistry } from "../../../kube/schema.js";
import { prepareMutatingAdmissionPolicy, prepareMutatingAdmissionPolicyBinding } from "../../../policy/index.js";
import type { ValidMutatingAdmissionPolicy, ValidMutatingAdmissionPolicyBinding } from "../../../policy/valid-types.js";
import { cachedCompile, type TranslateResult } from "./index.js";

export interface RunOptions {
  /** The Namespace object of a namespaced request (a bare one is made up when absent). */
  readonly namespace?: unknown;
  readonly operation?: "CREATE" | "UPDATE";
  readonly oldObject?: unknown;
  /**
   * When the request is namespaced and no Namespace object is given, make up a bare one
   * (default true). False: the pipeline's namespace lookup fails (404), as the apiserver's
   * would — the counterpart of Gatekeeper's error when it cannot get the Namespace.
   */
  readonly bareNamespace?: boolean;
  /** Second admission pass on reinvocation (default true, as kube-apiserver). */
  readonly reinvocation?: boolean;
}

export interface RunResult {
  readonly allowed: boolean;
  readonly object: unknown;
  /** The denial (or setup failure) message. */
  readonly message?: string;
  /** The pipeline's trace (which policies matched and ran: see {@link fastPathRan}). */
  readonly trace?: Trace;
}

/** Whether a group's fast-path policy (`fast.ts`, named `…-fast`) ran its mutation in `r`. */
export function fastPathRan(r: RunResult): boolean {
  for (const pass of r.trace?.passes ?? []) for (const inv of pass.invocations) if (inv.skipped === undefined && inv.policy.endsWith("-fast")) return true;
  return false;
}

/** Prepared (validated) policies and bindings of a translation, cached per result object. */
const prepared = new WeakMap<TranslateResult, { policies: ValidMutatingAdmissionPolicy[]; bindings: ValidMutatingAdmissionPolicyBinding[]; error?: string }>();

function prepare(t: TranslateResult) {
  let p = prepared.get(t);
  if (p !== undefined) return p;
  const policies: ValidMutatingAdmissionPolicy[] = [];
  const bindings: ValidMutatingAdmissionPolicyBinding[] = [];
  let error: string | undefined;
  const compileExpression = cachedCompile(policyCompileHook);
  for (const doc of t.policies) {
    const r = prepareMutatingAdmissionPolicy(doc, { compileExpression });
    if (r.ok) policies.push(r.object);
    else error ??= r.message;
  }
  for (const doc of t.bindings) {
    const r = prepareMutatingAdmissionPolicyBinding(doc);
    if (r.ok) bindings.push(r.object);
    else error ??= r.message;
  }
  p = { policies, bindings, ...(error !== undefined ? { error } : {}) };
  prepared.set(t, p);
  return p;
}

// Shared by every run on a built-in kind: the registry's resolution caches (and the pipeline's
// per-registry ones) then stay warm across calls instead of being rebuilt per object.
const builtinCatalog = ResourceCatalog.builtin();
const builtinSchemas = SchemaRegistry.builtin();

function isObj(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Runs the translation's policies on `object` through `evaluate`. */
export function runTranslated(t: TranslateResult, object: unknown, opts: RunOptions = {}): RunResult {
  const p = prepare(t);
  if (p.error !== undefined) return { allowed: false, object, message: `translation does not validate: ${p.error}` };
  if (!isObj(object)) return { allowed: false, object, message: "not an object" };
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const kind = typeof object.kind === "string" ? object.kind : "";
  const slash = apiVersion.indexOf("/");
  const gvk = { group: slash < 0 ? "" : apiVersion.slice(0, slash), version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1), kind };
  let catalog = builtinCatalog;
  let schemas = builtinSchemas;
  const md = isObj(object.metadata) ? object.metadata : {};
  const objNs = typeof md.namespace === "string" ? md.namespace : "";
  if (catalog.resourceForKind(gvk) === undefined || schemas.forKind(apiVersion, kind) === undefined) {
    catalog = ResourceCatalog.builtin();
    schemas = SchemaRegistry.builtin();
    if (catalog.resourceForKind(gvk) === undefined) {
      catalog.add({
        gvr: { group: gvk.group, version: gvk.version, resource: `${kind.toLowerCase()}s-celmap-test` },
        kind: gvk,
        scope: objNs !== "" ? "Namespaced" : "Cluster",
        subresources: new Map(),
        equivalenceKey: `test:${gvk.group}/${kind}`,
        builtin: false,
        served: true,
      });
    }
    schemas.addKind(apiVersion, kind, crdSchemaNode({ type: "object", "x-kubernetes-preserve-unknown-fields": true }));
  }
  const ns = isObj(opts.namespace) ? opts.namespace : undefined;
  const nsName = ns !== undefined && isObj(ns.metadata) && typeof ns.metadata.name === "string" ? ns.metadata.name : undefined;
  const operation = opts.operation ?? "CREATE";
  const built = newAdmissionRequest(
    {
      operation,
      object,
      oldObject: operation === "UPDATE" ? ((isObj(opts.oldObject) ? opts.oldObject : object) as JsonObject) : null,
      ...(objNs === "" && nsName !== undefined && !(gvk.group === "" && kind === "Namespace") ? { namespace: nsName } : {}),
    },
    catalog,
  );
  if (!built.ok) return { allowed: false, object, message: `request: ${built.error}` };
  const request = built.request;
  const namespaces: JsonObject[] = [];
  if (ns !== undefined) namespaces.push(ns);
  if (request.namespace !== "" && nsName !== request.namespace && opts.bareNamespace !== false) {
    namespaces.push({ apiVersion: "v1", kind: "Namespace", metadata: { name: request.namespace } });
  }
  const r = evaluate(request, {
    policies: p.policies,
    bindings: p.bindings,
    namespaces,
    catalog,
    schemas,
    options: { reinvocation: opts.reinvocation !== false },
  });
  if (!r.allowed) return { allowed: false, object: r.object, message: r.status?.message ?? "denied", trace: r.trace };
  return { allowed: true, object: r.object, trace: r.trace };
}
