/** The Kubernetes CEL environments: what each one accepts, its variables and their types. */
import { describe, expect, it } from "vitest";
import { DYN, INT, STRING, listType } from "../cel/types.js";
import { fromJson } from "../cel/runtime/json.js";
import type { CelValue } from "../cel/values.js";
import { authorizerValue } from "../cel/k8s/authz.js";
import {
  APPLY_CONFIGURATION_TYPE,
  JSON_PATCH_LIST_TYPE,
  LazyVariables,
  compileExpression,
  compileVariables,
  kubernetesBaseEnv,
  kubernetesEnv,
  type KubernetesEnvKind,
} from "./environment.js";
import { outcome } from "../cel/k8s/test-harness.js";

const ALL: readonly KubernetesEnvKind[] = ["base", "mutation", "variables", "match"];

/** Whether `expr` compiles in an environment of each kind (params declared). */
function compiles(expr: string): Record<KubernetesEnvKind, boolean> {
  const out = {} as Record<KubernetesEnvKind, boolean>;
  for (const kind of ALL) {
    const r = compileExpression(kubernetesEnv({ kind, hasParams: true, variables: ["v"] }), expr);
    out[kind] = r.ok;
  }
  return out;
}

const yes = { base: true, mutation: true, variables: true, match: true };
const no = { base: false, mutation: false, variables: false, match: false };
const admissionOnly = { base: false, mutation: true, variables: true, match: true };
const mutationOnly = { base: false, mutation: true, variables: false, match: false };
const withVariables = { base: false, mutation: true, variables: true, match: false };

describe("what each environment declares", () => {
  it.each<[string, Record<KubernetesEnvKind, boolean>]>([
    // Not in Kubernetes 1.36: compile errors everywhere.
    ["cel.bind(x, 1, x + 1)", no],
    ["math.greatest(1, 2)", no],
    ["math.abs(-1)", no],
    ["base64.encode(b'a')", no],
    ["'abc'.reverse()", no],
    ["strings.quote('a') == '\"a\"' && 'a'.format([]) == 'a'", yes], // strings v2 has quote and format
    ["type(quantity('1')) == kubernetes.Quantity", no], // Quantity is not a registered type
    // Library functions and macros of the base environment.
    ["url('https://x.io/p').getHost() == 'x.io'", yes],
    ["'abc'.find('b') == 'b'", yes],
    ["[1, 2].isSorted() && [1, 2].sum() == 3", yes],
    ["quantity('1Gi').isGreaterThan(quantity('1Mi'))", yes],
    ["'a,b'.split(',').size() == 2 && 'A'.lowerAscii() == 'a'", yes],
    ["sets.contains([1, 2], [1])", yes],
    ["ip('10.0.0.1').family() == 4 && cidr('10.0.0.0/8').containsIP('10.0.0.1')", yes],
    ["type(ip('1.2.3.4')) == net.IP && type(cidr('1.0.0.0/8')) == net.CIDR", yes],
    ["format.dns1123Label().validate('a').hasValue() == false", yes],
    ["{'a': 1}.all(k, v, v > 0) && [1].transformList(i, v, v * 2) == [2]", yes],
    ["semver('1.2.3').major() == 1 && isSemver('v1.2', true)", yes],
    ["lists.range(3) == [0, 1, 2] && [2, 1].sortBy(x, x) == [1, 2] && [[1]].flatten() == [1]", yes],
    ["optional.of(1).optMap(x, x + 1).value() == 2 && [1].first().hasValue() && [1, 2].last() == optional.of(2)", yes],
    ["[optional.of(1), optional.none()].unwrapOpt() == [1] && optional.unwrap([optional.of(1)]) == [1]", yes],
    ["{'a': 1}.?a.orValue(0) == 1", yes],
    ["duration('1s') < duration('2s') && 1 < 2.0", yes],
    // Admission variables.
    ["object.metadata.name", admissionOnly],
    ["oldObject == null", admissionOnly],
    ["request.operation == 'CREATE' && request.userInfo.groups.size() >= 0", admissionOnly],
    ["namespaceObject.metadata.UID", admissionOnly],
    ["authorizer.group('apps').resource('deployments').check('get').allowed()", admissionOnly],
    ["authorizer.requestResource.check('get').allowed()", admissionOnly],
    ["params.data", admissionOnly],
    ["variables.v", withVariables],
    // Mutation environment only.
    ["Object{}", mutationOnly],
    ["[JSONPatch{op: 'add', path: '/x', value: 1}]", mutationOnly],
    ["jsonpatch.escapeKey('a/b')", mutationOnly],
  ])("%s", (expr, want) => {
    expect(compiles(expr)).toEqual(want);
  });

  it("params only with a paramKind", () => {
    expect(compileExpression(kubernetesEnv({ kind: "mutation" }), "params").ok).toBe(false);
    expect(compileExpression(kubernetesEnv({ kind: "match" }), "params == null").ok).toBe(false);
    expect(compileExpression(kubernetesEnv({ kind: "match", hasParams: true }), "params == null").ok).toBe(true);
  });

  it("rejects literals the base environment validates", () => {
    const env = kubernetesBaseEnv();
    expect(outcome(env, "[1, 'a']")).toMatchObject({ compileError: expect.stringContaining("expected type 'int' but found 'string'") });
    expect(outcome(env, "duration('1x')")).toMatchObject({ compileError: expect.stringContaining("invalid duration argument") });
    expect(outcome(env, "'a'.matches('[')")).toMatchObject({ compileError: expect.stringContaining("invalid matches argument") });
  });

  it("types declared fields: unknown request fields and variables are compile errors", () => {
    const env = kubernetesEnv({ kind: "mutation", variables: [{ name: "n", type: INT }] });
    expect(outcome(env, "request.uid")).toEqual({ compileError: "undefined field 'uid'" });
    expect(outcome(env, "variables.m")).toEqual({ compileError: "undefined field 'm'" });
    expect(outcome(env, "variables.n + 'a'")).toMatchObject({ compileError: expect.stringContaining("found no matching overload for '_+_' applied to '(int, string)'") });
    expect(env.compile("request.kind").type.toString()).toBe("kubernetes.GroupVersionKind");
    expect(env.compile("request.userInfo.extra").type.toString()).toBe("map(string, list(string))");
    expect(env.compile("namespaceObject.metadata.creationTimestamp").type.toString()).toBe("google.protobuf.Timestamp");
  });
});

describe("output types (compile.go)", () => {
  const env = kubernetesEnv();
  it.each<[string, string | undefined]>([
    ["Object{}", undefined],
    ["Object{metadata: Object.metadata{labels: {'a': 'b'}}}", undefined],
    ["'x'", "must evaluate to Object but got string"],
    ["Object.spec.metadata{}", "must evaluate to Object but got Object.spec.metadata"],
    ["object", "must evaluate to Object but got dyn"],
  ])("ApplyConfiguration %s", (expr, want) => {
    const r = compileExpression(env, expr, APPLY_CONFIGURATION_TYPE);
    expect(r.ok ? undefined : r.detail).toBe(want);
  });
  it.each<[string, string | undefined]>([
    ["[JSONPatch{op: 'remove', path: '/x'}]", undefined],
    ["[]", "must evaluate to list(JSONPatch) but got list(dyn)"],
    ["JSONPatch{}", "must evaluate to list(JSONPatch) but got JSONPatch"],
  ])("JSONPatch %s", (expr, want) => {
    const r = compileExpression(env, expr, JSON_PATCH_LIST_TYPE);
    expect(r.ok ? undefined : r.detail).toBe(want);
  });
  it("a compile error reads as the apiserver's detail", () => {
    const r = compileExpression(env, "nope", APPLY_CONFIGURATION_TYPE);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.detail).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope\n | ^");
  });
});

describe("composited variables", () => {
  const object = fromJson({ metadata: { name: "web", labels: { app: "a" } } });

  it("compile in order: a variable sees only those before it, typed by their output", () => {
    const vs = compileVariables([
      { name: "name", expression: "object.metadata.name" },
      { name: "n", expression: "size(variables.name) + 1" },
      { name: "bad", expression: "variables.later" },
      { name: "later", expression: "1" },
      { name: "s", expression: "'x'" },
    ]);
    expect(vs.map((v) => [v.name, v.ok, v.type.toString()])).toEqual([
      ["name", true, "dyn"],
      ["n", true, "int"],
      ["bad", false, "dyn"],
      ["later", true, "int"],
      ["s", true, "string"],
    ]);
    const env = kubernetesEnv({ variables: vs });
    expect(env.compile("variables.s").type).toBe(STRING);
    expect(env.compile("variables.bad").type).toBe(DYN);
  });

  it("evaluate lazily, at most once per activation, with the expression's bindings", () => {
    const vs = compileVariables([
      { name: "name", expression: "object.metadata.name" },
      { name: "twice", expression: "[variables.name, variables.name]" },
      { name: "boom", expression: "object.missing" },
      { name: "bad", expression: "variables.nope" },
    ]);
    const env = kubernetesEnv({ variables: vs });
    const lazy = new LazyVariables(vs, { object });
    const run = (expr: string) => outcome(env, expr, lazy.bindings as never);
    expect(run("variables.twice")).toEqual({ value: ["web", "web"] });
    expect(run("has(variables.name)")).toEqual({ value: true });
    expect(run("variables.boom")).toEqual({ evalError: 'composited variable "boom" fails to evaluate: no such key: missing' });
    expect(run("variables.bad")).toMatchObject({ evalError: expect.stringMatching(/^composited variable "bad" fails to compile: compilation failed: ERROR: <input>:1:10: undefined field 'nope'/) });
    expect(run("true || variables.boom")).toEqual({ value: true });
    // Memoised: the program of `name` ran once although read three times.
    let calls = 0;
    const counting = [{ ...vs[0]!, program: { eval: (a: never) => (calls++, (vs[0] as { program: { eval: (a: never) => CelValue } }).program.eval(a)) } }] as never;
    const lazy2 = new LazyVariables(counting, { object });
    const env2 = kubernetesEnv({ variables: ["name"] });
    expect(outcome(env2, "variables.name + variables.name + variables.name", lazy2.bindings as never)).toEqual({ value: "webwebweb" });
    expect(calls).toBe(1);
  });
});

describe("equality of Kubernetes types is decided by the left operand (cel-go)", () => {
  const env = kubernetesEnv();
  const authorizer = authorizerValue(undefined);
  it.each<[string, object]>([
    ["authorizer == authorizer", { evalError: "no such overload" }],
    ["[authorizer] == [authorizer]", { value: true }],
    ["dyn(ip('1.2.3.4')) == '1.2.3.4'", { evalError: "no such overload" }],
    ["'1.2.3.4' == dyn(ip('1.2.3.4'))", { value: false }],
    ["dyn(ip('1.2.3.4')) == 1", { evalError: "no such overload" }],
    ["1 == dyn(ip('1.2.3.4'))", { value: false }],
    ["dyn(ip('1.2.3.4')) != null", { value: true }],
    ["ip('1.2.3.4') == ip('1.2.3.4')", { value: true }],
    ["dyn(cidr('1.0.0.0/8')) == dyn(ip('1.0.0.0'))", { evalError: "no such overload" }],
    ["dyn(quantity('1')) == 1", { evalError: "no such overload" }],
    ["dyn(semver('1.0.0')) == '1.0.0'", { evalError: "no such overload" }],
    ["dyn(url('https://a')) == 'https://a'", { evalError: "no such overload" }],
    ["[dyn(ip('1.2.3.4'))] == ['1.2.3.4']", { value: true }], // element error counts as equal in cel-go
    ["[dyn(ip('1.2.3.4'))] == [ip('1.2.3.5')]", { value: false }],
    ["Object{} == Object{}", { value: true }],
    // Membership (`in`, sets.*, distinct) asks `Equal` and takes an error as "not this one".
    ["dyn(ip('1.2.3.4')) in ['1.2.3.4']", { value: false }],
    ["authorizer in [authorizer]", { value: false }],
    ["sets.contains([dyn(ip('1.2.3.4'))], [dyn(ip('1.2.3.4'))]) && !sets.intersects([dyn(ip('1.2.3.4'))], ['x'])", { value: true }],
    ["[dyn(ip('1.2.3.4')), dyn('x'), dyn(ip('1.2.3.4'))].distinct().size()", { value: 2n }],
    ["Object{a: 1} == Object{a: 1} && Object{a: 1} != Object{a: 2}", { value: true }],
    ["dyn(Object{}) == dyn(Object.a{})", { value: false }],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr, { authorizer })).toEqual(want);
  });
});

describe("JSONPatch typing in the mutation environment", () => {
  const env = kubernetesEnv();
  it("checks the string fields at compile time", () => {
    expect(outcome(env, "JSONPatch{op: 1}")).toEqual({ compileError: "expected type of field 'op' is 'string' but provided type is 'int'" });
    expect(outcome(env, "JSONPatch{bogus: 'x'}")).toEqual({ compileError: "undefined field 'bogus'" });
    expect(env.compile("[JSONPatch{op: 'add', path: '/a', value: object.x}]").type).toEqual(listType(env.compile("JSONPatch{}").type));
  });
});

describe("run-time cost in the base environment includes Kubernetes' string costs (library/cost.go)", () => {
  // [expression, actual cost from k8s.io/apiserver pkg/cel/library/cost_test.go]
  it.each<[string, number]>([
    ["'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3],
    ["'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 9],
    ["'abc 123 def 123'.replace('123', '456')", 3],
  ])("%s costs %d", (src, want) => {
    const env = kubernetesBaseEnv();
    const program = env.program(env.compile(src));
    expect(program.evalWithCost({}, { costLimit: 1_000_000 }).cost).toBe(want);
  });
});
