/**
 * `x-kubernetes-validations` CEL rules of a CRD schema, run as apiextensions' CEL validator
 * runs them after admission (`pkg/apiserver/schema/cel/validation.go`, v0.36.3; facts, celmap's
 * own code): each value whose schema carries rules is bound to `self` (with the schema's
 * Kubernetes value semantics) and, on UPDATE when an old value correlates, `oldSelf`; a rule that
 * uses `oldSelf` (a transition rule) runs only then (or with `optionalOldSelf`). Errors:
 *
 *     spec: Invalid value: "object": failed rule: self.min <= self.max     (scalar: the value)
 *     spec.replicas: Invalid value: 5: must be even                        (message)
 *     spec: Invalid value: "object": no such key: x evaluating rule: self.x > 0
 *
 * `messageExpression` gives the message when it evaluates to a non-empty one-line string;
 * `reason` and `fieldPath` shape the error; one cost budget (10,000,000) is shared by all rules of
 * the object, with the per-call limit. Unchanged values keep errors of rules without `oldSelf`
 * out (validation ratcheting). Rules are compiled once per schema node.
 */
import { kubernetesBaseEnv } from "../../cel/k8s/base-env.js";
import { kubernetesValue, type CelSchemaNode } from "../../cel/k8s/values.js";
import { CelCostLimitError, CelEvalError, CelOptional, DYN, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, optionalType, type Program } from "../../cel/index.js";
import type { Env } from "../../cel/env.js";
import { duplicate, forbidden, invalid, OMIT, required, type BadValue, type FieldError } from "../../diag/field-error.js";
import { FieldPath } from "../../diag/field-path.js";
import { deepEqual, isJsonObject, type JsonObject, type JsonValue } from "../../admission/json.js";
import { rawCelSchema } from "./raw-cel-schema.js";

type Schema = JsonObject;

interface CompiledRule {
  readonly rule: JsonObject;
  readonly program: Program | undefined;
  readonly compileError?: string;
  readonly message?: Program;
  readonly usesOldSelf: boolean;
  readonly optionalOldSelf: boolean;
}

const compiledBySchema = new WeakMap<Schema, CompiledRule[]>();
let env: Env | undefined;
let optEnv: Env | undefined;

function ruleEnv(optional: boolean): Env {
  if (optional) return (optEnv ??= kubernetesBaseEnv().extend({ variables: { self: DYN, oldSelf: optionalType(DYN) } }));
  return (env ??= kubernetesBaseEnv().extend({ variables: { self: DYN, oldSelf: DYN } }));
}

function compileRules(s: Schema): CompiledRule[] {
  let c = compiledBySchema.get(s);
  if (c !== undefined) return c;
  c = [];
  for (const rule of Array.isArray(s["x-kubernetes-validations"]) ? s["x-kubernetes-validations"] : []) {
    if (!isJsonObject(rule) || typeof rule.rule !== "string" || rule.rule.trim() === "") continue;
    const optional = rule.optionalOldSelf === true;
    const e = ruleEnv(optional);
    let program: Program | undefined;
    let compileError: string | undefined;
    let usesOldSelf = false;
    try {
      const checked = e.compile(rule.rule);
      usesOldSelf = /\boldSelf\b/.test(rule.rule);
      program = e.program(checked);
    } catch (err) {
      compileError = err instanceof Error ? err.message : String(err);
    }
    let message: Program | undefined;
    if (typeof rule.messageExpression === "string" && rule.messageExpression !== "") {
      try {
        message = e.program(e.compile(rule.messageExpression));
      } catch {
        message = undefined;
      }
    }
    c.push({ rule, program, ...(compileError !== undefined && { compileError }), ...(message !== undefined && { message }), usesOldSelf, optionalOldSelf: optional });
  }
  compiledBySchema.set(s, c);
  return c;
}

function schemaType(s: Schema): string {
  return typeof s.type === "string" ? s.type : "";
}

function ruleText(rule: JsonObject): string {
  return typeof rule.message === "string" && rule.message.trim() !== "" ? rule.message.trim() : String(rule.rule).trim();
}

interface Walk {
  readonly errs: FieldError[];
  budget: number;
  readonly update: boolean;
}

/** Runs the CEL rules of `schema` on `obj` (and `old` on UPDATE); errors in the apiserver's order and words. */
export function validateCelRules(obj: JsonObject, old: JsonObject | undefined, schema: Schema): FieldError[] {
  const w: Walk = { errs: [], budget: RUNTIME_CEL_COST_BUDGET, update: old !== undefined };
  walk(w, obj, old, schema, undefined);
  return w.errs;
}

/** `undefined` path = the root, which the apiserver prints as `<nil>`. */
function fieldPath(path: FieldPath | undefined): FieldPath {
  return path ?? FieldPath.root("<nil>");
}

function childPath(path: FieldPath | undefined, name: string): FieldPath {
  return path === undefined ? FieldPath.root(name) : path.child(name);
}

function walk(w: Walk, v: JsonValue, old: JsonValue | undefined, s: Schema, path: FieldPath | undefined): void {
  if (v === null || v === undefined || w.budget < 0) return;
  if (Array.isArray(s["x-kubernetes-validations"])) runRules(w, v, old, s, path);
  if (w.budget < 0) return;
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) if (isJsonObject(sub)) walk(w, v, old, sub, path);
  if (isJsonObject(v)) {
    const props = isJsonObject(s.properties) ? s.properties : {};
    const oldObj = isJsonObject(old) ? old : undefined;
    for (const k of Object.keys(v)) {
      const ps = props[k];
      if (isJsonObject(ps)) walk(w, v[k] as JsonValue, oldObj?.[k], ps, childPath(path, k));
      else if (isJsonObject(s.additionalProperties)) walk(w, v[k] as JsonValue, oldObj?.[k], s.additionalProperties, (path ?? FieldPath.empty).key(k));
      if (w.budget < 0) return;
    }
  } else if (Array.isArray(v) && isJsonObject(s.items)) {
    const items = s.items;
    const oldList = Array.isArray(old) ? old : undefined;
    v.forEach((e, i) => {
      if (w.budget < 0) return;
      walk(w, e as JsonValue, correlateItem(s, e as JsonValue, oldList), items, (path ?? FieldPath.empty).index(i));
    });
  }
}

/** Only map-type lists correlate items with the old list (by their keys); sets by value. */
function correlateItem(s: Schema, e: JsonValue, old: JsonValue[] | undefined): JsonValue | undefined {
  if (old === undefined) return undefined;
  const lt = s["x-kubernetes-list-type"];
  if (lt === "set") return old.find((o) => deepEqual(o, e));
  if (lt !== "map" || !isJsonObject(e)) return undefined;
  const keys = Array.isArray(s["x-kubernetes-list-map-keys"]) ? s["x-kubernetes-list-map-keys"].filter((k): k is string => typeof k === "string") : [];
  return old.find((o) => isJsonObject(o) && keys.every((k) => deepEqual(o[k] ?? null, e[k] ?? null)));
}

function runRules(w: Walk, v: JsonValue, old: JsonValue | undefined, s: Schema, path: FieldPath | undefined): void {
  const sts = schemaType(s);
  const celSchema: CelSchemaNode = rawCelSchema(s);
  const self = kubernetesValue(v, celSchema);
  const hasOld = old !== undefined && old !== null;
  const oldSelf = hasOld ? kubernetesValue(old, celSchema) : undefined;
  const unchanged = hasOld && deepEqual(v, old);
  for (const c of compileRules(s)) {
    const here = fieldPath(path);
    if (c.program === undefined) {
      w.errs.push(invalid(here, sts, `compilation failed: ${c.compileError ?? ""}`));
      continue;
    }
    if (c.usesOldSelf && !hasOld && !c.optionalOldSelf) continue;
    const vars = { self, oldSelf: c.optionalOldSelf ? (oldSelf === undefined ? CelOptional.NONE : CelOptional.of(oldSelf)) : (oldSelf ?? null) } as never;
    let result: unknown;
    try {
      const r = c.program.evalWithCost(vars, { costLimit: Math.min(PER_CALL_LIMIT, w.budget) });
      w.budget -= r.cost;
      result = r.value;
    } catch (e) {
      if (e instanceof CelCostLimitError) {
        if (e.limit < PER_CALL_LIMIT) {
          w.errs.push(invalid(here, sts, "validation failed due to running out of cost budget, no further validation rules will be run"));
        } else {
          w.errs.push(invalid(here, sts, `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(c.rule)}`));
        }
        w.budget = -1;
        return;
      }
      if (e instanceof CelEvalError) {
        w.budget -= c.program.lastCost ?? 0;
        const msg = e.message.startsWith("no such overload")
          ? `'${e.message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(c.rule)}`
          : `${e.message} evaluating rule: ${ruleText(c.rule)}`;
        w.errs.push(invalid(here, sts, msg));
        continue;
      }
      throw e;
    }
    if (result === true) continue;
    // Validation ratcheting: an unchanged value does not fail a rule without oldSelf.
    if (w.update && unchanged && !c.usesOldSelf) continue;
    const fp = typeof c.rule.fieldPath === "string" && c.rule.fieldPath !== "" ? childPath(path, c.rule.fieldPath.replace(/^\./, "")) : here;
    let detail: string | undefined;
    if (c.message !== undefined) {
      try {
        const r = c.message.evalWithCost(vars, { costLimit: Math.min(PER_CALL_LIMIT, w.budget) });
        w.budget -= r.cost;
        const m = typeof r.value === "string" ? r.value.trim() : "";
        if (m !== "" && !m.includes("\n") && m.length <= 5 * 1024) detail = m;
      } catch (e) {
        if (e instanceof CelCostLimitError) {
          w.errs.push(invalid(fp, sts, "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"));
          w.budget = -1;
          return;
        }
        if (!(e instanceof CelEvalError)) throw e;
      }
    }
    detail ??= typeof c.rule.message === "string" && c.rule.message !== "" ? c.rule.message.trim() : `failed rule: ${ruleText(c.rule)}`;
    const value: BadValue = sts === "object" || sts === "array" ? OMIT : (v as never);
    switch (c.rule.reason) {
      case "FieldValueForbidden":
        w.errs.push(forbidden(fp, detail));
        break;
      case "FieldValueRequired":
        w.errs.push(required(fp, detail));
        break;
      case "FieldValueDuplicate":
        w.errs.push(duplicate(fp, value));
        break;
      default:
        w.errs.push(invalid(fp, value, detail));
    }
  }
}

