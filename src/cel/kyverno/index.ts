/**
 * Kyverno's CEL libraries (kyverno v1.19.0 with kyverno/sdk
 * `extensions/cel/libs/*`) and its MutatingPolicy environment, on celmap's engine.
 * Libraries that read the outside world take providers (`providers.ts` has
 * offline implementations fed from in-memory data and explains webhook mode).
 */
export * from "./common.js";
export * from "./resource.js";
export * from "./http.js";
export * from "./globalcontext.js";
export * from "./imagedata.js";
export * from "./image.js";
export * from "./json.js";
export * from "./yaml.js";
export * from "./hash.js";
export * from "./math.js";
export * from "./random.js";
export * from "./time.js";
export * from "./transform.js";
export * from "./gzip.js";
export * from "./user.js";
export * from "./x509.js";
export * from "./regex.js";
export * from "./providers.js";
export * from "./environment.js";
