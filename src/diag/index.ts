/** Diagnostics: field paths, apimachinery-style field errors, decoding errors, sources. */
export { FieldPath, decoderPathString, type PathSegment } from "./field-path.js";
export {
  ErrorType,
  JsonString,
  OMIT,
  aggregateMessage,
  duplicate,
  errorBody,
  errorString,
  errorTypeText,
  forbidden,
  internalError,
  invalid,
  invalidObjectMessage,
  named,
  notFound,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
  withSource,
  type BadValue,
  type FieldError,
} from "./field-error.js";
export { decodeErrorMessage, decodeIssueText, type DecodeIssue } from "./decode-error.js";
export { formatLocation, formatSourceRef, type Position, type SourceRef } from "./source.js";
export { renderDecodeIssue, renderFieldError } from "./render.js";
export { goFloatV, goJSON, goQuote } from "./go-format.js";
