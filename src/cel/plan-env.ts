/**
 * What the planner keeps per environment (shared by every program planned against it): overload
 * entries by declaration and shape, functions by name, static identifiers, the environment's cost
 * settings; and the planner's shared constants.
 */
import type { FunctionDecl, OverloadDecl } from "./decls.js";
import type { Env } from "./env.js";
import type { Candidate } from "./runtime/dispatch.js";
import type { CelValue } from "./values.js";
import { libraryCosts, type CostOptions } from "./cost-runtime.js";
import type { Frame } from "./plan-frame.js";

export const EMPTY_FRAME: Frame = [];
export const NO_LIBRARY_COSTS: ReadonlyMap<string, import("./decls.js").OverloadCost> = new Map();

/** cel-go's block function (`cel.block` macro, common-subexpression elimination). */
export const BLOCK = "cel.@block";

/** One way to read a (possibly qualified) name: a variable or constant plus field selections. */
export interface NameCandidate {
  readonly names: readonly string[];
  readonly fields: readonly string[];
}

/** Per-environment planning data, shared by every program planned against the environment. */
/** The overloads a call site may dispatch to, with their dispatch candidates once needed. */
export interface OverloadEntry {
  readonly overloads: readonly OverloadDecl[];
  candidates: Candidate[] | undefined;
  /** Restrictions to the checker's overload ids, by the id list. */
  byIds: WeakMap<readonly string[], OverloadEntry> | undefined;
}
export const NO_OVERLOADS: OverloadEntry = { overloads: [], candidates: undefined, byIds: undefined };

/** A function declaration and its overload entries by shape (see `EnvCache.overloads`). */
export interface DeclShapes {
  readonly decl: FunctionDecl;
  readonly byShape: (OverloadEntry | undefined)[];
}

export interface EnvCache {
  /** By declaration, then by `arity * 2 + (receiver style ? 1 : 0)`. */
  readonly overloads: Map<FunctionDecl, (OverloadEntry | undefined)[]>;
  /** Functions by their name in the environment (null: none), each with its `overloads` entry. */
  readonly byName: Map<string, DeclShapes | null>;
  /** By operator ({@link U_MAP_INSERT} …): 0 not known yet, 1 standard overloads only, 2 a library adds its own. */
  readonly userOverloads: Uint8Array;
  readonly staticIdents: Map<string, { value: CelValue } | null>;
  /** What the tracking variant needs of the environment's cost options and libraries (made on first use). */
  costs: CostData | undefined;
  /** The name `readsBinding` last found among the environment's variables. */
  lastVariable: string | undefined;
  /** The name `declShapes` looked up last and what it found. */
  lastFunction: string | undefined;
  lastShapes: DeclShapes | undefined;
}

/** An environment's cost settings as the tracking variant reads them. */
export interface CostData {
  readonly presenceCost: number;
  readonly folding: boolean;
  readonly libCosts: ReadonlyMap<string, import("./decls.js").OverloadCost>;
  /** Names of functions some overload of which has a library cost rule (made on first use). */
  costedFns: Set<string> | undefined;
}
/** The environment's planning cache, kept on the environment itself (made on the first plan against it). */
export function envCache(env: Env): EnvCache {
  let c = env.planCache as EnvCache | undefined;
  if (c === undefined) {
    c = { overloads: new Map(), byName: new Map(), userOverloads: new Uint8Array(U_COUNT), staticIdents: new Map(), costs: undefined, lastVariable: undefined, lastFunction: undefined, lastShapes: undefined };
    env.planCache = c;
  }
  return c;
}

/** The environment's cost settings, made on the first tracked plan against it. */
export function costData(cache: EnvCache, env: Env): CostData {
  let c = cache.costs;
  if (c === undefined) {
    const opts: CostOptions = env.cost ?? {};
    c = {
      presenceCost: opts.presenceTestHasCost === false ? 0 : 1,
      folding: opts.constantFolding === true,
      libCosts: libraryCosts(env.libraries),
      costedFns: undefined,
    };
    cache.costs = c;
  }
  return c;
}

/** Cost settings of the untracked variant, which never reads them. */
export const NO_COSTS: CostData = { presenceCost: 1, folding: false, libCosts: NO_LIBRARY_COSTS, costedFns: new Set() };

/** The operators whose standard overloads the planner inlines, as indices of `EnvCache.userOverloads`. */
export const U_MAP_INSERT = 0;
export const U_NOT = 1;
export const U_EQUALS = 2;
export const U_NOT_EQUALS = 3;
export const U_INDEX = 4;
export const U_IN = 5;
export const U_COUNT = 6;

/** Bound on `EnvCache.byName`. */
export const MAX_CACHED_NAMES = 10_000;

/** Variables of a plan found by a scan of their names, before a Map is made (see `Planner.varNames`). */
export const MAX_SCANNED_VARS = 8;

// Shared empty arrays, replaced (never pushed to) by the first variable.
export const NO_NAMES: string[] = [];
export const NO_SLOTS: number[] = [];
