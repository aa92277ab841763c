/**
 * What the apiserver does to a MutatingAdmissionPolicy or binding sent to it for creation:
 * strict decoding (400 on failure), server-side normalisation, defaulting, validation
 * (422 on failure). The result carries the typed, defaulted object and, on failure, the
 * apiserver's message:
 *
 *   MutatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: [spec.reinvocationPolicy: Required value, ...]
 *
 * Normalisation, as `rest.BeforeCreate` and the registry strategy do for these
 * cluster-scoped kinds: `metadata.namespace` is cleared; `metadata.generation` becomes 1;
 * `deletionTimestamp`/`deletionGracePeriodSeconds` are dropped; an empty `metadata.name`
 * with a `generateName` becomes `generateName + "xxxxx"` (the apiserver appends 5 random
 * characters; we use a fixed suffix so results are reproducible).
 *
 * Never throws. Every error carries the document's {@link SourceRef} when one is given.
 */
import { withSource, invalidObjectMessage, type FieldError } from "../diag/field-error.js";
import type { DecodeIssue } from "../diag/decode-error.js";
import type { SourceRef } from "../diag/source.js";
import {
  BINDING_KIND,
  MAP_KIND,
  decodeMutatingAdmissionPolicy,
  decodeMutatingAdmissionPolicyBinding,
  type DecodeResult,
} from "./decode.js";
import { defaultMutatingAdmissionPolicy, defaultMutatingAdmissionPolicyBinding } from "./defaults.js";
import { GROUP, type ApiVersionName, type ObjectMeta } from "./schemas/common.js";
import type { MutatingAdmissionPolicyBinding } from "./schemas/map-binding.js";
import type { MutatingAdmissionPolicy } from "./schemas/map.js";
import type { ValidMutatingAdmissionPolicy, ValidMutatingAdmissionPolicyBinding } from "./valid-types.js";
import {
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
  type ValidateOptions,
} from "./validate.js";

export interface PrepareOptions extends ValidateOptions {
  readonly source?: SourceRef;
}

/** `T`: the decoded type; `V`: the same once valid (see `valid-types.ts`). */
export type PrepareResult<T, V extends T = T> =
  | { readonly ok: true; readonly object: V; readonly version: ApiVersionName; readonly source?: SourceRef }
  | {
      readonly ok: false;
      readonly stage: "decode";
      readonly issues: readonly DecodeIssue[];
      /** HTTP 400 message. */
      readonly message: string;
      readonly source?: SourceRef;
    }
  | {
      readonly ok: false;
      readonly stage: "validate";
      /** The decoded and defaulted object that failed validation. */
      readonly object: T;
      readonly version: ApiVersionName;
      readonly errors: readonly FieldError[];
      /** HTTP 422 message. */
      readonly message: string;
      readonly source?: SourceRef;
    };

/** Fixed stand-in for the 5 random characters the apiserver appends to generateName. */
export const GENERATED_NAME_SUFFIX = "xxxxx";

function normaliseMeta(meta: ObjectMeta | undefined): ObjectMeta {
  const m: ObjectMeta = { ...(meta ?? {}) };
  delete m.namespace;
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  m.generation = 1;
  if ((m.name ?? "") === "" && (m.generateName ?? "") !== "") {
    // names.SimpleNameGenerator: prefix truncated to 58 characters, then 5 random ones.
    m.name = m.generateName!.slice(0, 58) + GENERATED_NAME_SUFFIX;
  }
  return m;
}

function finish<T extends { metadata?: ObjectMeta }, V extends T>(
  decoded: DecodeResult<T>,
  qualifiedKind: string,
  defaulter: (o: T, v: ApiVersionName) => T,
  validator: (o: T) => FieldError[],
  source: SourceRef | undefined,
): PrepareResult<T, V> {
  const src = source !== undefined ? { source } : {};
  if (!decoded.ok) return { ok: false, stage: "decode", issues: decoded.issues, message: decoded.message, ...src };
  const normalised = { ...decoded.value, metadata: normaliseMeta(decoded.value.metadata) };
  const object = defaulter(normalised, decoded.version);
  const errors = validator(object).map((e) => (source !== undefined ? withSource(e, source) : e));
  // Validation passed: the object has what the apiserver guarantees (see valid-types.ts).
  if (errors.length === 0) return { ok: true, object: object as V, version: decoded.version, ...src };
  return {
    ok: false,
    stage: "validate",
    object,
    version: decoded.version,
    errors,
    message: invalidObjectMessage(qualifiedKind, object.metadata?.name ?? "", errors),
    ...src,
  };
}

/** Decode, normalise, default and validate a MutatingAdmissionPolicy document. */
export function prepareMutatingAdmissionPolicy(
  doc: unknown,
  opts: PrepareOptions = {},
): PrepareResult<MutatingAdmissionPolicy, ValidMutatingAdmissionPolicy> {
  return finish<MutatingAdmissionPolicy, ValidMutatingAdmissionPolicy>(
    decodeMutatingAdmissionPolicy(doc, opts.source),
    `${MAP_KIND}.${GROUP}`,
    defaultMutatingAdmissionPolicy,
    (o) => validateMutatingAdmissionPolicy(o, opts),
    opts.source,
  );
}

/** Decode, normalise, default and validate a MutatingAdmissionPolicyBinding document. */
export function prepareMutatingAdmissionPolicyBinding(
  doc: unknown,
  opts: PrepareOptions = {},
): PrepareResult<MutatingAdmissionPolicyBinding, ValidMutatingAdmissionPolicyBinding> {
  return finish<MutatingAdmissionPolicyBinding, ValidMutatingAdmissionPolicyBinding>(
    decodeMutatingAdmissionPolicyBinding(doc, opts.source),
    `${BINDING_KIND}.${GROUP}`,
    defaultMutatingAdmissionPolicyBinding,
    validateMutatingAdmissionPolicyBinding,
    opts.source,
  );
}
