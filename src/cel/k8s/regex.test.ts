import { describe, expect, it } from "vitest";
import { outcome, k8sEnv, type Outcome } from "./test-harness.js";
import { REGEX_LIBRARY, cost } from "./regex.js";

const env = k8sEnv([REGEX_LIBRARY]);
const v = (value: unknown): Outcome => ({ value: value as never });

// Kubernetes: environment_test.go, cost_test.go and condition_test.go use these expressions;
// the rest follows Go's regexp (FindString / FindAllString) semantics.
describe("regex library", () => {
  it.each<[string, Outcome]>([
    [`'a 1 b 2'.find('[0-9]') == '1'`, v(true)],
    [`'abc 123 def 123'.find('123')`, v("123")],
    [`size('abc 123 def 123'.find('123')) > 0`, v(true)],
    [`'abc 123 def 123'.findAll('123')`, v(["123", "123"])],
    [`'abc 123 def 123'.findAll('123', 1)`, v(["123"])],
    [`"abc 123".find('xyz')`, v("")],
    [`"123 abc 456".findAll('xyz')`, v([])],
    [`"123 abc 456".findAll('[0-9]+', 1)`, v(["123"])],
    [`"123 abc 456".findAll('[0-9]+', -5)`, v(["123", "456"])],
    [`"123 abc 456".findAll('[0-9]+', 0)`, v([])],
    // Go returns the leftmost match, which may be empty (regex.go's doc comment says '123' here; Go says '').
    [`"abc 123".find('[0-9]*')`, v("")],
    [`"123 abc 456".findAll('[0-9]*')`, v(["123", "", "", "", "", "456"])],
    [`"".findAll('')`, v([""])],
    [`"abc".findAll('')`, v(["", "", "", ""])],
    [`"abbc".findAll('b*')`, v(["", "bb", ""])],
    [`"<a><b>".find('<.+?>')`, v("<a>")],
    [`"aaa".findAll('a*?')`, v(["", "", "", ""])],
    // Leftmost-first, not leftmost-longest.
    [`"abcd".find('a|ab|abc')`, v("a")],
    [`"abcd".find('(a|ab)(c|bcd)')`, v("abcd")],
    [`"xfoo foo".findAll('\\\\bfoo\\\\b')`, v(["foo"])],
    [`"line1\\nline2".findAll('(?m)^line[0-9]$')`, v(["line1", "line2"])],
    [`"ÀB😀c".findAll('.')`, v(["À", "B", "😀", "c"])],
    [`"😀😀x".find('[^x]+')`, v("😀😀")],
    [`"Hello World".findAll('(?i)o')`, v(["o", "o"])],
    [`"a1b22c333".findAll('[0-9]+', 2)`, v(["1", "22"])],
    [`"abc".find('(')`, { evalError: "Illegal regex: error parsing regexp: missing closing ): `(`" }],
    [`"abc".findAll('[a-', 1)`, { evalError: "Illegal regex: error parsing regexp: missing closing ]: `[a-`" }],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr)).toEqual(want);
  });

  it.each([`"abc".find(1)`, `1.find('a')`, `"abc".findAll('a', 1u)`, `"abc".findAll('a', 'b')`])("rejects %s at compile time", (expr) => {
    expect(outcome(env, expr)).toHaveProperty("compileError");
  });

  it("costs ceil((1 + size) × 0.1) × ceil(size(regex) × 0.25)", () => {
    // cost_test.go: 'abc 123 def 123'.find('123') has call cost 2 (ceil(1.6) × ceil(0.75)).
    expect(cost.string_find_string!.actual(["abc 123 def 123", "123"])).toBe(2n);
    expect(cost.string_find_all_string_int!.actual(["abc 123 def 123", "123", 1n])).toBe(2n);
  });
});
