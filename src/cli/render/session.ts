/**
 * The in-process pipeline behind `celmap eval`: documents from `-f` sorted by kind into an
 * evaluation context, then one admission request per resource through `evaluate`
 * (src/admission). No printing here; `commands/eval.ts` renders, `bench/eval.ts` measures.
 *
 * Sorting `-f` documents:
 * - MutatingAdmissionPolicy / MutatingAdmissionPolicyBinding (v1alpha1, v1beta1, v1): decoded,
 *   defaulted and validated as the apiserver does on create, CEL compiled (`policyCompileHook`);
 *   a rejection is bad input, reported at `file#doc: field.path: message`;
 * - apiextensions.k8s.io/v1 CustomResourceDefinition: its kind joins the resource catalog, its
 *   structural schemas the schema registry (server-side apply) and its defaults the defaulter;
 * - Kyverno MutatingPolicy / NamespacedMutatingPolicy (policies.kyverno.io v1, v1beta1, v1alpha1)
 *   and PolicyException: validated as Kyverno's admission does (CEL compiled in Kyverno's
 *   environment); they run as Kyverno's mutating webhook, after the MAP plugin in each pass
 *   (`kyvernoWebhookStage`); a Kyverno CLI `Context` (cli.kyverno.io) gives cluster resources
 *   for `resource.Get/List` and image data for `image.GetMetadata`;
 * - v1 Namespace: a namespace object (namespaceSelector, `namespaceObject`);
 * - anything else: a param object. A kind that is neither a known resource (built-in or a given
 *   CRD) nor the paramKind of a given policy is bad input (usually a typo in kind or apiVersion).
 *
 * Each resource is one request, as kube-apiserver receives it from `kubectl create` (or `replace`
 * with an old object): a namespaced object without `metadata.namespace` gets the request's
 * namespace (`default`), and the object is defaulted (celmap's subset of the built-in defaulters
 * and CRD structural defaults) as decoding does, unless defaulting is off. Namespaces not given
 * as objects are seen as bare namespaces with only their `kubernetes.io/metadata.name` label.
 */
import {
  crdSchemaNode,
  evaluate,
  gvkOfObject,
  inMemoryParamSource,
  newAdmissionRequest,
  policyCompileHook,
  ResourceCatalog,
  type AdmissionRequest,
  type Defaulter,
  type EvaluateResult,
  type GroupVersionKind,
  type JsonObject,
  type Operation,
  type ParamSource,
} from "../../admission/index.js";
import { errorString } from "../../diag/field-error.js";
import { crdConverter, defaultObject, validateStored, validationContext, type StoredResult, type ValidationContext } from "../../validation/index.js";
import { decodeIssueText } from "../../diag/decode-error.js";
import { formatSourceRef, type SourceRef } from "../../diag/source.js";
import type { LoadedDocument } from "../../io/load.js";
import { SchemaRegistry } from "../../kube/schema.js";
import { collectPolicies, type ValidMutatingAdmissionPolicy, type ValidMutatingAdmissionPolicyBinding } from "../../policy/index.js";
import { kyvernoWebhookStage, mutatingPolicyCompileErrors, type KyvernoContext } from "../../admission/kyverno/index.js";
import { OfflineImageDataProvider, OfflineResourceProvider, type KyvernoProviders } from "../../cel/kyverno/index.js";
import { decodeMutatingPolicy, decodePolicyException, isKyvernoMutatingPolicy, isKyvernoPolicyException, type MutatingPolicy, type PolicyException } from "../../policy/kyverno/index.js";

export interface SessionOptions {
  /** Apply the built-in defaulters and CRD defaults (as the apiserver's decoding does). Default true. */
  readonly defaulting?: boolean;
  /** Validate the admitted object as the apiserver does before storing it (src/validation). Default true. */
  readonly validate?: boolean;
}

export interface Session {
  readonly policies: readonly ValidMutatingAdmissionPolicy[];
  readonly bindings: readonly ValidMutatingAdmissionPolicyBinding[];
  readonly paramObjects: readonly JsonObject[];
  readonly params: ParamSource;
  readonly namespaces: ReadonlyMap<string, JsonObject>;
  readonly catalog: ResourceCatalog;
  readonly schemas: SchemaRegistry;
  readonly defaulter: Defaulter | undefined;
  /** The given CRDs, for defaulting, validation and version conversion (src/validation). */
  readonly crds: ValidationContext;
  /** Whether admitted objects are validated as the apiserver validates them before storage. */
  readonly validating: boolean;
  /** Kyverno MutatingPolicies / NamespacedMutatingPolicies in input order, their exceptions and library data. */
  readonly kyverno: KyvernoInputs;
}

export interface KyvernoInputs {
  readonly policies: readonly MutatingPolicy[];
  readonly exceptions: readonly PolicyException[];
  readonly providers: KyvernoProviders;
  /** Cluster objects `resource.Get/List` read (Context resources, params, namespaces, target resources). */
  readonly resources: OfflineResourceProvider;
}

export interface SessionBuild {
  readonly session: Session;
  /** Bad input, one message per problem (`file#doc: field.path: message`). */
  readonly errors: string[];
  /** Worth telling, not fatal. */
  readonly warnings: string[];
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function where(source: SourceRef | undefined): string {
  return source === undefined ? "<input>" : formatSourceRef(source);
}

function metaField(o: JsonObject, field: string): string | undefined {
  const md = o.metadata;
  if (!isObject(md)) return undefined;
  const v = md[field];
  return typeof v === "string" ? v : undefined;
}

/** `v1 Pod default/web` */
export function describeObject(o: JsonObject): string {
  const ns = metaField(o, "namespace");
  const name = metaField(o, "name") ?? metaField(o, "generateName") ?? "<no name>";
  return `${String(o.apiVersion ?? "?")} ${String(o.kind ?? "?")} ${ns !== undefined && ns !== "" ? `${ns}/` : ""}${name}`;
}

/** Problems with a document that must be a Kubernetes object; `undefined` when it is one. */
export function objectProblem(doc: LoadedDocument): string | undefined {
  const v = doc.value;
  if (!isObject(v)) return `${where(doc.source)}: not a Kubernetes object (expected a mapping with apiVersion and kind, got ${Array.isArray(v) ? "a list" : typeof v === "bigint" ? "a number" : typeof v})`;
  if (typeof v.apiVersion !== "string" || v.apiVersion === "") return `${where(doc.source)}: apiVersion: Required value: every object needs apiVersion and kind`;
  if (typeof v.kind !== "string" || v.kind === "") return `${where(doc.source)}: kind: Required value: every object needs apiVersion and kind`;
  const gvk = gvkOfObject(v);
  if ("error" in gvk) return `${where(doc.source)}: apiVersion: Invalid value: ${JSON.stringify(v.apiVersion)}: ${gvk.error}`;
  return undefined;
}

const CRD_API = "apiextensions.k8s.io/v1";

/** Sorts the `-f` documents into a session. Never throws. */
export function buildSession(docs: readonly LoadedDocument[], options: SessionOptions = {}): SessionBuild {
  const errors: string[] = [];
  const warnings: string[] = [];
  const catalog = ResourceCatalog.builtin();
  const schemas = SchemaRegistry.builtin();
  const crds: JsonObject[] = [];
  const objects: LoadedDocument[] = [];
  for (const d of docs) {
    const problem = objectProblem(d);
    if (problem !== undefined) errors.push(problem);
    else objects.push(d);
  }

  // CRDs first: their kinds may be params or resources.
  const rest: LoadedDocument[] = [];
  for (const d of objects) {
    const v = d.value as JsonObject;
    if (v.kind !== "CustomResourceDefinition" || v.apiVersion !== CRD_API) {
      if (v.kind === "CustomResourceDefinition" && String(v.apiVersion).startsWith("apiextensions.k8s.io/")) {
        errors.push(`${where(d.source)}: apiVersion: Unsupported value: ${JSON.stringify(v.apiVersion)}: supported values: "${CRD_API}"`);
        continue;
      }
      rest.push(d);
      continue;
    }
    const err = catalog.addCustomResourceDefinition(v as never);
    if (err !== undefined) {
      errors.push(`${where(d.source)}: ${err}`);
      continue;
    }
    const spec = isObject(v.spec) ? v.spec : {};
    const names = isObject(spec.names) ? spec.names : {};
    for (const ver of Array.isArray(spec.versions) ? spec.versions : []) {
      if (!isObject(ver)) continue;
      const schema = isObject(ver.schema) ? ver.schema.openAPIV3Schema : undefined;
      if (isObject(schema)) schemas.addKind(`${String(spec.group)}/${String(ver.name)}`, String(names.kind), crdSchemaNode(schema));
    }
    crds.push(v);
  }
  const validation = validationContext(crds);
  for (const c of crds) {
    const spec = isObject(c.spec) ? c.spec : {};
    const conv = isObject(spec.conversion) ? spec.conversion.strategy : undefined;
    const versions = Array.isArray(spec.versions) ? spec.versions.filter((x) => isObject(x) && x.served !== false).length : 0;
    if (conv === "Webhook" && versions > 1) {
      warnings.push(`CustomResourceDefinition ${JSON.stringify(metaField(c, "name") ?? "")} converts between its versions with a webhook, which celmap cannot call offline: a policy matched through another version (matchPolicy: Equivalent) fails the request`);
    }
  }

  // Kyverno policies, exceptions and CLI Context documents.
  const mpols: MutatingPolicy[] = [];
  const exceptions: PolicyException[] = [];
  const clusterObjects: JsonObject[] = [];
  const images: JsonObject[] = [];
  const mapInputs: LoadedDocument[] = [];
  for (const d of rest) {
    const v = d.value as JsonObject;
    if (isKyvernoMutatingPolicy(v)) {
      const r = decodeMutatingPolicy(v);
      if (!r.ok) for (const e of r.errors) errors.push(`${where(d.source)}: ${e} (${String(v.kind)} rejected)`);
      else mpols.push(r.value);
    } else if (isKyvernoPolicyException(v)) {
      const r = decodePolicyException(v);
      if (!r.ok) for (const e of r.errors) errors.push(`${where(d.source)}: ${e} (PolicyException rejected)`);
      else exceptions.push(r.value);
    } else if (v.kind === "Context" && String(v.apiVersion).startsWith("cli.kyverno.io/")) {
      const spec = isObject(v.spec) ? v.spec : {};
      for (const o of Array.isArray(spec.resources) ? spec.resources : []) if (isObject(o)) clusterObjects.push(o);
      for (const i of Array.isArray(spec.images) ? spec.images : []) if (isObject(i) && typeof i.image === "string") images.push(i);
    } else {
      mapInputs.push(d);
    }
  }
  const resources = new OfflineResourceProvider({ objects: clusterObjects as never, hint: "give it with -f (a kind: Context of cli.kyverno.io, a param object) or --target-resources" });
  const providers: KyvernoProviders = {
    resource: resources,
    imageData: new OfflineImageDataProvider({ images: images as never, hint: "give it in a cli.kyverno.io Context with -f" }),
  };
  for (const p of mpols) {
    const src = rest.find((d) => d.value !== null && isObject(d.value) && d.value.kind === p.kind && metaField(d.value, "name") === p.metadata.name);
    for (const e of mutatingPolicyCompileErrors(p, providers)) errors.push(`${where(src?.source)}: ${e} (${p.kind} rejected)`);
  }

  const set = collectPolicies(mapInputs, { compileExpression: policyCompileHook });
  for (const f of set.failures) {
    const at = where(f.source);
    const kindName = `${f.kind}`;
    if (f.stage === "validate" && f.errors.length > 0) {
      for (const e of f.errors) errors.push(`${at}: ${errorString(e)} (${kindName} rejected)`);
    } else if (f.stage === "decode" && f.issues.length > 0) {
      for (const i of f.issues) errors.push(`${at}: ${decodeIssueText(i)} (${kindName} rejected)`);
    } else {
      errors.push(`${at}: ${f.message}`);
    }
  }
  const policies = set.policies.map((p) => p.object);
  const bindings = set.bindings.map((b) => b.object);
  const paramKinds = new Set(policies.flatMap((p) => (p.spec.paramKind !== undefined ? [`${p.spec.paramKind.apiVersion ?? ""}/${p.spec.paramKind.kind ?? ""}`] : [])));

  const namespaces = new Map<string, JsonObject>();
  const paramObjects: JsonObject[] = [];
  for (const d of set.others) {
    const v = d.value as JsonObject;
    if (v.apiVersion === "v1" && v.kind === "Namespace") {
      const name = metaField(v, "name");
      if (name === undefined || name === "") errors.push(`${where(d.source)}: metadata.name: Required value: a Namespace needs a name`);
      else namespaces.set(name, v);
      continue;
    }
    const gvk = gvkOfObject(v) as GroupVersionKind;
    const known = catalog.resourceForKind(gvk) !== undefined;
    if (!known && !paramKinds.has(`${String(v.apiVersion)}/${String(v.kind)}`)) {
      errors.push(
        `${where(d.source)}: kind: unknown kind ${JSON.stringify(`${String(v.apiVersion)} ${String(v.kind)}`)}: not a MutatingAdmissionPolicy or binding, ` +
          `CustomResourceDefinition, Namespace, built-in resource or the paramKind of a given policy (a typo in kind or apiVersion? a CRD missing from -f?)`,
      );
      continue;
    }
    paramObjects.push(v);
  }
  // resource.Get/List see the param objects and namespaces too (the objects "in the cluster").
  for (const o of [...paramObjects, ...namespaces.values()]) resources.addObject(o as never);

  // A binding naming a param that is not among the inputs (and would be denied for it) is bad input.
  const policyByName = new Map(policies.map((p) => [p.metadata.name, p]));
  set.bindings.forEach(({ object: b, source }) => {
    const ref = b.spec.paramRef;
    const policy = policyByName.get(b.spec.policyName);
    if (ref === undefined || policy === undefined || policy.spec.paramKind === undefined) return;
    if (ref.name === undefined || ref.name === "" || ref.parameterNotFoundAction === "Allow") return;
    const pk = policy.spec.paramKind;
    const matches = paramObjects.filter(
      (o) => o.apiVersion === pk.apiVersion && o.kind === pk.kind && metaField(o, "name") === ref.name && (ref.namespace === undefined || ref.namespace === "" || metaField(o, "namespace") === ref.namespace),
    );
    if (matches.length === 0) {
      errors.push(
        `${where(source)}: spec.paramRef: Not found: ${pk.kind} ${JSON.stringify(`${ref.namespace !== undefined && ref.namespace !== "" ? `${ref.namespace}/` : ""}${ref.name}`)} ` +
          `(${pk.apiVersion}), the param of binding ${JSON.stringify(b.metadata.name)}, is not among the -f inputs; every request would be denied ` +
          `(parameterNotFoundAction ${ref.parameterNotFoundAction ?? "Deny"})`,
      );
    }
  });
  for (const p of policies) if (!bindings.some((b) => b.spec.policyName === p.metadata.name)) warnings.push(`policy ${JSON.stringify(p.metadata.name)} has no binding: it does nothing (a MutatingAdmissionPolicy needs a MutatingAdmissionPolicyBinding)`);
  for (const b of bindings) if (!policyByName.has(b.spec.policyName)) warnings.push(`binding ${JSON.stringify(b.metadata.name)} refers to policy ${JSON.stringify(b.spec.policyName)}, which is not among the inputs`);

  return {
    session: {
      policies,
      bindings,
      paramObjects,
      params: inMemoryParamSource(paramObjects),
      namespaces,
      catalog,
      schemas,
      defaulter: options.defaulting === false ? undefined : (o) => defaultObject(o, validation),
      crds: validation,
      validating: options.validate !== false,
      kyverno: { policies: mpols, exceptions, providers, resources },
    },
    errors,
    warnings,
  };
}

export interface RequestSpec {
  readonly operation: Operation;
  readonly oldObject?: JsonObject | null;
  readonly user?: { readonly username: string; readonly groups: readonly string[] };
}

export type Evaluation =
  | {
      readonly ok: true;
      /** The object as the apiserver hands it to admission (namespace filled, defaulted). */
      readonly input: JsonObject;
      readonly request: AdmissionRequest;
      readonly result: EvaluateResult;
      /**
       * The apiserver's validation of the admitted object before storing it (absent when admission
       * denied the request or validation is off): a 422 Invalid status when it would reject it.
       */
      readonly validation?: StoredResult;
      /** Namespaces the request needed that were not given (seen as bare namespaces). */
      readonly syntheticNamespace?: string;
    }
  | { readonly ok: false; readonly error: string };

/** The kind's resource in the session's catalog, or a message saying it is unknown. */
export function unknownKind(session: Session, o: JsonObject): string | undefined {
  const gvk = gvkOfObject(o);
  if ("error" in gvk) return gvk.error;
  if (session.catalog.resourceForKind(gvk) !== undefined) return undefined;
  return `kind: unknown kind ${JSON.stringify(`${String(o.apiVersion)} ${String(o.kind)}`)}: no built-in resource of Kubernetes 1.36 or given CustomResourceDefinition serves it (give the CRD with -f)`;
}

function prepareObject(session: Session, o: JsonObject, namespace: string, gvk: GroupVersionKind): JsonObject {
  let out = o;
  if (namespace !== "" && metaField(o, "namespace") === undefined && !(gvk.group === "" && gvk.kind === "Namespace")) {
    // Placed after the name, where people write it.
    const md: JsonObject = {};
    const src = isObject(o.metadata) ? o.metadata : {};
    if ("name" in src) md.name = src.name!;
    if ("generateName" in src) md.generateName = src.generateName!;
    md.namespace = namespace;
    for (const [k, v] of Object.entries(src)) if (!(k in md)) md[k] = v;
    out = { ...o, metadata: md };
  }
  return session.defaulter !== undefined ? session.defaulter(out, gvk) : out;
}

/** The context Kyverno policies run in: the session's catalog, schemas, namespaces, exceptions and library data. */
export function kyvernoContext(session: Session, namespaces: (name: string) => JsonObject | undefined): KyvernoContext {
  return {
    catalog: session.catalog,
    schemas: session.schemas,
    namespaces,
    providers: session.kyverno.providers,
    exceptions: session.kyverno.exceptions,
    ...(session.defaulter !== undefined ? { defaulter: session.defaulter } : {}),
  };
}

/** One resource through the admission pipeline. Never throws for bad input (returns the message). */
export function evaluateObject(session: Session, object: JsonObject, spec: RequestSpec): Evaluation {
  const problem = unknownKind(session, object);
  if (problem !== undefined) return { ok: false, error: problem };
  const gvk = gvkOfObject(object) as GroupVersionKind;
  const first = newAdmissionRequest(
    {
      operation: spec.operation,
      object,
      oldObject: spec.oldObject ?? null,
      ...(spec.user !== undefined ? { userInfo: { username: spec.user.username, groups: [...spec.user.groups] } } : {}),
    },
    session.catalog,
  );
  if (!first.ok) return { ok: false, error: first.error };
  const ns = first.scope === "Namespaced" ? first.request.namespace : "";
  const input = prepareObject(session, object, ns, gvk);
  const old = spec.oldObject !== undefined && spec.oldObject !== null ? prepareObject(session, spec.oldObject, ns, gvk) : null;
  const request: AdmissionRequest = { ...first.request, object: input, oldObject: old };
  let synthetic: string | undefined;
  const namespaces = (name: string): JsonObject | undefined => {
    const given = session.namespaces.get(name);
    if (given !== undefined) return given;
    synthetic = name;
    return { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { "kubernetes.io/metadata.name": name } }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } };
  };
  const webhooks = session.kyverno.policies.length > 0 ? [kyvernoWebhookStage(session.kyverno.policies, kyvernoContext(session, namespaces))] : [];
  const result = evaluate(request, {
    webhooks,
    policies: session.policies,
    bindings: session.bindings,
    params: session.params,
    namespaces,
    catalog: session.catalog,
    schemas: session.schemas,
    options: {
      ...(session.defaulter !== undefined ? { defaulter: session.defaulter } : {}),
      converter: crdConverter(session.crds),
    },
  });
  const validation = session.validating && result.allowed && result.object !== null ? validateStored(result.object, old, session.crds) : undefined;
  return { ok: true, input, request, result, ...(validation !== undefined ? { validation } : {}), ...(synthetic !== undefined ? { syntheticNamespace: synthetic } : {}) };
}
