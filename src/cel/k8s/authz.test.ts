/**
 * The authz libraries through the whole engine, with a fake authorizer that
 * records what it was asked. Cases and expected attributes follow
 * k8s.io/apiserver v0.36.3 `pkg/admission/plugin/cel/condition_test.go` (the
 * authorizer cases), the library's doc comments, and the selector parsers of
 * k8s.io/apimachinery v0.36.3 (`fields/selector.go`, `labels/selector.go`).
 */
import { describe, expect, it } from "vitest";
import { Env } from "../env.js";
import { CelCompileError, CelEvalError } from "../errors.js";
import type { CelValue } from "../values.js";
import {
  AUTHORIZER_VARIABLES,
  AUTHZ_LIBRARY,
  AUTHZ_SELECTORS_LIBRARY,
  OFFLINE_AUTHORIZER,
  OFFLINE_REASON,
  authorizerBindings,
  cachingAuthorizer,
  cost,
  isReadOnly,
  type AuthorizationAttributes,
  type AuthorizationResult,
  type Authorizer,
  type RequestResource,
  type UserInfo,
} from "./authz.js";
import { parseFieldSelector, parseLabelSelector } from "./selectors.js";

/** Records every check; answers with `answer` (default: deny with no reason). */
class FakeAuthorizer implements Authorizer {
  readonly seen: AuthorizationAttributes[] = [];
  constructor(private readonly answer: (a: AuthorizationAttributes) => AuthorizationResult = () => ({ decision: "deny", reason: "" })) {}
  authorize(a: AuthorizationAttributes): AuthorizationResult {
    this.seen.push(a);
    return this.answer(a);
  }
}

/** condition_test.go's `newAuthzAllowMatch`: allow exactly these attributes, deny anything else. */
function allowMatch(match: AuthorizationAttributes): FakeAuthorizer {
  return new FakeAuthorizer((a) => (isDeepEqual(a, match) ? { decision: "allow", reason: "" } : { decision: "deny", reason: "" }));
}
const denyAll = () => new FakeAuthorizer(() => ({ decision: "deny", reason: "fake reason" }));
const errorAll = () => new FakeAuthorizer(() => ({ decision: "noOpinion", reason: "", error: "fake authz error" }));

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    expect(a).toStrictEqual(b);
    return true;
  } catch {
    return false;
  }
}

const env = new Env({
  libraries: [AUTHZ_LIBRARY, AUTHZ_SELECTORS_LIBRARY, { name: "vars", variables: AUTHORIZER_VARIABLES }],
  homogeneousAggregateLiterals: true,
  crossTypeNumericComparisons: true,
});

const endpointCreate: RequestResource = { group: "", resource: "endpoints", subresource: "", namespace: "default", name: "endpoints1" };
const endpointStatusUpdate: RequestResource = { ...endpointCreate, subresource: "status" };

function evaluate(expr: string, authz: Authorizer, opts: { user?: UserInfo; request?: RequestResource; checked?: boolean } = {}): CelValue {
  const ast = opts.checked === false ? env.parse(expr) : env.compile(expr);
  return env.program(ast).eval(authorizerBindings(opts.user, authz, opts.request ?? endpointCreate));
}

/** Attributes of a resource check with Go's zero values for what is not given. */
function resourceAttrs(a: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return {
    user: undefined,
    verb: "",
    namespace: "",
    apiGroup: "",
    apiVersion: "*",
    resource: "",
    subresource: "",
    name: "",
    resourceRequest: true,
    path: "",
    ...a,
  };
}
function pathAttrs(a: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return resourceAttrs({ apiVersion: "", resourceRequest: false, ...a });
}

const saUser: UserInfo = {
  username: "system:serviceaccount:default:test-serviceaccount",
  uid: "",
  groups: ["system:serviceaccounts", "system:serviceaccounts:default"],
  extra: {},
};

interface Case {
  readonly expr: string;
  readonly authz: () => FakeAuthorizer;
  readonly want: CelValue | { error: string };
  /** The attributes of the (single) check made, when one is made. */
  readonly asked?: AuthorizationAttributes;
  readonly request?: RequestResource;
}

const allFields = resourceAttrs({
  apiGroup: "apps",
  resource: "deployments",
  subresource: "status",
  namespace: "test",
  name: "backend",
  verb: "create",
  fieldSelectorRequirements: [{ operator: "=", field: "foo", value: "bar" }],
  labelSelectorRequirements: [{ key: "apple", operator: "=", values: ["banana"] }],
});

const cases: [string, Case][] = [
  [
    "allow resource check",
    {
      expr: "authorizer.group('').resource('endpoints').check('create').allowed()",
      authz: () => allowMatch(resourceAttrs({ resource: "endpoints", verb: "create" })),
      want: true,
      asked: resourceAttrs({ resource: "endpoints", verb: "create" }),
    },
  ],
  [
    "allowed resource check is not errored",
    {
      expr: "authorizer.group('').resource('endpoints').check('create').errored()",
      authz: () => allowMatch(resourceAttrs({ resource: "endpoints", verb: "create" })),
      want: false,
    },
  ],
  [
    "resource check with all fields",
    {
      expr: "authorizer.group('apps').resource('deployments').fieldSelector('foo=bar').labelSelector('apple=banana').subresource('status').namespace('test').name('backend').check('create').allowed()",
      authz: () => allowMatch(allFields),
      want: true,
      asked: allFields,
    },
  ],
  [
    "resource check with selector parse failures still asks the authorizer",
    {
      expr: "authorizer.group('apps').resource('deployments').fieldSelector('foo badoperator bar').labelSelector('apple badoperator banana').subresource('status').namespace('test').name('backend').check('create').allowed()",
      authz: () =>
        allowMatch(
          resourceAttrs({
            apiGroup: "apps",
            resource: "deployments",
            subresource: "status",
            namespace: "test",
            name: "backend",
            verb: "create",
            fieldSelectorParsingError: "invalid selector: 'foo badoperator bar'; can't understand 'foo badoperator bar'",
            labelSelectorParsingError: "unable to parse requirement: found 'badoperator', expected: in, notin, =, ==, !=, gt, lt",
          }),
        ),
      want: true,
    },
  ],
  [
    "one field differs: not allowed",
    {
      expr: "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()",
      authz: () =>
        allowMatch(
          resourceAttrs({ apiGroup: "apps", resource: "deployments-xxxx", subresource: "status", namespace: "test", name: "backend", verb: "create" }),
        ),
      want: false,
    },
  ],
  [
    "reason",
    { expr: "authorizer.group('').resource('endpoints').check('create').reason() == 'fake reason'", authz: denyAll, want: true },
  ],
  ["errored", { expr: "authorizer.group('').resource('endpoints').check('create').errored()", authz: errorAll, want: true }],
  [
    "error",
    { expr: "authorizer.group('').resource('endpoints').check('create').error() == 'fake authz error'", authz: errorAll, want: true },
  ],
  ["errored decision is not allowed", { expr: "authorizer.group('').resource('endpoints').check('create').allowed()", authz: errorAll, want: false }],
  ["error() is empty without error", { expr: "authorizer.path('/x').check('get').error()", authz: denyAll, want: "" }],
  [
    "allow path check",
    {
      expr: "authorizer.path('/healthz').check('get').allowed()",
      authz: () => allowMatch(pathAttrs({ path: "/healthz", verb: "get" })),
      want: true,
      asked: pathAttrs({ path: "/healthz", verb: "get" }),
    },
  ],
  ["denied path check", { expr: "authorizer.path('/healthz').check('get').allowed() == false", authz: denyAll, want: true }],
  [
    "request resource",
    {
      expr: "authorizer.requestResource.check('custom-verb').allowed()",
      authz: () => allowMatch(resourceAttrs({ resource: "endpoints", namespace: "default", name: "endpoints1", verb: "custom-verb" })),
      want: true,
    },
  ],
  [
    "subresource request resource",
    {
      expr: "authorizer.requestResource.check('custom-verb').allowed()",
      authz: () =>
        allowMatch(
          resourceAttrs({ resource: "endpoints", subresource: "status", namespace: "default", name: "endpoints1", verb: "custom-verb" }),
        ),
      want: true,
      request: endpointStatusUpdate,
    },
  ],
  [
    "request resource can be narrowed further",
    {
      expr: "authorizer.requestResource.subresource('scale').check('update').allowed()",
      authz: denyAll,
      want: false,
      asked: resourceAttrs({ resource: "endpoints", subresource: "scale", namespace: "default", name: "endpoints1", verb: "update" }),
    },
  ],
  [
    "service account",
    {
      expr: "authorizer.serviceAccount('default', 'test-serviceaccount').group('').resource('endpoints').namespace('default').name('endpoints1').check('custom-verb').allowed()",
      authz: () => allowMatch(resourceAttrs({ user: saUser, resource: "endpoints", namespace: "default", name: "endpoints1", verb: "custom-verb" })),
      want: true,
    },
  ],
  [
    "empty subresource and name mean unset",
    {
      expr: "authorizer.group('example.com').resource('widgets').subresource('').namespace('').name('').check('list').allowed()",
      authz: denyAll,
      want: false,
      asked: resourceAttrs({ apiGroup: "example.com", resource: "widgets", verb: "list" }),
    },
  ],
  [
    "an empty selector is not passed",
    {
      expr: "authorizer.group('').resource('pods').fieldSelector('').labelSelector('').check('list').allowed()",
      authz: denyAll,
      want: false,
      asked: resourceAttrs({ resource: "pods", verb: "list" }),
    },
  ],
  [
    "set-based label selector",
    {
      expr: "authorizer.group('').resource('pods').labelSelector('tier in (web, db),!canary,env').fieldSelector('spec.nodeName==n1,metadata.name!=x').check('list').allowed()",
      authz: denyAll,
      want: false,
      asked: resourceAttrs({
        resource: "pods",
        verb: "list",
        fieldSelectorRequirements: [
          { operator: "!=", field: "metadata.name", value: "x" },
          { operator: "=", field: "spec.nodeName", value: "n1" },
        ],
        labelSelectorRequirements: [
          { key: "canary", operator: "!", values: [] },
          { key: "env", operator: "exists", values: [] },
          { key: "tier", operator: "in", values: ["db", "web"] },
        ],
      }),
    },
  ],
  // Errors of the builders (doc comments of authz.go).
  ["path must not be empty", { expr: "authorizer.path('').check('get').allowed()", authz: denyAll, want: { error: "path must not be empty" } }],
  ["blank path", { expr: "authorizer.path('  ').check('get').allowed()", authz: denyAll, want: { error: "path must not be empty" } }],
  [
    "resource must not be empty",
    { expr: "authorizer.group('apps').resource('  ').check('get').allowed()", authz: denyAll, want: { error: "resource must not be empty" } },
  ],
  [
    "invalid service account namespace",
    { expr: "authorizer.serviceAccount('not@a#valid!namespace', 'validname')", authz: denyAll, want: { error: "Invalid service account namespace" } },
  ],
  [
    "invalid service account name (checked first)",
    { expr: "authorizer.serviceAccount('valid.example.com', 'invalid@*name')", authz: denyAll, want: { error: "Invalid service account name" } },
  ],
  [
    "a namespace with dots is not a DNS label",
    { expr: "authorizer.serviceAccount('valid.example.com', 'validname')", authz: denyAll, want: { error: "Invalid service account namespace" } },
  ],
  [
    "authz values have no equality",
    { expr: "authorizer.path('/a') == authorizer.path('/a')", authz: denyAll, want: { error: "no such overload" } },
  ],
  [
    "decisions have no equality",
    { expr: "authorizer.path('/a').check('get') != authorizer.path('/a').check('get')", authz: denyAll, want: { error: "no such overload" } },
  ],
  // As in Kubernetes: the type decides `==` even for the very same value.
  ["the very same value has no equality either", { expr: "authorizer == authorizer", authz: denyAll, want: { error: "no such overload" } }],
  // cel-go list equality treats an element error as "not unequal".
  ["inside a list the error counts as equal", { expr: "[authorizer] == [authorizer]", authz: denyAll, want: true }],
  ["errors are absorbed by ||", { expr: "authorizer.path('').check('get').allowed() || true", authz: denyAll, want: true }],
];

describe("authz library", () => {
  for (const checked of [true, false]) {
    describe(checked ? "checked" : "unchecked", () => {
      it.each(cases)("%s", (_, c) => {
        const authz = c.authz();
        const run = () => evaluate(c.expr, authz, { request: c.request, checked });
        if (typeof c.want === "object" && c.want !== null && "error" in c.want) {
          expect(run).toThrow(new CelEvalError((c.want as { error: string }).error));
          return;
        }
        expect(run()).toEqual(c.want);
        if (c.asked !== undefined) expect(authz.seen).toStrictEqual([c.asked]);
      });
    });
  }

  it("passes the request's user to every check", () => {
    const authz = new FakeAuthorizer();
    const user: UserInfo = { username: "alice", uid: "u1", groups: ["devs"], extra: { scopes: ["a"] } };
    evaluate("authorizer.path('/a').check('get').allowed() || authorizer.requestResource.check('get').allowed()", authz, { user });
    expect(authz.seen.map((a) => a.user)).toStrictEqual([user, user]);
  });

  it("the offline authorizer denies with a clear reason", () => {
    const vars = authorizerBindings(undefined, OFFLINE_AUTHORIZER, endpointCreate);
    const out = env.program(env.compile("[authorizer.path('/x').check('get').allowed(), authorizer.path('/x').check('get').errored()]")).eval(vars);
    expect(out).toEqual([false, false]);
    expect(env.program(env.compile("authorizer.requestResource.check('get').reason()")).eval(vars)).toBe(OFFLINE_REASON);
  });

  it("an authorizer that throws gives an errored decision", () => {
    const authz: Authorizer = {
      authorize: () => {
        throw new Error("webhook unreachable");
      },
    };
    expect(evaluate("authorizer.path('/x').check('get').error()", authz)).toBe("webhook unreachable");
  });

  it("isReadOnly follows AttributesRecord", () => {
    expect(["get", "list", "watch", "create"].map((verb) => isReadOnly(pathAttrs({ verb })))).toEqual([true, true, true, false]);
  });
});

describe("authz compile errors", () => {
  it.each<[string, RegExp]>([
    ["authorizer.check('get')", /found no matching overload for 'check' applied to 'kubernetes\.authorization\.Authorizer\.\(string\)'/],
    ["authorizer.group(1)", /found no matching overload for 'group' applied to 'kubernetes\.authorization\.Authorizer\.\(int\)'/],
    ["authorizer.group('').check('get')", /found no matching overload for 'check' applied to 'kubernetes\.authorization\.GroupCheck\.\(string\)'/],
    ["authorizer.path('/x').fieldSelector('a=b')", /found no matching overload for 'fieldSelector' applied to 'kubernetes\.authorization\.PathCheck\.\(string\)'/],
    ["authorizer.serviceAccount('ns')", /found no matching overload for 'serviceAccount'/],
    ["authorizer.path('/x').check('get') == true", /found no matching overload for '_==_'/],
    // The types expose no fields and are not registered with a type provider, as in Kubernetes.
    ["authorizer.user", /unexpected failed resolution of 'kubernetes\.authorization\.Authorizer'/],
    ["authorizer.requestResource.check('get').allowed() + 1", /found no matching overload for '_\+_' applied to '\(bool, int\)'/],
  ])("%s", (expr, re) => {
    expect(() => env.compile(expr)).toThrow(CelCompileError);
    expect(() => env.compile(expr)).toThrow(re);
  });

  it("fieldSelector needs the selectors library", () => {
    const base = new Env({ libraries: [AUTHZ_LIBRARY, { name: "vars", variables: AUTHORIZER_VARIABLES }] });
    expect(() => base.compile("authorizer.group('').resource('pods').fieldSelector('a=b')")).toThrow(/undeclared reference to 'fieldSelector'/);
  });
});

describe("field selectors (fields.ParseSelector)", () => {
  it.each<[string, unknown]>([
    ["a=b", [{ operator: "=", field: "a", value: "b" }]],
    ["a==b", [{ operator: "=", field: "a", value: "b" }]],
    ["z!=1,a=2", [{ operator: "=", field: "a", value: "2" }, { operator: "!=", field: "z", value: "1" }]],
    ["a=", [{ operator: "=", field: "a", value: "" }]],
    ["=", []],
    [",", []],
    ["a=x\\,y", [{ operator: "=", field: "a", value: "x,y" }]],
    ["a=x\\=y\\\\", [{ operator: "=", field: "a", value: "x=y\\" }]],
    ["a!==b", { error: "invalid field selector: unescaped character in value: 61" }],
    ["a=b=c", { error: "invalid field selector: unescaped character in value: 61" }],
    ["a=x\\y", { error: "invalid field selector: invalid escape sequence: \\y" }],
    ["a=x\\", { error: "invalid field selector: invalid escape sequence: \\" }],
    ["a", { error: "invalid selector: 'a'; can't understand 'a'" }],
    ["b=1,a", { error: "invalid selector: 'b=1,a'; can't understand 'a'" }],
  ])("%s", (sel, want) => {
    if (want !== null && typeof want === "object" && "error" in want) {
      expect(() => parseFieldSelector(sel)).toThrow((want as { error: string }).error);
    } else {
      expect(parseFieldSelector(sel)).toStrictEqual(want);
    }
  });
});

describe("label selectors (labels.ParseToRequirements)", () => {
  const KEY_RE = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const VALUE_RE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  it.each<[string, unknown]>([
    ["x in (foo,,baz),y,z notin ()", [
      { key: "x", operator: "in", values: ["", "baz", "foo"] },
      { key: "y", operator: "exists", values: [] },
      { key: "z", operator: "notin", values: [""] },
    ]],
    ["a=b", [{ key: "a", operator: "=", values: ["b"] }]],
    ["a==b", [{ key: "a", operator: "==", values: ["b"] }]],
    ["a!=", [{ key: "a", operator: "!=", values: [""] }]],
    ["a>5,b<10", [{ key: "a", operator: "gt", values: ["5"] }, { key: "b", operator: "lt", values: ["10"] }]],
    // A negative bound parses as an integer but is not a valid label value.
    ["b<-1", { error: `unable to parse requirement: values[0][b]: Invalid value: "-1": ${VALUE_RE}` }],
    ["example.com/app in (in, notin)", [{ key: "example.com/app", operator: "in", values: ["in", "notin"] }]],
    ["  ", []],
    ["a,", { error: "found '', expected: identifier after ','" }],
    [",a", { error: "found ',', expected: !, identifier, or 'end of string'" }],
    ["a b", { error: "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt" }],
    ["a=b c", { error: "found 'c', expected: ',' or 'end of string'" }],
    ["a in b", { error: "unable to parse requirement: found 'b' expected: '('" }],
    ["a in (b c)", { error: "unable to parse requirement: found 'c', expected: ',' or ')'" }],
    ["!a=b", { error: "found '=', expected: ',' or 'end of string'" }],
    ["a>b", { error: "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer" }],
    ["Bad_Key-", { error: `unable to parse requirement: <nil>: Invalid value: "Bad_Key-": ${KEY_RE}` }],
    ["a/b/c", { error: "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')" }],
    ["/a", { error: "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty" }],
    ["a=-b", { error: `unable to parse requirement: values[0][a]: Invalid value: "-b": ${VALUE_RE}` }],
    ["a>x-", { error: `unable to parse requirement: [values[0]: Invalid value: "x-": for 'Gt', 'Lt' operators, the value must be an integer, values[0][a]: Invalid value: "x-": ${VALUE_RE}]` }],
  ])("%s", (sel, want) => {
    if (want !== null && typeof want === "object" && "error" in want) {
      expect(() => parseLabelSelector(sel)).toThrow((want as { error: string }).error);
    } else {
      expect(parseLabelSelector(sel)).toStrictEqual(want);
    }
  });
});

describe("authz cost table", () => {
  it("follows cost.go and its tests", () => {
    const sel = "spec.nodeName=example-node-name.fully.qualified.domain.name.example.com";
    expect(sel.length).toBe(71);
    // cost_test.go: fieldSelector(10 + ceil(71/2)*50 = 1800 + ceil(71*.1) = 8) = 1818.
    expect(cost.authorizer_fieldselector!.actual([null, sel])).toBe(1818n);
    expect(cost.authorizer_labelselector!.estimate([{ min: 71n, max: 71n }])).toEqual({ min: 1818n, max: 1818n });
    // path check allowed: path(1) + check(350000) + allowed(1) (+ the variable, 1) = 350003.
    expect(cost.authorizer_path!.actual([]) + cost.pathcheck_check!.actual([]) + cost.decision_allowed!.actual([])).toBe(350002n);
    expect(cost.resourcecheck_check!.estimate([])).toEqual({ min: 350000n, max: 350000n });
  });
});

describe("label selector grammar (apimachinery TestSelectorParse strings)", () => {
  it.each(["x=a,y=b,z=c", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"])("%j parses", (s) => {
    expect(() => parseLabelSelector(s)).not.toThrow();
  });
  it.each(["x=a||y=b", "x==a==b", "!x=a", "x<a"])("%j fails", (s) => {
    expect(() => parseLabelSelector(s)).toThrow();
  });
});

describe("cachingAuthorizer", () => {
  it("asks once per distinct check, ignoring group order", () => {
    const inner = new FakeAuthorizer(() => ({ decision: "allow", reason: "ok" }));
    const cached = cachingAuthorizer(inner);
    const user: UserInfo = { username: "bob", uid: "", groups: ["b", "a"], extra: {} };
    const out = evaluate(
      "[authorizer.group('').resource('pods').check('get').allowed(), authorizer.group('').resource('pods').check('get').reason() == 'ok', authorizer.group('').resource('pods').check('list').allowed()]",
      cached,
      { user },
    );
    expect(out).toEqual([true, true, true]);
    expect(inner.seen.map((a) => a.verb)).toEqual(["get", "list"]);
    const reordered = { ...user, groups: ["a", "b"] };
    cached.authorize({ ...inner.seen[0]!, user: reordered });
    expect(inner.seen).toHaveLength(2);
  });
});
