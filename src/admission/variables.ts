/**
 * The run-time `variables` of one admission activation, with cost accounting as the apiserver's
 * composition context does it (`pkg/admission/plugin/cel/composition.go`):
 *
 * - each variable is evaluated on first read, at most once per activation (one activation per
 *   mutation evaluation, one per matchCondition batch), with the same bindings as the expression;
 * - each evaluation has the per-call cost limit (1,000,000) of its own program;
 * - its actual cost — also when it failed — is reported to the context, which the evaluator
 *   charges against the running budget after the expression finished (`GetAndResetCost`);
 * - failures read `composited variable "x" fails to compile: …` / `… fails to evaluate: …`.
 *
 * That is `LazyVariables` of the Kubernetes CEL environment in its cost-accounting mode.
 */
import { PER_CALL_LIMIT } from "../cel/cost-runtime.js";
import { LazyVariables, type CompiledVariable } from "./environment.js";
import type { CelValue } from "../cel/index.js";

export function costedVariables(variables: readonly CompiledVariable[], resolve: (name: string) => CelValue | undefined): LazyVariables {
  return new LazyVariables(variables, { resolve }, { costLimit: PER_CALL_LIMIT });
}
