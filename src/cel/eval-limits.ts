/**
 * Limits of an evaluation that are not its cost (`EvalOptions.interrupt`, `EvalOptions.maxSize`,
 * or {@link withEvalLimits} around several evaluations):
 *
 * - an interrupt check, polled every {@link INTERRUPT_CHECK_FREQUENCY} comprehension iterations
 *   as cel-go polls `cel.InterruptCheckFrequency` (the untracked fast loops count a loop's
 *   iterations when it starts, see {@link ticks}; evaluation with cost tracking, as admission
 *   runs it, counts each iteration):
 *   when it answers true, evaluation stops with {@link CelInterruptedError} ("operation
 *   interrupted", cel-go's words), which no `||`, `&&` or comprehension absorbs;
 * - a size limit on the values that concatenation builds (`+` on strings, bytes and lists): a
 *   result larger than `maxSize` (UTF-16 units, bytes, elements) stops evaluation with a
 *   {@link CelCostLimitError}. cel-go has no such limit; it bounds memory where the cost model
 *   does not (a `dyn + dyn` concatenation costs 1 in cel-go as here, so ten variables each
 *   quadrupling a string reach 262 million characters for a cost of a few hundred).
 *
 * Evaluation is synchronous, so the limits in force live in module state, set for the duration of
 * an evaluation (or of a {@link withEvalLimits} scope) and inherited by nested evaluations (lazily
 * evaluated variables) that set none of their own.
 */
import { CelCostLimitError, CelInterruptedError } from "./cost-runtime.js";

export { CelInterruptedError, INTERRUPTED_MESSAGE } from "./cost-runtime.js";

/** Comprehension iterations between two interrupt checks (Kubernetes' `celconfig.CheckFrequency`). */
export const INTERRUPT_CHECK_FREQUENCY = 100;

export interface EvalLimits {
  /** Polled during evaluation; true stops it with {@link CelInterruptedError}. */
  readonly interrupt?: (() => boolean) | undefined;
  /** Largest string (UTF-16 units), bytes or list a concatenation may build. */
  readonly maxSize?: number | undefined;
}

/** The limits in force (one constant object: fields read in hot loops). */
export const LIMITS: { interrupt: (() => boolean) | undefined; countdown: number; maxSize: number } = {
  interrupt: undefined,
  countdown: INTERRUPT_CHECK_FREQUENCY,
  maxSize: Infinity,
};

/** One comprehension iteration: polls the interrupt check every {@link INTERRUPT_CHECK_FREQUENCY} calls. */
export function tick(): void {
  if (--LIMITS.countdown <= 0) poll();
}

/**
 * A loop of `n` iterations about to run (the untracked fast loops, which count their iterations
 * once on entry rather than on each: nested loops are polled as often as per-iteration counting
 * would, a flat one before it starts).
 */
export function ticks(n: number): void {
  if ((LIMITS.countdown -= n) <= 0) poll();
}

/** Polls the interrupt check now. */
export function poll(): void {
  LIMITS.countdown = INTERRUPT_CHECK_FREQUENCY;
  const check = LIMITS.interrupt;
  if (check !== undefined && check()) throw new CelInterruptedError();
}

/** Throws when a concatenation would build a value of `n` elements over the size limit. */
export function checkSize(n: number): void {
  if (n > LIMITS.maxSize) throw new CelCostLimitError(LIMITS.maxSize, n);
}

/** Whether the options set any limit (so callers can skip the scope). */
export function hasLimits(l: EvalLimits | undefined): boolean {
  return l !== undefined && (l.interrupt !== undefined || l.maxSize !== undefined);
}

/** Runs `f` with these limits in force (the ones it does not set are inherited), restoring the previous ones after. */
export function withEvalLimits<T>(limits: EvalLimits, f: () => T): T {
  const savedInterrupt = LIMITS.interrupt;
  const savedMax = LIMITS.maxSize;
  if (limits.interrupt !== undefined) LIMITS.interrupt = limits.interrupt;
  if (limits.maxSize !== undefined) LIMITS.maxSize = Math.min(limits.maxSize, savedMax);
  try {
    if (limits.interrupt !== undefined) poll();
    return f();
  } finally {
    LIMITS.interrupt = savedInterrupt;
    LIMITS.maxSize = savedMax;
  }
}
