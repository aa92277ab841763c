/**
 * Cost: the static estimator (a port of cel-go v0.26 `checker/cost.go`, run as
 * a separate pass over a {@link CheckedExpr}) and the public face of run-time
 * cost tracking (`cost-runtime.ts`, charged by the planner's tracking closures).
 *
 * Estimation (`estimateCost`): every node gets a [min, max] cost range and, for
 * strings/bytes/lists/maps, a size range; comprehensions multiply their loop
 * cost by the range's size; calls cost what the overload's rule says (a
 * library's `costs` table, see {@link Library.costs}, else cel-go's standard
 * rules: string traversal factors for `contains`/`startsWith`/`matches`/…,
 * size-proportional `in`, equality, concatenation; else 1) plus their
 * arguments. Sizes nothing is known about come from a {@link SizeEstimator}
 * (Kubernetes: schema `maxItems`/`maxLength`, else bounds derived from the
 * maximum request size), else are unknown (0..2^64-1).
 *
 * Run time (`Program.evalWithCost`, `eval(vars, { costLimit })`): see
 * `cost-runtime.ts` for what each node costs and {@link CelCostLimitError}.
 *
 * Kubernetes' limits: {@link PER_CALL_LIMIT} per expression evaluation,
 * {@link RUNTIME_CEL_COST_BUDGET} per mutation (all expressions of a policy
 * binding), {@link RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS} for all match
 * conditions; the admission pipeline passes what is left of a budget as the
 * `costLimit` of each evaluation and subtracts the returned cost.
 */
import { Op, type CallExpr, type ComprehensionExpr, type Expr } from "./ast.js";
import type { CheckedExpr } from "./checked.js";
import type { CostRange, Library, OverloadCost } from "./decls.js";
import { CelCompileError } from "./errors.js";
import type { Env } from "./env.js";
import {
  LIST_CREATE_BASE_COST,
  MAP_CREATE_BASE_COST,
  REGEX_STRING_LENGTH_COST_FACTOR,
  STRING_TRAVERSAL_COST_FACTOR,
  STRUCT_CREATE_BASE_COST,
  libraryCosts,
  type CostOptions,
} from "./cost-runtime.js";
import type { CelType } from "./types.js";

export {
  CelCostLimitError,
  COST_LIMIT_MESSAGE,
  KUBERNETES_COST_OPTIONS,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
  MAX_REQUEST_SIZE_BYTES,
  actualSize,
  type CostOptions,
} from "./cost-runtime.js";
export type { CostRange, OverloadCost } from "./decls.js";

export const UINT64_MAX = 2n ** 64n - 1n;
const UNKNOWN: CostRange = Object.freeze({ min: 0n, max: UINT64_MAX });
const ZERO: CostRange = Object.freeze({ min: 0n, max: 0n });
const ONE: CostRange = Object.freeze({ min: 1n, max: 1n });

export function fixed(n: number | bigint): CostRange {
  const v = BigInt(n);
  return { min: v, max: v };
}

function addU(x: bigint, y: bigint): bigint {
  const s = x + y;
  return s > UINT64_MAX ? UINT64_MAX : s;
}
function mulU(x: bigint, y: bigint): bigint {
  const p = x * y;
  return p > UINT64_MAX ? UINT64_MAX : p;
}
/** cel-go `multiplyByCostFactor`: ceil(x·f) in float64, saturating. */
function factorU(x: bigint, f: number): bigint {
  const xf = Number(x);
  if (xf > 0 && f > 0 && xf > Number(UINT64_MAX) / f) return UINT64_MAX;
  const c = Math.ceil(xf * f);
  if (c >= 2 ** 64) return UINT64_MAX;
  return BigInt(c);
}
export function add(a: CostRange, b: CostRange): CostRange {
  return { min: addU(a.min, b.min), max: addU(a.max, b.max) };
}
export function multiply(a: CostRange, b: CostRange): CostRange {
  return { min: mulU(a.min, b.min), max: mulU(a.max, b.max) };
}
export function byFactor(a: CostRange, f: number): CostRange {
  return { min: factorU(a.min, f), max: factorU(a.max, f) };
}
export function union(a: CostRange, b: CostRange): CostRange {
  return { min: a.min < b.min ? a.min : b.min, max: a.max > b.max ? a.max : b.max };
}

/** What the estimator knows of a node when it asks a {@link SizeEstimator} (cel-go `AstNode`). */
export interface AstNode {
  /**
   * Field path from a variable: `["object", "spec", "containers", "@items", "name"]`
   * (elements `@items`, `@keys`, `@values`, `@indices`), or undefined.
   */
  readonly path: readonly string[] | undefined;
  readonly type: CelType | undefined;
  readonly expr: Expr;
  /** The size derived from the expression itself (literals, concatenations), if any. */
  readonly computedSize: CostRange | undefined;
}

/** cel-go `CostEstimator`: sizes of inputs the expression cannot know, and call costs beyond the libraries' tables. */
export interface SizeEstimator {
  estimateSize(node: AstNode): CostRange | undefined;
  estimateCallCost?(fn: string, overloadId: string, target: AstNode | undefined, args: readonly AstNode[]): { cost: CostRange; resultSize?: CostRange } | undefined;
}

export interface EstimateOptions {
  readonly sizeEstimator?: SizeEstimator;
  /** Defaults to the environment's `cost.presenceTestHasCost` (cel-go default true). */
  readonly presenceTestHasCost?: boolean;
}

/** The [min, max] cost of evaluating `checked` (cel-go `checker.Cost`). */
export function estimateCost(checked: CheckedExpr, env: Env, options: EstimateOptions = {}): CostRange {
  const opts: CostOptions = env.cost ?? {};
  const presence = options.presenceTestHasCost ?? opts.presenceTestHasCost ?? true;
  return new Coster(checked, env.libraries, options.sizeEstimator, presence).cost(checked.expr);
}

/**
 * Kubernetes' rejection of an expression whose estimated cost exceeds a limit
 * (apiextensions `getCostErrorMessage`, "estimated rule cost"): undefined when
 * within the limit.
 */
export function costBudgetMessage(costName: string, cost: bigint | number, limit: bigint | number): string | undefined {
  if (BigInt(cost) <= BigInt(limit)) return undefined;
  const exceed = Number(cost) / Number(limit);
  let factor: string;
  if (exceed > 100) factor = "more than 100x";
  else if (exceed < 1.5) factor = `${exceed.toFixed(6)}x`;
  else factor = `${exceed.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/**
 * Rejects an expression whose estimated maximum cost exceeds `limit` with
 * Kubernetes' message ("estimated rule cost exceeds budget by factor of …").
 */
export function checkEstimatedCost(checked: CheckedExpr, env: Env, limit: number | bigint, options: EstimateOptions = {}): CostRange {
  const est = estimateCost(checked, env, options);
  const msg = costBudgetMessage("estimated rule cost", est.max, limit);
  if (msg !== undefined) {
    throw new CelCompileError([{ message: msg, offset: -1, line: 0, column: 0 }], checked.sourceInfo.text, checked.sourceInfo.description);
  }
  return est;
}

interface EntrySize {
  readonly container: "list" | "map";
  readonly key: CostRange;
  readonly val: CostRange;
}

interface LocalVar {
  readonly path: readonly string[];
  readonly size: CostRange | undefined;
  readonly entry: EntrySize | undefined;
}

const ACCUMULATORS = new Set(["@result", "__result__", "@__result__"]);

class Coster {
  private readonly paths = new Map<number, readonly string[]>();
  private readonly locals = new Map<string, LocalVar[]>();
  private readonly sizes = new Map<number, CostRange>();
  private readonly entries = new Map<number, EntrySize>();
  private readonly costs: ReadonlyMap<string, OverloadCost>;
  private readonly presenceCost: CostRange;

  constructor(
    private readonly checked: CheckedExpr,
    libraries: readonly Library[],
    private readonly estimator: SizeEstimator | undefined,
    presence: boolean,
  ) {
    this.costs = libraryCosts(libraries);
    this.presenceCost = presence ? ONE : ZERO;
  }

  cost(e: Expr): CostRange {
    switch (e.kind) {
      case "const":
        return ZERO;
      case "ident":
        return this.costIdent(e.id, e.name);
      case "select": {
        const ref = this.checked.referenceMap.get(e.id);
        if (!e.testOnly && ref !== undefined && (ref.name !== undefined || ref.value !== undefined)) {
          // The checker resolved a qualified name: cel-go rewrites it to an identifier.
          return this.costIdent(e.id, ref.name ?? e.field);
        }
        if (e.testOnly) return add(this.presenceCost, this.cost(e.operand));
        let sum = this.cost(e.operand);
        const k = this.type(e.operand)?.kind;
        if (k === "map" || k === "message" || k === "typeParam") sum = add(sum, ONE);
        this.paths.set(e.id, [...this.getPath(e.operand), e.field]);
        return sum;
      }
      case "call":
        return this.costCall(e);
      case "list": {
        let sum = ZERO;
        let item: CostRange = { min: e.elements.length === 0 ? 0n : UINT64_MAX, max: 0n };
        for (const x of e.elements) {
          sum = add(sum, this.cost(x));
          item = union(item, this.sizeOrUnknown(x));
        }
        this.entries.set(e.id, { container: "list", key: ONE, val: item });
        return add(sum, fixed(LIST_CREATE_BASE_COST));
      }
      case "map": {
        let sum = ZERO;
        const empty = e.entries.length === 0;
        let key: CostRange = { min: empty ? 0n : UINT64_MAX, max: 0n };
        let val: CostRange = { min: empty ? 0n : UINT64_MAX, max: 0n };
        for (const x of e.entries) {
          sum = add(sum, this.cost(x.key));
          sum = add(sum, this.cost(x.value));
          key = union(key, this.sizeOrUnknown(x.key));
          val = union(val, this.sizeOrUnknown(x.value));
        }
        this.entries.set(e.id, { container: "map", key, val });
        return add(sum, fixed(MAP_CREATE_BASE_COST));
      }
      case "struct": {
        let sum = ZERO;
        for (const x of e.fields) sum = add(sum, this.cost(x.value));
        return add(sum, fixed(STRUCT_CREATE_BASE_COST));
      }
      case "comprehension":
        return this.isBind(e) ? this.costBind(e) : this.costComprehension(e);
    }
  }

  private type(e: Expr): CelType | undefined {
    return this.checked.typeMap.get(e.id);
  }

  private costIdent(id: number, name: string): CostRange {
    const v = this.peek(name);
    this.paths.set(id, v !== undefined ? v.path : [name]);
    return ONE;
  }

  private peek(name: string): LocalVar | undefined {
    const s = this.locals.get(name);
    return s !== undefined && s.length > 0 ? s[s.length - 1] : undefined;
  }
  private push(name: string, v: LocalVar): void {
    let s = this.locals.get(name);
    if (s === undefined) {
      s = [];
      this.locals.set(name, s);
    }
    s.push(v);
  }
  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private getPath(e: Expr): readonly string[] {
    if (e.kind === "ident") {
      const v = this.peek(e.name);
      if (v !== undefined) return v.path;
    }
    return this.paths.get(e.id) ?? [];
  }

  private node(e: Expr): AstNode {
    let path: readonly string[] | undefined = this.getPath(e);
    if (path.length > 0 && ACCUMULATORS.has(path[0]!)) path = undefined;
    return { path, type: this.type(e), expr: e, computedSize: this.computeSize(e) };
  }

  private sizeOrUnknown(e: Expr): CostRange {
    return this.computeSize(e) ?? UNKNOWN;
  }

  private computeSize(e: Expr): CostRange | undefined {
    const known = this.sizes.get(e.id);
    if (known !== undefined) return known;
    const lit = exprSize(e);
    if (lit !== undefined) return lit;
    if (this.estimator !== undefined) {
      const s = this.estimator.estimateSize({ path: this.getPath(e), type: this.type(e), expr: e, computedSize: undefined });
      if (s !== undefined) {
        this.sizes.set(e.id, s);
        return s;
      }
    }
    const t = this.type(e);
    if (t !== undefined && isScalar(t)) return ONE;
    if (e.kind === "ident") {
      const v = this.peek(e.name);
      if (v?.size !== undefined) return v.size;
    }
    return undefined;
  }

  private entrySize(e: Expr): EntrySize | undefined {
    const known = this.entries.get(e.id);
    if (known !== undefined) return known;
    if (e.kind === "ident") return this.peek(e.name)?.entry;
    return undefined;
  }

  private setSize(e: Expr, s: CostRange | undefined): void {
    if (s !== undefined) this.sizes.set(e.id, s);
  }

  private pushLocal(name: string, e: Expr): void {
    this.push(name, { path: this.getPath(e), size: this.computeSize(e), entry: this.entrySize(e) });
  }

  private pushIter(name: string, range: Expr, which: "single" | "key" | "value"): void {
    const entry = this.entrySize(range);
    const container = entry?.container ?? (this.type(range)?.kind === "list" ? "list" : this.type(range)?.kind === "map" ? "map" : undefined);
    let size: CostRange | undefined;
    let sub: string;
    if (which === "key") {
      size = entry?.key;
      sub = container === "list" ? "@indices" : "@keys";
    } else if (which === "value") {
      size = entry?.val;
      sub = container === "list" ? "@items" : "@values";
    } else if (container === "list") {
      size = entry?.val;
      sub = "@items";
    } else {
      size = entry?.key;
      sub = "@keys";
    }
    this.push(name, { path: [...this.getPath(range), sub], size, entry: undefined });
  }

  private costComprehension(e: ComprehensionExpr): CostRange {
    let sum = ZERO;
    sum = add(sum, this.cost(e.iterRange));
    sum = add(sum, this.cost(e.accuInit));
    this.pushLocal(e.accuVar, e.accuInit);
    if (e.iterVar2 !== undefined) {
      this.pushIter(e.iterVar, e.iterRange, "key");
      this.pushIter(e.iterVar2, e.iterRange, "value");
    } else {
      this.pushIter(e.iterVar, e.iterRange, "single");
    }
    const loop = this.cost(e.loopCondition);
    const step = this.cost(e.loopStep);
    this.pop(e.iterVar);
    if (e.iterVar2 !== undefined) this.pop(e.iterVar2);
    sum = add(sum, this.cost(e.result));
    this.pop(e.accuVar);
    const rangeCnt = this.sizeOrUnknown(e.iterRange);
    sum = add(sum, multiply(rangeCnt, add(step, loop)));
    const init = e.accuInit;
    if (init.kind === "const") {
      this.setSize(e, this.computeSize(init));
    } else if (init.kind === "list" || init.kind === "map") {
      this.setSize(e, rangeCnt);
      const stepEntry = this.entrySize(e.loopStep);
      if (stepEntry !== undefined) this.entries.set(e.id, stepEntry);
    }
    return sum;
  }

  private isBind(e: ComprehensionExpr): boolean {
    return (
      e.iterRange.kind === "list" &&
      e.iterRange.elements.length === 0 &&
      e.loopCondition.kind === "const" &&
      e.loopCondition.value.kind === "bool" &&
      e.loopCondition.value.value === false &&
      !ACCUMULATORS.has(e.accuVar)
    );
  }

  private costBind(e: ComprehensionExpr): CostRange {
    let sum = this.cost(e.iterRange);
    sum = add(sum, this.cost(e.accuInit));
    this.pushLocal(e.accuVar, e.accuInit);
    sum = add(sum, this.cost(e.result));
    this.pop(e.accuVar);
    this.setSize(e, this.computeSize(e.result));
    const entry = this.entrySize(e.result);
    if (entry !== undefined) this.entries.set(e.id, entry);
    return sum;
  }

  private costCall(e: CallExpr): CostRange {
    if (e.fn === "dyn" && e.target === undefined && e.args.length === 1) {
      const arg = e.args[0]!;
      const c = this.cost(arg);
      this.setSize(e, this.computeSize(arg));
      const entry = this.entrySize(arg);
      if (entry !== undefined) this.entries.set(e.id, entry);
      return add(ONE, c);
    }
    const argCosts: CostRange[] = [];
    const argNodes: AstNode[] = [];
    for (const a of e.args) {
      argCosts.push(this.cost(a));
      argNodes.push(this.node(a));
    }
    const ids = this.checked.referenceMap.get(e.id)?.overloadIds ?? [];
    if (ids.length === 0) return ZERO;
    let sum = ZERO;
    let target: AstNode | undefined;
    if (e.target !== undefined) {
      sum = add(sum, this.cost(e.target));
      target = this.node(e.target);
    }
    let fnCost: CostRange = { min: UINT64_MAX, max: 0n };
    let resultSize: CostRange | undefined;
    for (const id of ids) {
      const oc = this.functionCost(e, id, target, argNodes, argCosts);
      fnCost = union(fnCost, oc.cost);
      if (oc.resultSize !== undefined) resultSize = resultSize === undefined ? oc.resultSize : union(resultSize, oc.resultSize);
      if ((id === "index_list" || id === "index_map") && e.args.length > 0) {
        resultSize = this.entrySize(e.args[0]!)?.val;
        this.paths.set(e.id, [...this.getPath(e.args[0]!), id === "index_list" ? "@items" : "@values"]);
      }
      if (resultSize === undefined) resultSize = this.computeSize(e);
    }
    this.setSize(e, resultSize);
    return add(sum, fnCost);
  }

  /** For a list-of-strings/bytes receiver, its elements' size (Kubernetes' list traversal rules), else undefined. */
  private elementSize(target: AstNode): CostRange | undefined {
    const t = target.type;
    const el = t?.kind === "list" ? t.params[0] : undefined;
    if (el === undefined || (el.kind !== "string" && el.kind !== "bytes")) return undefined;
    // Kubernetes' listElementNode: the element as a node without an expression, sized by the estimator only.
    const path = target.path === undefined ? undefined : [...target.path, "@items"];
    return this.estimator?.estimateSize({ path, type: el, expr: target.expr, computedSize: undefined }) ?? UNKNOWN;
  }

  private functionCost(
    e: CallExpr,
    id: string,
    target: AstNode | undefined,
    args: readonly AstNode[],
    argCosts: readonly CostRange[],
  ): { cost: CostRange; resultSize?: CostRange } {
    const argSum = (): CostRange => argCosts.reduce((s, c) => add(s, c), ZERO);
    const size = (n: AstNode): CostRange => n.computedSize ?? UNKNOWN;
    // The caller's estimator (e.g. Kubernetes' `kubernetesCostEstimator`), then the
    // libraries' rules (their cost tables), then cel-go's standard rules.
    const custom = this.estimator?.estimateCallCost?.(e.fn, id, target, args);
    if (custom !== undefined) {
      return custom.resultSize === undefined ? { cost: add(custom.cost, argSum()) } : { cost: add(custom.cost, argSum()), resultSize: custom.resultSize };
    }
    const lib = this.costs.get(id);
    if (lib?.estimate !== undefined) {
      const est = lib.estimate(
        args.map(size),
        target === undefined ? undefined : size(target),
        target === undefined ? undefined : this.elementSize(target),
      );
      if (est !== undefined) return { cost: add(est, argSum()) };
    }
    const T = STRING_TRAVERSAL_COST_FACTOR;
    switch (id) {
      case "string_format":
        if (target !== undefined) return { cost: add(byFactor(size(target), T), argSum()) };
        break;
      case "string_to_bytes":
        if (args.length === 1) {
          const sz = size(args[0]!);
          return { cost: add(byFactor(sz, T), argSum()), resultSize: { min: sz.min, max: mulU(sz.max, 4n) } };
        }
        break;
      case "bytes_to_string":
        if (args.length === 1) {
          const sz = size(args[0]!);
          return { cost: add(byFactor(sz, T), argSum()), resultSize: { min: sz.min / 4n, max: sz.max } };
        }
        break;
      case "strings_quote":
        if (args.length === 1) {
          const sz = size(args[0]!);
          return { cost: add(byFactor(sz, T), argSum()), resultSize: { min: addU(sz.min, 2n), max: addU(mulU(sz.max, 2n), 2n) } };
        }
        break;
      case "starts_with_string":
      case "ends_with_string":
        if (args.length === 1) return { cost: add(byFactor(size(args[0]!), T), argSum()) };
        break;
      case "in_list":
        if (args.length === 2) return { cost: add(byFactor(size(args[1]!), 1), argSum()) };
        break;
      case "matches_string":
        if (target !== undefined && args.length === 1) {
          const str = byFactor(add(size(target), ONE), T);
          const re = byFactor(size(args[0]!), REGEX_STRING_LENGTH_COST_FACTOR);
          return { cost: add(multiply(str, re), argSum()) };
        }
        break;
      case "contains_string":
        if (target !== undefined && args.length === 1) {
          return { cost: add(multiply(byFactor(size(target), T), byFactor(size(args[0]!), T)), argSum()) };
        }
        break;
      case "logical_or":
      case "logical_and": {
        const l = argCosts[0]!;
        const r = argCosts[1]!;
        return { cost: { min: l.min, max: add(l, r).max } };
      }
      case "conditional": {
        const rs = union(size(args[1]!), size(args[2]!));
        const a = this.entrySize(args[1]!.expr);
        const b = this.entrySize(args[2]!.expr);
        if (a !== undefined && b !== undefined) this.entries.set(e.id, { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) });
        return { cost: add(argCosts[0]!, union(argCosts[1]!, argCosts[2]!)), resultSize: rs };
      }
      case "add_string":
      case "add_bytes":
      case "add_list":
        if (args.length === 2) {
          const rs = add(size(args[0]!), size(args[1]!));
          const a = this.entrySize(args[0]!.expr);
          const b = this.entrySize(args[1]!.expr);
          if (a !== undefined && b !== undefined) this.entries.set(e.id, { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) });
          if (id === "add_list") return { cost: add(ONE, argSum()), resultSize: rs };
          return { cost: add(byFactor(rs, T), argSum()), resultSize: rs };
        }
        break;
      case "less_string":
      case "greater_string":
      case "less_equals_string":
      case "greater_equals_string":
      case "less_bytes":
      case "greater_bytes":
      case "less_equals_bytes":
      case "greater_equals_bytes":
      case "equals":
      case "not_equals": {
        const l = size(args[0]!);
        const r = size(args[1]!);
        const smallestMax = l.max < r.max ? l.max : r.max;
        const min = smallestMax > 0n ? 1n : 0n;
        return { cost: add(byFactor({ min, max: smallestMax }, T), argSum()) };
      }
    }
    return { cost: add(ONE, argSum()) };
  }
}

/** cel-go `computeExprSize`: sizes the expression states itself. */
function exprSize(e: Expr): CostRange | undefined {
  switch (e.kind) {
    case "const":
      switch (e.value.kind) {
        case "string": {
          let n = 0;
          for (const _ of e.value.value) n++;
          return fixed(n);
        }
        case "bytes":
          return fixed(e.value.value.length);
        default:
          return ONE;
      }
    case "list":
      return fixed(e.elements.length);
    case "map":
      return fixed(e.entries.length);
    default:
      return undefined;
  }
}

/** cel-go `isScalar`: types whose values have size 1. */
function isScalar(t: CelType): boolean {
  switch (t.kind) {
    case "bool":
    case "double":
    case "duration":
    case "int":
    case "timestamp":
    case "uint":
      return true;
    case "opaque":
      return t.name === "optional_type" && t.params[0] !== undefined && isScalar(t.params[0]);
    default:
      return false;
  }
}


/** Re-exported for callers that build size estimators. */
export { UNKNOWN as UNKNOWN_SIZE, Op as CEL_OPERATORS };
