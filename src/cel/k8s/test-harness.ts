/**
 * Shared by the Kubernetes library tests: compile and evaluate through the real
 * engine with the Kubernetes language options, and report errors by kind.
 */
import type { Library } from "../decls.js";
import { Env } from "../env.js";
import { CelCompileError, CelEvalError } from "../errors.js";
import type { CelType } from "../types.js";
import type { CelValue } from "../values.js";

export type Outcome =
  | { readonly value: CelValue }
  | { readonly evalError: string }
  | { readonly compileError: string };

export function k8sEnv(libraries: readonly Library[], variables?: Readonly<Record<string, CelType>>): Env {
  return new Env({
    libraries,
    ...(variables === undefined ? {} : { variables }),
    homogeneousAggregateLiterals: true,
    crossTypeNumericComparisons: true,
  });
}

/** Compiles and evaluates `expr`; CEL errors become outcomes, anything else is rethrown. */
export function outcome(env: Env, expr: string, vars: Readonly<Record<string, CelValue>> = {}): Outcome {
  let program;
  try {
    program = env.program(env.compile(expr));
  } catch (e) {
    if (e instanceof CelCompileError) return { compileError: e.issues.map((i) => i.message).join("\n") };
    throw e;
  }
  try {
    return { value: program.eval(vars) };
  } catch (e) {
    if (e instanceof CelEvalError) return { evalError: e.message };
    throw e;
  }
}
