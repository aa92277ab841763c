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

/** The Go oracle's answers (one process for all cases); `object` is the stored object of an admitted CREATE. */
export function oracleOutcomes(cases: readonly ValidationCase[], binary: string): (Outcome & { readonly object?: JsonObject })[] {
  const out = execFileSync(binary, [], { input: JSON.stringify(cases), maxBuffer: 64 * 1024 * 1024 });
  const creates = new Set(cases.filter((c) => c.oldObject === undefined).map((c) => c.id));
  return (JSON.parse(out.toString("utf8")) as (Outcome & { object?: JsonObject })[]).map((o) => ({
    id: o.id,
    allowed: o.allowed,
    ...(o.code !== undefined ? { code: o.code } : {}),
    ...(o.message !== undefined ? { message: o.message } : {}),
    ...(o.allowed && o.object !== undefined && creates.has(o.id) ? { object: o.object } : {}),
  }));
}

/**
 * The stored object without what celmap leaves to the apiserver's storage (the registry
 * strategies' PrepareForCreate and the system fields): metadata uid, creationTimestamp and
 * generation, status (but a Service's and a Namespace's, which defaulting sets), a Job's
 * generated selector and controller labels, a Namespace's spec.finalizers, a DaemonSet's
 * template-generation annotation. What remains is defaulting, which celmap models.
 */
export function withoutStorageFields(o: JsonObject): JsonObject {
  const c = JSON.parse(JSON.stringify(o)) as JsonObject;
  const md = c.metadata as JsonObject | undefined;
  if (md !== undefined) for (const f of ["uid", "creationTimestamp", "generation"]) delete md[f];
  if (c.kind !== "Service" && c.kind !== "Namespace") delete c.status;
  if (c.kind === "Namespace") delete c.spec;
  if (c.kind === "DaemonSet" && md?.annotations !== undefined) {
    const ann = md.annotations as JsonObject;
    delete ann["deprecated.daemonset.template.generation"];
    if (Object.keys(ann).length === 0) delete md.annotations;
  }
  if (c.kind === "Job") {
    const spec = c.spec as JsonObject;
    delete spec.selector;
    const labels = ((spec.template as JsonObject).metadata as JsonObject).labels as JsonObject;
    for (const l of ["batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name", "controller-uid", "job-name"]) delete labels[l];
  }
  return c;
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
