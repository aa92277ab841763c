import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { err, m, run, v, type Outcome } from "./test-harness.js";

// The CLI supplies a YAML parser; this is the `yaml` package in its YAML 1.1 mode (sigs.k8s.io/yaml uses goyaml v2).
const yaml = (text: string): unknown => parse(text, { version: "1.1" });

// kyverno/sdk extensions/cel/libs/yaml/impl_test.go, then sigs.k8s.io/yaml behaviour.
describe("yaml library", () => {
  it.each<[string, Outcome]>([
    [
      `yaml.parse("species:\\n  dog: lab\\n  name: dory\\n  isGoodBoi: false\\nsnacks:\\n- chimken\\n- fries\\n- pizza\\n")`,
      v(m({ species: m({ dog: "lab", name: "dory", isGoodBoi: false }), snacks: ["chimken", "fries", "pizza"] })),
    ],
    [`yaml.parse("a: 1").a`, v(1)], // numbers are doubles (YAML → JSON → encoding/json)
    [`yaml.parse("a: 1.5").a`, v(1.5)],
    [`yaml.parse("- a\\n- b")`, v(["a", "b"])],
    [`yaml.parse("x")`, v("x")],
    [`yaml.parse("")`, v(null)],
    [`yaml.parse("a: ~").a`, v(null)],
    [`yaml.parse("a: yes").a`, v(true)], // YAML 1.1 booleans
    [`yaml.parse("a: &x 1\\nb: *x").b`, v(1)],
    [`yaml.parse("a: 'quoted'\\nb: \\"d\\"")`, v(m({ a: "quoted", b: "d" }))],
    [`yaml.parse("a: [1, 2").a`, { evalError: expect.stringMatching(/^error converting YAML to JSON: /) as unknown as string }],
  ])("%s", (expr, want) => {
    expect(run(expr, { yaml })).toEqual(want);
  });

  it("needs a parser from the caller", () => {
    expect(run(`yaml.parse("a: 1")`)).toEqual(err("yaml.parse: no YAML parser was configured for this environment"));
  });

  it.each([`yaml.parse(1)`, `yaml.parse()`, `yaml.marshal("x")`])("rejects %s at compile time", (expr) => {
    expect(run(expr, { yaml })).toHaveProperty("compileError");
  });
});
