/** The cluster's custom resource types from /openapi/v3: moved to src/cluster (shared with `celmap eval --kubeconfig` and `celmap audit`). */
export * from "../cluster/openapi.js";
