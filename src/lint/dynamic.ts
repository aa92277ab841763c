/**
 * The checks that run policies: on one object, whether the admitted object depends on the order
 * of the policies (`order`), whether admitting it again changes it (`idempotence`), and how many
 * passes of the chain it takes to settle (`convergence`). Each returns findings without a witness;
 * the caller attaches the object and shrinks it (witness.ts).
 */
import { jsonDiff, type PatchOperation } from "../admission/diff.js";
import { deepEqual, type JsonObject, type JsonValue } from "../admission/json.js";
import type { Admission, CheckName, DivergingResult, Finding, LintSubject, LintUnit } from "./model.js";
import { ordersFor, pairFirst } from "./orders.js";

/** `/spec/containers/0/image` → `spec.containers[0].image`; keys that are not identifiers in brackets. */
export function fieldPath(pointer: string): string {
  if (pointer === "") return "";
  let out = "";
  for (const raw of pointer.split("/").slice(1)) {
    const t = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(t)) out += `[${t}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(t)) out += out === "" ? t : `.${t}`;
    else out += `[${JSON.stringify(t)}]`;
  }
  return out;
}

/** Sorted-key JSON with exact integers: equal for deeply equal values. */
export function canonical(v: unknown): string {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v).toString() : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

function sameOutcome(a: Admission, b: Admission): boolean {
  if (a.allowed !== b.allowed) return false;
  // Two denials are the same outcome: which policy's error is reported first is not a change of the object.
  if (!a.allowed) return true;
  return deepEqual(a.object as JsonValue, b.object as JsonValue);
}

function result(label: string, a: Admission): DivergingResult {
  return { label, allowed: a.allowed, object: a.object, ...(a.message !== undefined ? { message: a.message } : {}) };
}

/** The field that changed between two objects: the deepest field all changes lie under (a list, when its items moved). */
function firstChange(a: JsonObject, b: JsonObject): { path: string; op: PatchOperation } | undefined {
  const d = jsonDiff(a, b);
  if (d.length === 0) return undefined;
  let common = d[0]!.path.split("/");
  for (const op of d.slice(1)) {
    const t = op.path.split("/");
    let i = 0;
    while (i < common.length && i < t.length && common[i] === t[i]) i++;
    common = common.slice(0, i);
  }
  if (d.length > 1) while (common.length > 1 && /^\d+$/.test(common[common.length - 1]!)) common = common.slice(0, -1);
  return { path: fieldPath(common.join("/")), op: d[0]! };
}

export interface ObjectContext {
  readonly subject: LintSubject;
  readonly units: ReadonlyMap<string, LintUnit>;
  readonly random: () => number;
  readonly maxPasses: number;
  /** Notes for the report (sampled orders). */
  readonly note: (text: string) => void;
}

function unitsOf(ctx: ObjectContext, ids: readonly string[]): LintUnit[] {
  const seen = new Set<string>();
  const out: LintUnit[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    const u = ctx.units.get(id);
    if (u !== undefined) out.push(u);
  }
  return out;
}

function orderLabel(ctx: ObjectContext, order: readonly string[]): string {
  return `order ${order.map((id) => ctx.units.get(id)?.name ?? id).join(" → ")}`;
}

/** The object admitted as the apiserver would for a create, in the default order. */
export function firstAdmission(subject: LintSubject, object: JsonObject): Admission {
  return subject.admit(object, { operation: "CREATE" });
}

/**
 * `order`: the admitted object in every order of the policies that selected it. A pair whose two
 * relative orders give different results is a finding; when the results differ but no pair alone
 * explains it, one finding names every policy involved.
 */
export function checkOrder(ctx: ObjectContext, object: JsonObject, base: Admission): Finding[] {
  const candidates = ctx.subject.units.filter((u) => u.group !== "gatekeeper" && base.matched.includes(u.id));
  const groups = (["map", "kyverno"] as const).map((g) => candidates.filter((u) => u.group === g).map((u) => u.id)).filter((g) => g.length >= 2);
  if (groups.length === 0) return [];
  const plan = ordersFor(groups, ctx.random);
  if (plan.sampled) ctx.note(`more than 6 policies select one object: orders were sampled (the default order with every pair swapped, plus 24 seeded random orders), not all tried`);
  const admitted = new Map<string, Admission>();
  const run = (order: readonly string[]): Admission => {
    const key = order.join("\u0000");
    let a = admitted.get(key);
    if (a === undefined) admitted.set(key, (a = ctx.subject.admit(object, { operation: "CREATE", order })));
    return a;
  };
  const first = run(plan.orders[0]!);
  let other: { order: readonly string[]; a: Admission } | undefined;
  for (const o of plan.orders.slice(1)) {
    const a = run(o);
    if (!sameOutcome(first, a)) {
      other = { order: o, a };
      break;
    }
  }
  // With many policies, the pair swaps are part of the plan; check them all even when the
  // sampled orders agree only if some order disagreed.
  if (other === undefined) return [];
  const findings: Finding[] = [];
  for (const g of groups) {
    // Pairs whose members both could matter: at least one of them changed the object somewhere.
    const movers = new Set([...base.changedBy, ...first.changedBy, ...other.a.changedBy]);
    for (let i = 0; i < g.length; i++) {
      for (let j = i + 1; j < g.length; j++) {
        const x = g[i]!;
        const y = g[j]!;
        if (g.length > 6 && !movers.has(x) && !movers.has(y)) continue;
        const o1 = [...groups.filter((h) => h !== g).flat(), ...pairFirst(g, x, y)];
        const o2 = [...groups.filter((h) => h !== g).flat(), ...pairFirst(g, y, x)];
        const a1 = run(o1);
        const a2 = run(o2);
        if (sameOutcome(a1, a2)) continue;
        const change = a1.allowed && a2.allowed ? firstChange(a1.object, a2.object) : undefined;
        const [nx, ny] = [ctx.units.get(x)!.name, ctx.units.get(y)!.name];
        findings.push({
          check: "order",
          severity: "error",
          message: `order-dependent: ${nx} and ${ny} give different results depending on which runs first${change !== undefined ? ` (${change.path})` : a1.allowed !== a2.allowed ? " (one order is denied)" : ""}`,
          policies: unitsOf(ctx, [x, y]),
          ...(change !== undefined ? { path: change.path } : {}),
          results: [result(`${nx} first`, a1), result(`${ny} first`, a2)],
        });
      }
    }
  }
  if (findings.length === 0) {
    const change = first.allowed && other.a.allowed ? firstChange(first.object, other.a.object) : undefined;
    findings.push({
      check: "order",
      severity: "error",
      message: `order-dependent: the result depends on the order of ${candidates.map((u) => u.name).join(", ")} (no single pair explains it)${change !== undefined ? ` (${change.path})` : ""}`,
      policies: candidates,
      ...(change !== undefined ? { path: change.path } : {}),
      results: [result(orderLabel(ctx, plan.orders[0]!), first), result(orderLabel(ctx, other.order), other.a)],
    });
  }
  return findings;
}

/** Whether the value at `op.path` in `after` contains the one in `before` (a string or list that grows). */
function grows(before: JsonObject, op: PatchOperation): boolean {
  if (op.op !== "replace" || typeof op.value !== "string") return false;
  let v: unknown = before;
  for (const raw of op.path.split("/").slice(1)) {
    const t = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (v === null || typeof v !== "object") return false;
    v = (v as Record<string, unknown>)[t];
  }
  return typeof v === "string" && op.value.length > v.length && op.value.includes(v);
}

/**
 * `idempotence`: the admitted object admitted again, as an UPDATE (oldObject = the admitted
 * object, what a controller's no-op update sends) and as a re-CREATE; any change is a finding.
 */
export function checkIdempotence(ctx: ObjectContext, base: Admission): Finding[] {
  if (!base.allowed) return [];
  const admitted = base.object;
  for (const [how, a] of [
    ["as an UPDATE (oldObject: the admitted object)", ctx.subject.admit(admitted, { operation: "UPDATE", oldObject: admitted })],
    ["as a new CREATE", ctx.subject.admit(admitted, { operation: "CREATE" })],
  ] as const) {
    if (sameOutcome(base, a)) continue;
    const change = a.allowed ? firstChange(admitted, a.object) : undefined;
    const growing = change !== undefined && grows(admitted, change.op);
    const who = unitsOf(ctx, a.changedBy);
    return [
      {
        check: "idempotence",
        severity: "error",
        message: `not idempotent: ${a.allowed ? `admitting the admitted object again ${how} changes ${change?.path ?? "it"}${growing ? " (the field grows on every admission)" : ""}` : `admitting the admitted object again ${how} is denied: ${a.message ?? ""}`}${who.length > 0 ? `; changed by ${who.map((u) => u.name).join(", ")}` : ""}`,
        policies: who.length > 0 ? who : unitsOf(ctx, base.changedBy),
        ...(change !== undefined ? { path: change.path } : {}),
        results: [result("first admission", base), result(`admitted again ${how}`, a)],
      },
    ];
  }
  return [];
}

/**
 * `convergence`: passes of the chain (every selected policy once per pass, no reinvocation) until
 * one changes nothing. The apiserver runs one pass, and a second for IfNeeded policies only; a set
 * that needs more leaves an object the next update changes again. A Gatekeeper System that does
 * not converge within its limit denies the request.
 */
export function checkConvergence(ctx: ObjectContext, object: JsonObject, base: Admission): Finding[] {
  if (!base.allowed) {
    if (/not converging/.test(base.message ?? "")) {
      const gk = ctx.subject.units.filter((u) => u.group === "gatekeeper");
      return [{ check: "convergence", severity: "error", message: `Gatekeeper's mutators do not converge within the System's iteration limit: ${base.message ?? ""}`, policies: gk }];
    }
    return [];
  }
  let current = object;
  const history: Admission[] = [];
  for (let pass = 1; pass <= ctx.maxPasses; pass++) {
    const a = ctx.subject.admit(current, { operation: "CREATE", singlePass: true });
    if (!a.allowed) return [];
    if (deepEqual(a.object as JsonValue, current as JsonValue)) {
      const needed = pass - 1;
      if (deepEqual(a.object as JsonValue, base.object as JsonValue)) return [];
      const last = history[history.length - 1]!;
      const movers = unitsOf(ctx, last.changedBy);
      const change = firstChange(base.object, a.object);
      const allowed = movers.some((u) => ctx.subject.reinvoked(u.id)) ? 2 : 1;
      return [
        {
          check: "convergence",
          severity: "error",
          message: `needs ${needed} passes to settle, the apiserver runs at most ${allowed}: the admitted object is left unsettled${change !== undefined ? ` at ${change.path}` : ""} and the next update changes it again; ${movers.map((u) => u.name).join(", ")} still moved it in pass ${needed}`,
          policies: movers,
          ...(change !== undefined ? { path: change.path } : {}),
          results: [result("admitted by the apiserver", base), result(`settled after ${needed} passes`, a)],
        },
      ];
    }
    history.push(a);
    current = a.object;
  }
  const last = history[history.length - 1]!;
  const prev = history[history.length - 2];
  const movers = unitsOf(ctx, last.changedBy);
  const change = prev !== undefined ? firstChange(prev.object, last.object) : firstChange(object, last.object);
  return [
    {
      check: "convergence",
      severity: "error",
      message: `does not converge: still changing after ${ctx.maxPasses} passes${change !== undefined ? ` (${change.path})` : ""}; ${movers.map((u) => u.name).join(", ")} keep${movers.length === 1 ? "s" : ""} it moving`,
      policies: movers,
      ...(change !== undefined ? { path: change.path } : {}),
      results: [result(`after ${ctx.maxPasses - 1} passes`, prev ?? base), result(`after ${ctx.maxPasses} passes`, last)],
    },
  ];
}

export const DYNAMIC_CHECKS: readonly CheckName[] = ["order", "idempotence", "convergence"];

/** The dynamic checks on one prepared object. */
export function checkObject(ctx: ObjectContext, object: JsonObject, enabled: (c: CheckName) => boolean): Finding[] {
  const base = firstAdmission(ctx.subject, object);
  if (base.matched.length === 0 && base.allowed) return [];
  const out: Finding[] = [];
  if (enabled("order")) out.push(...checkOrder(ctx, object, base));
  if (enabled("idempotence")) out.push(...checkIdempotence(ctx, base));
  if (enabled("convergence")) out.push(...checkConvergence(ctx, object, base));
  return out;
}

/** What makes two findings the same for deduplication and shrinking: check and policies. */
export function signature(f: Finding): string {
  return `${f.check}\u0000${f.policies.map((p) => p.id).sort().join("\u0000")}`;
}
