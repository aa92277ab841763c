/** Placeholder: filled by the standard-library work. */
import type { FunctionDecl } from "../decls.js";

export const COLLECTION_FUNCTIONS: readonly FunctionDecl[] = [];
