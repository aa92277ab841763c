/**
 * The Kyverno dialect, one vertical folder; other folders import it only through this file.
 *
 * - `cel/`: Kyverno's CEL libraries (kyverno/sdk `extensions/cel/libs/*`) and its MutatingPolicy
 *   environment (`kyvernoEnv`), registered on celmap's engine (this folder imports `src/cel`,
 *   never the reverse), with offline providers and the scan the webhook uses to prefetch.
 * - `policy.ts`: MutatingPolicy / NamespacedMutatingPolicy / PolicyException models and decoding.
 * - `evaluate.ts`: evaluation on the admission pipeline, as a webhook stage, and mutateExisting.
 * - `autogen.ts`: pod-controller autogen on the syntax tree.
 *
 * The Kyverno → MutatingAdmissionPolicy translator lives in `src/translate/kyverno` and imports
 * from here; the `kyverno-test.yaml` runner is `celmap test` (`src/cli/commands/test.ts`), which
 * drives the engine (above this layer).
 */
export * from "./cel/index.js";
export * from "./cel/providers-scan.js";
export * from "./policy.js";
export * from "./evaluate.js";
export * from "./autogen.js";
