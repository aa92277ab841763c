/**
 * pathTests (`pkg/mutation/path/tester`, v3.23.0): conditions on prefixes of the location,
 * applied at the depth of the subPath's last node.
 */
import { goQuote } from "../../diag/index.js";
import { nodeEqual, type Path } from "./parser.js";
import { printPath } from "./print.js";

export type Condition = "MustExist" | "MustNotExist";

export interface PathTest {
  readonly subPath: Path;
  readonly condition: Condition;
}

export const ERR_PREFIX = "all subpaths must be a prefix of the `location` value of the mutation";
export const ERR_CONFLICT = "conflicting path test conditions";

function isPrefix(short: Path, long: Path): boolean {
  if (short.nodes.length > long.nodes.length) return false;
  return short.nodes.every((n, i) => nodeEqual(n, long.nodes[i]!));
}

/** `%q` of a `*parser.Path` that may be nil (fmt prints `<nil>` for a nil pointer). */
function quotePathPtr(p: Path | undefined): string {
  return p === undefined ? "<nil>" : goQuote(printPath(p));
}

/** The compiled tests: condition per depth. */
export class Tester {
  private constructor(private readonly tests: ReadonlyMap<number, Condition>) {}

  static readonly empty = new Tester(new Map());

  /**
   * `tester.New`: every subPath must be a node-wise prefix of the location; conflicting
   * conditions are rejected exactly as Gatekeeper checks them (same depth with both
   * conditions; and — by position in the list, not by depth — a MustExist listed after the
   * first MustNotExist). Throws an Error with Gatekeeper's message.
   */
  static create(location: Path, tests: readonly PathTest[]): Tester {
    for (const t of tests) {
      if (!isPrefix(t.subPath, location)) {
        throw new Error(
          `${ERR_PREFIX}: subpath ${goQuote(printPath(t.subPath))} is not a prefix of location ${goQuote(printPath(location))}`,
        );
      }
    }
    const byDepth = new Map<number, Condition>();
    const paths = new Map<number, Path>();
    let lowestMustNot = 2147483647;
    let highestMust = 0;
    tests.forEach((t, i) => {
      const j = t.subPath.nodes.length - 1;
      byDepth.set(j, t.condition);
      paths.set(j, t.subPath);
      if (t.condition === "MustNotExist" && i < lowestMustNot) lowestMustNot = i;
      else if (t.condition === "MustExist" && i > highestMust) highestMust = i;
    });
    for (const t of tests) {
      const v = byDepth.get(t.subPath.nodes.length - 1);
      if (v !== undefined && v !== t.condition) {
        throw new Error(`${ERR_CONFLICT}: path ${goQuote(printPath(t.subPath))} is marked both MustExist and MustNotExist`);
      }
    }
    if (highestMust > lowestMustNot) {
      // Gatekeeper looks the paths up by list position in a map keyed by depth.
      throw new Error(
        `${ERR_CONFLICT}: path ${quotePathPtr(paths.get(highestMust))} is marked MustExist but parent ${quotePathPtr(paths.get(lowestMustNot))} MustNotExist`,
      );
    }
    return new Tester(byDepth);
  }

  /** The condition at a depth, if any. */
  conditionAt(depth: number): Condition | undefined {
    return this.tests.get(depth);
  }

  existsOkay(depth: number): boolean {
    const c = this.tests.get(depth);
    return c === undefined || c === "MustExist";
  }

  missingOkay(depth: number): boolean {
    const c = this.tests.get(depth);
    return c === undefined || c === "MustNotExist";
  }
}
