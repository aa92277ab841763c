/**
 * The MAP dispatcher: one pass over the selected invocations of a request, as
 * `dispatchInvocations` / `dispatchOne` do it (`pkg/admission/plugin/policy/mutating/dispatcher.go`,
 * patchers in `.../mutating/patch/`, evaluation in `pkg/admission/plugin/cel/`; map.md §2.6–2.8).
 *
 * Per invocation, in order:
 * 1. matchConditions, against the object as mutated so far, with `namespaceObject` null, the
 *    request's own resource in `request.resource`, one lazily evaluated `variables` for the batch
 *    and a shared budget of 2,500,000. The first `false` skips the invocation (errors before it are
 *    dropped). Otherwise errors — or running out of the budget — are one policy error (reason
 *    Invalid; several are aggregated `[a, b]`) under failurePolicy Fail and a silent skip under
 *    Ignore.
 * 2. In pass 2, only invocations in the reinvoke set run (reinvocation.ts).
 * 3. Each mutation in order, on the result of the previous one: a kind without schema is a 503
 *    that aborts the request; otherwise the expression is evaluated with a fresh budget of
 *    10,000,000 (per-call limit 1,000,000 for it and for each variable it reads; variables' cost
 *    counts against the budget) and the patch applied:
 *    - ApplyConfiguration: `type mismatch: …` name check, then server-side apply (ssa/);
 *    - JSONPatch: RFC 6902 with json-patch v4 semantics (patch/); a failing `test` leaves the
 *      object unchanged without error; a built-in kind is then strictly decoded, whose failures
 *      are 500s that abort the request (typed-decode.ts); custom resources are decoded as they
 *      are (unstructured; the storage encoding prunes them later: src/engine);
 *    - then the defaulter, if any. A policy error (compile error, CEL error, budget, patch error)
 *      is recorded and the next mutation of the same invocation still runs.
 * 4. If the object changed, reinvocation bookkeeping.
 * End of pass: if any mutation succeeded, the end-of-pass reinvocation rule.
 *
 * The objects are plain JSON; CEL sees them through `fromJsonLazy` (integers are CEL ints; objects
 * are converted as far as expressions read them). Version conversion: with a `converter`, an
 * invocation matched through an equivalent resource of another version sees the object and old
 * object converted to the matched version, and its result is converted back to the request's
 * version (as the apiserver's `VersionedAttributes` do); without one, it sees the request's object
 * (request.kind/resource show the matched ones).
 */
import { CelEvalError, fromJsonLazy, JsonObjectMap, type CelValue } from "../cel/index.js";
import { CelCostLimitError, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS } from "../cel/cost-runtime.js";
import { authorizerBindings, type Authorizer } from "../cel/k8s/authz.js";
import { jsonPatchOperations } from "../cel/k8s/jsonpatch.js";
import { ObjectValue, applyConfigurationJson, typeNameMismatches } from "../cel/k8s/object.js";
import type { SchemaNode, SchemaRegistry } from "../kube/schema.js";
import { compilePolicy, type CompiledExpression, type CompiledPolicy } from "./compile.js";
import { jsonDiff, type PatchOperation } from "./diff.js";
import { RequestMemo } from "./memo.js";
import { deepEqual, isJsonObject, setKey, type JsonObject, type JsonValue } from "./json.js";
import { gvkDisplay, type AdmissionRequest, type GroupVersionKind, type GroupVersionResource } from "./request.js";
import { gvrDisplay, groupVersionString, type ResourceCatalog } from "./match/catalog.js";
import type { BindingLike, Invocation, PolicyLike } from "./params.js";
import { applyJsonPatch } from "./patch/json-patch.js";
import { invocationKey, type ReinvocationState } from "./reinvocation.js";
import { applyConfiguration } from "./ssa/apply.js";
import type { InvocationTrace, MatchConditionTrace, MutationErrorKind, MutationTrace } from "./trace.js";
import { normalizeTyped, strictTypedDecode } from "./typed-decode.js";
import { costedVariables } from "./variables.js";
import type { LazyVariables } from "./environment.js";
import type { CompilablePolicy } from "./compile.js";

/**
 * Converts an object to another version of its kind (the apiserver's object convertor), or says
 * why it cannot (a conversion webhook celmap cannot call offline).
 */
export type Converter = (object: JsonObject, to: GroupVersionKind) => ConversionResult;

export type ConversionResult = { readonly ok: true; readonly object: JsonObject } | { readonly ok: false; readonly error: string };

/** Sets defaults on an object after each mutation (the apiserver's scheme / CRD defaulter). Returns the defaulted object. */
export type Defaulter = (object: JsonObject, kind: GroupVersionKind) => JsonObject;

/** A policy as the dispatcher reads it: matching fields plus the compiled parts and reinvocationPolicy. */
export type DispatchPolicy = PolicyLike & CompilablePolicy & { readonly spec: { readonly reinvocationPolicy?: string | undefined } };

/** An error subject to the failure policy (`generic.PolicyError`). */
export interface PolicyError<P extends PolicyLike = PolicyLike, B extends BindingLike = BindingLike> {
  readonly policy: P;
  readonly binding?: B;
  /** The error's own message (without the `policy '…' with binding '…' denied request:` prefix). */
  readonly message: string;
  /** `Invalid` for matchCondition and mutation errors; absent for configuration errors. */
  readonly reason?: "Invalid";
}

/** A Kubernetes StatusError that aborts the request whatever the failure policies. */
export interface StatusError {
  readonly code: 404 | 500 | 503 | 504;
  readonly reason: "NotFound" | "InternalError" | "ServiceUnavailable" | "Timeout";
  readonly message: string;
}

export interface DispatchInput<P extends DispatchPolicy, B extends BindingLike> {
  readonly request: AdmissionRequest;
  /** The object at the start of this pass (not modified). */
  readonly object: JsonObject | null;
  readonly invocations: readonly Invocation<P, B>[];
  /** Null for cluster-scoped requests and for Namespace objects. */
  readonly namespaceObject: JsonObject | null;
  readonly schemas: SchemaRegistry;
  readonly catalog: ResourceCatalog;
  /** Already wrapped in a per-request caching authorizer. */
  readonly authorizer: Authorizer;
  readonly defaulter?: Defaulter;
  /** Version conversion for invocations matched through an equivalent resource (see the module comment). */
  readonly converter?: Converter;
  readonly reinvocation: ReinvocationState;
  readonly pass: 1 | 2;
  /** Shared by the passes of one request; a fresh one when absent. */
  readonly memo?: RequestMemo;
  /** See `EvaluateOptions.expired`. */
  readonly expired?: () => boolean;
}

/** The status of a request whose deadline passed (the apiserver's handler timeout). */
export const DEADLINE_EXCEEDED: StatusError = {
  code: 504,
  reason: "Timeout",
  message: "Timeout: request did not complete within requested timeout - context deadline exceeded",
};

export interface DispatchResult<P extends PolicyLike, B extends BindingLike> {
  /** The object at the end of the pass (the input object when nothing applied). */
  readonly object: JsonObject | null;
  readonly errors: PolicyError<P, B>[];
  /** Set when the request was aborted. */
  readonly status?: StatusError;
  readonly invocations: InvocationTrace[];
  /** Whether this pass asked for the chain to run again. */
  readonly reinvocationRequested: boolean;
}

const OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run";

/** `request` as CEL sees it: the JSON of admission/v1 AdmissionRequest minus uid/object/oldObject. */
export function admissionRequestValue(req: AdmissionRequest, resource: GroupVersionResource, kind: GroupVersionKind): JsonObject {
  const out: JsonObject = {
    uid: req.uid,
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
    requestKind: { group: req.requestKind.group, version: req.requestKind.version, kind: req.requestKind.kind },
    requestResource: { group: req.requestResource.group, version: req.requestResource.version, resource: req.requestResource.resource },
    operation: req.operation,
    dryRun: req.dryRun,
  };
  if (req.subResource !== "") out.subResource = req.subResource;
  if (req.requestSubResource !== "") out.requestSubResource = req.requestSubResource;
  if (req.name !== "") out.name = req.name;
  if (req.namespace !== "") out.namespace = req.namespace;
  const u: JsonObject = {};
  if (req.userInfo.username !== "") u.username = req.userInfo.username;
  if (req.userInfo.uid !== "") u.uid = req.userInfo.uid;
  if (req.userInfo.groups.length > 0) u.groups = [...req.userInfo.groups];
  if (Object.keys(req.userInfo.extra).length > 0) {
    const extra: JsonObject = {};
    for (const [k, v] of Object.entries(req.userInfo.extra)) extra[k] = [...v];
    u.extra = extra;
  }
  out.userInfo = u;
  if (req.options !== null) out.options = req.options;
  return out;
}

/** Runs one expression as `evaluationActivation.Evaluate` does; returns the value or the error text. */
function evaluate(
  c: CompiledExpression,
  vars: LazyVariables,
  remaining: number,
  compileErrorPrefix: string,
): { value: CelValue; remaining: number; cost: number } | { error: string; remaining: number; cost: number; outOfBudget?: true; costLimit?: true } {
  if (!c.ok) return { error: `${compileErrorPrefix}${c.detail}`, remaining, cost: 0 };
  let value: CelValue = null;
  let failure: CelEvalError | undefined;
  let cost: number;
  try {
    const r = c.program.evalWithCost(vars.activation, { costLimit: PER_CALL_LIMIT });
    value = r.value;
    cost = r.cost;
  } catch (e) {
    if (!(e instanceof CelEvalError)) throw e;
    failure = e;
    cost = c.program.lastCost ?? 0;
  }
  const composition = vars.takeCost();
  const total = cost + composition;
  if (composition > remaining) return { error: OUT_OF_BUDGET, remaining: -1, cost: total, outOfBudget: true };
  remaining -= composition;
  if (cost > remaining) return { error: OUT_OF_BUDGET, remaining: -1, cost: total, outOfBudget: true };
  remaining -= cost;
  // `costLimit`: the per-call cost limit stopped it. The apiserver reports that as the expression's
  // error ("expression '…' resulted in error: operation cancelled: actual cost limit exceeded"), and its
  // metrics classify it by that text as invalid_error (mutating/errors.go ErrorType, k8s.io/apiserver
  // v0.36.3: only a "compilation…" or "validation failed due to running out of cost budget…" message is
  // classified otherwise); only the request's budget running out is out_of_budget.
  if (failure !== undefined) return { error: `expression '${c.expression}' resulted in error: ${failure.message}`, remaining, cost: total, ...(failure instanceof CelCostLimitError ? { costLimit: true as const } : {}) };
  return { value, remaining, cost: total };
}

/** `utilerrors.NewAggregate(...).Error()`: one message as is, several as `[a, b]` (duplicates once). */
function aggregate(messages: readonly string[]): string {
  const seen = new Set<string>();
  const unique = messages.filter((m) => (seen.has(m) ? false : (seen.add(m), true)));
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}

interface Bindings {
  readonly object: JsonObject | null;
  readonly oldObject: JsonObject | null;
  readonly params: JsonObject | null;
  readonly request: JsonObject;
  readonly namespaceObject: JsonObject | null;
  readonly authz: Record<string, CelValue>;
  /** How CEL sees `object`/`oldObject` (the typed view of built-ins; identity for custom resources). */
  readonly view: (o: JsonObject | null) => CelValue;
  readonly memo: RequestMemo;
}

/**
 * `object` and `oldObject` as the apiserver hands a built-in to CEL (`DefaultUnstructuredConverter.
 * ToUnstructured` of the Go struct): non-pointer struct fields are always present, so the object has
 * `metadata` with `creationTimestamp: null` when unset (it is set after admission on CREATE), and
 * `spec`/`status` (`{}` when empty). Custom resources are unstructured and seen as they are.
 */
/** The overlay of a built-in's metadata without a creationTimestamp (read-only, shared). */
const UNSET_CREATION_TIMESTAMP: ReadonlyMap<string, CelValue> = new Map([["creationTimestamp", null]]);

function celView(kindInfo: (o: JsonObject) => KindInfo, memo: RequestMemo): (o: JsonObject | null) => CelValue {
  return (o) => {
    if (o === null) return null;
    const hit = memo.views.get(o);
    if (hit !== undefined) return hit;
    const info = kindInfo(o);
    let view: CelValue;
    if (info.typed && info.schema !== undefined) {
      // The shell is overlaid on the lazy CEL map instead of copying the object: the missing
      // top-level structs as empty maps, and metadata with `creationTimestamp: null`.
      const overlay = new Map<string, CelValue>();
      const md = o.metadata;
      if (isJsonObject(md) && !Object.prototype.hasOwnProperty.call(md, "creationTimestamp")) {
        let mdView = memo.views.get(md);
        if (mdView === undefined) memo.views.set(md, (mdView = new JsonObjectMap(md, memo.cel, UNSET_CREATION_TIMESTAMP)));
        overlay.set("metadata", mdView);
      }
      for (const f of goStructShell(o, info.schema)) {
        if (f === "metadata") overlay.set(f, new JsonObjectMap({}, undefined, UNSET_CREATION_TIMESTAMP));
        else overlay.set(f, new Map());
      }
      view = new JsonObjectMap(o, memo.cel, overlay);
    } else view = fromJsonLazy(o, memo.cel);
    memo.views.set(o, view);
    return view;
  };
}

function newVariables(compiled: CompiledPolicy, b: Bindings, object: JsonObject | null = b.object): LazyVariables {
  const cache = b.memo.cel;
  const authz = b.authz;
  const hasParams = compiled.hasParams;
  // Each binding is converted on first read (and kept: CEL reads a name many times in a comprehension).
  let o: CelValue | undefined;
  let old: CelValue | undefined;
  let req: CelValue | undefined;
  let ns: CelValue | undefined;
  let params: CelValue | undefined;
  return costedVariables(compiled.variables, (name) => {
    switch (name) {
      case "object":
        return (o ??= b.view(object));
      case "oldObject":
        return (old ??= b.view(b.oldObject));
      case "request":
        return (req ??= fromJsonLazy(b.request, cache));
      case "namespaceObject":
        return (ns ??= fromJsonLazy(b.namespaceObject, cache));
      case "params":
        return hasParams ? (params ??= fromJsonLazy(b.params, cache)) : undefined;
      default:
        return Object.prototype.hasOwnProperty.call(authz, name) ? authz[name] : undefined;
    }
  });
}

function paramDisplay(param: JsonObject | null): string | undefined {
  if (param === null) return undefined;
  const md = (param.metadata ?? {}) as JsonObject;
  const ns = typeof md.namespace === "string" && md.namespace !== "" ? `${md.namespace}/` : "";
  return `${ns}${typeof md.name === "string" ? md.name : ""}`;
}

/** What the dispatcher needs to know about an object's kind. */
interface KindInfo {
  readonly gvk: GroupVersionKind;
  readonly schema: SchemaNode | undefined;
  /** A built-in kind (a Go struct in the apiserver), as opposed to a custom resource. */
  readonly typed: boolean;
}

type PatchResult =
  | { readonly ok: true; readonly object: JsonObject; readonly testFailed?: true; readonly cost: number }
  | { readonly ok: false; readonly error: string; readonly errorKind: MutationErrorKind; readonly cost: number }
  | { readonly ok: "abort"; readonly status: StatusError; readonly cost: number };

/** One `Patcher.Patch`: evaluate the mutation and apply it to `object`. */
function patchOne(
  compiledPolicy: CompiledPolicy,
  index: number,
  object: JsonObject,
  b: Bindings,
  schema: SchemaNode,
  schemas: SchemaRegistry,
  typed: boolean,
  memo: RequestMemo,
): PatchResult {
  const mutation = compiledPolicy.mutations[index]!;
  // A stored expression that no longer compiles: the patcher returns the compile error as is.
  if (!mutation.compiled.ok) return { ok: false, error: mutation.compiled.detail, errorKind: "compile", cost: 0 };
  const vars = newVariables(compiledPolicy, b, object);
  const r = evaluate(mutation.compiled, vars, RUNTIME_CEL_COST_BUDGET, "");
  if ("error" in r) return { ok: false, error: r.error, errorKind: r.outOfBudget === true ? "out_of_budget" : "invalid", cost: r.cost };
  const kind = typeof object.kind === "string" ? object.kind : "";
  if (mutation.patchType === "ApplyConfiguration") {
    if (!(r.value instanceof ObjectValue)) {
      return { ok: false, error: "unsupported return type from ApplyConfiguration expression", errorKind: "invalid", cost: r.cost };
    }
    const mismatches = typeNameMismatches(r.value);
    if (mismatches.length > 0) return { ok: false, error: `type mismatch: ${mismatches.join("\n")}`, errorKind: "invalid", cost: r.cost };
    let patch: JsonObject;
    try {
      patch = applyConfigurationJson(r.value) as JsonObject;
    } catch (e) {
      if (e instanceof CelEvalError) return { ok: false, error: e.message, errorKind: "invalid", cost: r.cost };
      if (e instanceof Error && e.name === "UnconvertibleValueError") {
        return { ok: false, error: `error applying patch: failed to convert patch object to typed object: ${e.message}`, errorKind: "invalid", cost: r.cost };
      }
      throw e;
    }
    const applied = applyConfiguration(object, patch, schema, schemas, { validLive: memo.validLive });
    if (!applied.ok) {
      if (applied.error.kind === "no-schema") return { ok: "abort", status: { code: 503, reason: "ServiceUnavailable", message: applied.error.message }, cost: r.cost };
      return { ok: false, error: applied.error.message, errorKind: "invalid", cost: r.cost };
    }
    return { ok: true, object: typed ? normalizeTyped(applied.object, schema, schemas, memo.normalized) : applied.object, cost: r.cost };
  }
  let ops;
  try {
    ops = jsonPatchOperations(r.value);
  } catch (e) {
    if (e instanceof CelEvalError) return { ok: false, error: e.message, errorKind: "invalid", cost: r.cost };
    throw e;
  }
  // No operations on an object already in typed form (strictly decoded and normalised earlier in
  // this request): the round trip would give the object back, so it is skipped.
  if (ops.length === 0 && (!typed || (memo.decoded.get(object) === schema && memo.normalized.get(object) === schema))) {
    return { ok: true, object, cost: r.cost };
  }
  // Built-ins are serialized from their Go struct: metadata (with `creationTimestamp: null`), spec
  // and status are non-pointer structs, always present (map.md §4.3).
  const added = typed ? goStructShell(object, schema) : [];
  const res = applyJsonPatch(typed ? withShell(object, added, touchesCreationTimestamp(ops as readonly { path?: unknown; from?: unknown }[])) : object, ops as never);
  if (res.ok === "test-failed") return { ok: true, object, testFailed: true, cost: r.cost };
  if (res.ok === false) return { ok: false, error: `JSON Patch: ${res.error}`, errorKind: "invalid", cost: r.cost };
  const doc = res.doc;
  if (!isJsonObject(doc)) {
    return { ok: "abort", status: { code: 500, reason: "InternalError", message: "Internal error occurred: json: cannot unmarshal into an object" }, cost: r.cost };
  }
  if (typed) {
    const decoded = strictTypedDecode(doc, schema, schemas, kind, memo.decoded);
    if (!decoded.ok) return { ok: "abort", status: { code: 500, reason: "InternalError", message: `Internal error occurred: ${decoded.message}` }, cost: r.cost };
    // Both steps keep the object in decoded form (dropping empty shell structs, canonical quantity
    // strings), which the no-operation path above relies on.
    const shaped = withoutEmptyShell(decoded.object, added);
    const out = normalizeTyped(shaped, schema, schemas, memo.normalized);
    memo.decoded.set(out, schema);
    return { ok: true, object: out, cost: r.cost };
  }
  // A custom resource is decoded as plain JSON (unstructured: no schema, no pruning). Fields its
  // schema does not declare stay until storage encodes it (the engine prunes the stored object),
  // so validation before storage still sees them (a field of another version of the CRD, matched
  // through matchPolicy Equivalent, is validated by that version's schema).
  return { ok: true, object: doc, cost: r.cost };
}

/**
 * A mutation's trace whose `diff` is computed when first read (most traces are never shown).
 * A class rather than an object literal with a getter: V8 builds literals with accessors slowly, and
 * one is made per mutation. `diff` is a prototype getter, so `toJSON` lists it for serialisation;
 * object spreads and own-key walks do not see it (read `diff` directly).
 */
class AppliedMutationTrace implements MutationTrace {
  readonly #from: JsonObject;
  readonly #to: JsonObject;
  #diff: readonly PatchOperation[] | undefined;
  constructor(
    readonly index: number,
    readonly patchType: MutationTrace["patchType"],
    readonly outcome: MutationTrace["outcome"],
    readonly cost: number,
    from: JsonObject,
    to: JsonObject,
    readonly seconds: number,
  ) {
    this.#from = from;
    this.#to = to;
  }
  get diff(): readonly PatchOperation[] {
    this.#diff ??= jsonDiff(this.#from, this.#to);
    return this.#diff;
  }
  toJSON(): MutationTrace {
    return { index: this.index, patchType: this.patchType, outcome: this.outcome, cost: this.cost, diff: this.diff, seconds: this.seconds };
  }
}

const SHELL_FIELDS = ["metadata", "spec", "status"] as const;

/** The top-level struct fields a Go-serialized built-in has although `object` lacks them. */
function goStructShell(object: JsonObject, schema: SchemaNode): string[] {
  if (schema.t !== "struct") return [];
  return SHELL_FIELDS.filter((f) => Object.prototype.hasOwnProperty.call(schema.f, f) && !Object.prototype.hasOwnProperty.call(object, f));
}

function withShell(object: JsonObject, added: readonly string[], creationTimestamp = true): JsonObject {
  const out: JsonObject = { ...object };
  for (const f of added) out[f] = {};
  const md = out.metadata;
  if (creationTimestamp && isJsonObject(md) && !Object.prototype.hasOwnProperty.call(md, "creationTimestamp")) out.metadata = { ...md, creationTimestamp: null };
  return out;
}

/**
 * Whether a JSON patch can observe `metadata.creationTimestamp` (a path or from that is the whole
 * document, the whole metadata, or under creationTimestamp). Only then is the `null` the Go
 * serialization has added: it is dropped again by the typed decode, and leaving it out otherwise
 * keeps the metadata object (and everything cached for it) unchanged.
 */
function touchesCreationTimestamp(ops: readonly { path?: unknown; from?: unknown }[]): boolean {
  const hits = (p: unknown): boolean => typeof p === "string" && (p === "" || p === "/metadata" || p.startsWith("/metadata/creationTimestamp"));
  return ops.some((op) => hits(op.path) || hits(op.from));
}

/** Drops the shell fields added for serialization when the patch left them empty. */
function withoutEmptyShell(object: JsonObject, added: readonly string[]): JsonObject {
  const drop = added.filter((f) => {
    const v = object[f];
    return isJsonObject(v) && Object.keys(v).length === 0;
  });
  if (drop.length === 0) return object;
  // A copy without them (not `delete`, which leaves a slow dictionary-mode object behind).
  const out: JsonObject = {};
  for (const k of Object.keys(object)) if (!drop.includes(k)) setKey(out, k, object[k] as JsonValue);
  return out;
}

function versionOf(o: JsonObject): GroupVersionKind {
  const gv = parseGV(typeof o.apiVersion === "string" ? o.apiVersion : "");
  return { group: gv.group, version: gv.version, kind: typeof o.kind === "string" ? o.kind : "" };
}

function convertTo(converter: Converter | undefined, o: JsonObject, to: GroupVersionKind): ConversionResult {
  if (converter === undefined) return { ok: true, object: o };
  const from = versionOf(o);
  if (from.group === to.group && from.version === to.version) return { ok: true, object: o };
  return converter(o, to);
}

/** The object and old object as an invocation matched as `kind` sees them. */
function convertForInvocation(
  converter: Converter | undefined,
  object: JsonObject | null,
  oldObject: JsonObject | null,
  kind: GroupVersionKind,
): { readonly ok: true; readonly object: JsonObject | null; readonly oldObject: JsonObject | null } | { readonly ok: false; readonly error: string } {
  if (converter === undefined) return { ok: true, object, oldObject };
  const o = object === null ? null : convertTo(converter, object, kind);
  if (o !== null && !o.ok) return o;
  const old = oldObject === null ? null : convertTo(converter, oldObject, kind);
  if (old !== null && !old.ok) return old;
  return { ok: true, object: o === null ? null : o.object, oldObject: old === null ? null : old.object };
}

/** One pass of the MAP dispatcher over `invocations`. */
export function dispatchPass<P extends DispatchPolicy, B extends BindingLike>(input: DispatchInput<P, B>): DispatchResult<P, B> {
  const { request, schemas, reinvocation, pass } = input;
  const isReinvoke = pass === 2;
  let object = input.object;
  const errors: PolicyError<P, B>[] = [];
  const traces: InvocationTrace[] = [];
  let reinvocationRequested = false;
  let dirty = false;

  if (isReinvoke && reinvocation.outputChangedSince(object)) reinvocation.requireReinvokingPreviouslyInvoked();

  const requestResource = {
    group: request.resource.group,
    resource: request.resource.resource,
    subresource: request.subResource,
    namespace: request.namespace,
    name: request.name,
  };
  const authz = authorizerBindings(request.userInfo, input.authorizer, requestResource);
  const memo = input.memo ?? new RequestMemo();
  const kinds = new Map<string, KindInfo>();
  let last: { readonly apiVersion: string; readonly kind: string; readonly info: KindInfo } | undefined;
  const kindInfo = (o: JsonObject): KindInfo => {
    const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
    const kind = typeof o.kind === "string" ? o.kind : "";
    // Nearly always the kind asked last (a request is about one object).
    if (last !== undefined && last.apiVersion === apiVersion && last.kind === kind) return last.info;
    const k = `${apiVersion}/${kind}`;
    let info = kinds.get(k);
    if (info === undefined) {
      const gv = parseGV(apiVersion);
      const gvk = { group: gv.group, version: gv.version, kind };
      info = { gvk, schema: schemas.forKind(apiVersion, kind), typed: input.catalog.resourceForKind(gvk)?.builtin === true };
      kinds.set(k, info);
    }
    last = { apiVersion, kind, info };
    return info;
  };
  const view = celView(kindInfo, memo);
  // By identity: invocations share the request's (or the catalog's) resource and kind objects.
  const requestValues = new Map<GroupVersionResource, Map<GroupVersionKind, JsonObject>>();
  const requestValue = (resource: GroupVersionResource, kind: GroupVersionKind): JsonObject => {
    let byKind = requestValues.get(resource);
    if (byKind === undefined) requestValues.set(resource, (byKind = new Map()));
    let v = byKind.get(kind);
    if (v === undefined) byKind.set(kind, (v = admissionRequestValue(request, resource, kind)));
    return v;
  };


  for (const inv of input.invocations) {
    if (input.expired?.() === true) return { object, errors, status: DEADLINE_EXCEEDED, invocations: traces, reinvocationRequested };
    // Version conversion to the matched kind (and back after the mutations).
    const converted = convertForInvocation(input.converter, object, request.oldObject, inv.matchedKind);
    if (!converted.ok) {
      return { object, errors, status: { code: 500, reason: "InternalError", message: converted.error }, invocations: traces, reinvocationRequested };
    }
    const requestObject = object;
    object = converted.object;
    const oldObject = converted.oldObject;
    const compiled = compilePolicy(inv.policy);
    let mcSeconds: number | undefined;
    const policyName = inv.policy.metadata.name;
    const bindingName = inv.binding.metadata.name;
    const mcTraces: MatchConditionTrace[] = [];
    const mutTraces: MutationTrace[] = [];
    // Built field by field (object spreads are slow on V8's generic path).
    const trace = (changed: boolean, skipped?: string): InvocationTrace => {
      const t: { -readonly [K in keyof InvocationTrace]: InvocationTrace[K] } = { pass, policy: policyName, binding: bindingName } as InvocationTrace;
      const param = paramDisplay(inv.param);
      if (param !== undefined) t.param = param;
      t.matchedKind = gvkDisplay(inv.matchedKind);
      t.matchedResource = gvrDisplay(inv.matchedResource, request.subResource);
      t.matchConditions = mcTraces;
      t.mutations = mutTraces;
      if (skipped !== undefined) t.skipped = skipped;
      if (mcSeconds !== undefined) t.matchConditionSeconds = mcSeconds;
      t.changed = changed;
      return t;
    };
    const failurePolicy = inv.policy.spec.failurePolicy === "Ignore" ? "Ignore" : "Fail";

    // 1. matchConditions
    if (compiled.matchConditions.length > 0) {
      const started = performance.now();
      const vars = newVariables(compiled, {
        object,
        oldObject,
        params: inv.param,
        request: requestValue(request.resource, inv.matchedKind),
        namespaceObject: null,
        authz,
        view,
        memo,
      });
      let remaining = RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS;
      const errs: string[] = [];
      let falseName: string | undefined;
      let budgetError: string | undefined;
      for (const mc of compiled.matchConditions) {
        if (budgetError !== undefined || falseName !== undefined) {
          mcTraces.push({ name: mc.name, result: "not-evaluated", cost: 0 });
          continue;
        }
        const r = evaluate(mc.compiled, vars, remaining, "compilation error: ");
        if ("outOfBudget" in r) {
          budgetError = r.error;
          mcTraces.push({ name: mc.name, result: "error", error: r.error, cost: r.cost });
          continue;
        }
        remaining = r.remaining;
        if ("error" in r) {
          errs.push(r.error);
          mcTraces.push({ name: mc.name, result: "error", error: r.error, cost: r.cost });
        } else {
          const v = r.value === true;
          mcTraces.push({ name: mc.name, result: v, cost: r.cost });
          if (r.value === false) falseName = mc.name;
        }
      }
      mcSeconds = (performance.now() - started) / 1000;
      if (budgetError !== undefined) {
        if (failurePolicy === "Fail") errors.push({ policy: inv.policy, binding: inv.binding, message: budgetError, reason: "Invalid" });
        traces.push(trace(false, `matchConditions ran out of their cost budget (failurePolicy ${failurePolicy})`));
        object = requestObject;
        continue;
      }
      if (falseName !== undefined) {
        traces.push(trace(false, `matchCondition '${falseName}' is false`));
        object = requestObject;
        continue;
      }
      if (errs.length > 0) {
        if (failurePolicy === "Fail") errors.push({ policy: inv.policy, binding: inv.binding, message: aggregate(errs), reason: "Invalid" });
        traces.push(trace(false, `matchConditions errored (failurePolicy ${failurePolicy})`));
        object = requestObject;
        continue;
      }
    }

    // 2. reinvocation filter
    const key = invocationKey(policyName, bindingName, inv.param);
    if (isReinvoke && !reinvocation.shouldReinvoke(key)) {
      traces.push(trace(false, "not eligible for reinvocation"));
      object = requestObject;
      continue;
    }

    // 3. mutations
    const before = object;
    const b: Bindings = {
      object,
      oldObject,
      params: inv.param,
      request: requestValue(inv.matchedResource, inv.matchedKind),
      namespaceObject: input.namespaceObject,
      authz,
      view,
      memo,
    };
    for (let i = 0; i < compiled.mutations.length; i++) {
      const patchType = compiled.mutations[i]!.patchType;
      if (object === null) {
        mutTraces.push({ index: i, patchType, outcome: "skipped", cost: 0, diff: [] });
        continue;
      }
      const info = kindInfo(object);
      const gvk = info.gvk;
      if (info.schema === undefined) {
        const message = `Resource kind ${gvk.group}/${gvk.version}, Kind=${gvk.kind} not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.`;
        mutTraces.push({ index: i, patchType, outcome: "aborted", error: message, errorKind: "invalid", cost: 0, diff: [] });
        traces.push(trace(before !== object && !deepEqual(before, object)));
        return { object, errors, status: { code: 503, reason: "ServiceUnavailable", message }, invocations: traces, reinvocationRequested };
      }
      if (input.expired?.() === true) {
        traces.push(trace(before !== object && !deepEqual(before!, object)));
        return { object, errors, status: DEADLINE_EXCEEDED, invocations: traces, reinvocationRequested };
      }
      const started = performance.now();
      const r = patchOne(compiled, i, object, b, info.schema, schemas, info.typed, memo);
      if (r.ok === "abort") {
        mutTraces.push({ index: i, patchType, outcome: "aborted", error: r.status.message, errorKind: "invalid", cost: r.cost, diff: [], seconds: (performance.now() - started) / 1000 });
        traces.push(trace(before !== object && !deepEqual(before!, object)));
        return { object, errors, status: r.status, invocations: traces, reinvocationRequested };
      }
      if (r.ok === false) {
        errors.push({ policy: inv.policy, binding: inv.binding, message: r.error, reason: "Invalid" });
        mutTraces.push({ index: i, patchType, outcome: "error", error: r.error, errorKind: r.errorKind, cost: r.cost, diff: [], seconds: (performance.now() - started) / 1000 });
        continue;
      }
      const next = input.defaulter !== undefined ? input.defaulter(r.object, gvk) : r.object;
      mutTraces.push(new AppliedMutationTrace(i, patchType, r.testFailed === true ? "test-failed" : "applied", r.cost, object, next, (performance.now() - started) / 1000));
      object = next;
      dirty = true;
    }

    // Back to the request's version.
    if (object !== requestObject && object !== null && requestObject !== null && object.apiVersion !== requestObject.apiVersion) {
      const back = convertTo(input.converter, object, request.kind);
      if (!back.ok) return { object: requestObject, errors, status: { code: 500, reason: "InternalError", message: back.error }, invocations: traces, reinvocationRequested };
      object = back.object;
    }
    // 4. bookkeeping
    const changed = !(requestObject === object || (requestObject !== null && object !== null && deepEqual(requestObject, object)));
    if (changed) {
      reinvocation.requireReinvokingPreviouslyInvoked();
      reinvocationRequested = true;
    }
    if (inv.policy.spec.reinvocationPolicy === "IfNeeded") reinvocation.addPreviouslyInvoked(key);
    traces.push(trace(changed));
  }

  if (dirty && object !== null) {
    reinvocation.requireReinvokingPreviouslyInvoked();
    reinvocationRequested = true;
  }
  return { object, errors, invocations: traces, reinvocationRequested };
}

function parseGV(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf("/");
  return i < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** For messages: `apps/v1`. */
export function kindDisplay(k: GroupVersionKind): string {
  return `${groupVersionString(k.group, k.version)} ${k.kind}`;
}

export type { JsonValue };
