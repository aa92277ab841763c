/** The renderers behind `celmap eval`: the line diff, colour rules and exact serialisation. */
import { describe, expect, it } from "vitest";
import { ANSI_PALETTE, NO_COLOR_PALETTE, colorWanted } from "../src/cli/render/color.js";
import { diffLines, renderDiff } from "../src/cli/render/diff.js";
import { toExactJson, toYaml } from "../src/cli/render/serialize.js";

describe("eval rendering", () => {
  it("diffs lines with removals before additions and context around hunks", () => {
    expect(diffLines(["a", "b", "c"], ["a", "x", "c"])).toEqual([
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: "+", text: "x" },
      { op: " ", text: "c" },
    ]);
    const before = Array.from({ length: 20 }, (_, i) => `l${i}`).join("\n");
    const after = before.replace("l10", "L10");
    expect(renderDiff(before, after, NO_COLOR_PALETTE)).toBe("@@ -8,7 +8,7 @@\n l7\n l8\n l9\n-l10\n+L10\n l11\n l12\n l13\n");
    expect(renderDiff(before, before, NO_COLOR_PALETTE)).toBe("");
  });

  it("colours removed lines red and added lines green on a terminal, never with NO_COLOR", () => {
    const d = renderDiff("a: 1\n", "a: 2\n", ANSI_PALETTE);
    expect(d).toContain("\u001b[31m-a: 1\u001b[39m");
    expect(d).toContain("\u001b[32m+a: 2\u001b[39m");
    expect(colorWanted(true, {})).toBe(true);
    expect(colorWanted(true, { NO_COLOR: "1" })).toBe(false);
    expect(colorWanted(false, {})).toBe(false);
    expect(colorWanted(undefined, {})).toBe(false);
  });

  it("writes bigints exactly and quotes YAML 1.1 look-alikes", () => {
    expect(toExactJson({ a: 9223372036854775807n, b: [1.5, "x"], c: null })).toBe('{"a":9223372036854775807,"b":[1.5,"x"],"c":null}');
    expect(toYaml({ num: 18446744073709551615n, s: "yes", o: "0755", f: "1.0" })).toBe('num: 18446744073709551615\ns: "yes"\no: "0755"\nf: "1.0"\n');
  });
});
