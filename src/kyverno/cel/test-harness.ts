/** Shared by the Kyverno library tests: compile and evaluate in the MutatingPolicy environment. */
import { CelCompileError, CelEvalError } from "../../cel/errors.js";
import type { CelValue } from "../../cel/values.js";
import { kyvernoEnv, type KyvernoEnvOptions } from "./environment.js";

export type Outcome = { readonly value: CelValue } | { readonly evalError: string } | { readonly compileError: string };

export function run(expr: string, options: KyvernoEnvOptions = {}, bindings: Readonly<Record<string, CelValue>> = {}): Outcome {
  const k = kyvernoEnv(options);
  let program;
  try {
    program = k.env.program(k.env.compile(expr));
  } catch (e) {
    if (e instanceof CelCompileError) return { compileError: e.issues.map((i) => i.message).join("\n") };
    throw e;
  }
  try {
    return { value: program.eval(k.activation(bindings)) };
  } catch (e) {
    if (e instanceof CelEvalError) return { evalError: e.message };
    throw e;
  }
}

export const v = (value: unknown): Outcome => ({ value: value as CelValue });
export const err = (message: string): Outcome => ({ evalError: message });
export const m = (entries: Record<string, unknown>): Map<string, CelValue> => new Map(Object.entries(entries)) as Map<string, CelValue>;
