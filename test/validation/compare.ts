/**
 * Runs generated cases through celmap's stored-object validation and through a reference, and
 * lists the differences. References:
 * - the Go oracle `e2e/validation-oracle` (kube-apiserver v1.36.3's own decode, defaulting and
 *   registry strategies, in process): `oracleOutcomes(cases, binary)`;
 * - a real kube-apiserver through kubectl (`kubectl create|replace --dry-run=server`), e.g. the
 *   e2e cluster fixture: `apiserverOutcomes(cases, kubeconfig)`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import type { JsonObject } from "../../src/admission/json.js";
import { defaultObject, validateStored, validationContext } from "../../src/validation/index.js";
import type { ValidationCase } from "./cases.js";

export interface Outcome {
  readonly id: string;
  readonly allowed: boolean;
  readonly code?: number;
  readonly message?: string;
}

const builtinContext = validationContext();

/** What celmap says the apiserver answers for the case. */
export function celmapOutcome(c: ValidationCase): Outcome {
  const ctx = c.crd === undefined ? builtinContext : validationContext([c.crd]);
  const object = defaultObject(c.object, ctx);
  const old = c.oldObject === undefined ? undefined : defaultObject(c.oldObject, ctx);
  const r = validateStored(object, old, ctx);
  return r.ok ? { id: c.id, allowed: true } : { id: c.id, allowed: false, code: r.status.code, message: r.status.message };
}

/** The Go oracle's answers (one process for all cases). */
export function oracleOutcomes(cases: readonly ValidationCase[], binary: string): Outcome[] {
  const out = execFileSync(binary, [], { input: JSON.stringify(cases), maxBuffer: 64 * 1024 * 1024 });
  return (JSON.parse(out.toString("utf8")) as Outcome[]).map((o) => ({ id: o.id, allowed: o.allowed, ...(o.code !== undefined ? { code: o.code } : {}), ...(o.message !== undefined ? { message: o.message } : {}) }));
}

/**
 * A real apiserver's answers through kubectl (server-side dry run; the namespace `default` and
 * the objects' own namespaces must exist). UPDATE cases create the old object first (dry run
 * cannot update what does not exist), then replace it, then delete it.
 */
export function apiserverOutcomes(cases: readonly ValidationCase[], kubeconfig: string): Outcome[] {
  const kubectl = (args: string[], input?: JsonObject): { status: number; stderr: string } => {
    const r = spawnSync("kubectl", ["--kubeconfig", kubeconfig, ...args, "-f", "-"], { input: input === undefined ? "" : JSON.stringify(input), encoding: "utf8", timeout: 30_000 });
    return { status: r.status ?? 1, stderr: r.stderr };
  };
  return cases.map((c) => {
    if (c.oldObject !== undefined) kubectl(["create"], c.oldObject);
    const r = c.oldObject === undefined ? kubectl(["create", "--dry-run=server"], c.object) : kubectl(["replace", "--dry-run=server"], c.object);
    if (c.oldObject !== undefined) kubectl(["delete", "--wait=false"], c.oldObject);
    if (r.status === 0) return { id: c.id, allowed: true };
    // Error from server (Invalid): error when creating "STDIN": <message>
    const m = /Error from server \((\w+)\): error when (?:creating|replacing) "STDIN": (.*)/s.exec(r.stderr.trim());
    return { id: c.id, allowed: false, code: m?.[1] === "Invalid" ? 422 : 0, message: (m?.[2] ?? r.stderr).trim() };
  });
}

export interface Difference {
  readonly id: string;
  readonly celmap: Outcome;
  readonly reference: Outcome;
}

export function differences(cases: readonly ValidationCase[], reference: readonly Outcome[]): Difference[] {
  const byId = new Map(reference.map((o) => [o.id, o]));
  const out: Difference[] = [];
  for (const c of cases) {
    const ref = byId.get(c.id);
    if (ref === undefined) continue;
    const ours = celmapOutcome(c);
    if (ours.allowed !== ref.allowed || (!ref.allowed && (ours.message !== ref.message || ours.code !== ref.code))) out.push({ id: c.id, celmap: ours, reference: ref });
  }
  return out;
}
