/**
 * `matches` on patterns every match of which begins at the start of the text runs as a full match
 * of `(?:p)(?s:.*)` (strings.ts `anchorAtStart`): the answers must be those of RE2's own search.
 */
import { RE2JS } from "@bufbuild/re2";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRegex, matches } from "./strings.js";

const PATTERNS = [
  "^a", "^", "^$", "^a|^b", "^(a|b)c", "(?i)^AB", "^\\d+", "^[^/]*[.:][^/]*/", "^a.b", "(?s)^a.b", "^a$", "^(?:a*)*b",
  // Not anchored at the start of the text (left as they are): a branch without ^, multi-line ^, \A later.
  "^a|b", "(?m)^a", "a^", "b|^a", "x*^a",
];
const INPUTS = ["", "a", "b", "ab", "ac", "bc", "AB", "a\nb", "\na", "a.b", "axb", "123", "x123", "reg.io:5/x", "reg/x", "ba", "aab", "b\na"];

describe("matches with a start-anchored pattern", () => {
  for (const p of PATTERNS) {
    it(p, () => {
      const reference = RE2JS.compile(p);
      for (const s of INPUTS) expect([s, matches(s, p)]).toEqual([s, reference.test(s)]);
    });
  }

  it("agrees with RE2's search on generated inputs", () => {
    fc.assert(
      fc.property(fc.constantFrom(...PATTERNS), fc.string({ unit: fc.constantFrom("a", "b", "c", "1", "/", ".", ":", "\n", "A") }), (p, s) => {
        expect(matches(s, p)).toBe(RE2JS.compile(p).test(s));
      }),
      { numRuns: 2000 },
    );
  });

  it("other methods of the compiled program are untouched", () => {
    const re = compileRegex("^a+");
    expect(re.testExact("aa")).toBe(true);
    expect(re.testExact("aab")).toBe(false);
  });
});
