/**
 * The run-time `variables` of one activation, with cost accounting as the apiserver's
 * composition context does it (`pkg/admission/plugin/cel/composition.go`):
 *
 * - each variable is evaluated on first read, at most once per activation (one activation per
 *   mutation evaluation, one per matchCondition batch), with the same bindings as the expression;
 * - each evaluation has the per-call cost limit (1,000,000) of its own program;
 * - its actual cost — also when it failed — is reported to the context, which the evaluator
 *   charges against the running budget after the expression finished (`GetAndResetCost`);
 * - failures read `composited variable "x" fails to compile: …` / `… fails to evaluate: …`.
 */
import { CelEvalError, CelObject, type CelValue } from "../cel/index.js";
import { PER_CALL_LIMIT } from "../cel/cost-runtime.js";
import { VARIABLES_TYPE, type CompiledVariable } from "../cel/k8s/environment.js";
import type { Activation } from "../cel/planner.js";

/** Variables by name, per compiled variable list (one activation is made per mutation). */
const indexes = new WeakMap<readonly CompiledVariable[], ReadonlyMap<string, CompiledVariable>>();

export class CostedVariables extends CelObject {
  readonly celType = VARIABLES_TYPE;
  private readonly byName: ReadonlyMap<string, CompiledVariable>;
  private results: Map<string, { value: CelValue } | { error: CelEvalError }> | undefined;
  /** Cost of the variables evaluated since the last {@link takeCost}. */
  private accumulated = 0;
  readonly activation: Activation;

  constructor(variables: readonly CompiledVariable[], resolve: (name: string) => CelValue | undefined) {
    super();
    let byName = indexes.get(variables);
    if (byName === undefined) indexes.set(variables, (byName = new Map(variables.map((v) => [v.name, v]))));
    this.byName = byName;
    this.activation = { resolve: (name) => (name === "variables" ? this : resolve(name)) };
  }

  /** `GetAndResetCost`. */
  takeCost(): number {
    const c = this.accumulated;
    this.accumulated = 0;
    return c;
  }

  override getField(name: string): CelValue | undefined {
    const v = this.byName.get(name);
    if (v === undefined) return undefined;
    this.results ??= new Map();
    let r = this.results.get(name);
    if (r === undefined) {
      r = this.evaluate(v);
      this.results.set(name, r);
    }
    if ("error" in r) throw r.error;
    return r.value;
  }

  override hasField(name: string): boolean {
    return this.byName.has(name);
  }

  override equals(other: CelValue): boolean {
    if (!(other instanceof CostedVariables)) throw new CelEvalError("no such overload");
    return other === this;
  }

  private evaluate(v: CompiledVariable): { value: CelValue } | { error: CelEvalError } {
    if (!v.ok) return { error: new CelEvalError(`composited variable "${v.name}" fails to compile: ${v.detail}`) };
    try {
      const r = v.program.evalWithCost(this.activation, { costLimit: PER_CALL_LIMIT });
      this.accumulated += r.cost;
      return { value: r.value };
    } catch (e) {
      this.accumulated += v.program.lastCost ?? 0;
      if (e instanceof CelEvalError) return { error: new CelEvalError(`composited variable "${v.name}" fails to evaluate: ${e.message}`) };
      throw e;
    }
  }
}
