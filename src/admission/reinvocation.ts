/**
 * MAP's reinvocation bookkeeping across the (at most two) passes of the admission chain, as
 * `policyReinvokeContext` keeps it (`pkg/admission/plugin/policy/mutating/reinvocationcontext.go`
 * and `dispatcher.go`; map.md §5.2):
 *
 * - key of an invocation: policy name, binding name, param namespace/name;
 * - `prev`: IfNeeded invocations run since the last observed change; `reinvoke`: the ones pass 2
 *   runs; `lastOutput`: the object at the end of MAP's previous pass;
 * - start of pass 2: an object that differs from `lastOutput` (another plugin changed it) moves
 *   `prev` into `reinvoke`;
 * - after an invocation that changed the object: `prev` → `reinvoke`, chain reinvocation requested;
 *   then an IfNeeded invocation joins `prev`;
 * - end of a pass in which any mutation succeeded (even a no-op one): `prev` → `reinvoke`, chain
 *   reinvocation requested. This end-of-pass rule is why a single IfNeeded policy runs twice
 *   (map-oracle-findings §10).
 */
import { deepEqual, type JsonObject } from "./json.js";

/** The reinvocation key of an invocation. */
export function invocationKey(policy: string, binding: string, param: JsonObject | null): string {
  const md = (param?.metadata ?? {}) as JsonObject;
  const ns = typeof md.namespace === "string" ? md.namespace : "";
  const name = typeof md.name === "string" ? md.name : "";
  // NUL cannot occur in Kubernetes names, so the joined text is unambiguous.
  return `${policy}\u0000${binding}\u0000${ns}\u0000${name}`;
}

export class ReinvocationState {
  private lastOutput: JsonObject | null | undefined = undefined;
  private prev = new Set<string>();
  private readonly reinvoke = new Set<string>();

  shouldReinvoke(key: string): boolean {
    return this.reinvoke.has(key);
  }

  /** `IsOutputChangedSinceLastPolicyInvocation`. */
  outputChangedSince(object: JsonObject | null): boolean {
    if (this.lastOutput === undefined) return object !== null;
    if (this.lastOutput === null || object === null) return this.lastOutput !== object;
    return !deepEqual(this.lastOutput, object);
  }

  setLastOutput(object: JsonObject | null): void {
    // No copy: the pipeline never modifies an object in place (json.ts).
    this.lastOutput = object;
  }

  addPreviouslyInvoked(key: string): void {
    this.prev.add(key);
  }

  /** `RequireReinvokingPreviouslyInvokedPlugins`. */
  requireReinvokingPreviouslyInvoked(): void {
    for (const k of this.prev) this.reinvoke.add(k);
    this.prev = new Set();
  }

  /** Keys that pass 2 would run, for traces. */
  reinvokeKeys(): string[] {
    return [...this.reinvoke];
  }
}
