/**
 * Sorting a set of loaded documents into prepared policies and bindings, as if each had
 * been created on an apiserver in input order: every MAP and binding document is decoded,
 * defaulted and validated; rejected ones are reported with the apiserver's message; a
 * second object with a name already taken is rejected like a create conflict
 * (`mutatingadmissionpolicies.admissionregistration.k8s.io "p" already exists`).
 * Documents of other kinds are returned untouched.
 *
 * Pure: documents come in already parsed, with their {@link SourceRef}. Never throws.
 */
import type { DecodeIssue } from "../diag/decode-error.js";
import type { FieldError } from "../diag/field-error.js";
import type { SourceRef } from "../diag/source.js";
import { BINDING_KIND, MAP_KIND, isPolicyDocument } from "./decode.js";
import {
  prepareMutatingAdmissionPolicy,
  prepareMutatingAdmissionPolicyBinding,
  type PrepareOptions,
} from "./prepare.js";
import type { ApiVersionName } from "./schemas/common.js";
import type { ValidateOptions } from "./validate.js";
import type { ValidMutatingAdmissionPolicy, ValidMutatingAdmissionPolicyBinding } from "./valid-types.js";

export interface SourcedDocument {
  readonly value: unknown;
  readonly source?: SourceRef;
}

export interface Prepared<T> {
  readonly object: T;
  readonly version: ApiVersionName;
  readonly source?: SourceRef;
}

export interface PolicyFailure {
  readonly kind: typeof MAP_KIND | typeof BINDING_KIND;
  /** `decode` (400), `validate` (422) or `conflict` (409, name already taken). */
  readonly stage: "decode" | "validate" | "conflict";
  /** The apiserver's message. */
  readonly message: string;
  readonly errors: readonly FieldError[];
  readonly issues: readonly DecodeIssue[];
  readonly source?: SourceRef;
}

export interface PolicySet {
  readonly policies: Prepared<ValidMutatingAdmissionPolicy>[];
  readonly bindings: Prepared<ValidMutatingAdmissionPolicyBinding>[];
  readonly failures: PolicyFailure[];
  /** Documents that are not MAPs or bindings (objects, params, namespaces, ...). */
  readonly others: SourcedDocument[];
}

const RESOURCE = {
  [MAP_KIND]: "mutatingadmissionpolicies.admissionregistration.k8s.io",
  [BINDING_KIND]: "mutatingadmissionpolicybindings.admissionregistration.k8s.io",
} as const;

export function collectPolicies(docs: readonly SourcedDocument[], opts: ValidateOptions = {}): PolicySet {
  const set: PolicySet = { policies: [], bindings: [], failures: [], others: [] };
  const names = { [MAP_KIND]: new Set<string>(), [BINDING_KIND]: new Set<string>() };
  for (const doc of docs) {
    if (!isPolicyDocument(doc.value)) {
      set.others.push(doc);
      continue;
    }
    const kind = doc.value.kind;
    const popts: PrepareOptions = { ...opts, ...(doc.source !== undefined ? { source: doc.source } : {}) };
    const r = kind === MAP_KIND ? prepareMutatingAdmissionPolicy(doc.value, popts) : prepareMutatingAdmissionPolicyBinding(doc.value, popts);
    const src = doc.source !== undefined ? { source: doc.source } : {};
    if (!r.ok) {
      set.failures.push({
        kind,
        stage: r.stage,
        message: r.message,
        errors: r.stage === "validate" ? r.errors : [],
        issues: r.stage === "decode" ? r.issues : [],
        ...src,
      });
      continue;
    }
    const name = r.object.metadata?.name ?? "";
    if (names[kind].has(name)) {
      set.failures.push({
        kind,
        stage: "conflict",
        message: `${RESOURCE[kind]} ${JSON.stringify(name)} already exists`,
        errors: [],
        issues: [],
        ...src,
      });
      continue;
    }
    names[kind].add(name);
    if (kind === MAP_KIND) set.policies.push({ object: r.object as ValidMutatingAdmissionPolicy, version: r.version, ...src });
    else set.bindings.push({ object: r.object as ValidMutatingAdmissionPolicyBinding, version: r.version, ...src });
  }
  return set;
}
