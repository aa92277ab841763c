/** The checker's output: the parsed tree plus a type and a resolution for every node. */
import type { Expr, SourceInfo } from "./ast.js";
import type { CelType } from "./types.js";
import type { CelValue } from "./values.js";

/** What an identifier, select chain or call resolved to. */
export interface Reference {
  /** Fully qualified variable or constant name (`a.b.c` when a select chain names a variable). */
  readonly name?: string;
  /** For calls: the overload ids that may apply (one when resolved statically). */
  readonly overloadIds?: readonly string[];
  /** For constants such as enum values. */
  readonly value?: CelValue;
}

export interface CheckedExpr {
  readonly expr: Expr;
  readonly sourceInfo: SourceInfo;
  /** Type of every node by id. */
  readonly typeMap: ReadonlyMap<number, CelType>;
  /** Resolution of identifiers, qualified select chains and calls, by node id. */
  readonly referenceMap: ReadonlyMap<number, Reference>;
  /** Type of the whole expression. */
  readonly type: CelType;
  /**
   * Ids of nodes whose type still held a type parameter when the checker typed them, resolved
   * only later by substitution (`[]`, `optional.none()`, a generic function on a dyn receiver),
   * and every node whose type was derived from one (a call on it, a comprehension over it, its
   * iteration variable: `inferred.ts`).
   * Their values need not have that type at run time, so the planner keeps run-time overload
   * checks for calls on them. Absent: none known.
   */
  readonly inferred?: ReadonlySet<number>;
}

export function isChecked(ast: { readonly expr: Expr }): ast is CheckedExpr {
  return "typeMap" in ast;
}
