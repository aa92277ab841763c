/**
 * `load`: documents sorted by kind into a {@link PolicySet}. Never throws for bad input.
 *
 * - apiextensions.k8s.io/v1 CustomResourceDefinition: its kind joins the resource catalog, its
 *   structural schemas the schema registry (server-side apply), and it joins the validation
 *   context (src/validation: pruning and schema defaults, validation before storage, conversion
 *   between its versions);
 * - MutatingAdmissionPolicy / MutatingAdmissionPolicyBinding (v1alpha1, v1beta1, v1): decoded,
 *   defaulted and validated as the apiserver does on create, CEL compiled (`policyCompileHook`);
 * - Gatekeeper mutators (mutations.gatekeeper.sh): validated as Gatekeeper does and translated to
 *   MAPs and bindings (as `celmap translate`, failurePolicy Fail); refused mutators are left out,
 *   their verdicts in `policySet.gatekeeper`;
 * - Kyverno MutatingPolicy / NamespacedMutatingPolicy (policies.kyverno.io) and PolicyException:
 *   validated as Kyverno's admission does (CEL compiled in Kyverno's environment); a Kyverno CLI
 *   `Context` (cli.kyverno.io) gives cluster resources for `resource.Get/List` and image data;
 * - v1 Namespace: a namespace object, as the apiserver stores it (`storedNamespace`);
 * - anything else: a param object (with `closedWorld`, only the paramKind of a given policy or a
 *   known resource kind; anything else is an error, usually a typo in kind or apiVersion).
 */
import {
  crdSchemaNode,
  gvkOfObject,
  inMemoryParamSource,
  policyCompileHook,
  ResourceCatalog,
  type GroupVersionKind,
  type JsonObject,
} from "../admission/index.js";
import { mutatingPolicyCompileErrors, OfflineImageDataProvider, OfflineResourceProvider, type KyvernoProviders, decodeMutatingPolicy, decodePolicyException, isKyvernoMutatingPolicy, isKyvernoPolicyException, type MutatingPolicy, type PolicyException } from "../kyverno/index.js";
import { decodeIssueText } from "../diag/decode-error.js";
import { errorString } from "../diag/field-error.js";
import { toCelNumbers, toJsonNumbers } from "../io/numbers.js";
import { SchemaRegistry } from "../kube/schema.js";
import { collectPolicies } from "../policy/index.js";
import { compileMutator, GROUP as GATEKEEPER_GROUP } from "../gatekeeper/index.js";
import { translate as translateGatekeeper, type Verdict } from "../translate/gatekeeper/index.js";
import { crdConverter, defaultObject, requestDefaulter, validationContext } from "../validation/index.js";
import { storedNamespace } from "./namespace.js";
import type { EngineDocument, EngineError, LoadOptions, LoadResult } from "./types.js";

const CRD_API = "apiextensions.k8s.io/v1";

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function metaField(o: JsonObject, field: string): string | undefined {
  const md = o.metadata;
  if (!isObject(md)) return undefined;
  const v = md[field];
  return typeof v === "string" ? v : undefined;
}

/** Whether a value is a Gatekeeper mutator (by apiVersion group). */
export function isGatekeeperMutator(v: unknown): boolean {
  return isObject(v) && typeof v.apiVersion === "string" && v.apiVersion.startsWith(`${GATEKEEPER_GROUP}/`);
}

/** Problems with a document that must be a Kubernetes object; `undefined` when it is one. */
export function objectProblem(v: unknown): string | undefined {
  if (!isObject(v)) return `not a Kubernetes object (expected a mapping with apiVersion and kind, got ${Array.isArray(v) ? "a list" : typeof v === "bigint" ? "a number" : typeof v})`;
  if (typeof v.apiVersion !== "string" || v.apiVersion === "") return `apiVersion: Required value: every object needs apiVersion and kind`;
  if (typeof v.kind !== "string" || v.kind === "") return `kind: Required value: every object needs apiVersion and kind`;
  const gvk = gvkOfObject(v);
  if ("error" in gvk) return `apiVersion: Invalid value: ${JSON.stringify(v.apiVersion)}: ${gvk.error}`;
  return undefined;
}

/** Sorts documents into a policy set. See the module comment. Never throws for bad input. */
export function load(documents: readonly EngineDocument[], options: LoadOptions = {}): LoadResult {
  const errors: EngineError[] = [];
  const warnings: string[] = [];
  const input = (source: EngineDocument["source"], message: string, extra: Partial<EngineError> = {}): void => {
    errors.push({ kind: "input", message, ...(source !== undefined ? { source } : {}), ...extra });
  };
  const catalog = options.catalog ?? ResourceCatalog.builtin();
  const schemas = options.schemas ?? SchemaRegistry.builtin();
  const crds: JsonObject[] = [];
  const objects: EngineDocument[] = [];
  for (const d of documents) {
    const problem = objectProblem(d.value);
    if (problem !== undefined) input(d.source, problem);
    else objects.push(d);
  }

  // CRDs first: their kinds may be params or resources.
  const rest: EngineDocument[] = [];
  for (const d of objects) {
    const v = d.value as JsonObject;
    if (v.kind !== "CustomResourceDefinition" || v.apiVersion !== CRD_API) {
      if (v.kind === "CustomResourceDefinition" && String(v.apiVersion).startsWith("apiextensions.k8s.io/")) {
        input(d.source, `apiVersion: Unsupported value: ${JSON.stringify(v.apiVersion)}: supported values: "${CRD_API}"`);
        continue;
      }
      rest.push(d);
      continue;
    }
    const err = catalog.addCustomResourceDefinition(v as never);
    if (err !== undefined) {
      input(d.source, err);
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
    const conversion = isObject(spec.conversion) ? spec.conversion.strategy : undefined;
    const served = Array.isArray(spec.versions) ? spec.versions.filter((x) => isObject(x) && x.served !== false).length : 0;
    if (conversion === "Webhook" && served > 1) {
      warnings.push(
        `CustomResourceDefinition ${JSON.stringify(metaField(v, "name") ?? "")} converts between its versions with a webhook, which celmap cannot call offline: a policy matched through another version (matchPolicy: Equivalent) fails the request`,
      );
    }
  }
  // Defaulting, validation before storage and version conversion see the given CRDs: built once per policy set.
  const validation = validationContext(crds);

  // Gatekeeper mutators, Kyverno policies, exceptions and CLI Context documents.
  const mutators: { json: unknown; doc: EngineDocument }[] = [];
  const mpols: { policy: MutatingPolicy; doc: EngineDocument }[] = [];
  const exceptions: PolicyException[] = [];
  const clusterObjects: JsonObject[] = [];
  const images: JsonObject[] = [];
  const mapInputs: EngineDocument[] = [];
  let mutatorErrors = false;
  for (const d of rest) {
    const v = d.value as JsonObject;
    if (isGatekeeperMutator(v)) {
      const json = toJsonNumbers(v);
      const c = compileMutator(json);
      if (!c.ok) {
        mutatorErrors = true;
        for (const i of c.issues) input(d.source, `${i.path.toString() !== "" ? `${i.path.toString()}: ` : ""}${i.message}`);
      } else mutators.push({ json, doc: d });
    } else if (isKyvernoMutatingPolicy(v)) {
      const r = decodeMutatingPolicy(v);
      if (!r.ok) for (const e of r.errors) input(d.source, `${e} (${String(v.kind)} rejected)`);
      else mpols.push({ policy: r.value, doc: d });
    } else if (isKyvernoPolicyException(v)) {
      const r = decodePolicyException(v);
      if (!r.ok) for (const e of r.errors) input(d.source, `${e} (PolicyException rejected)`);
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
  for (const { policy, doc } of mpols) for (const e of mutatingPolicyCompileErrors(policy, providers)) input(doc.source, `${e} (${policy.kind} rejected)`);

  let verdicts: readonly Verdict[] = [];
  if (mutators.length > 0 && !mutatorErrors) {
    const t = translateGatekeeper(
      mutators.map((m) => m.json),
      {},
    );
    verdicts = t.verdicts;
    for (const i of t.issues) errors.push({ kind: "internal", message: `internal error: the translation of the Gatekeeper mutators does not validate: ${i}` });
    const sourceOf = new Map(mutators.map((m) => [`${String((m.json as JsonObject).kind)}/${String(((m.json as JsonObject).metadata as JsonObject | undefined)?.name)}`, m.doc]));
    for (const o of [...t.policies, ...t.bindings]) {
      const md = isObject(o.metadata) ? o.metadata : {};
      const ann = isObject(md.annotations) ? md.annotations : {};
      const first = String(ann["celmap.io/gatekeeper-mutators"] ?? "").split(",")[0]!.trim();
      const from = sourceOf.get(first) ?? mutators[0]!.doc;
      mapInputs.push({ value: toCelNumbers(o), ...(from.source !== undefined ? { source: from.source } : {}) });
    }
  }

  const replay = options.replay === true;
  const set = collectPolicies(mapInputs, replay ? {} : { compileExpression: policyCompileHook });
  for (const f of set.failures) {
    const whole = { apiserverMessage: f.message };
    if (f.stage === "validate" && f.errors.length > 0) {
      for (const e of f.errors) input(f.source, `${errorString(e)} (${f.kind} rejected)`, { field: e, ...whole });
    } else if (f.stage === "decode" && f.issues.length > 0) {
      for (const i of f.issues) input(f.source, `${decodeIssueText(i)} (${f.kind} rejected)`, whole);
    } else {
      input(f.source, f.message, whole);
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
      if (name === undefined || name === "") {
        input(d.source, `metadata.name: Required value: a Namespace needs a name`);
        continue;
      }
      const ns = replay ? v : storedNamespace(v);
      namespaces.set(name, ns);
      // A Namespace is also a param when a policy's paramKind is v1 Namespace.
      if (paramKinds.has("v1/Namespace")) paramObjects.push(ns);
      continue;
    }
    if (options.closedWorld === true) {
      const known = catalog.resourceForKind(gvkOfObject(v) as GroupVersionKind) !== undefined;
      if (!known && !paramKinds.has(`${String(v.apiVersion)}/${String(v.kind)}`)) {
        input(
          d.source,
          `kind: unknown kind ${JSON.stringify(`${String(v.apiVersion)} ${String(v.kind)}`)}: not a MutatingAdmissionPolicy or binding, ` +
            `CustomResourceDefinition, Namespace, built-in resource or the paramKind of a given policy (a typo in kind or apiVersion? a CRD missing from -f?)`,
        );
        continue;
      }
    }
    paramObjects.push(v);
  }
  // resource.Get/List see the param objects and namespaces too (the objects "in the cluster").
  for (const o of new Set([...paramObjects, ...namespaces.values()])) resources.addObject(o as never);

  const policyByName = new Map(policies.map((p) => [p.metadata.name, p]));
  if (options.closedWorld === true) {
    // A binding naming a param that is not among the inputs (and would be denied for it) is bad input.
    for (const { object: b, source } of set.bindings) {
      const ref = b.spec.paramRef;
      const policy = policyByName.get(b.spec.policyName);
      if (ref === undefined || policy === undefined || policy.spec.paramKind === undefined) continue;
      if (ref.name === undefined || ref.name === "" || ref.parameterNotFoundAction === "Allow") continue;
      const pk = policy.spec.paramKind;
      const matches = paramObjects.filter(
        (o) => o.apiVersion === pk.apiVersion && o.kind === pk.kind && metaField(o, "name") === ref.name && (ref.namespace === undefined || ref.namespace === "" || metaField(o, "namespace") === ref.namespace),
      );
      if (matches.length === 0) {
        input(
          source,
          `spec.paramRef: Not found: ${pk.kind} ${JSON.stringify(`${ref.namespace !== undefined && ref.namespace !== "" ? `${ref.namespace}/` : ""}${ref.name}`)} ` +
            `(${pk.apiVersion}), the param of binding ${JSON.stringify(b.metadata.name)}, is not among the -f inputs; every request would be denied ` +
            `(parameterNotFoundAction ${ref.parameterNotFoundAction ?? "Deny"})`,
        );
      }
    }
  }
  for (const p of policies) if (!bindings.some((b) => b.spec.policyName === p.metadata.name)) warnings.push(`policy ${JSON.stringify(p.metadata.name)} has no binding: it does nothing (a MutatingAdmissionPolicy needs a MutatingAdmissionPolicyBinding)`);
  for (const b of bindings) if (!policyByName.has(b.spec.policyName)) warnings.push(`binding ${JSON.stringify(b.metadata.name)} refers to policy ${JSON.stringify(b.spec.policyName)}, which is not among the inputs`);

  return {
    policySet: {
      policies,
      bindings,
      paramObjects,
      params: inMemoryParamSource(paramObjects),
      namespaces,
      catalog,
      schemas,
      defaulter: (o) => defaultObject(o, validation),
      requestDefaulter: () => requestDefaulter(validation),
      validation,
      converter: crdConverter(validation),
      kyverno: { policies: mpols.map((m) => m.policy), exceptions, providers, resources },
      gatekeeper: { count: mutators.length, verdicts },
    },
    errors,
    warnings,
  };
}
