/**
 * The engine's data: what `load` builds (a {@link PolicySet}, compiled once and reused by every
 * request) and what `admit` takes and gives back.
 */
import type { AdmissionRequest, Converter, Defaulter, EvaluateResult, JsonObject, ParamSource, RequestInput, ResourceCatalog } from "../admission/index.js";
import type { KyvernoProviders, OfflineResourceProvider, MutatingPolicy, PolicyException } from "../kyverno/index.js";
import type { Authorizer } from "../cel/k8s/authz.js";
import type { FieldError } from "../diag/field-error.js";
import type { SourceRef } from "../diag/source.js";
import type { SchemaRegistry } from "../kube/schema.js";
import type { ValidMutatingAdmissionPolicy, ValidMutatingAdmissionPolicyBinding } from "../policy/index.js";
import type { Verdict } from "../translate/gatekeeper/index.js";
import type { StoredResult, ValidationContext } from "../validation/index.js";

/** A parsed document and where it came from (`LoadedDocument` of src/io fits). */
export interface EngineDocument {
  readonly value: unknown;
  readonly source?: SourceRef;
}

/**
 * What kind of error it is, so that edges (exit codes, metrics, HTTP status) classify by kind and
 * never by message text:
 * - `input`: bad input a user can fix (a document that is not an object, a policy the apiserver
 *   would reject, an unknown kind, a missing param);
 * - `internal`: a celmap bug (e.g. a translation that does not validate).
 */
export type EngineErrorKind = "input" | "internal";

/** One problem found by `load` or `admit`. */
export interface EngineError {
  readonly kind: EngineErrorKind;
  /** The document it is about, when there is one. */
  readonly source?: SourceRef;
  /** The message, without the source (`spec.x[0].y: Invalid value: ...`). */
  readonly message: string;
  /** The field error, when the problem is one (MAP validation). */
  readonly field?: FieldError;
  /**
   * kube-apiserver's whole answer for the object (e.g. `MutatingAdmissionPolicy... "x" is invalid:
   * ...`), when the document is a MAP or binding it would reject.
   */
  readonly apiserverMessage?: string;
}

export interface LoadOptions {
  /**
   * The documents are the whole cluster (eval, test): a kind that is neither a known resource nor
   * the paramKind of a given policy, and a binding whose param is not given, are errors. False for
   * the webhook (a cluster source delivers params as they come) and conformance. Default false.
   */
  readonly closedWorld?: boolean;
  /**
   * Replaying an upstream unit test (conformance harnesses `patcher`...`plugin`): MAPs and bindings
   * are stored without API validation (no CEL compiled at load; a bad expression fails when it
   * runs, as in those tests) and Namespace objects are taken as given (test fixtures), not as the
   * apiserver stores them. Default false.
   */
  readonly replay?: boolean;
  /**
   * The resources and structural schemas to start from (the cluster source: built-ins plus the
   * cluster's custom resources from its OpenAPI). Default: the built-ins. CustomResourceDefinitions
   * among the documents are added to them: the policy set owns them after `load`.
   */
  readonly catalog?: ResourceCatalog;
  readonly schemas?: SchemaRegistry;
}

export interface KyvernoInputs {
  /** MutatingPolicies / NamespacedMutatingPolicies in input order (decoded, defaulted, CEL compiled). */
  readonly policies: readonly MutatingPolicy[];
  readonly exceptions: readonly PolicyException[];
  /** Offline library providers: `resource.Get/List` over {@link resources}, image data from CLI Context documents. */
  readonly providers: KyvernoProviders;
  /** Cluster objects `resource.Get/List` read (Context resources, params, namespaces; eval adds mutateExisting targets). */
  readonly resources: OfflineResourceProvider;
}

/** Everything requests are evaluated against. Immutable after `load` (except `kyverno.resources`, see there); compile once, admit many. */
export interface PolicySet {
  readonly policies: readonly ValidMutatingAdmissionPolicy[];
  readonly bindings: readonly ValidMutatingAdmissionPolicyBinding[];
  readonly paramObjects: readonly JsonObject[];
  readonly params: ParamSource;
  /** Namespace objects given, by name. Others are seen as {@link bareNamespace}s. */
  readonly namespaces: ReadonlyMap<string, JsonObject>;
  readonly catalog: ResourceCatalog;
  readonly schemas: SchemaRegistry;
  /** The built-in defaulting plus the given CRDs' pruning and schema defaults (`defaultObject` of src/validation; `admit` decides when it applies). */
  readonly defaulter: Defaulter;
  /** `defaulter` for one request: it remembers, by identity, what it has defaulted, so that the call after each mutation skips what the mutation left alone (`admit` makes one per request). */
  readonly requestDefaulter: () => Defaulter;
  /** The given CRDs as src/validation sees them: defaulting, validation before storage, version conversion. */
  readonly validation: ValidationContext;
  /** Version conversion across the versions of the given CRDs, for policies matched through an equivalent resource (`matchPolicy: Equivalent`). */
  readonly converter: Converter;
  readonly kyverno: KyvernoInputs;
  /** Gatekeeper mutators given, translated to MAPs at load (their policies and bindings are in the lists above). */
  readonly gatekeeper: { readonly count: number; readonly verdicts: readonly Verdict[] };
}

export interface LoadResult {
  readonly policySet: PolicySet;
  /** Problems that make the input unusable (the caller decides: eval refuses to run, the webhook keeps its last good set). */
  readonly errors: readonly EngineError[];
  /** Worth telling, not fatal (a policy without a binding). */
  readonly warnings: readonly string[];
}

/**
 * What to admit:
 * - {@link ObjectRequest}: an object as a user sends it (`kubectl create -f`, `celmap eval -r`); the
 *   engine builds the request the apiserver would, fills the request's namespace into the object
 *   and defaults it as the apiserver's decoding does;
 * - {@link ReviewRequest}: a request as the apiserver sends it to a webhook (already namespaced and
 *   defaulted by the apiserver): evaluated as it is.
 */
export type AdmitRequest = ObjectRequest | ReviewRequest;

export type ObjectRequest = RequestInput & { readonly review?: undefined };

export interface ReviewRequest {
  readonly review: AdmissionRequest;
}

export interface AdmitOptions {
  /** Apply the policy set's defaulter (see `admit` for when). Default true. */
  readonly defaulting?: boolean;
  /** Replaces the policy set's defaulter (conformance harnesses with a test's fake defaulter). */
  readonly defaulter?: Defaulter;
  /** Run the reinvocation pass when asked for, as a real apiserver does. Default true. */
  readonly reinvocation?: boolean;
  /** Answers `authorizer.*` checks. Default: denies every check ("no opinion"). */
  readonly authorizer?: Authorizer;
  /** Asked between invocations; once true the request ends with 504 Timeout (the webhook's deadline). */
  readonly expired?: () => boolean;
  /** Kyverno library providers to use instead of the set's offline ones (the webhook's live cluster). */
  readonly kyvernoProviders?: KyvernoProviders;
  /**
   * The order the MAP plugin runs the policies in, by policy name (`evaluate`'s `policyOrder`):
   * Kubernetes fixes none, `celmap lint` tries several. Default: celmap's documented order (name).
   * Kyverno's policies run in the order of `kyverno.policies`.
   */
  readonly policyOrder?: readonly string[];
  /**
   * After admission, validate the admitted object as the apiserver does before storing it
   * (`validateStored`: a 422 Invalid it would answer is reported with stage `validation`).
   * True for `celmap eval`; false for the webhook (in a cluster the apiserver validates after the
   * webhooks: a webhook must not) and `celmap test` (Kyverno's CLI does not). Default false.
   */
  readonly validate?: boolean;
}

/** The stage that rejected a request: admission (a policy, or a status admission answered) or validation (422 Invalid before storage). */
export type RejectionStage = "admission" | "validation";

export type Admission =
  | {
      readonly ok: true;
      /** The object as admission receives it (namespace filled, defaulted, for an {@link ObjectRequest}). */
      readonly input: JsonObject | null;
      readonly request: AdmissionRequest;
      readonly result: EvaluateResult;
      /** Namespaces the request needed that were not in the policy set (seen as bare namespaces). */
      readonly bareNamespaces: readonly string[];
      /**
       * The apiserver's validation of the admitted object before storing it, with
       * {@link AdmitOptions.validate} (absent without it, or when admission denied the request).
       */
      readonly validation?: StoredResult;
      /** Which stage rejected the request; absent when it was admitted (and, with `validate`, valid). */
      readonly stage?: RejectionStage;
    }
  | { readonly ok: false; readonly error: EngineError };
