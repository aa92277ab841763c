/** celmap's answer to a celref request: compile and evaluate in the same Kubernetes environment. */
import {
  CelEvalError,
  PER_CALL_LIMIT,
  fromJsonLazy,
  typeOf,
  type CelValue,
  type Env,
} from "../../src/cel/index.js";
import { compileExpression, kubernetesEnv } from "../../src/admission/environment.js";
import { encode, type Tagged } from "./cel-json.js";

export interface CelRequest {
  readonly expr: string;
  /** `base`: the admission environment without patch types; `mutation`: with `Object`/`JSONPatch`. */
  readonly mode?: "base" | "mutation";
  /** JSON text per variable name (object, oldObject, params, request, namespaceObject). */
  readonly vars?: Readonly<Record<string, unknown>>;
}

export interface CelAnswer {
  readonly ok: boolean;
  readonly stage?: "compile" | "eval" | "input" | "panic" | "crash";
  readonly error?: string;
  readonly value?: Tagged;
  readonly type?: string;
  readonly cost?: number;
}

let envs: Record<"base" | "mutation", Env> | undefined;

export function celmapAnswer(req: CelRequest): CelAnswer {
  envs ??= {
    base: kubernetesEnv({ kind: "variables", hasParams: true }),
    mutation: kubernetesEnv({ kind: "mutation", hasParams: true }),
  };
  try {
    const compiled = compileExpression(envs[req.mode ?? "base"], req.expr);
    if (!compiled.ok) return { ok: false, stage: "compile", error: compiled.detail };
    const bindings: Record<string, CelValue> = {};
    for (const [name, json] of Object.entries(req.vars ?? {})) bindings[name] = fromJsonLazy(json);
    try {
      const { value, cost } = compiled.program.evalWithCost(bindings, { costLimit: PER_CALL_LIMIT });
      return { ok: true, value: encode(value), type: typeOf(value).name, cost };
    } catch (e) {
      if (e instanceof CelEvalError) {
        const cost = compiled.program.lastCost;
        return { ok: false, stage: "eval", error: e.message, ...(cost === undefined ? {} : { cost }) };
      }
      throw e;
    }
  } catch (e) {
    return { ok: false, stage: "crash", error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}
