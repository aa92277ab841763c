/**
 * Checks cel-go runs on a successfully type-checked tree (its `ASTValidator`s),
 * reported like type errors.
 *
 * With `validateLiterals` (the Kubernetes base environment turns these on):
 *
 * - `ValidateDurationLiterals` / `ValidateTimestampLiterals`: `duration('…')` and
 *   `timestamp('…')` with a literal that does not convert → "invalid duration
 *   argument" at the literal (`std/time.ts`);
 * - `ValidateRegexLiterals`: a `matches` call whose first argument is a string
 *   literal that is not a valid RE2 pattern → "invalid matches argument";
 *
 * With `homogeneousAggregateLiterals`:
 *
 * - `ValidateHomogeneousAggregateLiterals`: every element of a list literal must
 *   have the type of the first (equivalent types, so `[1, dyn(2)]` and `[1, null]`
 *   are rejected), and every key and value of a map literal the type of the first
 *   entry's. Literals anywhere inside a call of an exempt function are skipped:
 *   `format` (strings extension, version 1+) and `cel.@block`.
 *
 * With the strings extension (version 1+), in any environment: `string.format`
 * calls with a constant format string and a list literal, through
 * `ext/format-validate.ts`.
 */
import type { Expr } from "./ast.js";
import { isExactTypeIgnoringParamNames, formatType, isOptional } from "./check-types.js";
import type { CheckedExpr } from "./checked.js";
import type { Env } from "./env.js";
import { validateFormatCalls } from "./ext/format-validate.js";
import { STRINGS_LATEST_VERSION } from "./ext/strings.js";
import { CelEvalError } from "./errors.js";
import { compileRegex } from "./std/strings.js";
import { validateTimeLiterals } from "./std/time.js";
import type { CelType } from "./types.js";

export interface ValidationIssue {
  readonly id: number;
  readonly message: string;
}

interface ValidatorConfig {
  readonly homogeneous: boolean;
  readonly literals: boolean;
  readonly exempt: readonly string[];
  /** Strings extension version for `format` validation; 0 when absent. */
  readonly stringsVersion: number;
}

const configCache = new WeakMap<Env, ValidatorConfig>();

/**
 * The strings extension's version in `env`: a `version` the library object
 * carries, else inferred from its declarations (`format` from version 1,
 * `reverse` from 3; 3 and later are taken as the latest version).
 */
function stringsVersion(env: Env): number {
  const lib = env.libraries.find((l) => l.name === "cel.lib.ext.strings");
  if (lib === undefined) return 0;
  const declared = (lib as { readonly version?: unknown }).version;
  if (typeof declared === "number") return declared;
  const ids = new Set((lib.functions ?? []).flatMap((f) => f.overloads.map((o) => o.id)));
  if (!ids.has("string_format")) return 0;
  return ids.has("string_reverse") ? STRINGS_LATEST_VERSION : 2;
}

function configOf(env: Env): ValidatorConfig {
  let c = configCache.get(env);
  if (c === undefined) {
    const sv = stringsVersion(env);
    const exempt: string[] = [];
    if (sv >= 1) exempt.push("format");
    if (env.functions.has("cel.@block")) exempt.push("cel.@block");
    c = { homogeneous: env.homogeneousAggregateLiterals, literals: env.validateLiterals, exempt, stringsVersion: sv };
    configCache.set(env, c);
  }
  return c;
}

/** Validator flags: `duration`/`timestamp` literals, `matches` literals, homogeneous aggregate literals, `format` calls. */
export const V_TIME = 1;
export const V_REGEX = 2;
export const V_HOMOGENEOUS = 4;
export const V_FORMAT = 8;
const V_ALL = V_TIME | V_REGEX | V_HOMOGENEOUS | V_FORMAT;

/** The validators `env` enables, as flags. */
export function validatorMask(env: Env): number {
  const c = configOf(env);
  return (c.literals ? V_TIME | V_REGEX : 0) | (c.homogeneous ? V_HOMOGENEOUS : 0) | (c.stringsVersion >= 1 ? V_FORMAT : 0);
}

/** Whether any validator applies in `env` (most environments need no second walk). */
export function hasValidators(env: Env): boolean {
  return validatorMask(env) !== 0;
}

/**
 * Runs the validators of `env` over a checked tree (types final); `only`
 * restricts them to those flagged (the checker knows which can find anything).
 */
export function validate(checked: CheckedExpr, env: Env, only: number = V_ALL): ValidationIssue[] {
  const c = configOf(env);
  const run = validatorMask(env) & only;
  const issues: ValidationIssue[] = [];
  if ((run & V_TIME) !== 0) {
    for (const i of validateTimeLiterals(checked.expr)) issues.push(i);
  }
  if ((run & V_REGEX) !== 0) regexLiterals(checked.expr, issues);
  if ((run & V_HOMOGENEOUS) !== 0) homogeneousLiterals(checked, c.exempt, issues);
  if ((run & V_FORMAT) !== 0) {
    for (const i of validateFormatCalls(checked, c.stringsVersion)) issues.push(i);
  }
  return issues;
}

function homogeneousLiterals(checked: CheckedExpr, exempt: readonly string[], issues: ValidationIssue[]): void {
  const typeOf = (e: Expr): CelType | undefined => checked.typeMap.get(e.id);
  const mismatch = (id: number, expected: CelType, actual: CelType) =>
    issues.push({ id, message: `expected type '${formatType(expected)}' but found '${formatType(actual)}'` });
  /** The element type of an optional entry (`[?x]`, `{?k: v}`). */
  const unwrap = (t: CelType): CelType => (isOptional(t) ? t.params[0]! : t);

  const visit = (e: Expr, inExempt: boolean): void => {
    switch (e.kind) {
      case "const":
      case "ident":
        return;
      case "select":
        visit(e.operand, inExempt);
        return;
      case "call": {
        const exemptHere = inExempt || exempt.includes(e.fn);
        if (e.target !== undefined) visit(e.target, exemptHere);
        for (const a of e.args) visit(a, exemptHere);
        return;
      }
      case "list": {
        if (!inExempt) {
          let first: CelType | undefined;
          for (let i = 0; i < e.elements.length; i++) {
            const el = e.elements[i]!;
            let t = typeOf(el);
            if (t === undefined) continue;
            if (e.optionalIndices.includes(i)) t = unwrap(t);
            if (first === undefined) {
              first = t;
            } else if (!isExactTypeIgnoringParamNames(first, t)) {
              mismatch(el.id, first, t);
              break;
            }
          }
        }
        for (const el of e.elements) visit(el, inExempt);
        return;
      }
      case "map": {
        if (!inExempt) {
          let keyType: CelType | undefined;
          let valueType: CelType | undefined;
          for (const entry of e.entries) {
            const kt = typeOf(entry.key);
            let vt = typeOf(entry.value);
            if (kt === undefined || vt === undefined) continue;
            if (entry.optional) vt = unwrap(vt);
            if (keyType === undefined || valueType === undefined) {
              keyType = kt;
              valueType = vt;
              continue;
            }
            if (!isExactTypeIgnoringParamNames(keyType, kt)) mismatch(entry.key.id, keyType, kt);
            if (!isExactTypeIgnoringParamNames(valueType, vt)) mismatch(entry.value.id, valueType, vt);
          }
        }
        for (const entry of e.entries) {
          visit(entry.key, inExempt);
          visit(entry.value, inExempt);
        }
        return;
      }
      case "struct":
        for (const f of e.fields) visit(f.value, inExempt);
        return;
      case "comprehension":
        visit(e.iterRange, inExempt);
        visit(e.accuInit, inExempt);
        visit(e.loopCondition, inExempt);
        visit(e.loopStep, inExempt);
        visit(e.result, inExempt);
        return;
    }
  };
  visit(checked.expr, false);
}

/** cel-go's regex literal validator: the first argument of every `matches` call, when a string literal. */
function regexLiterals(root: Expr, issues: ValidationIssue[]): void {
  const visit = (e: Expr): void => {
    switch (e.kind) {
      case "const":
      case "ident":
        return;
      case "select":
        visit(e.operand);
        return;
      case "call": {
        if (e.target !== undefined) visit(e.target);
        for (const a of e.args) visit(a);
        const lit = e.args[0];
        if (e.fn === "matches" && lit !== undefined && lit.kind === "const" && lit.value.kind === "string") {
          try {
            compileRegex(lit.value.value);
          } catch (err) {
            if (!(err instanceof CelEvalError)) throw err;
            issues.push({ id: lit.id, message: "invalid matches argument" });
          }
        }
        return;
      }
      case "list":
        for (const el of e.elements) visit(el);
        return;
      case "map":
        for (const en of e.entries) {
          visit(en.key);
          visit(en.value);
        }
        return;
      case "struct":
        for (const f of e.fields) visit(f.value);
        return;
      case "comprehension":
        visit(e.iterRange);
        visit(e.accuInit);
        visit(e.loopCondition);
        visit(e.loopStep);
        visit(e.result);
        return;
    }
  };
  visit(root);
}
