import { describe, expect, it } from "vitest";
import { ServiceAccountValue } from "./user.js";
import { run, v, type Outcome } from "./test-harness.js";

// kyverno/sdk extensions/cel/libs/user/impl_test.go: fields are Go's Name and Namespace.
describe("user library (parseServiceAccount)", () => {
  it.each<[string, Outcome]>([
    [`parseServiceAccount("system:serviceaccount:foo:bar")`, v(new ServiceAccountValue("bar", "foo"))],
    [`parseServiceAccount("system:serviceaccount:foo:bar:baz")`, v(new ServiceAccountValue("bar:baz", "foo"))],
    [`parseServiceAccount("foo")`, v(new ServiceAccountValue("", ""))],
    [`parseServiceAccount("system:serviceaccount:foo:bar").Namespace`, v("foo")],
    [`user.parseServiceAccount("system:serviceaccount:kyverno:kyverno-admission-controller").Name`, v("kyverno-admission-controller")],
    [`parseServiceAccount("system:serviceaccount:ns").Name`, v("")],
    [`parseServiceAccount("system:serviceaccount::x").Name`, v("x")],
    [`parseServiceAccount("System:serviceaccount:a:b").Namespace`, v("")],
    [`parseServiceAccount("system:serviceaccount:a:b") == parseServiceAccount("system:serviceaccount:a:b")`, v(true)],
    [`has(parseServiceAccount("x").Name)`, v(false)],
    [`parseServiceAccount(request.userInfo.username).Namespace`, v("ns1")],
    [`user.ServiceAccount{Name: "n"}.Name`, v("n")],
  ])("%s", (expr, want) => {
    const request = new Map([["userInfo", new Map([["username", "system:serviceaccount:ns1:sa"]])]]);
    expect(run(expr, {}, { request })).toEqual(want);
  });

  it.each([`parseServiceAccount("x").name`, `parseServiceAccount(true)`, `parseServiceAccount("x").Name.Foo`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
