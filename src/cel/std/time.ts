/** Placeholder: filled by the standard-library work. */
import type { FunctionDecl } from "../decls.js";

export const TIME_FUNCTIONS: readonly FunctionDecl[] = [];
