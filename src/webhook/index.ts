/**
 * celmap as a mutating admission webhook: the HTTPS server (server.ts), AdmissionReview v1
 * handling (review.ts), policy sources and the atomically swapped policy set (policies.ts), TLS
 * material with hot reload and protocol settings (tls.ts), the plain-HTTP probe and metrics ports
 * (probes.ts), metrics (metrics.ts) and the process runner with `--workers` (run.ts).
 */
export { WebhookServer, defaultLogger, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT, DEFAULT_TIMEOUT_MS, type ListeningAddress, type WebhookServerOptions } from "./server.js";
export { decodeReview, handleReview, jsonText, EXEMPT_RESOURCES, REVIEW_API_VERSION, REVIEW_KIND, type FailurePolicy, type PolicyCheck, type ReviewEnv, type ReviewReply, type ReviewSettings } from "./review.js";
export {
  FilePolicySource,
  PolicyStore,
  contentFromDocuments,
  readPaths,
  readPathsSettled,
  isEmptyUpdate,
  type FileSourceOptions,
  type PolicyContent,
  type PolicySnapshot,
  type PolicySource,
  type SourceUpdate,
  type StoreEvent,
} from "./policies.js";
export { readTlsMaterial, watchTlsFiles, protocolOptions, cipherList, DEFAULT_CIPHER_SUITES, MIN_TLS_VERSION, type TlsFiles, type TlsMaterial } from "./tls.js";
export { startProbes, parseAddress, type ProbeHandlers, type ProbeAddress } from "./probes.js";
export { NoPolicySetError } from "./server.js";
export { WebhookMetrics, policyErrorType, POLICY_CHECK_BUCKETS, REQUEST_BUCKETS, type PolicyErrorType, type RequestOutcome } from "./metrics.js";
export { runWebhook, type WebhookRunConfig } from "./run.js";
export { ClusterPolicySource, MAP_RESOURCES, type ClusterSourceOptions, type WatchedResource } from "./cluster.js";
