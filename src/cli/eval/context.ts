/**
 * What `celmap eval` evaluates every resource against, built once per thread: the settings from the
 * command line (plain data, so they cross to worker threads), and the context built from the policy
 * documents (`-f`, --old, --target-resources) through the engine's `load`. The main thread reads the
 * documents (policySources) and reports their errors; worker threads get the same documents as data
 * and build the same context. Another source of policy documents (a live cluster) only has to add
 * documents to `PolicySources`.
 */
import type { JsonObject, Operation } from "../../admission/index.js";
import type { MutatingPolicy } from "../../kyverno/index.js";
import type { SourceRef } from "../../diag/source.js";
import { formatLoadError, loadPaths, type LoadedDocument } from "../../io/load.js";
import { unknownKind, type AdmitOptions, type LoadOptions, type ObjectRequest, type PolicySet } from "../../engine/index.js";
import { describeObject, isObject, loadInputs, objectProblem, where } from "../render/session.js";
import { mutatorInputs, type MutatorInputs } from "../commands/translate.js";
import type { Target } from "./existing.js";

export type EvalOutput = "yaml" | "diff" | "json" | "patch" | "markdown";

export interface EvalSettings {
  readonly output: EvalOutput;
  readonly trace: boolean;
  readonly failOnError: boolean;
  readonly operation: Operation;
  readonly spec: ObjectRequest;
  readonly admitOptions: AdmitOptions;
  readonly engine: "map" | "gatekeeper";
  /** Whether stdout / stderr get colour (decided in the main thread, where the terminal is). */
  readonly colorOut: boolean;
  readonly colorErr: boolean;
}

/** The documents around the resources, as plain data (they cross to worker threads). */
export interface PolicySources {
  readonly policies: readonly SourceDocument[];
  readonly olds: readonly SourceDocument[];
  readonly targets: readonly SourceDocument[];
  /** Whether --target-resources was given (even when empty). */
  readonly targetsGiven: boolean;
  /**
   * With --kubeconfig: the cluster's resource catalog and schemas for `load` (main thread only:
   * they are not plain data, so an evaluation with them stays on one thread).
   */
  readonly loadOptions?: LoadOptions;
}

export interface SourceDocument {
  readonly value: unknown;
  readonly source: SourceRef;
  /** Positions (main thread only; absent on worker threads). */
  readonly locate?: LoadedDocument["locate"];
}

/** Reads `-f`, --old and --target-resources files; read errors (with excerpts) go to `errors`. */
export function readPolicySources(paths: { readonly policies: readonly string[]; readonly olds: readonly string[]; readonly targets: readonly string[] }, errors: string[]): PolicySources {
  const read = (ps: readonly string[]): LoadedDocument[] => {
    const r = loadPaths(ps, { numbers: "cel" });
    for (const e of r.errors) errors.push(`${formatLoadError(e)}${e.excerpt !== undefined ? `\n${e.excerpt.replace(/^/gm, "    ")}` : ""}`);
    return r.documents;
  };
  return { policies: read(paths.policies), olds: read(paths.olds), targets: read(paths.targets), targetsGiven: paths.targets.length > 0 };
}

/** The documents as data for a worker thread (no functions). */
export function sourcesAsData(s: PolicySources): PolicySources {
  const strip = (ds: readonly SourceDocument[]) => ds.map((d) => ({ value: d.value, source: d.source }));
  return { policies: strip(s.policies), olds: strip(s.olds), targets: strip(s.targets), targetsGiven: s.targetsGiven };
}

export interface EvalContext {
  readonly settings: EvalSettings;
  readonly session: PolicySet;
  readonly gk: MutatorInputs;
  readonly olds: ReadonlyMap<string, JsonObject>;
  readonly targets: Target[];
  readonly existingPolicies: readonly MutatingPolicy[];
}

export interface BuiltContext {
  readonly context: EvalContext;
  /** Input errors: nothing may be evaluated when there are any. */
  readonly errors: readonly string[];
  /** Whether an error is celmap's (exit 3) rather than the input's. */
  readonly internal: boolean;
  readonly warnings: readonly string[];
}

/** A source document as `load` takes it (without positions on a worker thread). */
export function loaded(d: SourceDocument): LoadedDocument {
  return { value: d.value, source: d.source, locate: d.locate ?? (() => undefined) };
}

/** kind, namespace and name: how --old objects are matched to resources. */
export function identity(o: JsonObject): string {
  const md = isObject(o.metadata) ? o.metadata : {};
  const apiVersion = String(o.apiVersion ?? "");
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return `${group}/${String(o.kind)}/${String(md.namespace ?? "")}/${String(md.name ?? "")}`;
}

export function buildContext(settings: EvalSettings, sources: PolicySources): BuiltContext {
  const errors: string[] = [];
  const allF = sources.policies.map(loaded);
  // --engine map: the engine translates Gatekeeper mutators at load; --engine gatekeeper: they run in Gatekeeper's own System.
  const gk: MutatorInputs = settings.engine === "gatekeeper" ? mutatorInputs(allF, settings.engine) : { documents: allF, verdicts: [], errors: [], count: 0 };
  errors.push(...gk.errors);
  if (settings.engine === "gatekeeper") {
    if (gk.count === 0) errors.push(`--engine gatekeeper: no Gatekeeper mutators among the -f inputs`);
    for (const d of gk.documents) if (isObject(d.value) && /MutatingAdmissionPolicy/.test(String(d.value.kind))) errors.push(`${where(d.source)}: --engine gatekeeper runs Gatekeeper mutators only, not ${String(d.value.kind)}`);
  }
  const built = loadInputs(gk.documents, sources.loadOptions);
  errors.push(...built.errorLines);
  const session = built.policySet;
  const targets: Target[] = [];
  for (const d of sources.targets.map(loaded)) {
    const p = objectProblem(d);
    if (p !== undefined) {
      errors.push(p);
      continue;
    }
    const k = unknownKind(session, d.value as JsonObject);
    if (k !== undefined) errors.push(`${where(d.source)}: ${k}`);
    else targets.push({ source: where(d.source), object: d.value as JsonObject, original: d.value as JsonObject, runs: [] });
  }
  for (const t of targets) session.kyverno.resources.addObject(t.object as never);
  const existingPolicies = session.kyverno.policies.filter((p) => p.spec.evaluation?.mutateExisting?.enabled === true);
  if (sources.targetsGiven && existingPolicies.length === 0) errors.push(`--target-resources: no Kyverno MutatingPolicy with evaluation.mutateExisting.enabled among the -f inputs`);
  const olds = new Map<string, JsonObject>();
  for (const d of sources.olds.map(loaded)) {
    const p = objectProblem(d);
    if (p !== undefined) errors.push(p);
    else olds.set(identity(d.value as JsonObject), d.value as JsonObject);
  }
  return {
    context: { settings, session, gk, olds, targets, existingPolicies },
    errors,
    internal: built.errors.some((e) => e.kind === "internal"),
    warnings: [...built.warnings, ...(gk.conflicts ?? [])],
  };
}

/** Whether resources must be evaluated in one thread, in order (mutateExisting targets carry state from trigger to trigger). */
export function needsOneThread(ctx: EvalContext, sources?: PolicySources): boolean {
  return ctx.existingPolicies.length > 0 || ctx.targets.length > 0 || sources?.loadOptions !== undefined;
}

export { describeObject };
