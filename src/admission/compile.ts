/**
 * Compiling a MutatingAdmissionPolicy once, as the MAP plugin does (`compilePolicy` in
 * `pkg/admission/plugin/policy/mutating/compilation.go`, with the composited compiler of
 * `pkg/admission/plugin/cel/composition.go`):
 *
 * - variables, in order, in the *variables* environment (admission variables, `params` only with a
 *   paramKind, `authorizer`, and `variables.<earlier ones>`; no patch types). A variable that fails
 *   to compile is declared `dyn` to the later ones and fails when read
 *   (`composited variable "x" fails to compile: …`);
 * - matchConditions in the same composited environment (so, at run time, they *can* see every
 *   variable, although API validation compiles them without `variables`), output type `bool`;
 * - each mutation in the *mutation* environment (plus `Object`, `JSONPatch`,
 *   `jsonpatch.escapeKey`), output type exactly `Object` (ApplyConfiguration) or
 *   `list(JSONPatch)` (JSONPatch).
 *
 * Compile errors are values, never thrown: the apiserver stores them and reports them when the
 * expression would run (failurePolicy applies). The details read as the apiserver's
 * `CompilationResult.Error.Detail`: `compilation failed: ERROR: <input>:…` or
 * `must evaluate to Object but got string`.
 *
 * Cost: no estimated-cost check — MAP has none at policy creation or compilation (the oracle
 * accepted a ~10^6-step comprehension at creation; map-oracle-findings §9). Only run-time cost
 * limits apply (see dispatch.ts).
 *
 * {@link policyCompileHook} is the same compiler shaped as `src/policy`'s `compileExpression`
 * hook, for API validation at policy load.
 */
import { BOOL, DYN, type CelType } from "../cel/index.js";
import {
  APPLY_CONFIGURATION_TYPE,
  JSON_PATCH_LIST_TYPE,
  compileExpression,
  compileVariables,
  kubernetesEnv,
  type CompiledVariable,
} from "./environment.js";
import type { Program } from "../cel/planner.js";
import type { CompileExpression, CompileExpressionRequest, ExpressionIssue } from "../policy/validate.js";

/** One compiled expression: the program, or the apiserver's error detail. */
export type CompiledExpression =
  | { readonly ok: true; readonly expression: string; readonly program: Program; readonly type: CelType }
  | { readonly ok: false; readonly expression: string; readonly detail: string };

export interface CompiledMatchCondition {
  readonly name: string;
  readonly compiled: CompiledExpression;
}

export interface CompiledMutation {
  readonly patchType: "ApplyConfiguration" | "JSONPatch";
  readonly compiled: CompiledExpression;
}

/** A policy compiled once; reused for every request. */
export interface CompiledPolicy {
  readonly name: string;
  readonly hasParams: boolean;
  readonly variables: readonly CompiledVariable[];
  readonly matchConditions: readonly CompiledMatchCondition[];
  readonly mutations: readonly CompiledMutation[];
}

/** What of a policy the compiler reads (a validated MutatingAdmissionPolicy has all of it). */
export interface CompilablePolicy {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly paramKind?: unknown;
    readonly variables?: readonly { readonly name?: string; readonly expression?: string }[];
    readonly matchConditions?: readonly { readonly name?: string; readonly expression?: string }[];
    readonly mutations?: readonly {
      readonly patchType?: string;
      readonly applyConfiguration?: { readonly expression?: string } | undefined;
      readonly jsonPatch?: { readonly expression?: string } | undefined;
    }[];
  };
}

function compileOne(env: ReturnType<typeof kubernetesEnv>, expression: string, returnType?: CelType): CompiledExpression {
  const r = compileExpression(env, expression, returnType);
  return r.ok ? { ok: true, expression, program: r.program, type: r.type } : { ok: false, expression, detail: r.detail };
}

const cache = new WeakMap<object, CompiledPolicy>();

/** Compiles a policy (cached per policy object: policies are treated as immutable). */
export function compilePolicy(policy: CompilablePolicy): CompiledPolicy {
  const hit = cache.get(policy);
  if (hit !== undefined) return hit;
  const spec = policy.spec;
  const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
  const variables = compileVariables(
    (spec.variables ?? []).map((v) => ({ name: v.name ?? "", expression: v.expression ?? "" })),
    { hasParams },
  );
  const conditionEnv = kubernetesEnv({ kind: "variables", hasParams, variables });
  const matchConditions = (spec.matchConditions ?? []).map((c) => ({
    name: c.name ?? "",
    compiled: compileOne(conditionEnv, c.expression ?? "", BOOL),
  }));
  const mutationEnv = kubernetesEnv({ kind: "mutation", hasParams, variables });
  const mutations: CompiledMutation[] = [];
  for (const m of spec.mutations ?? []) {
    // The apiserver skips a mutation whose member is missing (validation forbids it).
    if (m.patchType === "JSONPatch" && m.jsonPatch !== undefined) {
      mutations.push({ patchType: "JSONPatch", compiled: compileOne(mutationEnv, m.jsonPatch.expression ?? "", JSON_PATCH_LIST_TYPE) });
    } else if (m.patchType === "ApplyConfiguration" && m.applyConfiguration !== undefined) {
      mutations.push({
        patchType: "ApplyConfiguration",
        compiled: compileOne(mutationEnv, m.applyConfiguration.expression ?? "", APPLY_CONFIGURATION_TYPE),
      });
    }
  }
  const compiled: CompiledPolicy = { name: policy.metadata.name, hasParams, variables, matchConditions, mutations };
  cache.set(policy, compiled);
  return compiled;
}

// ---------------------------------------------------------------------------------------------
// The API-validation hook

const RETURN_TYPES: Readonly<Record<CompileExpressionRequest["kind"], CelType | undefined>> = {
  "mutation-apply": APPLY_CONFIGURATION_TYPE,
  "mutation-jsonpatch": JSON_PATCH_LIST_TYPE,
  matchCondition: BOOL,
  variable: undefined,
};

/**
 * `src/policy`'s `compileExpression` hook with the apiserver's environments (the NewExpressions and
 * StoredExpressions environments are identical in 1.36): match conditions without `variables`,
 * variables with the earlier ones (typed by their own compilation), mutations with all of them and
 * the patch types. Errors are `Invalid` with the compiler's detail, placed at the expression's path
 * by the validator (`spec.mutations[0].applyConfiguration.expression: Invalid value: "…": must
 * evaluate to Object but got string`). No cost estimation (MAP has none).
 */
export const policyCompileHook: CompileExpression = (req: CompileExpressionRequest): readonly ExpressionIssue[] => {
  const declared =
    req.kind === "matchCondition" ? [] : compileVariables(req.variables, { hasParams: req.hasParams }).map((v) => ({ name: v.name, type: v.ok ? v.type : DYN }));
  const kind = req.kind === "matchCondition" ? "match" : req.hasPatchTypes ? "mutation" : "variables";
  const env = kubernetesEnv({ kind, hasParams: req.hasParams, variables: declared });
  const r = compileExpression(env, req.expression, RETURN_TYPES[req.kind]);
  return r.ok ? [] : [{ type: "Invalid", detail: r.detail }];
};
