import { describe, expect, it } from "vitest";
import { CelOptional } from "../../cel/values.js";
import { err, run, v, type Outcome } from "./test-harness.js";

const some = (s: string) => v(CelOptional.of(s));
const none = v(CelOptional.NONE);

// cel-go ext/regex_test.go examples, and kyverno-tests cel-regex-replace (test/cli and chainsaw).
describe("regex extension (cel-go ext.Regex v1)", () => {
  it.each<[string, Outcome]>([
    [`regex.replace("docker.io/nginx:1.25", "^docker\\\\.io/(.*)", r'myregistry.io/\\1')`, v("myregistry.io/nginx:1.25")],
    [`regex.replace("ghcr.io/x", "^docker\\\\.io/(.*)", r'myregistry.io/\\1')`, v("ghcr.io/x")],
    [`regex.replace('hello world hello', 'hello', 'hi')`, v("hi world hi")],
    [`regex.replace('banana', 'a', 'x', 2)`, v("bxnxna")],
    [`regex.replace('banana', 'a', 'x', 0)`, v("banana")],
    [`regex.replace('banana', 'a', 'x', -1)`, v("bxnxnx")],
    [`regex.replace('ab', '', '-')`, v("-a-b-")],
    [`regex.replace('John Doe', '(\\\\w+) (\\\\w+)', r'\\2, \\1')`, v("Doe, John")],
    [`regex.replace('a.b', '\\\\.', r'\\\\')`, v("a\\b")],
    [`regex.replace('abc', '(x)?b', r'[\\1]')`, v("a[]c")],
    [`regex.replace('abc', 'b', r'\\')`, err("invalid replacement string: '\\' \\ not allowed at end")],
    [`regex.replace('abc', 'b', r'\\x')`, err("invalid replacement string: '\\x' \\ must be followed by a digit or \\")],
    [`regex.replace('abc', '(b)', r'\\2')`, err("replacement string references group 2 but regex has only 1 group(s)")],
    [`regex.replace('abc', '(', 'x')`, err("error parsing regexp: missing closing ): `(`")],
    [`regex.extract('hello world', 'hello (.*)')`, some("world")],
    [`regex.extract('item-A, item-B', 'item-(\\\\w+)')`, some("A")],
    [`regex.extract('HELLO', 'hello')`, none],
    [`regex.extract('abc123', '[0-9]+')`, some("123")],
    [`regex.extract('ac', 'a(b)?c')`, none],
    [`regex.extract('hello world', '(hello) (world)')`, err('regular expression has more than one capturing group: "(hello) (world)"')],
    [`regex.extractAll('id:123, id:456', 'id:\\\\d+')`, v(["id:123", "id:456"])],
    [`regex.extractAll('id:123, id:456', 'assa')`, v([])],
    [`regex.extractAll('testuser@testdomain', '(.*)@')`, v(["testuser"])],
    [`regex.extractAll('a1 b c3', '[a-z]([0-9])?')`, v(["1", "3"])],
    [`regex.extractAll('aaa', 'a*?')`, v(["", "", "", ""])],
    [`regex.extract('é1', '\\\\d').orValue('none')`, v("1")],
  ])("%s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it.each([`regex.replace('a', 'b')`, `regex.extract('a', 1)`, `regex.extractAll('a')`, `regex.replace('a', 'b', 'c', 1.0)`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
