/**
 * An environment: the declarations an expression is compiled against (variables,
 * functions, macros, type provider, language options), and the entry points
 * `parse` → `check` → `program`. Environments are immutable; `extend` derives a
 * new one, which is how the Kubernetes environments are layered.
 *
 * Compile once, evaluate many: `compile` does the parsing and checking, and the
 * returned {@link Program} is what runs per request.
 */
import type { CheckedExpr } from "./checked.js";
import { check } from "./checker.js";
import type { FunctionDecl, Library, MacroSet, TypeProvider } from "./decls.js";
import type { ParsedExpr } from "./ast.js";
import { CelEvalError } from "./errors.js";
import { parse, type ParseOptions } from "./parser.js";
import { plan, type Program } from "./planner.js";
import { STANDARD_LIBRARY } from "./std/index.js";
import type { CelType } from "./types.js";
import type { CostOptions } from "./cost-runtime.js";

export interface EnvOptions {
  /** Namespace against which names resolve, as in cel-go's `Container` (e.g. `cel.expr.conformance.proto3`). */
  readonly container?: string;
  /** Declared variables and their types; use `DYN` for untyped JSON. */
  readonly variables?: Readonly<Record<string, CelType>>;
  /** Libraries beyond the standard one (which is always present). */
  readonly libraries?: readonly Library[];
  readonly typeProvider?: TypeProvider;
  /** Reject `[1, 'a']` and `{'a': 1, 'b': 'x'}` at compile time (Kubernetes turns this on). */
  readonly homogeneousAggregateLiterals?: boolean;
  /** Allow `1 < 2.0` and friends at compile time (Kubernetes turns this on). */
  readonly crossTypeNumericComparisons?: boolean;
  /**
   * Reject `duration('…')`, `timestamp('…')` and `matches('…')` calls whose literal
   * argument cannot convert or compile (cel-go's literal AST validators, which the
   * Kubernetes base environment turns on).
   */
  readonly validateLiterals?: boolean;
  /**
   * Accept backtick-quoted field names (`` a.`b-c` ``, cel-go's `EnableIdentEscapeSyntax`).
   * Off in Kubernetes, which does not enable it.
   */
  readonly enableIdentEscapeSyntax?: boolean;
  /** Parser limits (cel-go defaults: 250 and 100,000). */
  readonly maxRecursionDepth?: number;
  readonly expressionSizeCodePointLimit?: number;
  /** How costs are counted (cel-go defaults; Kubernetes: `KUBERNETES_COST_OPTIONS` from `cost.ts`). */
  readonly cost?: CostOptions;
}

export class Env {
  readonly container: string;
  readonly variables: ReadonlyMap<string, CelType>;
  /** Functions by name; overloads of the same name from several libraries are merged. */
  readonly functions: ReadonlyMap<string, FunctionDecl>;
  readonly typeProvider: TypeProvider | undefined;
  readonly macros: ReadonlySet<MacroSet>;
  readonly optionalSyntax: boolean;
  readonly homogeneousAggregateLiterals: boolean;
  readonly crossTypeNumericComparisons: boolean;
  readonly validateLiterals: boolean;
  readonly enableIdentEscapeSyntax: boolean;
  readonly maxRecursionDepth: number;
  readonly expressionSizeCodePointLimit: number;
  readonly libraries: readonly Library[];
  readonly cost: CostOptions;
  private readonly options: EnvOptions;
  /** The planner's per-environment cache (src/cel/plan-env.ts `envCache`), made on the first plan. */
  planCache: unknown;

  constructor(options: EnvOptions = {}) {
    this.options = options;
    this.planCache = undefined;
    this.container = options.container ?? "";
    this.homogeneousAggregateLiterals = options.homogeneousAggregateLiterals ?? false;
    this.crossTypeNumericComparisons = options.crossTypeNumericComparisons ?? false;
    this.validateLiterals = options.validateLiterals ?? false;
    this.enableIdentEscapeSyntax = options.enableIdentEscapeSyntax ?? false;
    this.maxRecursionDepth = options.maxRecursionDepth ?? 250;
    this.expressionSizeCodePointLimit = options.expressionSizeCodePointLimit ?? 100_000;
    this.libraries = [STANDARD_LIBRARY, ...(options.libraries ?? [])];
    this.cost = options.cost ?? {};

    const variables = new Map<string, CelType>();
    const functions = new Map<string, FunctionDecl>();
    const macros = new Set<MacroSet>();
    let optionalSyntax = false;
    const libraryTypes = new Map<string, CelType>();
    for (const lib of this.libraries) {
      for (const t of lib.types ?? []) libraryTypes.set(t.name, t);
      for (const v of lib.variables ?? []) variables.set(v.name, v.type);
      for (const f of lib.functions ?? []) mergeFunction(functions, f);
      for (const m of lib.macros ?? []) macros.add(m);
      optionalSyntax ||= lib.optionalSyntax === true;
    }
    for (const [name, type] of Object.entries(options.variables ?? {})) variables.set(name, type);
    this.variables = variables;
    this.functions = functions;
    this.macros = macros;
    this.optionalSyntax = optionalSyntax;
    this.typeProvider = withLibraryTypes(options.typeProvider, libraryTypes);
  }

  /** A new environment with these options layered over this one's (libraries and variables are added). */
  extend(options: EnvOptions): Env {
    return new Env({
      ...this.options,
      ...options,
      variables: { ...this.options.variables, ...options.variables },
      libraries: [...(this.options.libraries ?? []), ...(options.libraries ?? [])],
    });
  }

  /** Parses with this environment's macros and syntax options. Throws {@link CelCompileError}. */
  parse(source: string): ParsedExpr {
    return parse(
      source,
      (this.parseOptions ??= {
        macros: this.macros,
        enableOptionalSyntax: this.optionalSyntax,
        enableIdentEscapeSyntax: this.enableIdentEscapeSyntax,
        maxRecursionDepth: this.maxRecursionDepth,
        expressionSizeCodePointLimit: this.expressionSizeCodePointLimit,
      }),
    );
  }

  /** The parser options of this (immutable) environment, made on first use. */
  private parseOptions: ParseOptions | undefined;

  /** Type-checks a parsed expression. Throws {@link CelCompileError}. */
  check(parsed: ParsedExpr): CheckedExpr {
    return check(parsed, this);
  }

  /** Parse and check. Throws {@link CelCompileError}. */
  compile(source: string): CheckedExpr {
    return this.check(this.parse(source));
  }

  /** Plans an evaluable program; an unchecked AST is planned with dynamic dispatch everywhere. */
  program(ast: ParsedExpr | CheckedExpr): Program {
    return plan(ast, this);
  }
}

/**
 * The environment's type provider: the explicit one, asked first, then the
 * types libraries register by name (which are opaque: no fields, not constructible).
 * Checker and planner resolve type identifiers only through `Env.typeProvider`.
 */
function withLibraryTypes(provider: TypeProvider | undefined, types: ReadonlyMap<string, CelType>): TypeProvider | undefined {
  if (types.size === 0) return provider;
  return {
    findType: (name) => provider?.findType(name) ?? types.get(name),
    findFieldType: (typeName, field) => provider?.findFieldType(typeName, field),
    newValue: (typeName, fields) => {
      if (provider !== undefined && provider.findType(typeName) !== undefined) return provider.newValue(typeName, fields);
      throw new CelEvalError(`unknown type: ${typeName}`);
    },
    findIdent: (name) => provider?.findIdent?.(name),
  };
}

function mergeFunction(into: Map<string, FunctionDecl>, f: FunctionDecl): void {
  const existing = into.get(f.name);
  if (existing === undefined) {
    into.set(f.name, f);
    return;
  }
  // A later declaration of the same overload id replaces the earlier one (libraries may refine).
  const byId = new Map(existing.overloads.map((o) => [o.id, o]));
  for (const o of f.overloads) byId.set(o.id, o);
  into.set(f.name, { name: f.name, overloads: [...byId.values()] });
}
