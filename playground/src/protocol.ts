/** Messages between the page and the evaluation worker. */
import type { CelInput, CelOutput, EvalInput, EvalOutput, TranslateOutput } from "./engine.js";

export type Job =
  | { readonly kind: "eval"; readonly input: EvalInput }
  | { readonly kind: "cel"; readonly input: CelInput }
  | { readonly kind: "translate"; readonly input: string };

export type JobResult =
  | { readonly kind: "eval"; readonly output: EvalOutput }
  | { readonly kind: "cel"; readonly output: CelOutput }
  | { readonly kind: "translate"; readonly output: TranslateOutput };

export interface Request {
  readonly id: number;
  readonly job: Job;
}

/** `started`: the worker has begun the job (its time limit counts from here, not from its own start-up). */
export type Response =
  | { readonly id: number; readonly started: true }
  | { readonly id: number; readonly started?: undefined; readonly ok: true; readonly result: JobResult; readonly ms: number; readonly loadedAt: number }
  | { readonly id: number; readonly started?: undefined; readonly ok: false; readonly error: string };
