/**
 * End to end over `test/fixtures/policy/`: files loaded by `src/io`, policies prepared by
 * `src/policy`, diagnostics rendered by `src/diag` with file, document and line:column.
 * (An integration test: it imports io, which the policy module itself never does.)
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderFieldError } from "../diag/render.js";
import { loadPaths, type LoadedDocument } from "../io/load.js";
import { collectPolicies } from "./collect.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURES = ROOT + "test/fixtures/policy";
const rel = (s: string) => s.split(ROOT).join("");

describe("policy fixtures", () => {
  it("valid/: a policy and binding (YAML) and a List (JSON) with mixed versions", () => {
    const loaded = loadPaths(FIXTURES + "/valid");
    expect(loaded.errors).toEqual([]);
    const set = collectPolicies(loaded.documents);
    expect(set.failures).toEqual([]);
    expect(set.policies.map((p) => [p.object.metadata?.name, p.version, rel(p.source!.file), p.source!.docIndex, p.source!.itemIndex])).toEqual([
      ["add-team-label-v1beta1", "v1beta1", "test/fixtures/policy/valid/list.json", 0, 1],
      ["add-team-label", "v1", "test/fixtures/policy/valid/policy-and-binding.yaml", 0, undefined],
    ]);
    expect(set.bindings.map((b) => [b.object.metadata?.name, b.version])).toEqual([
      ["with-params", "v1alpha1"],
      ["add-team-label", "v1"],
    ]);
    // v1alpha1 binding: parameterNotFoundAction defaulted to Deny
    expect(set.bindings[0]!.object.spec?.paramRef?.parameterNotFoundAction).toBe("Deny");
    // defaults applied to the v1 policy and binding
    const p = set.policies[1]!.object;
    expect(p.spec?.failurePolicy).toBe("Fail");
    expect(p.spec?.matchConstraints?.matchPolicy).toBe("Equivalent");
    expect(p.spec?.matchConstraints?.resourceRules?.[0]?.scope).toBe("*");
    expect(set.bindings[1]!.object.spec?.matchResources?.objectSelector).toEqual({});
    expect(set.others.map((d) => (d.value as { kind: string }).kind)).toEqual(["ConfigMap"]);
  });

  it("invalid/: every error rendered with file, line:column and document index", () => {
    const loaded = loadPaths(FIXTURES + "/invalid");
    expect(loaded.errors).toEqual([]);
    const set = collectPolicies(loaded.documents);
    expect(set.policies).toEqual([]);
    expect(set.bindings).toEqual([]);
    const byDoc = (docIndex: number): LoadedDocument => loaded.documents.find((d) => d.source.docIndex === docIndex)!;
    const lines = set.failures.flatMap((f) =>
      f.stage === "validate"
        ? f.errors.map((e) => rel(renderFieldError(e, byDoc(e.source!.docIndex).locate(e.path))))
        : [`${rel(f.source!.file)}#${f.source!.docIndex}: ${f.message}`],
    );
    const F = "test/fixtures/policy/invalid/policies.yaml";
    expect(lines).toEqual([
      `${F}:7:3 (#0): spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"`,
      `${F}:9:5 (#0): spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`,
      `${F}:18:5 (#0): spec.mutations[1].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"`,
      `${F}:6:1 (#0): spec.reinvocationPolicy: Required value`,
      `${F}#1: MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: strict decoding error: unknown field "spec.mutation"`,
      `${F}:37:5 (#2): spec.paramRef.name: Forbidden: name and selector are mutually exclusive`,
      `${F}:38:5 (#2): spec.paramRef.selector: Forbidden: name and selector are mutually exclusive`,
      `${F}:36:3 (#2): spec.paramRef.parameterNotFoundAction: Required value`,
    ]);
    expect(set.failures[0]!.message).toMatch(/^MutatingAdmissionPolicy\.admissionregistration\.k8s\.io "broken" is invalid: \[/);
  });

  it("a second object with the same name is a create conflict", () => {
    const doc = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name: "b" },
      spec: { policyName: "p" },
    };
    const set = collectPolicies([{ value: doc }, { value: doc }]);
    expect(set.bindings.length).toBe(1);
    expect(set.failures.map((f) => [f.stage, f.message])).toEqual([
      ["conflict", 'mutatingadmissionpolicybindings.admissionregistration.k8s.io "b" already exists'],
    ]);
  });
});
