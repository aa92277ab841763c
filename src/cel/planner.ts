/**
 * AST → evaluable {@link Program}: the tree is compiled once into a tree of
 * JavaScript closures, so evaluation never walks the AST.
 *
 * Evaluation state is one array (the "frame"): slot 0 holds the caller's
 * bindings, slot 1 whether they are an {@link Activation}, then one slot per
 * variable name the expression may read (resolved at most once per evaluation,
 * on first use) and one per comprehension variable. The frame is the only
 * allocation an evaluation needs for itself (results aside).
 *
 * Errors are thrown as {@link CelEvalError} and caught only where CEL absorbs
 * them: `&&`, `||`, `@not_strictly_false`, and comprehension accumulators (which,
 * as in cel-go, may hold an error that a later `||`/`&&` step absorbs).
 *
 * Checked ASTs use the checker's `referenceMap` (resolved names, constants,
 * overload ids: one statically resolved overload over non-dyn arguments is called
 * directly). Unchecked ASTs resolve names as cel-go does at run time: `a.b.c`
 * tries the variables `a.b.c`, `a.b`, `a` (each under the container's prefixes),
 * longest first; and calls dispatch on the run-time types of their arguments.
 */
import type { ParsedExpr } from "./ast.js";
import { isChecked, type CheckedExpr } from "./checked.js";
import type { Env } from "./env.js";
import { checkInstantiation } from "./instantiate.js";
import type { CelValue } from "./values.js";
import { CelCostLimitError } from "./cost-runtime.js";
import { withEvalLimits } from "./eval-limits.js";
import { BINDINGS, EMPTY, IS_ACTIVATION, type Ev, type Frame, unresolvedFrame } from "./plan-frame.js";
import { COST } from "./plan-cost-state.js";
import { Planner } from "./plan-core.js";
// The planner methods of each concern (each module adds its own to `Planner.prototype`).
import "./plan-comprehensions.js";
import "./plan-calls.js";
import "./plan-costs.js";
import "./plan-names.js";

/** Variable bindings; `resolve` may compute lazily. Returns undefined for an unbound name. */
export interface Activation {
  resolve(name: string): CelValue | undefined;
}

/** Options of one evaluation. */
export interface EvalOptions {
  /**
   * Cost limit of this evaluation (cel-go `CostLimit`): Kubernetes' per-call
   * limit `PER_CALL_LIMIT` (1,000,000), or a caller's remaining budget
   * (`RUNTIME_CEL_COST_BUDGET` per mutation, …), whichever is smaller. When the
   * running cost exceeds it, evaluation stops at once (inside comprehensions
   * too) with a {@link CelCostLimitError}. Setting it turns cost tracking on.
   */
  readonly costLimit?: number | bigint;
  /**
   * Polled every 100 comprehension iterations (cel-go's `InterruptCheckFrequency`) and by the
   * size-guarded operations; true stops evaluation with `CelInterruptedError` ("operation
   * interrupted"). Nested evaluations that set none inherit it (see `eval-limits.ts`).
   */
  readonly interrupt?: () => boolean;
  /**
   * Largest string (UTF-16 units), bytes or list that `+` may build; a larger result stops
   * evaluation with a `CelCostLimitError` (a memory guard: cel-go has no such limit).
   */
  readonly maxSize?: number;
}

/** A value with the evaluation's actual cost (cel-go `EvalDetails.ActualCost`). */
export interface CostedResult {
  readonly value: CelValue;
  readonly cost: number;
}

export interface Program {
  /**
   * Evaluates; throws {@link CelEvalError} for a CEL error. Bindings are an
   * {@link Activation} (anything with a `resolve` function) or a plain object whose
   * properties name the variables (inherited ones too, e.g. getters, but never
   * Object.prototype's); `undefined` means unbound. Never mutates the bindings.
   *
   * Without options (or without `costLimit`) no cost is tracked; with a
   * `costLimit`, cost is tracked and {@link Program.lastCost} is set.
   */
  eval(vars?: Activation | Readonly<Record<string, CelValue>>, options?: EvalOptions): CelValue;
  /**
   * Evaluates with cost tracking (cel-go's `OptTrackCost`) and returns the value
   * with its actual cost, counted as cel-go v0.26 counts it (see `cost-runtime.ts`).
   * Throws like `eval`; {@link CelCostLimitError} when `costLimit` is exceeded.
   */
  evalWithCost(vars?: Activation | Readonly<Record<string, CelValue>>, options?: EvalOptions): CostedResult;
  /** The actual cost of the last tracked evaluation of this program (also set when it threw). */
  readonly lastCost: number | undefined;
}

export function plan(ast: ParsedExpr | CheckedExpr, env: Env): Program {
  // Constant folding (cel-go OptOptimize) evaluates constant conversions at instantiation, where
  // they can fail the program; the same for constant arguments libraries check (regexes).
  if (env.cost?.constantFolding === true) {
    checkInstantiation(ast.expr, env.libraries, (e) => planProgram({ ...ast, expr: e }, env).eval({}));
  }
  return planProgram(ast, env);
}

function planProgram(ast: ParsedExpr | CheckedExpr, env: Env): Program {
  const checked = isChecked(ast) ? ast : undefined;
  const p = new Planner(env, checked, false);
  const root = p.expr(ast.expr);
  return new CompiledProgram(root, unresolvedFrame(p.nextSlot), env, ast);
}

class CompiledProgram implements Program {
  // (Fields declared, set in the constructor only: a class field initializer is a call of its
  // own and stores every field twice, and every compile makes a program.)
  declare private readonly root: Ev;
  /** The initial frame, copied per evaluation. */
  declare private readonly template: Frame;
  // What the tracking variant is planned from, on first use (the AST itself: one field, not
  // its parts, since every program is made and few are ever tracked).
  declare private readonly env: Env;
  declare private readonly ast: ParsedExpr | CheckedExpr;
  declare private tracked: { readonly root: Ev; readonly template: Frame } | undefined;
  declare lastCost: number | undefined;

  constructor(root: Ev, template: Frame, env: Env, ast: ParsedExpr | CheckedExpr) {
    this.root = root;
    this.template = template;
    this.env = env;
    this.ast = ast;
    this.tracked = undefined;
    this.lastCost = undefined;
  }

  eval(vars?: Activation | Readonly<Record<string, CelValue>>, options?: EvalOptions): CelValue {
    if (options !== undefined) {
      // (Property checks inline: this runs for every tracked evaluation.)
      if (options.interrupt === undefined && options.maxSize === undefined) {
        if (options.costLimit !== undefined) return this.track(vars, options.costLimit);
      } else {
        return withEvalLimits(options, () => this.eval(vars, options.costLimit !== undefined ? { costLimit: options.costLimit } : undefined));
      }
    }
    // A fresh copy of a small template array per evaluation measured faster than
    // reusing one frame (which needs re-entrancy guards, try/finally and a reset),
    // is re-entrant for free, and keeps no reference to the evaluation's data.
    const f = this.template.slice();
    const b = vars ?? EMPTY;
    f[BINDINGS] = b;
    f[IS_ACTIVATION] = typeof (b as Activation).resolve === "function";
    return this.root(f);
  }

  evalWithCost(vars?: Activation | Readonly<Record<string, CelValue>>, options?: EvalOptions): CostedResult {
    const value =
      options === undefined || (options.interrupt === undefined && options.maxSize === undefined)
        ? this.track(vars, options?.costLimit)
        : withEvalLimits(options, () => this.track(vars, options.costLimit));
    return { value, cost: this.lastCost! };
  }

  /** A tracked evaluation: sets `lastCost` (also when it throws). */
  private track(vars: Activation | Readonly<Record<string, CelValue>> | undefined, limit: number | bigint | undefined): CelValue {
    let t = this.tracked;
    if (t === undefined) {
      // The tracking variant is planned on first use: programs never evaluated with cost pay nothing.
      const ast = this.ast;
      const tp = new Planner(this.env, isChecked(ast) ? ast : undefined, true);
      const troot = tp.expr(ast.expr);
      t = { root: troot, template: unresolvedFrame(tp.nextSlot) };
      this.tracked = t;
    }
    const f = t.template.slice();
    const b = vars ?? EMPTY;
    f[BINDINGS] = b;
    f[IS_ACTIVATION] = typeof (b as Activation).resolve === "function";
    const savedAcc = COST.acc;
    const savedLimit = COST.limit;
    COST.acc = 0;
    COST.limit = limit === undefined ? Infinity : typeof limit === "number" ? limit : Number(limit);
    try {
      const value = t.root(f);
      // An exceeded limit whose error an `||` could not absorb still ends here.
      if (COST.acc > COST.limit) throw new CelCostLimitError(COST.limit, COST.acc);
      return value;
    } catch (x) {
      if (x instanceof CelCostLimitError && x.expression === undefined) x.expression = this.ast.sourceInfo?.text;
      throw x;
    } finally {
      this.lastCost = COST.acc;
      COST.acc = savedAcc;
      COST.limit = savedLimit;
    }
  }
}

// Shared with the comprehensions extension (cel.@mapInsert).
export { MAP_INSERT, mapInsertInPlace } from "./plan-closures.js";
