/**
 * The ledger of `celmap-map` cases (conformance/cases/map/*.yaml) that fail today. Every entry is a
 * case whose source-derived expectation celmap does not meet: the expectation stays as the
 * Kubernetes source says, the reason cites the source. Paths are `<file>/<section>/<case name>`.
 */
import type { KnownFailure } from "../../suite.js";

const ZERO_STRUCTS =
  "celmap's JSON form of a typed object omits empty non-pointer structs, so JSON Patch paths under them are 'missing'. " +
  "Kubernetes: AS v0.36.3 patch/json_patch.go applies the patch to runtime.Encode(jsonSerializer, VersionedObject), the typed Go struct; " +
  "encoding/json's omitempty never omits struct values, so Container.Resources (ResourceRequirements, json:\"resources,omitempty\", k8s.io/api v0.36.3 core/v1/types.go) " +
  "and DeploymentSpec.Strategy (DeploymentStrategy, json:\"strategy,omitempty\", apps/v1/types.go) are encoded as {} when empty " +
  "(as ObjectMeta is: json_patch_test.go 'jsonPatch replace map value of unset field' relies on /metadata existing on a Deployment without metadata). " +
  "shared/spec/map.md 4.3 and 9.1 state the same rule (zero-valued structs present)";

export const CELMAP_MAP_KNOWN_FAILURES: readonly KnownFailure[] = [
  { path: "jsonpatch-quirks/plugin/jp-add-under-zero-valued-struct-resources", reason: `${ZERO_STRUCTS}; celmap answers 'add operation does not apply: doc is missing path'` },
  { path: "jsonpatch-quirks/plugin/jp-remove-zero-valued-struct-succeeds", reason: `${ZERO_STRUCTS}; celmap answers 'Unable to remove nonexistent key: resources'` },
  { path: "jsonpatch-quirks/plugin/jp-add-under-zero-valued-deployment-strategy", reason: `${ZERO_STRUCTS}; celmap answers 'add operation does not apply: doc is missing path'` },
  {
    path: "jsonpatch-quirks/plugin/jp-empty-labels-map-is-omitted-from-patched-json",
    reason:
      "celmap keeps an empty labels map in the JSON the patch applies to, so add /metadata/labels/x succeeds. Kubernetes: AS v0.36.3 patch/json_patch.go " +
      "patches runtime.Encode(jsonSerializer, VersionedObject) of the typed ConfigMap; encoding/json omitempty omits an empty (or nil) map " +
      "(ObjectMeta.Labels json:\"labels,omitempty\"), so /metadata/labels does not exist and evanphx json-patch v4 Patch.add answers " +
      "'add operation does not apply: doc is missing path: \"/metadata/labels/x\"' (findObject returns nil for a missing parent)",
  },
  // apiserver-generated.yaml: what a real kube-apiserver v1.36.3 answered (e2e/gen-map-cases.ts).
  {
    path: "apiserver-generated/apiserver/ag-jp-remove-label",
    reason:
      "removing the only label leaves labels: {} in celmap's result; the apiserver decodes the patched JSON into the typed Pod and encodes it again, " +
      "and ObjectMeta.Labels (json:\"labels,omitempty\") omits the empty map, so the stored object has no labels key",
  },
  // apiserver-validation.yaml: generated validation cases a real kube-apiserver v1.36.3 answered (e2e/validation-run.ts);
  // the same one is e2e/validation-compare.ts KNOWN_DIFFERENCES (two more, on CRD pruning, were fixed: the engine prunes
  // a custom resource as storage does, not after each mutation).
  {
    path: "apiserver-validation/apiserver/apival/Pod/update/port-changed",
    reason: "ValidatePodUpdate (k8s.io/kubernetes v1.36.3 pkg/apis/core/validation/validation.go) appends a go-cmp diff of the internal PodSpec to the Forbidden message; celmap gives the sentence without the diff",
  },
];
