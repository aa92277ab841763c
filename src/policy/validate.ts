/**
 * API validation of MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding, with the
 * rules, order and messages of kube-apiserver 1.36
 * (`pkg/apis/admissionregistration/validation/validation.go`, read from a recent main; see
 * map.md §1.2–1.4; apimachinery v0.36.3 for ObjectMeta, label and name checks).
 *
 * Validation runs on *decoded and defaulted* objects (see `decode.ts`, `defaults.ts`), as the
 * apiserver does, accumulates every error in the apiserver's order, and never throws.
 *
 * CEL expressions are compiled through an injected {@link CompileExpression} hook, so that
 * the CEL environment can be provided by the engine; errors it returns are placed at the
 * expression's field path exactly like the apiserver's `convertCELErrorToValidationError`
 * (Invalid → `Invalid value: "<expression>": <detail>`). Without a hook, expressions are not
 * compiled (only their presence is checked).
 */
import {
  duplicate,
  forbidden,
  internalError,
  invalid,
  named,
  notSupported,
  required,
  tooLong,
  tooMany,
  type FieldError,
} from "../diag/field-error.js";
import { FieldPath } from "../diag/field-path.js";
import { validateLabelSelector, validateLabels } from "./label-selector.js";
import {
  isCELIdentifier,
  isDNS1035Label,
  isDNS1123Subdomain,
  isPathSegmentName,
  isQualifiedName,
  nameIsDNSSubdomain,
} from "./names.js";
import type {
  MatchCondition,
  MatchResources,
  Mutation,
  NamedRuleWithOperations,
  ObjectMeta,
  ParamKind,
  ParamRef,
  Variable,
} from "./schemas/common.js";
import type { MutatingAdmissionPolicyBinding } from "./schemas/map-binding.js";
import type { MutatingAdmissionPolicy } from "./schemas/map.js";

// ---------------------------------------------------------------------------------------
// The CEL compile hook

/** Which compiler/environment an expression is compiled in. */
export type ExpressionKind = "mutation-apply" | "mutation-jsonpatch" | "variable" | "matchCondition";

export interface CompileExpressionRequest {
  readonly kind: ExpressionKind;
  /**
   * Exactly the text the apiserver compiles: trimmed for mutations and match conditions,
   * as written for variables.
   */
  readonly expression: string;
  /** Where errors are reported (`spec.mutations[0].applyConfiguration.expression`). */
  readonly path: FieldPath;
  /** `params` is declared (the policy has a paramKind). */
  readonly hasParams: boolean;
  readonly paramKind?: ParamKind;
  /** `authorizer` is declared (always true for MAP expressions). */
  readonly hasAuthorizer: boolean;
  /** `Object{...}`, `JSONPatch` and `jsonpatch.escapeKey` are available (mutations only). */
  readonly hasPatchTypes: boolean;
  /**
   * Variables visible through `variables.<name>` (composition): for a variable, the ones
   * declared before it; for a mutation, all of them; for a match condition, none (match
   * conditions compile in a stateless environment without `variables`).
   */
  readonly variables: readonly { readonly name: string; readonly expression: string }[];
  /** For `kind: "variable"`, the variable's own name. */
  readonly variableName?: string;
  /** `NewExpressions` on create (the apiserver uses `StoredExpressions` only for unchanged expressions on update). */
  readonly envType: "NewExpressions" | "StoredExpressions";
}

/** A CEL compile problem, as the apiserver's `cel.Error` (type + detail). */
export interface ExpressionIssue {
  readonly type: "Required" | "Invalid" | "Internal";
  /** E.g. `must evaluate to Object but got string`, or `compilation failed: ERROR: <input>:1:5: ...`. */
  readonly detail: string;
}

/**
 * Compiles one expression; returns no issues when it compiles. Should not throw (a throw
 * becomes an Internal error). Issues are usually {@link ExpressionIssue}s, placed at
 * `req.path` like the apiserver's `convertCELErrorToValidationError`; a ready-made
 * `FieldError` (with its own path) is passed through unchanged.
 */
export type CompileExpression = (req: CompileExpressionRequest) => readonly (ExpressionIssue | FieldError)[];

export interface ValidateOptions {
  /** CEL compile hook; without it expressions are only checked for presence. */
  readonly compileExpression?: CompileExpression;
}

/** What an update changes in validation (`ValidateMutatingAdmissionPolicyUpdate`). */
interface UpdateContext {
  /** matchConditions are not re-validated when paramKind and matchConditions are unchanged. */
  readonly ignoreMatchConditions: boolean;
  /** Expressions already stored on the old object compile in the `StoredExpressions` environment. */
  readonly storedMatchConditions: ReadonlySet<string>;
  readonly storedApplyConfigurations: ReadonlySet<string>;
}

const CREATE: UpdateContext = {
  ignoreMatchConditions: false,
  storedMatchConditions: new Set(),
  storedApplyConfigurations: new Set(),
};

function compileErrors(
  opts: ValidateOptions,
  req: CompileExpressionRequest,
): FieldError[] {
  if (opts.compileExpression === undefined) return [];
  let issues: readonly (ExpressionIssue | FieldError)[];
  try {
    issues = opts.compileExpression(req);
  } catch (e) {
    return [internalError(req.path, `unsupported error type: ${e instanceof Error ? e.message : String(e)}`)];
  }
  return issues.map((i) => {
    if ("path" in i) return i;
    switch (i.type) {
      case "Required":
        return required(req.path, i.detail);
      case "Invalid":
        return invalid(req.path, req.expression, i.detail);
      case "Internal":
        return internalError(req.path, i.detail);
    }
  });
}

// ---------------------------------------------------------------------------------------
// Sets (Go `sets.NewString(...).List()` is sorted, so are these)

const SUPPORTED_FAILURE_POLICIES = ["Fail", "Ignore"];
const SUPPORTED_MATCH_POLICIES = ["Equivalent", "Exact"];
const SUPPORTED_OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SUPPORTED_MUTATING_OPERATIONS = ["*", "CONNECT", "CREATE", "UPDATE"];
const SUPPORTED_REINVOCATION_POLICIES = ["IfNeeded", "Never"];
const SUPPORTED_PATCH_TYPES = ["ApplyConfiguration", "JSONPatch"];
const VALID_SCOPES = ["*", "Cluster", "Namespaced"];
/** Not sorted: the apiserver lists them in this order. */
const PARAMETER_NOT_FOUND_ACTIONS = ["Deny", "Allow"];

const MAX_MATCH_CONDITIONS = 64;
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

// ---------------------------------------------------------------------------------------
// ObjectMeta

/**
 * `ValidateObjectMeta(meta, requiresNamespace=false, NameIsDNSSubdomain, "metadata")`.
 * (The namespace of a cluster-scoped object is cleared before validation by the apiserver;
 * see `prepare.ts`.)
 */
export function validateObjectMeta(meta: ObjectMeta | undefined, path = FieldPath.root("metadata")): FieldError[] {
  const m = meta ?? {};
  const errs: FieldError[] = [];
  if (m.generateName !== undefined && m.generateName.length > 0) {
    for (const msg of nameIsDNSSubdomain(m.generateName, true)) errs.push(invalid(path.child("generateName"), m.generateName, msg));
  }
  if (m.name === undefined || m.name.length === 0) {
    errs.push(required(path.child("name"), "name or generateName is required"));
  } else {
    for (const msg of nameIsDNSSubdomain(m.name, false)) errs.push(invalid(path.child("name"), m.name, msg));
  }
  if (m.namespace !== undefined && m.namespace.length > 0) {
    errs.push(forbidden(path.child("namespace"), "not allowed on this type"));
  }
  if (m.generation !== undefined && BigInt(m.generation) < 0n) {
    errs.push(invalid(path.child("generation"), m.generation, "must be greater than or equal to 0"));
  }
  errs.push(...validateLabels(m.labels, path.child("labels")));
  if (m.annotations !== undefined) {
    let size = 0;
    const enc = new TextEncoder();
    for (const k of Object.keys(m.annotations).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path.child("annotations"), k, msg));
      size += enc.encode(k).length + enc.encode(m.annotations[k]!).length;
    }
    if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path.child("annotations"), TOTAL_ANNOTATION_SIZE_LIMIT));
  }
  for (const ref of m.ownerReferences ?? []) {
    const p = path.child("ownerReferences");
    const apiVersion = ref.apiVersion ?? "";
    const version = apiVersion.includes("/") ? apiVersion.slice(apiVersion.indexOf("/") + 1) : apiVersion;
    if (version.length === 0) errs.push(invalid(p.child("apiVersion"), apiVersion, "version must not be empty"));
    if ((ref.kind ?? "").length === 0) errs.push(invalid(p.child("kind"), ref.kind ?? "", "must not be empty"));
    if ((ref.name ?? "").length === 0) errs.push(invalid(p.child("name"), ref.name ?? "", "must not be empty"));
    if ((ref.uid ?? "").length === 0) errs.push(invalid(p.child("uid"), ref.uid ?? "", "must not be empty"));
  }
  const finalizers = m.finalizers ?? [];
  for (const f of finalizers) {
    for (const msg of isQualifiedName(f)) errs.push(invalid(path.child("finalizers"), f, msg));
  }
  if (finalizers.includes("orphan") && finalizers.includes("foregroundDeletion")) {
    errs.push(invalid(path.child("finalizers"), finalizers, "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------
// Rules and MatchResources

const hasWildcard = (xs: readonly string[]) => xs.includes("*");

/** `validateResources` (subresources allowed), including its quirks. */
function validateResources(resources: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(path));
  const resourcesWithWildcardSubresources = new Set<string>();
  const subresourcesWithWildcardResource = new Set<string>();
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSubresource = false;
  resources.forEach((resSub, i) => {
    if (resSub === "") {
      errs.push(required(path.index(i)));
      return;
    }
    if (resSub === "*/*") hasDoubleWildcard = true;
    if (resSub === "*") hasSingleWildcard = true;
    const slash = resSub.indexOf("/");
    if (slash < 0) {
      // Go overwrites the flag for every plain entry: the last one decides.
      hasResourceWithoutSubresource = resSub !== "*";
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (resourcesWithWildcardSubresources.has(res)) {
      errs.push(invalid(path.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    }
    if (subresourcesWithWildcardResource.has(sub)) {
      errs.push(invalid(path.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    }
    if (sub === "*") resourcesWithWildcardSubresources.add(res);
    if (res === "*") subresourcesWithWildcardResource.add(sub);
  });
  if (resources.length > 1 && hasDoubleWildcard) {
    errs.push(invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  }
  if (hasSingleWildcard && hasResourceWithoutSubresource) {
    errs.push(invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  }
  return errs;
}

/** `validateRuleWithOperations` + `validateRule(allowSubResource=true)`. */
function validateRuleWithOperations(r: NamedRuleWithOperations, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ops = r.operations ?? [];
  if (ops.length === 0) errs.push(required(path.child("operations")));
  if (ops.length > 1 && hasWildcard(ops)) {
    errs.push(invalid(path.child("operations"), ops, "if '*' is present, must not specify other operations"));
  }
  ops.forEach((op, i) => {
    if (!SUPPORTED_OPERATIONS.includes(op)) {
      errs.push(notSupported(path.child("operations").index(i), named(op), SUPPORTED_OPERATIONS));
    }
  });
  const groups = r.apiGroups ?? [];
  if (groups.length === 0) errs.push(required(path.child("apiGroups")));
  if (groups.length > 1 && hasWildcard(groups)) {
    errs.push(invalid(path.child("apiGroups"), groups, "if '*' is present, must not specify other API groups"));
  }
  const versions = r.apiVersions ?? [];
  if (versions.length === 0) errs.push(required(path.child("apiVersions")));
  if (versions.length > 1 && hasWildcard(versions)) {
    errs.push(invalid(path.child("apiVersions"), versions, "if '*' is present, must not specify other API versions"));
  }
  versions.forEach((v, i) => {
    if (v === "") errs.push(required(path.child("apiVersions").index(i)));
  });
  errs.push(...validateResources(r.resources ?? [], path.child("resources")));
  if (r.scope !== undefined && !VALID_SCOPES.includes(r.scope)) {
    errs.push(notSupported(path.child("scope"), named(r.scope), VALID_SCOPES));
  }
  return errs;
}

function validateNamedRuleWithOperations(r: NamedRuleWithOperations, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (r.resourceNames ?? []).forEach((name, i) => {
    for (const msg of isPathSegmentName(name)) errs.push(invalid(path.child("resourceNames").index(i), name, msg));
    if (seen.has(name)) errs.push(duplicate(path.child("resourceNames").index(i), name));
    else seen.add(name);
  });
  errs.push(...validateRuleWithOperations(r, path));
  return errs;
}

/** `validateMatchResources` (an absent MatchResources is valid here). */
export function validateMatchResources(m: MatchResources | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (m === undefined) return errs;
  if (m.matchPolicy === undefined) errs.push(required(path.child("matchPolicy")));
  else if (!SUPPORTED_MATCH_POLICIES.includes(m.matchPolicy)) {
    errs.push(notSupported(path.child("matchPolicy"), named(m.matchPolicy), SUPPORTED_MATCH_POLICIES));
  }
  if (m.namespaceSelector === undefined) errs.push(required(path.child("namespaceSelector")));
  else errs.push(...validateLabelSelector(m.namespaceSelector, path.child("namespaceSelector")));
  if (m.objectSelector === undefined) errs.push(required(path.child("objectSelector")));
  else errs.push(...validateLabelSelector(m.objectSelector, path.child("objectSelector")));
  (m.resourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(r, path.child("resourceRules").index(i))));
  (m.excludeResourceRules ?? []).forEach((r, i) =>
    errs.push(...validateNamedRuleWithOperations(r, path.child("excludeResourceRules").index(i))),
  );
  return errs;
}

/** MAP-only: DELETE cannot be mutated. Reported at `<path>.resourceRules.operations` (no index), once per operation. */
function validateMutatingOperations(m: MatchResources, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const rule of m.resourceRules ?? []) {
    for (const op of rule.operations ?? []) {
      if (!SUPPORTED_MUTATING_OPERATIONS.includes(op)) {
        errs.push(notSupported(path.child("resourceRules", "operations"), named(op), SUPPORTED_MUTATING_OPERATIONS));
      }
    }
  }
  return errs;
}

// ---------------------------------------------------------------------------------------
// paramKind

function parseGroupVersion(gv: string): { group: string; version: string } | Error {
  if (gv.length === 0 || gv === "/") return { group: "", version: "" };
  const slashes = gv.split("/").length - 1;
  if (slashes === 0) return { group: "", version: gv };
  if (slashes === 1) {
    const i = gv.indexOf("/");
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return new Error(`unexpected GroupVersion string: ${gv}`);
}

export function validateParamKind(pk: ParamKind, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = pk.apiVersion ?? "";
  if (apiVersion.length === 0) {
    errs.push(required(path.child("apiVersion")));
  } else {
    const gv = parseGroupVersion(apiVersion);
    if (gv instanceof Error) {
      errs.push(invalid(path.child("apiVersion"), apiVersion, gv.message));
    } else {
      if (gv.group.length > 0) {
        const e = isDNS1123Subdomain(gv.group);
        if (e.length > 0) errs.push(invalid(path.child("apiVersion"), gv.group, e.join(",")));
      }
      if (gv.version.length === 0) {
        errs.push(invalid(path.child("apiVersion"), apiVersion, "version must be specified"));
      } else {
        const e = isDNS1035Label(gv.version);
        if (e.length > 0) errs.push(invalid(path.child("apiVersion"), gv.version, e.join(",")));
      }
    }
  }
  const kind = pk.kind ?? "";
  if (kind.length === 0) {
    errs.push(required(path.child("kind")));
  } else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length > 0) errs.push(invalid(path.child("kind"), kind, "may have mixed case, but should otherwise match: " + e.join(",")));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------
// matchConditions, variables, mutations

function validateMatchConditions(
  conds: readonly MatchCondition[],
  paramKind: ParamKind | undefined,
  path: FieldPath,
  opts: ValidateOptions,
  ctx: UpdateContext,
): FieldError[] {
  const errs: FieldError[] = [];
  if (conds.length > MAX_MATCH_CONDITIONS) errs.push(tooMany(path, conds.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conds.forEach((c, i) => {
    const p = path.index(i);
    const trimmed = (c.expression ?? "").trim();
    if (trimmed.length === 0) errs.push(required(p.child("expression")));
    else {
      errs.push(
        ...compileErrors(opts, {
          kind: "matchCondition",
          expression: trimmed,
          path: p.child("expression"),
          hasParams: paramKind !== undefined,
          ...(paramKind !== undefined ? { paramKind } : {}),
          hasAuthorizer: true,
          hasPatchTypes: false,
          variables: [],
          // (the apiserver looks the *trimmed* text up among the stored, untrimmed ones)
          envType: ctx.storedMatchConditions.has(trimmed) ? "StoredExpressions" : "NewExpressions",
        }),
      );
    }
    const name = c.name ?? "";
    if (name.length === 0) errs.push(required(p.child("name")));
    else for (const msg of isQualifiedName(name)) errs.push(invalid(p.child("name"), name, msg));
    if (name.length > 0) {
      if (names.has(name)) errs.push(duplicate(p.child("name"), name));
      else names.add(name);
    }
  });
  return errs;
}

function validateVariable(
  v: Variable,
  previous: readonly { name: string; expression: string }[],
  paramKind: ParamKind | undefined,
  path: FieldPath,
  opts: ValidateOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  const name = v.name ?? "";
  if (name.trim() === "") errs.push(required(path.child("name"), "name is not specified"));
  else if (!isCELIdentifier(name)) errs.push(invalid(path.child("name"), name, "must be a valid CEL identifier"));
  const expression = v.expression ?? "";
  if (expression.trim() === "") errs.push(required(path.child("expression"), "expression is not specified"));
  else {
    errs.push(
      ...compileErrors(opts, {
        kind: "variable",
        expression,
        path: path.child("expression"),
        hasParams: paramKind !== undefined,
        ...(paramKind !== undefined ? { paramKind } : {}),
        hasAuthorizer: true,
        hasPatchTypes: false,
        variables: previous,
        variableName: name,
        envType: "NewExpressions",
      }),
    );
  }
  return errs;
}

function validateMutation(
  m: Mutation,
  variables: readonly { name: string; expression: string }[],
  paramKind: ParamKind | undefined,
  path: FieldPath,
  opts: ValidateOptions,
  ctx: UpdateContext,
): FieldError[] {
  const errs: FieldError[] = [];
  const patchType = m.patchType ?? "";
  const member = (expr: string | undefined, kind: ExpressionKind, p: FieldPath) => {
    const trimmed = (expr ?? "").trim();
    if (trimmed.length === 0) return [required(p.child("expression"))];
    return compileErrors(opts, {
      kind,
      expression: trimmed,
      path: p.child("expression"),
      hasParams: paramKind !== undefined,
      ...(paramKind !== undefined ? { paramKind } : {}),
      hasAuthorizer: true,
      hasPatchTypes: true,
      variables,
      // Both members are looked up among the stored *applyConfiguration* expressions, as the
      // apiserver does (its JSONPatch branch consults the applyConfiguration set too).
      envType: ctx.storedApplyConfigurations.has(expr ?? "") ? "StoredExpressions" : "NewExpressions",
    });
  };
  if (patchType.length === 0) {
    errs.push(required(path.child("patchType")));
  } else if (patchType === "JSONPatch") {
    if (m.jsonPatch === undefined) {
      errs.push(required(path.child("jsonPatch"), "must be specified when patchType is JSONPatch"));
    } else errs.push(...member(m.jsonPatch.expression, "mutation-jsonpatch", path.child("jsonPatch")));
    if (m.applyConfiguration !== undefined) {
      errs.push(invalid(path.child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"));
    }
  } else if (patchType === "ApplyConfiguration") {
    if (m.applyConfiguration === undefined) {
      errs.push(required(path.child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"));
    } else errs.push(...member(m.applyConfiguration.expression, "mutation-apply", path.child("applyConfiguration")));
    if (m.jsonPatch !== undefined) {
      errs.push(invalid(path.child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"));
    }
  } else {
    errs.push(notSupported(path.child("patchType"), named(patchType), SUPPORTED_PATCH_TYPES));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------
// Entry points

/** `ValidateMutatingAdmissionPolicy` (create). Input: decoded and defaulted. Never throws. */
export function validateMutatingAdmissionPolicy(p: MutatingAdmissionPolicy, opts: ValidateOptions = {}): FieldError[] {
  return validatePolicy(p, opts, CREATE);
}

/**
 * `ValidateMutatingAdmissionPolicyUpdate(new, old)`: as create, except that matchConditions
 * are skipped when paramKind and matchConditions are unchanged, and expressions already
 * present on the old object are compiled in the `StoredExpressions` environment.
 * (Variables are always `NewExpressions` for MAP: the apiserver collects no stored variables.)
 */
export function validateMutatingAdmissionPolicyUpdate(
  p: MutatingAdmissionPolicy,
  old: MutatingAdmissionPolicy,
  opts: ValidateOptions = {},
): FieldError[] {
  const oldSpec = old.spec ?? {};
  const newSpec = p.spec ?? {};
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  const ignore =
    same(newSpec.paramKind, oldSpec.paramKind) && same(newSpec.matchConditions ?? [], oldSpec.matchConditions ?? []);
  const storedApply = new Set<string>();
  for (const m of oldSpec.mutations ?? []) {
    if (m.applyConfiguration !== undefined) storedApply.add(m.applyConfiguration.expression ?? "");
  }
  return validatePolicy(p, opts, {
    ignoreMatchConditions: ignore,
    storedMatchConditions: new Set((oldSpec.matchConditions ?? []).map((c) => c.expression ?? "")),
    storedApplyConfigurations: storedApply,
  });
}

function validatePolicy(p: MutatingAdmissionPolicy, opts: ValidateOptions, ctx: UpdateContext): FieldError[] {
  const errs = validateObjectMeta(p.metadata);
  const path = FieldPath.root("spec");
  const spec = p.spec ?? {};

  if (spec.failurePolicy === undefined) errs.push(required(path.child("failurePolicy")));
  else if (!SUPPORTED_FAILURE_POLICIES.includes(spec.failurePolicy)) {
    errs.push(notSupported(path.child("failurePolicy"), named(spec.failurePolicy), SUPPORTED_FAILURE_POLICIES));
  }
  if (spec.paramKind !== undefined) errs.push(...validateParamKind(spec.paramKind, path.child("paramKind")));
  if (spec.matchConstraints === undefined) {
    errs.push(required(path.child("matchConstraints")));
  } else {
    errs.push(...validateMatchResources(spec.matchConstraints, path.child("matchConstraints")));
    if ((spec.matchConstraints.resourceRules ?? []).length === 0) {
      errs.push(required(path.child("matchConstraints", "resourceRules")));
    }
    errs.push(...validateMutatingOperations(spec.matchConstraints, path.child("matchConstraints")));
  }
  if (!ctx.ignoreMatchConditions) {
    errs.push(...validateMatchConditions(spec.matchConditions ?? [], spec.paramKind, path.child("matchConditions"), opts, ctx));
  }

  const declared: { name: string; expression: string }[] = [];
  (spec.variables ?? []).forEach((v, i) => {
    errs.push(...validateVariable(v, [...declared], spec.paramKind, path.child("variables").index(i), opts));
    declared.push({ name: v.name ?? "", expression: v.expression ?? "" });
  });

  const mutations = spec.mutations ?? [];
  if (mutations.length === 0) {
    errs.push(required(path.child("mutations"), "mutations must contain at least one item"));
  } else {
    mutations.forEach((m, i) => errs.push(...validateMutation(m, declared, spec.paramKind, path.child("mutations").index(i), opts, ctx)));
  }

  const rp = spec.reinvocationPolicy ?? "";
  if (rp.length === 0) errs.push(required(path.child("reinvocationPolicy")));
  else if (!SUPPORTED_REINVOCATION_POLICIES.includes(rp)) {
    errs.push(notSupported(path.child("reinvocationPolicy"), named(rp), SUPPORTED_REINVOCATION_POLICIES));
  }
  return errs;
}

/** `validateParamRef` (an absent paramRef is valid). */
export function validateParamRef(pr: ParamRef | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (pr === undefined) return errs;
  const name = pr.name ?? "";
  if (name.length > 0) {
    for (const msg of isPathSegmentName(name)) errs.push(invalid(path.child("name"), name, msg));
    if (pr.selector !== undefined) errs.push(forbidden(path.child("name"), "name and selector are mutually exclusive"));
  }
  if (pr.selector !== undefined) {
    errs.push(...validateLabelSelector(pr.selector, path.child("selector")));
    if (name.length > 0) errs.push(forbidden(path.child("selector"), "name and selector are mutually exclusive"));
  }
  if (name.length === 0 && pr.selector === undefined) {
    errs.push(required(path, "one of name or selector must be specified"));
  }
  const action = pr.parameterNotFoundAction;
  if (action === undefined || action.length === 0) errs.push(required(path.child("parameterNotFoundAction")));
  else if (!PARAMETER_NOT_FOUND_ACTIONS.includes(action)) {
    errs.push(notSupported(path.child("parameterNotFoundAction"), named(action), PARAMETER_NOT_FOUND_ACTIONS));
  }
  return errs;
}

/** `ValidateMutatingAdmissionPolicyBinding` (create). Input: decoded and defaulted. Never throws. */
export function validateMutatingAdmissionPolicyBinding(b: MutatingAdmissionPolicyBinding): FieldError[] {
  const errs = validateObjectMeta(b.metadata);
  const path = FieldPath.root("spec");
  const spec = b.spec ?? {};
  const policyName = spec.policyName ?? "";
  if (policyName.length === 0) errs.push(required(path.child("policyName")));
  else for (const msg of nameIsDNSSubdomain(policyName, false)) errs.push(invalid(path.child("policyName"), policyName, msg));
  errs.push(...validateParamRef(spec.paramRef, path.child("paramRef")));
  errs.push(...validateMatchResources(spec.matchResources, path.child("matchResources")));
  if (spec.matchResources !== undefined) {
    errs.push(...validateMutatingOperations(spec.matchResources, path.child("matchResources")));
  }
  return errs;
}
