/**
 * Label selectors as the apiserver evaluates them: `metav1.LabelSelectorAsSelector` followed by
 * `labels.Selector.Matches`.
 *
 * - An absent (nil) selector selects nothing; an empty one (`{}`, or no matchLabels and no
 *   matchExpressions) selects everything and is "empty" (the matchers short-cut on that).
 * - `matchLabels` entries are `key=value` requirements; `matchExpressions` are In / NotIn /
 *   Exists / DoesNotExist. All requirements must hold.
 * - `In`: the label exists and its value is listed; `NotIn`: the label is absent or its value
 *   is not listed; `Exists` / `DoesNotExist`: presence.
 * - Requirements are kept sorted by key (as `internalSelector.Add` does) and values sorted (as
 *   `NewRequirement` does), so {@link selectorString} prints what Go's `String()` prints.
 *
 * Errors: an unknown operator gives Go's exact `"Foo" is not a valid label selector operator`.
 * Bad keys / values / value counts give a message in the same spirit as apimachinery's
 * aggregated field errors, but not byte-identical; stored policies have already passed strict
 * selector validation, so these cannot occur for them.
 */
import { isQualifiedName, isValidLabelValue } from "../policy/names.js";
import type { LabelSelector } from "../policy/schemas/common.js";

export type LabelOperator = "=" | "in" | "notin" | "exists" | "!";

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted. One value for `=`, none for `exists` / `!`. */
  readonly values: readonly string[];
}

export interface Selector {
  /** `labels.Nothing()`: the selector of a nil LabelSelector; matches no label set. */
  readonly nothing: boolean;
  /** Sorted by key. Empty and not `nothing`: `labels.Everything()`. */
  readonly requirements: readonly LabelRequirement[];
}

export type Labels = Readonly<Record<string, string>>;

export const EVERYTHING: Selector = { nothing: false, requirements: [] };
export const NOTHING: Selector = { nothing: true, requirements: [] };

export type SelectorResult = { readonly ok: true; readonly selector: Selector } | { readonly ok: false; readonly error: string };

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function requirementErrors(key: string, op: LabelOperator, values: readonly string[]): string[] {
  const errs: string[] = [];
  for (const m of isQualifiedName(key)) errs.push(`key: Invalid value: ${JSON.stringify(key)}: ${m}`);
  if ((op === "in" || op === "notin") && values.length === 0) {
    errs.push(`values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`);
  }
  if ((op === "exists" || op === "!") && values.length !== 0) {
    errs.push(`values: Invalid value: ${JSON.stringify(values)}: values set must be empty for exists and does not exist`);
  }
  values.forEach((v, i) => {
    for (const m of isValidLabelValue(v)) errs.push(`values[${i}]: Invalid value: ${JSON.stringify(v)}: ${m}`);
  });
  return errs;
}

const OPERATORS: Readonly<Record<string, LabelOperator>> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" };

/** `metav1.LabelSelectorAsSelector`. */
export function labelSelectorAsSelector(sel: LabelSelector | null | undefined): SelectorResult {
  if (sel === null || sel === undefined) return { ok: true, selector: NOTHING };
  // Policies' selectors are parsed once: the same selector object is matched on every request.
  let r = parsedSelectors.get(sel);
  if (r === undefined) parsedSelectors.set(sel, (r = parseLabelSelector(sel)));
  return r;
}

/** Parsed selectors by selector object (selectors are not modified once loaded). */
const parsedSelectors = new WeakMap<LabelSelector, SelectorResult>();

function parseLabelSelector(sel: LabelSelector): SelectorResult {
  const matchLabels = sel.matchLabels ?? {};
  const exprs = sel.matchExpressions ?? [];
  if (Object.keys(matchLabels).length + exprs.length === 0) return { ok: true, selector: EVERYTHING };
  const reqs: LabelRequirement[] = [];
  // Go iterates matchLabels in random order and stops at the first error; we go in key order.
  for (const k of Object.keys(matchLabels).sort(byCodeUnits)) {
    const errs = requirementErrors(k, "=", [matchLabels[k]!]);
    if (errs.length > 0) return { ok: false, error: aggregate(errs) };
    reqs.push({ key: k, operator: "=", values: [matchLabels[k]!] });
  }
  for (const e of exprs) {
    const opName = e.operator ?? "";
    const op = Object.prototype.hasOwnProperty.call(OPERATORS, opName) ? OPERATORS[opName] : undefined;
    if (op === undefined) return { ok: false, error: `${JSON.stringify(opName)} is not a valid label selector operator` };
    const values = [...(e.values ?? [])];
    const errs = requirementErrors(e.key ?? "", op, values);
    if (errs.length > 0) return { ok: false, error: aggregate(errs) };
    reqs.push({ key: e.key ?? "", operator: op, values: values.sort(byCodeUnits) });
  }
  // sort.Sort(ByKey) is not stable, but equal keys only reorder requirements that are ANDed.
  reqs.sort((a, b) => byCodeUnits(a.key, b.key));
  return { ok: true, selector: { nothing: false, requirements: reqs } };
}

/** apimachinery's `utilerrors.NewAggregate(...).Error()`: one error bare, several as `[a, b]`. */
function aggregate(errs: readonly string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(", ")}]`;
}

/** `Selector.Empty()`: true only for `labels.Everything()`. */
export function selectorIsEmpty(s: Selector): boolean {
  return !s.nothing && s.requirements.length === 0;
}

const has = (labels: Labels, key: string): boolean => Object.prototype.hasOwnProperty.call(labels, key);

/** Whether one requirement holds for a label set. */
export function requirementMatches(r: LabelRequirement, labels: Labels): boolean {
  switch (r.operator) {
    case "=":
    case "in":
      return has(labels, r.key) && r.values.includes(labels[r.key]!);
    case "notin":
      return !has(labels, r.key) || !r.values.includes(labels[r.key]!);
    case "exists":
      return has(labels, r.key);
    case "!":
      return !has(labels, r.key);
  }
}

/** `Selector.Matches(labels.Set(labels))`; absent labels are an empty set. */
export function selectorMatches(s: Selector, labels: Labels | null | undefined): boolean {
  if (s.nothing) return false;
  const set = labels ?? {};
  return s.requirements.every((r) => requirementMatches(r, set));
}

/** The first requirement that does not hold, for explanations; undefined when the selector matches. */
export function firstUnmetRequirement(s: Selector, labels: Labels | null | undefined): LabelRequirement | undefined {
  const set = labels ?? {};
  return s.requirements.find((r) => !requirementMatches(r, set));
}

/** One requirement as Go's `Requirement.String()`: `a=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`. */
export function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case "=":
      return `${r.key}=${r.values[0] ?? ""}`;
    case "in":
      return `${r.key} in (${r.values.join(",")})`;
    case "notin":
      return `${r.key} notin (${r.values.join(",")})`;
    case "exists":
      return r.key;
    case "!":
      return `!${r.key}`;
  }
}

/** Go's `Selector.String()` (the wire form of a label selector, e.g. for a list call). */
export function selectorString(s: Selector): string {
  return s.requirements.map(requirementString).join(",");
}
