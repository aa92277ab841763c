/**
 * Kyverno's MutatingPolicy CEL environment (kyverno v1.19.0
 * `pkg/cel/policies/mpol/compiler/compiler.go` `newExtendedEnv`, and
 * `pkg/cel/compiler/env.go` `DefaultEnvOptionsWithCompat`), on celmap's engine.
 *
 * Construction, as Kyverno does it:
 * 1. The Kubernetes base environment set at compatibility version 2.0
 *    (`environment.MustBaseEnvSet(2.0)`, everything up to 1.36):
 *    {@link KUBERNETES_BASE_LIBRARIES} with homogeneous aggregate literals,
 *    cross-type numeric comparisons, literal validation, UTC default time zone,
 *    optional types.
 * 2. `DefaultEnvOptions`: the same options again plus cel-go extensions the
 *    base set lacks — **`ext.Bindings`** (`cel.bind`), **`ext.Encoders`**
 *    (`base64.*`), **`ext.Math`** (latest: `math.greatest/least/ceil/floor/round/
 *    trunc/abs/sign/isInf/isNaN/isFinite`, bit operations, `math.sqrt`),
 *    `ext.Protos` (proto2 extensions: nothing to use without messages),
 *    **`ext.Regex` v1** (`regex.replace/extract/extractAll`), and again lists v3,
 *    sets, strings v2 and the Kubernetes CIDR, format, IP, lists, regex, URL,
 *    quantity and semver libraries (already present). Then the `orValue`
 *    compatibility macro: every `x.orValue(y)` becomes `__orValueCompat__(x, y)`,
 *    typed `dyn`, returning an optional's value (or `y` when empty) and a
 *    non-optional `x` as is (cel-go ≤ 0.27 behaviour). Reproduced here as a
 *    `dyn` receiver overload of `orValue` ({@link OR_VALUE_COMPAT_LIBRARY}):
 *    the checker then types every `orValue` call `dyn`, as Kyverno's rewrite does.
 * 3. Variables: `object`, `oldObject` (dyn); `request`
 *    (`kubernetes.AdmissionRequest` plus `object`/`oldObject` dyn fields);
 *    `namespaceObject` (`kubernetes.Namespace`); `variables`
 *    (`kyverno.variables`, one typed field per compiled variable);
 *    `exceptions` (`libs.Exception`: `allowedImages`, `allowedValues`, both
 *    `list(string)`). Types: `Object`/`Object.<path>` (the MAP dynamic type
 *    resolver) and `JSONPatch`, with `jsonpatch.escapeKey`.
 * 4. Kyverno's libraries at their latest version, in this order:
 *    globalcontext, resource (namespace-pinned overloads for a namespaced
 *    policy), image, imagedata, hash, math, json, yaml, random, x509, time,
 *    transform, gzip, user, http. Their variables: `globalContext`, `resource`,
 *    `image`, `json`, `yaml`, `http` (and the hash library's constant
 *    `mylib_version` = "").
 *
 * Not declared (a compile error, as in Kyverno): `params` (no paramKind) and
 * `authorizer` (the authz functions exist but nothing to call them on).
 *
 * Deviations:
 * - `ext.Protos` is not added (no protobuf messages in this environment).
 */
import { KUBERNETES_COST_OPTIONS } from "../../cel/cost-runtime.js";
import { func, memberOverload, overload, type Library, type TypeProvider } from "../../cel/decls.js";
import { Env } from "../../cel/env.js";
import { CelEvalError } from "../../cel/errors.js";
import { ENCODERS_LIBRARY } from "../../cel/ext/encoders.js";
import { mathLibrary } from "../../cel/ext/math.js";
import {
  ADMISSION_REQUEST_TYPE,
  KUBERNETES_BASE_LIBRARIES,
  NAMESPACE_TYPE,
  compileExpression,
  kubernetesEnv,
  type CompiledVariable,
  type DeclaredVariable,
  type VariableSource,
} from "../../admission/environment.js";
import { JSONPATCH_LIBRARY } from "../../cel/k8s/jsonpatch.js";
import type { CelSchemaNode } from "../../cel/k8s/values.js";
import { DYN, STRING, listType, messageType, type CelType } from "../../cel/types.js";
import { CelObject, CelOptional, CelTimestamp, type CelValue } from "../../cel/values.js";
import { GLOBAL_CONTEXT_LIBRARY, GlobalContextValue, type GlobalContextProvider } from "./globalcontext.js";
import { GZIP_LIBRARY } from "./gzip.js";
import { HASH_LIBRARY } from "./hash.js";
import { HTTP_LIBRARY, HttpContext, type HttpProvider } from "./http.js";
import { IMAGE_LIBRARY } from "./image.js";
import { IMAGE_DATA_LIBRARY, ImageDataContext, type ImageDataProvider } from "./imagedata.js";
import { JSON_LIBRARY, JsonContext } from "./json.js";
import { KYVERNO_MATH_LIBRARY } from "./math.js";
import { OfflineGlobalContextProvider, OfflineHttpProvider, OfflineImageDataProvider, OfflineResourceProvider } from "./providers.js";
import { randomLibrary, type RandomSource } from "./random.js";
import { CEL_REGEX_LIBRARY } from "./regex.js";
import { ResourceContext, resourceLibrary, type ResourceProvider } from "./resource.js";
import { ProviderError } from "./common.js";
import { timeLibrary } from "./time.js";
import { TRANSFORM_LIBRARY } from "./transform.js";
import { USER_LIBRARY, USER_TYPE_PROVIDER } from "./user.js";
import { X509_LIBRARY } from "./x509.js";
import { YAML_LIBRARY, YamlContext, type YamlParser } from "./yaml.js";

export const KYVERNO_VARIABLES_TYPE = messageType("kyverno.variables");
export const EXCEPTION_TYPE = messageType("libs.Exception");

/** `ext.Bindings()`: the `cel.bind` macro. */
export const BINDINGS_LIBRARY: Library = { name: "cel.lib.ext.cel.bindings", macros: ["bind"] };

function orValueCompat(lhs: CelValue, rhs: CelValue): CelValue {
  if (lhs instanceof CelOptional) return lhs.hasValue() ? lhs.value : rhs;
  return lhs;
}

/**
 * Kyverno's `OrValueCompatEnvOptions`: `x.orValue(y)` on any receiver, typed
 * `dyn` (and the function `__orValueCompat__` the macro calls).
 */
export const OR_VALUE_COMPAT_LIBRARY: Library = {
  name: "kyverno.orValueCompat",
  functions: [
    func("orValue", memberOverload("__orValueCompat___dyn_dyn", [DYN, DYN], DYN, orValueCompat)),
    func("__orValueCompat__", overload("__orValueCompat___dyn_dyn", [DYN, DYN], DYN, orValueCompat)),
  ],
};

/** cel-go extensions Kyverno's `DefaultEnvOptions` adds on top of the Kubernetes base set. */
export const KYVERNO_CEL_EXTENSIONS: readonly Library[] = [BINDINGS_LIBRARY, ENCODERS_LIBRARY, mathLibrary(), CEL_REGEX_LIBRARY];

/** The value of `exceptions`: the lists from matched partial PolicyExceptions. */
export class ExceptionsValue extends CelObject {
  readonly celType = EXCEPTION_TYPE;
  constructor(
    readonly allowedImages: readonly string[] = [],
    readonly allowedValues: readonly string[] = [],
  ) {
    super();
  }
  override getField(name: string): CelValue | undefined {
    if (name === "allowedImages") return this.allowedImages;
    if (name === "allowedValues") return this.allowedValues;
    return undefined;
  }
  override hasField(name: string): boolean | undefined {
    if (name === "allowedImages") return this.allowedImages.length > 0;
    if (name === "allowedValues") return this.allowedValues.length > 0;
    return undefined;
  }
}

export interface KyvernoProviders {
  /** `resource.*`; default: empty offline data (every read is an error naming the call). */
  readonly resource?: ResourceProvider;
  /** `http.*`; default: no responses (every call is an error). */
  readonly http?: HttpProvider;
  /** `globalContext.*`; default: no entries (null, as Kyverno). */
  readonly globalContext?: GlobalContextProvider;
  /** `image.GetMetadata`; default: no images (the CLI's "not found in the context" error). */
  readonly imageData?: ImageDataProvider;
  /** `yaml.parse`; default: none (calls are errors). */
  readonly yaml?: YamlParser;
  /** `time.now()`; default: the system clock. */
  readonly clock?: () => CelTimestamp;
  /** `random()`; default: Math.random. */
  readonly random?: RandomSource;
}

export interface KyvernoEnvOptions extends KyvernoProviders {
  /** The policy's namespace: "" (MutatingPolicy, default) or a NamespacedMutatingPolicy's namespace. */
  readonly namespace?: string;
  /** `--allowHTTPInNamespacedPolicies` (namespaced policies only; default false: `http.*` calls fail). */
  readonly allowHttpInNamespacedPolicies?: boolean;
  /** Compiled variables visible as `variables.<name>` (names typed dyn, or with their types). */
  readonly variables?: readonly (string | DeclaredVariable)[];
  /** celmap's strict mode: `Object.<path>` resolved against this schema. */
  readonly objectSchema?: CelSchemaNode;
}

export interface KyvernoEnvironment {
  readonly env: Env;
  /** Values of the library variables (`resource`, `http`, `globalContext`, `image`, `json`, `yaml`, `mylib_version`). */
  readonly globals: Readonly<Record<string, CelValue>>;
  /** The globals plus the per-request bindings (`object`, `oldObject`, `request`, `namespaceObject`, `variables`, `exceptions`). */
  activation(bindings: Readonly<Record<string, CelValue>>): Record<string, CelValue>;
}

const NAMESPACED_HTTP_ERROR = "http calls are not allowed in namespaced policies: set --allowHTTPInNamespacedPolicies to enable";

/** Kyverno's `namespacedHTTPContext`: the toggle is checked at call time. */
function namespacedHttp(inner: HttpProvider): HttpProvider {
  return {
    get: () => {
      throw new ProviderError(NAMESPACED_HTTP_ERROR);
    },
    post: () => {
      throw new ProviderError(NAMESPACED_HTTP_ERROR);
    },
    client: (ca) => namespacedHttp(inner.client(ca)),
  };
}

function kyvernoTypeProvider(base: TypeProvider | undefined, variables: ReadonlyMap<string, CelType>): TypeProvider {
  const own = new Map<string, ReadonlyMap<string, CelType>>([
    [KYVERNO_VARIABLES_TYPE.name, variables],
    [
      EXCEPTION_TYPE.name,
      new Map([
        ["allowedImages", listType(STRING)],
        ["allowedValues", listType(STRING)],
      ]),
    ],
  ]);
  return {
    findType: (name) => (own.has(name) ? messageType(name) : (USER_TYPE_PROVIDER.findType(name) ?? base?.findType(name))),
    findFieldType: (typeName, field) => {
      if (typeName === ADMISSION_REQUEST_TYPE.name && (field === "object" || field === "oldObject")) return DYN;
      const fields = own.get(typeName);
      if (fields !== undefined) return fields.get(field);
      if (USER_TYPE_PROVIDER.findType(typeName) !== undefined) return USER_TYPE_PROVIDER.findFieldType(typeName, field);
      return base?.findFieldType(typeName, field);
    },
    newValue: (typeName, values) => {
      if (typeName === EXCEPTION_TYPE.name) {
        const list = (f: string): string[] => {
          const v = values.get(f);
          if (v === undefined) return [];
          if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw new CelEvalError("no such overload");
          return v as string[];
        };
        return new ExceptionsValue(list("allowedImages"), list("allowedValues"));
      }
      if (own.has(typeName)) throw new CelEvalError(`unknown type: ${typeName}`);
      if (USER_TYPE_PROVIDER.findType(typeName) !== undefined) return USER_TYPE_PROVIDER.newValue(typeName, values);
      if (base === undefined) throw new CelEvalError(`unknown type: ${typeName}`);
      return base.newValue(typeName, values);
    },
    findIdent: (name) => base?.findIdent?.(name),
  };
}

/** Kyverno's libraries in the order `newExtendedEnv` adds them. */
export function kyvernoLibraries(options: { namespace?: string; clock?: () => CelTimestamp; random?: RandomSource } = {}): Library[] {
  return [
    GLOBAL_CONTEXT_LIBRARY,
    resourceLibrary(options.namespace ?? ""),
    IMAGE_LIBRARY,
    IMAGE_DATA_LIBRARY,
    HASH_LIBRARY,
    KYVERNO_MATH_LIBRARY,
    JSON_LIBRARY,
    YAML_LIBRARY,
    randomLibrary(options.random),
    X509_LIBRARY,
    timeLibrary(options.clock),
    TRANSFORM_LIBRARY,
    GZIP_LIBRARY,
    USER_LIBRARY,
    HTTP_LIBRARY,
  ];
}

/** The MutatingPolicy environment with its providers; see the module comment. */
export function kyvernoEnv(options: KyvernoEnvOptions = {}): KyvernoEnvironment {
  const namespace = options.namespace ?? "";
  const vars = new Map<string, CelType>();
  for (const v of options.variables ?? []) {
    if (typeof v === "string") vars.set(v, DYN);
    else vars.set(v.name, v.type);
  }
  const k8s = kubernetesEnv({ kind: "mutation", ...(options.objectSchema === undefined ? {} : { objectSchema: options.objectSchema }) });
  const variables: Record<string, CelType> = {
    namespaceObject: NAMESPACE_TYPE,
    object: DYN,
    oldObject: DYN,
    request: ADMISSION_REQUEST_TYPE,
    variables: KYVERNO_VARIABLES_TYPE,
    exceptions: EXCEPTION_TYPE,
    mylib_version: STRING,
  };
  const env = new Env({
    libraries: [
      ...KUBERNETES_BASE_LIBRARIES,
      ...KYVERNO_CEL_EXTENSIONS,
      OR_VALUE_COMPAT_LIBRARY,
      JSONPATCH_LIBRARY,
      ...kyvernoLibraries({
        namespace,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...(options.random === undefined ? {} : { random: options.random }),
      }),
    ],
    variables,
    typeProvider: kyvernoTypeProvider(k8s.typeProvider, vars),
    homogeneousAggregateLiterals: true,
    crossTypeNumericComparisons: true,
    validateLiterals: true,
    cost: KUBERNETES_COST_OPTIONS,
  });
  let http: HttpProvider = options.http ?? new OfflineHttpProvider();
  if (namespace !== "" && options.allowHttpInNamespacedPolicies !== true) http = namespacedHttp(http);
  const globals: Record<string, CelValue> = {
    resource: new ResourceContext(options.resource ?? new OfflineResourceProvider({ missing: "error" })),
    http: new HttpContext(http),
    globalContext: new GlobalContextValue(options.globalContext ?? new OfflineGlobalContextProvider()),
    image: new ImageDataContext(options.imageData ?? new OfflineImageDataProvider()),
    json: new JsonContext(),
    yaml: new YamlContext(options.yaml),
    mylib_version: "",
  };
  Object.freeze(globals);
  return {
    env,
    globals,
    activation: (bindings) => ({ exceptions: new ExceptionsValue(), ...bindings, ...globals }),
  };
}

/**
 * `compiler.CompileVariables`: each variable is compiled in the Kyverno
 * environment where the variables before it are declared with their output
 * types; in Kyverno any failure fails the policy (callers should stop at the
 * first `ok: false`). The results fit {@link LazyVariables}.
 */
export function compileKyvernoVariables(
  sources: readonly VariableSource[],
  options: Omit<KyvernoEnvOptions, "variables"> = {},
): CompiledVariable[] {
  const out: CompiledVariable[] = [];
  for (const v of sources) {
    const { env } = kyvernoEnv({ ...options, variables: out });
    const r = compileExpression(env, v.expression);
    out.push(r.ok ? { name: v.name, type: r.type, ok: true, program: r.program } : { name: v.name, type: DYN, ok: false, detail: r.detail });
  }
  return out;
}
