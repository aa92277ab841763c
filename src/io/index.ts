/** Edge: reading YAML/JSON documents from files, with their sources. */
export {
  formatLoadError,
  listInputFiles,
  loadFile,
  loadPaths,
  parseDocuments,
  toJsonNumbers,
  type LoadError,
  type LoadOptions,
  type LoadResult,
  type LoadedDocument,
  type NumberMode,
} from "./load.js";
