/**
 * The `policyCreation` cases of the MAP oracle file: policies a real kube-apiserver v1.36.2
 * rejected at creation (HTTP 422). The full message is in each case's `notes`
 * (`... full message: <message>`); we must produce it byte for byte.
 *
 * These rejections come from CEL compilation, which is not this module's job: a stand-in
 * compiler returns the detail cel-go gives for each expression (the table below), and this
 * test checks everything around it: the field path, the bad value (the trimmed expression,
 * Go-quoted), the single-error aggregate form and the policy name.
 *
 * (Test-only: reads the shared YAML with node:fs and yaml; the policy module itself stays pure.)
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { prepareMutatingAdmissionPolicy } from "./prepare.js";
import type { CompileExpression, ExpressionIssue } from "./validate.js";

const ORACLE = fileURLToPath(new URL("../../conformance/data/map-oracle-cases.yaml", import.meta.url));

interface OracleCase {
  name: string;
  policy: {
    paramKind?: unknown;
    matchConstraints?: unknown;
    variables?: unknown;
    matchConditions?: unknown;
    mutations: { patchType: string; expression: string }[];
    failurePolicy?: string;
    reinvocationPolicy?: string;
  };
  bindings?: { name: string; policyName: string }[];
  expect: { error?: string; errorClass?: string };
  notes?: string;
}

/** cel-go's display form of one error: message, the source line, a caret under the column. */
function celError(expr: string, column: number, message: string): string {
  return `ERROR: <input>:1:${column}: ${message}\n | ${expr}\n | ${".".repeat(column - 1)}^`;
}

const HETERO =
  '[JSONPatch{op: "add", path: "/spec/ports/-", value: {"name": "metrics", "port": 9090, "protocol": "TCP", "targetPort": 9090}}]';

/** What cel-go answers for each rejected expression (as the CEL environment will). */
const CEL_ANSWERS: Record<string, ExpressionIssue[]> = {
  "oracle-ac-not-object-at-policy-create": [{ type: "Invalid", detail: "must evaluate to Object but got string" }],
  "oracle-jp-heterogeneous-map-literal": [
    {
      type: "Invalid",
      detail:
        "compilation failed: " +
        celError(HETERO, 81, "expected type 'string' but found 'int'") +
        "\n" +
        celError(HETERO, 120, "expected type 'string' but found 'int'"),
    },
  ],
};

/** The case's policy as the full object the harness created (admissionregistration.k8s.io/v1). */
function policyObject(c: OracleCase): unknown {
  const { mutations, ...rest } = c.policy;
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name: c.bindings?.[0]?.policyName ?? c.name.replace(/^oracle-/, "oc-") },
    spec: {
      ...rest,
      mutations: mutations.map((m) =>
        m.patchType === "JSONPatch"
          ? { patchType: m.patchType, jsonPatch: { expression: m.expression } }
          : { patchType: m.patchType, applyConfiguration: { expression: m.expression } },
      ),
    },
  };
}

const cases = (parse(readFileSync(ORACLE, "utf8")) as { cases: OracleCase[] }).cases.filter(
  (c) => c.expect.errorClass === "policyCreation",
);

describe("oracle: policies rejected at creation", () => {
  it("the table covers exactly the policyCreation cases of the oracle file", () => {
    expect(cases.map((c) => c.name).sort()).toEqual(Object.keys(CEL_ANSWERS).sort());
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s", (name, c) => {
    const full = /full message: ([\s\S]*)$/.exec(c.notes ?? "")?.[1];
    expect(full, "notes carry the full message").toBeDefined();
    const compileExpression: CompileExpression = (req) =>
      req.kind.startsWith("mutation-") ? (CEL_ANSWERS[name] ?? []) : [];
    const r = prepareMutatingAdmissionPolicy(policyObject(c), { compileExpression });
    expect(r.ok).toBe(false);
    if (r.ok || r.stage !== "validate") throw new Error(`expected a validation failure, got ${JSON.stringify(r)}`);
    expect(r.message).toBe(full);
    expect(r.message).toContain(c.expect.error!);
  });
});
