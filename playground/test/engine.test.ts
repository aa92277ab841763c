/**
 * playground/src/engine.ts in Node (the same code the worker runs): where errors are placed in the
 * editors, and that an evaluation matches what the CLI's session pipeline gives.
 */
import { describe, expect, it } from "vitest";
import { evaluatePlayground, type EvalInput } from "../src/engine.js";

const POD = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
`;

function policy(expressionField: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: p
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
${expressionField}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: p
spec:
  policyName: p
`;
}

function run(policies: string): ReturnType<typeof evaluatePlayground> {
  const input: EvalInput = { policies, namespaces: "", resources: POD, operation: "CREATE", username: "", groups: "", oldObject: "" };
  return evaluatePlayground(input);
}

function lineOf(text: string, needle: string): number {
  return text.split("\n").findIndex((l) => l.includes(needle)) + 1;
}

describe("CEL errors placed at their editor line", () => {
  it("inline expression: the key's line", () => {
    const text = policy(`        expression: "Object{metadata: Object.metadata{labels: {'a': nope}}}"`);
    const r = run(text);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ editor: "policies", line: lineOf(text, "nope") });
    expect(r.problems[0]!.message).toContain("undeclared reference to 'nope'");
  });

  it("literal block: the expression's own line", () => {
    const text = policy(`        expression: |
          Object{
            metadata: Object.metadata{
              labels: {'a': nope}
            }
          }`);
    expect(run(text).problems[0]).toMatchObject({ editor: "policies", line: lineOf(text, "nope") });
  });

  it("folded block: the line holding the error, whether YAML joined the lines or kept them", () => {
    const joined = policy(`        expression: >
          Object{metadata: Object.metadata{
          labels: {'a': 'b',
          'c': nope}}}`);
    expect(run(joined).problems[0]).toMatchObject({ editor: "policies", line: lineOf(joined, "nope") });
    const kept = policy(`        expression: >
          Object{
            metadata: Object.metadata{
              labels: {'a': nope}
            }
          }`);
    expect(run(kept).problems[0]).toMatchObject({ editor: "policies", line: lineOf(kept, "nope") });
  });

  it("a field error without CEL: the field's line, in policies and in resources", () => {
    const text = policy(`        expression: "Object{}"`).replace("reinvocationPolicy: Never", "reinvocationPolicy: Sometimes");
    const r = run(text);
    expect(r.problems[0]).toMatchObject({ editor: "policies", line: lineOf(text, "Sometimes") });
    expect(r.problems[0]!.message).toContain('spec.reinvocationPolicy: Unsupported value: "Sometimes"');
    const bad = evaluatePlayground({ policies: "", namespaces: "", resources: `${POD}---\napiVersion: v1\nkind: Poddd\nmetadata: {name: x}\n`, operation: "CREATE", username: "", groups: "", oldObject: "" });
    expect(bad.problems[0]).toMatchObject({ editor: "resources", line: 8 }); // its kind: line
    expect(bad.problems[0]!.message).toContain("resources#1: kind: unknown kind");
  });

  it("YAML syntax errors: the parser's line", () => {
    const r = run("apiVersion: v1\nkind: [\n");
    expect(r.problems[0]).toMatchObject({ editor: "policies" });
    expect(r.problems[0]!.line).toBeGreaterThan(1);
  });
});

describe("validation after admission, as celmap eval", () => {
  it("an admitted object the apiserver would not store is shown as its 422 Invalid", () => {
    const text = policy(`        expression: 'Object{spec: Object.spec{containers: [Object.spec.containers{name: "c", image: ""}]}}'`);
    const r = run(text);
    expect(r.problems).toEqual([]);
    const res = r.results[0]!;
    expect(res.allowed).toBe(false);
    expect(res.admittedYaml).toBe("");
    expect(res.status).toBe('Error from server (Invalid): Pod "p" is invalid: spec.containers[0].image: Required value');
    expect(res.trace).toContain("validation: rejected (422 Invalid)");
    expect(JSON.parse(res.json)).toMatchObject({ allowed: false, stage: "validation", object: null, patch: null, status: { code: 422, reason: "Invalid" } });
  });
});
