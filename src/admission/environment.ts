/**
 * The Kubernetes CEL environments, named as kube-apiserver 1.36 names them
 * (k8s.io/apiserver v0.36: `pkg/cel/environment/base.go`,
 * `pkg/admission/plugin/cel/compile.go` and `composition.go`,
 * `pkg/admission/plugin/policy/mutating/compilation.go`):
 *
 * - **base** (`environment.MustBaseEnvSet(1.36)`, in `src/cel/k8s/base-env.ts`): no variables. Language options:
 *   homogeneous aggregate literals, cross-type numeric comparisons, literal
 *   validation (duration/timestamp/regex), UTC default time zone (the engine's
 *   only behaviour), optional types and syntax. Macros: standard, `optMap`/
 *   `optFlatMap`, `sortBy` (lists v3), two-variable comprehensions. Libraries,
 *   in base.go's order: Kubernetes URLs, regex, lists; authz; optional types;
 *   quantity; cel-go strings **v2**; sets; IP, CIDR; format; authz selectors;
 *   two-variable comprehensions; semver v1; cel-go lists v3. Not available (a
 *   compile error, as there): `cel.bind`, the math extension, encoders
 *   (`base64.*`), strings v3+ (`'a'.reverse()`), protos.
 * - **mutation** (MAP `mutations[*]`): the admission variables (below), the
 *   `Object`/`Object.<path>` and `JSONPatch` types and `jsonpatch.escapeKey`.
 * - **variables** (MAP `variables[*]`): the admission variables, no patch types.
 * - **match** (`matchConditions[*]`, as API validation compiles them): the
 *   admission variables without `variables`.
 *
 * Admission variables (compile.go `createEnvForOpts`, composition.go):
 * `object`, `oldObject` (dyn), `namespaceObject` (`kubernetes.Namespace`),
 * `request` (`kubernetes.AdmissionRequest`), `params` (dyn, only with a
 * paramKind), `authorizer` and `authorizer.requestResource` (always for MAP),
 * `variables` (`kubernetes.variables`: one field per composited variable, typed
 * with that variable's output type, evaluated lazily at most once per
 * activation — see {@link compileVariables} and {@link LazyVariables}).
 *
 * At run time `request` and `namespaceObject` are plain maps (the apiserver
 * converts them to unstructured data); their declared types only drive
 * type-checking.
 */
import type { CheckedExpr } from "../cel/checked.js";
import type { TypeProvider } from "../cel/decls.js";
import { Env } from "../cel/env.js";
import { CelCompileError, CelEvalError } from "../cel/errors.js";
import { CelInstantiationError } from "../cel/instantiate.js";
import type { Activation, Program } from "../cel/planner.js";
import {
  BOOL,
  DYN,
  INT,
  STRING,
  TIMESTAMP,
  listType,
  mapType,
  messageType,
  type CelType,
} from "../cel/types.js";
import { CelObject, type CelValue } from "../cel/values.js";
import { AUTHORIZER_VARIABLES } from "../cel/k8s/authz.js";
import { JSONPATCH_LIBRARY, JSONPATCH_TYPE } from "../cel/k8s/jsonpatch.js";
import { OBJECT_TYPE, checkOutputType, objectTypeProvider } from "../cel/k8s/object.js";
import type { CelSchemaNode } from "../cel/k8s/values.js";
import type { Library } from "../cel/decls.js";
import { KUBERNETES_BASE_LIBRARIES, kubernetesBaseEnv } from "../cel/k8s/base-env.js";

export { KUBERNETES_BASE_LIBRARIES, kubernetesBaseEnv };

export type KubernetesEnvKind = "base" | "mutation" | "variables" | "match";

// ---------------------------------------------------------------------------
// Declared types of the admission variables

/** Object types declared by field (`apiservercel.NewObjectType`): name → field → type. */
type DeclTypes = ReadonlyMap<string, ReadonlyMap<string, CelType>>;

const GVK = "kubernetes.GroupVersionKind";
const GVR = "kubernetes.GroupVersionResource";
const USER_INFO = "kubernetes.UserInfo";
export const ADMISSION_REQUEST_TYPE = messageType("kubernetes.AdmissionRequest");
export const NAMESPACE_TYPE = messageType("kubernetes.Namespace");
export const VARIABLES_TYPE = messageType("kubernetes.variables");
const LIST_STRING = listType(STRING);

const fields = (entries: Record<string, CelType>): ReadonlyMap<string, CelType> => new Map(Object.entries(entries));

/** `BuildRequestType` and `BuildNamespaceType` of compile.go. */
const ADMISSION_DECL_TYPES: DeclTypes = new Map([
  [GVK, fields({ group: STRING, version: STRING, kind: STRING })],
  [GVR, fields({ group: STRING, version: STRING, resource: STRING })],
  [USER_INFO, fields({ username: STRING, uid: STRING, groups: LIST_STRING, extra: mapType(STRING, LIST_STRING) })],
  [
    ADMISSION_REQUEST_TYPE.name,
    fields({
      kind: messageType(GVK),
      resource: messageType(GVR),
      subResource: STRING,
      requestKind: messageType(GVK),
      requestResource: messageType(GVR),
      requestSubResource: STRING,
      name: STRING,
      namespace: STRING,
      operation: STRING,
      userInfo: messageType(USER_INFO),
      dryRun: BOOL,
      options: DYN,
    }),
  ],
  ["kubernetes.NamespaceSpec", fields({ finalizers: LIST_STRING })],
  [
    "kubernetes.NamespaceCondition",
    fields({ status: STRING, type: STRING, lastTransitionTime: TIMESTAMP, message: STRING, reason: STRING }),
  ],
  [
    "kubernetes.NamespaceStatus",
    fields({ conditions: listType(messageType("kubernetes.NamespaceCondition")), phase: STRING }),
  ],
  [
    "kubernetes.NamespaceMetadata",
    fields({
      name: STRING,
      generateName: STRING,
      namespace: STRING,
      labels: mapType(STRING, STRING),
      annotations: mapType(STRING, STRING),
      // Declared `UID` although the data key is `uid` (a Kubernetes quirk).
      UID: STRING,
      creationTimestamp: TIMESTAMP,
      deletionGracePeriodSeconds: INT,
      deletionTimestamp: TIMESTAMP,
      generation: INT,
      resourceVersion: STRING,
      finalizers: LIST_STRING,
    }),
  ],
  [
    NAMESPACE_TYPE.name,
    fields({
      metadata: messageType("kubernetes.NamespaceMetadata"),
      spec: messageType("kubernetes.NamespaceSpec"),
      status: messageType("kubernetes.NamespaceStatus"),
    }),
  ],
]);

/** Declared object types: known by name and field, never constructed in CEL (the apiserver hands them in as data). */
function declTypeProvider(types: DeclTypes): TypeProvider {
  return {
    findType: (name) => (types.has(name) ? messageType(name) : undefined),
    findFieldType: (typeName, field) => types.get(typeName)?.get(field),
    newValue: (typeName) => {
      throw new CelEvalError(`unknown type: ${typeName}`);
    },
  };
}

/** The first provider that knows a type answers for it. */
function composeProviders(providers: readonly TypeProvider[]): TypeProvider {
  // Asked on every construction at run time (and several times per construction): answered once per name.
  const owners = new Map<string, TypeProvider | null>();
  const owner = (name: string): TypeProvider | undefined => {
    let p = owners.get(name);
    if (p === undefined) {
      p = providers.find((q) => q.findType(name) !== undefined) ?? null;
      if (owners.size >= 10_000) owners.clear();
      owners.set(name, p);
    }
    return p ?? undefined;
  };
  return {
    findType: (name) => owner(name)?.findType(name),
    findFieldType: (typeName, field) => owner(typeName)?.findFieldType(typeName, field),
    newValue: (typeName, values) => {
      const p = owner(typeName);
      if (p === undefined) throw new CelEvalError(`unknown type: ${typeName}`);
      return p.newValue(typeName, values);
    },
    findIdent: (name) => {
      for (const p of providers) {
        const r = p.findIdent?.(name);
        if (r !== undefined) return r;
      }
      return undefined;
    },
  };
}

// ---------------------------------------------------------------------------
// Environments

/** A composited variable as declared to later expressions: its name and output type (dyn when it failed to compile). */
export interface DeclaredVariable {
  readonly name: string;
  readonly type: CelType;
}

export interface KubernetesEnvOptions {
  /** Default `mutation`. */
  readonly kind?: KubernetesEnvKind;
  /** Whether the policy has a `paramKind` (declares `params`). Default false. */
  readonly hasParams?: boolean;
  /**
   * The composited variables visible as `variables.<name>` (mutation and variables
   * environments): names (typed dyn) or names with their output types. Default none:
   * `variables` is declared with no fields, so `variables.x` is "undefined field 'x'".
   */
  readonly variables?: readonly (string | DeclaredVariable)[];
  /**
   * celmap's strict mode (mutation environment only): `Object.<path>` names and field types
   * resolve against this schema of the object's kind, so typos are compile errors.
   */
  readonly objectSchema?: CelSchemaNode;
}

/** An environment of the given kind; see the module comment. */
export function kubernetesEnv(options: KubernetesEnvOptions = {}): Env {
  const kind = options.kind ?? "mutation";
  if (kind === "base") return kubernetesBaseEnv();

  const variables: Record<string, CelType> = {
    object: DYN,
    oldObject: DYN,
    namespaceObject: NAMESPACE_TYPE,
    request: ADMISSION_REQUEST_TYPE,
  };
  if (options.hasParams === true) variables.params = DYN;
  for (const v of AUTHORIZER_VARIABLES) variables[v.name] = v.type;

  const declTypes = new Map(ADMISSION_DECL_TYPES);
  if (kind !== "match") {
    variables.variables = VARIABLES_TYPE;
    const vars = new Map<string, CelType>();
    for (const v of options.variables ?? []) {
      if (typeof v === "string") vars.set(v, DYN);
      else vars.set(v.name, v.type);
    }
    declTypes.set(VARIABLES_TYPE.name, vars);
  }

  const providers: TypeProvider[] = [declTypeProvider(declTypes)];
  const libraries: Library[] = [];
  if (kind === "mutation") {
    providers.push(objectTypeProvider(options.objectSchema === undefined ? {} : { schema: options.objectSchema }));
    libraries.push(JSONPATCH_LIBRARY);
  }
  return kubernetesBaseEnv().extend({ variables, libraries, typeProvider: composeProviders(providers) });
}

// ---------------------------------------------------------------------------
// Compiling as the admission plugin does

/** The output types MAP expressions must have. */
export const APPLY_CONFIGURATION_TYPE = OBJECT_TYPE;
export const JSON_PATCH_LIST_TYPE = listType(JSONPATCH_TYPE);

export type CompileResult =
  | { readonly ok: true; readonly checked: CheckedExpr; readonly program: Program; readonly type: CelType }
  /** `detail` is the apiserver's `CompilationResult.Error.Detail`. */
  | { readonly ok: false; readonly detail: string; readonly compileError?: CelCompileError };

/**
 * `CompileCELExpression`: compile, then require the output type to be exactly `returnType`
 * when one is given (`must evaluate to Object but got string`).
 */
export function compileExpression(env: Env, source: string, returnType?: CelType): CompileResult {
  let checked: CheckedExpr;
  try {
    checked = env.compile(source);
  } catch (e) {
    if (e instanceof CelCompileError) return { ok: false, detail: `compilation failed: ${e.message}`, compileError: e };
    throw e;
  }
  if (returnType !== undefined) {
    const mismatch = checkOutputType(checked.type, returnType);
    if (mismatch !== undefined) return { ok: false, detail: mismatch };
  }
  let program: Program;
  try {
    program = env.program(checked);
  } catch (e) {
    if (e instanceof CelInstantiationError) return { ok: false, detail: e.message };
    throw e;
  }
  return { ok: true, checked, program, type: checked.type };
}

export interface VariableSource {
  readonly name: string;
  readonly expression: string;
}

export type CompiledVariable = { readonly name: string; readonly type: CelType } & (
  | { readonly ok: true; readonly program: Program }
  | { readonly ok: false; readonly detail: string }
);

/**
 * `CompileAndStoreVariables`: compiles the variables in order, each in the variables
 * environment where only the variables before it are declared (a later or unknown one is
 * "undefined field"). A variable that fails to compile is declared `dyn` to the later ones.
 */
export function compileVariables(
  sources: readonly VariableSource[],
  options: Omit<KubernetesEnvOptions, "kind" | "variables" | "objectSchema"> = {},
): CompiledVariable[] {
  const out: CompiledVariable[] = [];
  for (const v of sources) {
    const env = kubernetesEnv({ ...options, kind: "variables", variables: out });
    const r = compileExpression(env, v.expression);
    out.push(r.ok ? { name: v.name, type: r.type, ok: true, program: r.program } : { name: v.name, type: DYN, ok: false, detail: r.detail });
  }
  return out;
}

/**
 * The run-time value of `variables` (`lazy.MapValue`): each variable is evaluated on first
 * use, at most once, with the same bindings as the expression that reads it. Failures read as
 * `composited variable "<name>" fails to compile: …` / `… fails to evaluate: …`.
 * Build a new one per evaluation (per mutation, per match-condition batch), as Kubernetes does.
 *
 * With `costLimit`, cost is accounted as the apiserver's composition context does it
 * (`pkg/admission/plugin/cel/composition.go`): each variable's program runs with that per-call
 * limit, and its actual cost (also when it failed) accumulates until {@link takeCost}
 * (`GetAndResetCost`), which the caller charges against its own budget.
 */
export class LazyVariables extends CelObject {
  readonly celType = VARIABLES_TYPE;
  private readonly byName: ReadonlyMap<string, CompiledVariable>;
  private results: Map<string, { value: CelValue } | { error: CelEvalError }> | undefined;
  private readonly costLimit: number | undefined;
  /** Cost of the variables evaluated since the last {@link takeCost} (with `costLimit` only). */
  private accumulated = 0;
  /** The bindings to evaluate an expression with: the given ones plus `variables` (this). */
  readonly activation: Activation;

  constructor(
    variables: readonly CompiledVariable[],
    bindings: Readonly<Record<string, CelValue>> | Activation,
    options: { readonly costLimit?: number } = {},
  ) {
    super();
    let byName = variableIndexes.get(variables);
    if (byName === undefined) variableIndexes.set(variables, (byName = new Map(variables.map((v) => [v.name, v]))));
    this.byName = byName;
    this.costLimit = options.costLimit;
    const resolve =
      typeof (bindings as Activation).resolve === "function"
        ? (bindings as Activation).resolve.bind(bindings)
        : (name: string) =>
            Object.prototype.hasOwnProperty.call(bindings, name) ? (bindings as Record<string, CelValue>)[name] : undefined;
    this.activation = { resolve: (name) => (name === "variables" ? this : resolve(name)) };
  }

  /** The bindings to evaluate an expression with: the given ones plus `variables` (this). */
  get bindings(): Activation {
    return this.activation;
  }

  /** `GetAndResetCost`: the cost of the variables evaluated since the last call (0 without `costLimit`). */
  takeCost(): number {
    const c = this.accumulated;
    this.accumulated = 0;
    return c;
  }

  override getField(name: string): CelValue | undefined {
    const v = this.byName.get(name);
    if (v === undefined) return undefined;
    this.results ??= new Map();
    let r = this.results.get(name);
    if (r === undefined) {
      r = this.evaluate(v);
      this.results.set(name, r);
    }
    if ("error" in r) throw r.error;
    return r.value;
  }

  override hasField(name: string): boolean {
    return this.byName.has(name);
  }

  /** `lazy.MapValue.Equal`: only the very same map; another type is "no such overload". */
  override equals(other: CelValue): boolean {
    if (!(other instanceof LazyVariables)) throw new CelEvalError("no such overload");
    return other === this;
  }

  private evaluate(v: CompiledVariable): { value: CelValue } | { error: CelEvalError } {
    if (!v.ok) return { error: new CelEvalError(`composited variable "${v.name}" fails to compile: ${v.detail}`) };
    try {
      if (this.costLimit === undefined) return { value: v.program.eval(this.activation) };
      const r = v.program.evalWithCost(this.activation, { costLimit: this.costLimit });
      this.accumulated += r.cost;
      return { value: r.value };
    } catch (e) {
      if (this.costLimit !== undefined) this.accumulated += v.program.lastCost ?? 0;
      if (e instanceof CelEvalError) return { error: new CelEvalError(`composited variable "${v.name}" fails to evaluate: ${e.message}`) };
      throw e;
    }
  }
}

/** Variables by name, per compiled variable list (a `LazyVariables` is made per evaluation). */
const variableIndexes = new WeakMap<readonly CompiledVariable[], ReadonlyMap<string, CompiledVariable>>();
