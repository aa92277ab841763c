import { describe, expect, it } from "vitest";
import { errorString, invalid } from "../diag/field-error.js";
import { prepareMutatingAdmissionPolicy } from "./prepare.js";
import type { MutatingAdmissionPolicy } from "./schemas/map.js";
import { validateMutatingAdmissionPolicyUpdate } from "./validate.js";
import type { CompileExpression, CompileExpressionRequest, ExpressionIssue } from "./validate.js";

const policy = () => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingAdmissionPolicy",
  metadata: { name: "p" },
  spec: {
    paramKind: { apiVersion: "v1", kind: "ConfigMap" },
    matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] },
    matchConditions: [{ name: "is-web", expression: "  object.metadata.name == 'web'  " }],
    variables: [
      { name: "a", expression: " 1 " },
      { name: "b", expression: "variables.a + 1" },
    ],
    mutations: [
      { patchType: "ApplyConfiguration", applyConfiguration: { expression: "\n Object{} \n" } },
      { patchType: "JSONPatch", jsonPatch: { expression: "[]" } },
    ],
    reinvocationPolicy: "Never",
  },
});

/** A fake compiler: records requests, answers from a table keyed by expression text. */
function fake(answers: Record<string, ExpressionIssue[]> = {}) {
  const seen: CompileExpressionRequest[] = [];
  const compile: CompileExpression = (req) => {
    seen.push(req);
    return answers[req.expression] ?? [];
  };
  return { seen, compile };
}

describe("CEL compile hook", () => {
  it("is called for every expression with the apiserver's environment settings", () => {
    const f = fake();
    const r = prepareMutatingAdmissionPolicy(policy(), { compileExpression: f.compile });
    expect(r.ok).toBe(true);
    expect(
      f.seen.map((s) => ({
        kind: s.kind,
        expression: s.expression,
        path: s.path.toString(),
        params: s.hasParams,
        authorizer: s.hasAuthorizer,
        patchTypes: s.hasPatchTypes,
        variables: s.variables.map((v) => v.name),
      })),
    ).toEqual([
      // match conditions: trimmed, stateless (no variables)
      { kind: "matchCondition", expression: "object.metadata.name == 'web'", path: "spec.matchConditions[0].expression", params: true, authorizer: true, patchTypes: false, variables: [] },
      // variables: as written, each sees the earlier ones
      { kind: "variable", expression: " 1 ", path: "spec.variables[0].expression", params: true, authorizer: true, patchTypes: false, variables: [] },
      { kind: "variable", expression: "variables.a + 1", path: "spec.variables[1].expression", params: true, authorizer: true, patchTypes: false, variables: ["a"] },
      // mutations: trimmed, patch types, all variables
      { kind: "mutation-apply", expression: "Object{}", path: "spec.mutations[0].applyConfiguration.expression", params: true, authorizer: true, patchTypes: true, variables: ["a", "b"] },
      { kind: "mutation-jsonpatch", expression: "[]", path: "spec.mutations[1].jsonPatch.expression", params: true, authorizer: true, patchTypes: true, variables: ["a", "b"] },
    ]);
    expect(f.seen.every((s) => s.envType === "NewExpressions")).toBe(true);
    expect(f.seen[0]!.paramKind).toEqual({ apiVersion: "v1", kind: "ConfigMap" });
    expect(f.seen[1]!.variableName).toBe("a");
  });

  it("declares no params without a paramKind", () => {
    const f = fake();
    const p = policy();
    delete (p.spec as Partial<typeof p.spec>).paramKind;
    prepareMutatingAdmissionPolicy(p, { compileExpression: f.compile });
    expect(f.seen.every((s) => !s.hasParams && s.paramKind === undefined)).toBe(true);
  });

  it("places errors at the expression's path with the (trimmed) expression as bad value", () => {
    const f = fake({
      "Object{}": [{ type: "Invalid", detail: "must evaluate to Object but got string" }],
      "object.metadata.name == 'web'": [{ type: "Required", detail: "no expression" }],
      "variables.a + 1": [{ type: "Internal", detail: "boom" }],
    });
    const r = prepareMutatingAdmissionPolicy(policy(), { compileExpression: f.compile });
    expect(!r.ok && r.stage === "validate" && r.errors.map(errorString)).toEqual([
      "spec.matchConditions[0].expression: Required value: no expression",
      "spec.variables[1].expression: Internal error: boom",
      'spec.mutations[0].applyConfiguration.expression: Invalid value: "Object{}": must evaluate to Object but got string',
    ]);
  });

  it("passes ready-made FieldErrors through", () => {
    const r = prepareMutatingAdmissionPolicy(policy(), {
      compileExpression: (req) => (req.kind === "mutation-jsonpatch" ? [invalid(req.path.parentPath, "x", "custom")] : []),
    });
    expect(!r.ok && r.stage === "validate" && r.errors.map(errorString)).toEqual(['spec.mutations[1].jsonPatch: Invalid value: "x": custom']);
  });

  it("turns a throwing hook into an internal error instead of throwing", () => {
    const r = prepareMutatingAdmissionPolicy(policy(), {
      compileExpression: () => {
        throw new Error("compiler crashed");
      },
    });
    expect(!r.ok && r.stage === "validate" && r.errors.length).toBe(5);
    expect(!r.ok && r.stage === "validate" && errorString(r.errors[0]!)).toBe(
      "spec.matchConditions[0].expression: Internal error: unsupported error type: compiler crashed",
    );
  });

  it("is not called for blank expressions (Required instead)", () => {
    const f = fake();
    const p = policy();
    p.spec.mutations[1] = { patchType: "JSONPatch", jsonPatch: { expression: "  " } };
    const r = prepareMutatingAdmissionPolicy(p, { compileExpression: f.compile });
    expect(f.seen.map((s) => s.path.toString())).not.toContain("spec.mutations[1].jsonPatch.expression");
    expect(!r.ok && r.stage === "validate" && r.errors.map(errorString)).toEqual(["spec.mutations[1].jsonPatch.expression: Required value"]);
  });
});

describe("update validation", () => {
  const prepared = (): MutatingAdmissionPolicy => {
    const r = prepareMutatingAdmissionPolicy(policy());
    if (!r.ok) throw new Error(r.message);
    return r.object;
  };

  it("skips unchanged matchConditions and compiles stored expressions in StoredExpressions", () => {
    const old = prepared();
    const next = structuredClone(old);
    next.spec!.mutations![1] = { patchType: "JSONPatch", jsonPatch: { expression: "[ ]" } };
    const f = fake();
    expect(validateMutatingAdmissionPolicyUpdate(next, old, { compileExpression: f.compile })).toEqual([]);
    expect(f.seen.map((s) => [s.path.toString(), s.envType])).toEqual([
      ["spec.variables[0].expression", "NewExpressions"],
      ["spec.variables[1].expression", "NewExpressions"],
      ["spec.mutations[0].applyConfiguration.expression", "StoredExpressions"],
      ["spec.mutations[1].jsonPatch.expression", "NewExpressions"],
    ]);
  });

  it("re-validates matchConditions when paramKind changes", () => {
    const old = prepared();
    const next = structuredClone(old);
    next.spec!.paramKind = { apiVersion: "v1", kind: "Secret" };
    const f = fake();
    validateMutatingAdmissionPolicyUpdate(next, old, { compileExpression: f.compile });
    // the trimmed text is looked up among the stored (untrimmed) expressions, so it is "new"
    expect(f.seen[0]!.kind).toBe("matchCondition");
    expect(f.seen[0]!.envType).toBe("NewExpressions");
  });
});
