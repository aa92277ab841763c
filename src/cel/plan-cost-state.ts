/**
 * The cost-tracking variant's run-time helpers (see planner.ts `CompiledProgram.track`): the
 * running cost of the tracked evaluation in progress, the charging wrappers, and what string
 * concatenation remembers between closures.
 */
import { CelOptional } from "./values.js";
import { CelCostLimitError } from "./cost-runtime.js";
import type { Ev } from "./plan-frame.js";

// ------------------------------------------------------------------ cost tracking state
// Evaluation is synchronous, so the running cost of the tracked evaluation in
// progress lives in module state (saved and restored around each tracked eval,
// so a nested evaluation does not disturb an outer one). Tracking closures add
// to it and compare with the limit; untracked closures never touch it.
// One constant object (not module-level `let`s, which cost a hole check per access).
export const COST = { acc: 0, limit: Infinity };
/** The last string concatenation's result and its size in code points (see `chargingImpl`). */
export const CONCAT: { s: string | undefined; n: number } = { s: undefined, n: 0 };

/**
 * Set by the closures of `x + y` that `stringCall` plans (the planner's `addFast`): every one
 * that returns sets `LAST_ADD.n` last, to its result's size in code points (-1 when it took the
 * general call), so a `+` whose left operand is one of them reads the size right after
 * evaluating it instead of measuring the concatenation.
 */
export const LAST_ADD = { n: -1 };

/** Overloads costing ceil(size(receiver) × 0.1) (`stdCostFunction`'s first case). */
export const RECEIVER_TRAVERSAL: ReadonlySet<string> = new Set(["starts_with_string", "ends_with_string", "string_to_bytes", "bytes_to_string", "strings_quote", "string_format"]);

/** Adds `n` to the running cost; throws once the limit is exceeded. */
export function charge(n: number): void {
  COST.acc += n;
  if (COST.acc > COST.limit) throw new CelCostLimitError(COST.limit, COST.acc);
}

/** Gives back the 1 a qualifier was charged when its result is `optional.none()`. */
export function refundAbsent(ev: Ev): Ev {
  return (f) => {
    const v = ev(f);
    if (v instanceof CelOptional && v.value === undefined) COST.acc -= 1;
    return v;
  };
}

/** Wraps a closure to charge `n` after it evaluated. */
export function charged(ev: Ev, n: number): Ev {
  if (n === 0) return ev;
  return (f) => {
    const v = ev(f);
    COST.acc += n;
    if (COST.acc > COST.limit) throw new CelCostLimitError(COST.limit, COST.acc);
    return v;
  };
}

/** Tracking: a `?:` branch read through the conditional attribute, refunded its own attribute cost. */
export function discounted(ev: Ev): Ev {
  return (f) => {
    const v = ev(f);
    COST.acc -= 1;
    return v;
  };
}
