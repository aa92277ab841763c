/**
 * Errors of the apiserver's *decoding* step, which runs before defaulting and validation
 * and answers 400 BadRequest rather than 422 Invalid:
 *
 *   MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy:
 *     strict decoding error: unknown field "spec.foo", unknown field "spec.mutations[0].bar"
 *
 * (`kubectl` sends `fieldValidation=Strict` by default.) A wrong JSON type stops decoding
 * at once and is reported alone, before any unknown field; see {@link decodeErrorMessage}.
 */
import { decoderPathString, type FieldPath } from "./field-path.js";
import type { SourceRef } from "./source.js";

export type DecodeIssue =
  /** A field the type does not have (strict decoding). */
  | { readonly kind: "unknownField"; readonly path: FieldPath; readonly source?: SourceRef }
  /**
   * A value of the wrong JSON type, in the words of Go's `json.UnmarshalTypeError`:
   * `got` is Go's description of the JSON value (`string`, `number`, `number 1.5`, `bool`,
   * `array`, `object`); `expected` the Go type (`[]v1.OperationType`); `goStruct`/`goField`
   * the struct being decoded and the field path from the root without indices or map keys
   * (`NamedRuleWithOperations`, `spec.matchConstraints.resourceRules.operations`).
   * `path` is the full path, for locating the value.
   */
  | {
      readonly kind: "wrongType";
      readonly path: FieldPath;
      readonly got: string;
      readonly expected: string;
      readonly goStruct?: string;
      readonly goField?: string;
      readonly source?: SourceRef;
    }
  /** The document is not an object of a known apiVersion/kind. */
  | { readonly kind: "unsupportedKind"; readonly message: string; readonly path?: FieldPath; readonly source?: SourceRef };

/** One issue in the words the apiserver's decoder uses. */
export function decodeIssueText(i: DecodeIssue): string {
  switch (i.kind) {
    case "unknownField":
      return `unknown field "${decoderPathString(i.path)}"`;
    case "wrongType":
      if (i.goStruct !== undefined || i.goField !== undefined) {
        return `json: cannot unmarshal ${i.got} into Go struct field ${i.goStruct ?? ""}.${i.goField ?? ""} of type ${i.expected}`;
      }
      return `json: cannot unmarshal ${i.got} into Go value of type ${i.expected}`;
    case "unsupportedKind":
      return i.message;
  }
}

/**
 * The whole message: `<Kind> in version "<v>" cannot be handled as a <Kind>: <reason>`.
 * A wrong type or unsupported kind is reported alone (the first one), as Go stops there;
 * otherwise all unknown fields are listed after `strict decoding error: `.
 */
export function decodeErrorMessage(kind: string, version: string, issues: readonly DecodeIssue[]): string {
  const head = `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: `;
  const fatal = issues.find((i) => i.kind !== "unknownField");
  if (fatal !== undefined) {
    return fatal.kind === "unsupportedKind" ? fatal.message : head + decodeIssueText(fatal);
  }
  return head + "strict decoding error: " + issues.map(decodeIssueText).join(", ");
}
