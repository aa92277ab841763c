/** JSON Patch mutations with the semantics kube-apiserver applies them with. */
export {
  applyJsonPatch,
  DEFAULT_COPY_SIZE_LIMIT,
  goJsonSize,
  jsonPatchErrorMessage,
  type JsonPatchOperation,
  type JsonPatchOptions,
  type JsonPatchResult,
} from "./json-patch.js";
