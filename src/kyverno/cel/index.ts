/**
 * Kyverno's CEL libraries (kyverno v1.19.0 with kyverno/sdk
 * `extensions/cel/libs/*`) and its MutatingPolicy environment, on celmap's engine.
 *
 *     const k = kyvernoEnv({ resource: new OfflineResourceProvider({ objects, hint: "give it with --cluster-resources" }) });
 *     const program = k.env.program(k.env.compile(`resource.Get("v1", "configmaps", "default", "x")`));
 *     program.eval(k.activation({ object, oldObject, request, namespaceObject }));
 *
 * Libraries that read the outside world take providers — `ResourceProvider`,
 * `HttpProvider`, `GlobalContextProvider`, `ImageDataProvider` — which are
 * synchronous; `providers.ts` has offline implementations fed from in-memory
 * data and explains how webhook mode backs them (synchronous caches, or
 * evaluate / prefetch on `DataPendingError` / re-evaluate).
 *
 * Known deviations from Kyverno (each documented where it lives):
 * - Offline providers follow the live API where Kyverno's CLI fake differs
 *   (List over all namespaces for "", label selectors applied, sorted items,
 *   `ToGVR` answered; `Get`/`List` of a kind absent from the data is an error
 *   naming the call unless `missing: "null"`); HTTP is never fetched offline.
 * - `gzip.compress` writes stored deflate blocks (valid gzip, not Go's bytes).
 * - `random()` draws `.` and negated classes from printable ASCII.
 * - `x509.decode` does not parse name constraints; a request's `Attributes` is `[]`.
 * - `yaml.parse` needs a parser from the caller (none in `src/cel`).
 * - The environment lacks `ext.Protos` (no protobuf messages); Kyverno's `orValue`
 *   compatibility macro is reproduced as a `dyn` overload (see `environment.ts`).
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
