/**
 * Building mutators from their resources, with exactly Gatekeeper's acceptance rules and error
 * texts (`MutatorForAssign`, `MutatorForAssignMetadata`, `MutatorForModifySet`,
 * `MutatorForAssignImage`, v3.23.0), each error placed at the field it is about. Structural
 * (CRD) validation and defaulting come first (`../types.ts`); then the kind's own checks,
 * which stop at the first problem as Gatekeeper does.
 */
import { errorBody } from "../../diag/index.js";
import { mutatePath } from "../core.js";
import { decodeResource } from "../types.js";
import type { GoMap } from "../value.js";
import { compileAssign, type AssignMutator } from "./assign.js";
import { compileAssignImage, type AssignImageMutator } from "./assign-image.js";
import { compileAssignMetadata, type AssignMetadataMutator } from "./assign-metadata.js";
import { Reject, validateName, type MutationContext, type MutatorIssue } from "./common.js";
import { compileModifySet, type ModifySetMutator } from "./modify-set.js";

export type { AssignMutator } from "./assign.js";
export type { AssignImageMutator } from "./assign-image.js";
export type { AssignMetadataMutator } from "./assign-metadata.js";
export type { ModifySetMutator } from "./modify-set.js";
export {
  idString,
  type Binding,
  type IssueCode,
  type MutationContext,
  type MutatorID,
  type MutatorIssue,
  type TerminalType,
} from "./common.js";

export type Mutator = AssignMutator | AssignMetadataMutator | ModifySetMutator | AssignImageMutator;
export type MutatorWithSchema = AssignMutator | ModifySetMutator | AssignImageMutator;

export function hasSchema(m: Mutator): m is MutatorWithSchema {
  return m.kind !== "AssignMetadata";
}

export type CompileResult = { ok: true; mutator: Mutator } | { ok: false; issues: MutatorIssue[] };

/**
 * Validates one mutator resource (a parsed YAML/JSON document) and builds the mutator; never
 * throws for bad input. `metadata.generation` defaults to 1 (what the apiserver gives a new
 * resource).
 */
export function compileMutator(doc: unknown): CompileResult {
  const decoded = decodeResource(doc);
  if (!decoded.ok) {
    return {
      ok: false,
      issues: decoded.errors.map((fe) => ({ path: fe.path, message: errorBody(fe), code: "schema" as const, fieldError: fe })),
    };
  }
  const d = decoded.value;
  const name = d.resource.metadata?.name ?? "";
  const generation = d.resource.metadata?.generation ?? 1;
  try {
    validateName(name);
    switch (d.kind) {
      case "Assign":
        return { ok: true, mutator: compileAssign(d, name, generation) };
      case "AssignMetadata":
        return { ok: true, mutator: compileAssignMetadata(d, name, generation) };
      case "ModifySet":
        return { ok: true, mutator: compileModifySet(d, name, generation) };
      case "AssignImage":
        return { ok: true, mutator: compileAssignImage(d, name, generation) };
    }
  } catch (e) {
    if (e instanceof Reject) return { ok: false, issues: [{ path: e.path, message: e.message, code: e.code }] };
    throw e;
  }
}

/** Applies one mutator to `obj` in place (the caller has checked that it matches); throws `MutateError`. */
export function applyMutator(m: Mutator, obj: GoMap, ctx: MutationContext): boolean {
  return mutatePath(m.path, m.tester, m.setter(obj, ctx), obj);
}
