/**
 * `metav1validation.ValidateLabelSelector` with strict options (the apiserver validates
 * MatchResources selectors and `paramRef.selector` strictly), and `ValidateLabels`.
 *
 * Go iterates label maps in random order; we iterate keys in sorted order so the error
 * list is deterministic.
 */
import { forbidden, invalid, named, required, type FieldError } from "../diag/field-error.js";
import type { FieldPath } from "../diag/field-path.js";
import { isQualifiedName, isValidLabelValue } from "./names.js";
import type { LabelSelector, LabelSelectorRequirement } from "./schemas/common.js";

const sortedKeys = (m: Readonly<Record<string, string>>) => Object.keys(m).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** `ValidateLabelName`: each IsQualifiedName problem as `Invalid value: "<key>": <msg>`. */
export function validateLabelName(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((m) => invalid(path, name, m));
}

/** `ValidateLabels`: errors are reported at the map's path (not per key), as apimachinery does. */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (labels === undefined) return errs;
  for (const k of sortedKeys(labels)) {
    errs.push(...validateLabelName(k, path));
    for (const m of isValidLabelValue(labels[k]!)) errs.push(invalid(path, labels[k]!, m));
  }
  return errs;
}

function validateRequirement(r: LabelSelectorRequirement, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const values = r.values ?? [];
  const op = r.operator ?? "";
  switch (op) {
    case "In":
    case "NotIn":
      if (values.length === 0) {
        errs.push(required(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0) {
        errs.push(forbidden(path.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      break;
    default:
      errs.push(invalid(path.child("operator"), named(op), "not a valid selector operator"));
  }
  errs.push(...validateLabelName(r.key ?? "", path.child("key")));
  values.forEach((v, i) => {
    for (const m of isValidLabelValue(v)) errs.push(invalid(path.child("values").index(i), v, m));
  });
  return errs;
}

/** `ValidateLabelSelector(ps, {}, path)`; an absent selector is valid. */
export function validateLabelSelector(sel: LabelSelector | undefined, path: FieldPath): FieldError[] {
  if (sel === undefined) return [];
  const errs = validateLabels(sel.matchLabels, path.child("matchLabels"));
  (sel.matchExpressions ?? []).forEach((r, i) => errs.push(...validateRequirement(r, path.child("matchExpressions").index(i))));
  return errs;
}
