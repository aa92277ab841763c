/** celmap as a library. For now: the CEL engine's public surface (see src/cel/index.ts). */
export * from "./cel/index.js";
