import { describe, expect, it } from "vitest";
import { err, m, run, v, type Outcome } from "./test-harness.js";

// kyverno/sdk extensions/cel/libs/transform/impl_test.go, then the error paths of impl.go.
describe("transform library (listObjToMap)", () => {
  it.each<[string, Outcome]>([
    [
      `transform.listObjToMap([{"name": "kyverno", "lfx": "mentorship"}, {"name": "kubernetes", "lfx": "something"}], [{"domain": "security"}, {"domain": "orchestration"}], "name", "domain")`,
      v(m({ kyverno: "security", kubernetes: "orchestration" })),
    ],
    [`listObjToMap([{"k": "a"}], [{"v": 1}], "k", "v")`, v(m({ a: 1n }))],
    [`listObjToMap([], [], "k", "v")`, v(m({}))],
    [`listObjToMap([{"k": "a"}, {"k": "a"}], [{"v": "1"}, {"v": "2"}], "k", "v")`, v(m({ a: "2" }))],
    [`listObjToMap([{"k": "a"}], [{"w": 1}], "k", "v")`, v(m({ a: null }))],
    [`listObjToMap([{"k": "a"}], [{"v": [1, 2]}], "k", "v").a`, v([1n, 2n])],
    [`listObjToMap([{"k": "a"}], [], "k", "v")`, err("listObjToMap must take lists of equal length. list1: 1, list2: 0")],
    [`listObjToMap([{"k": 1}], [{"v": 1}], "k", "v")`, err("the passed key name cannot be handled as a string in the key object list")],
    [`listObjToMap([{"x": "a"}], [{"v": 1}], "k", "v")`, err("the passed key name cannot be handled as a string in the key object list")],
    [`listObjToMap([dyn("a")], [{"v": 1}], "k", "v")`, err("failed to convert key to a string, map")],
    [`listObjToMap([{"k": "a"}], [dyn(1)], "k", "v")`, err("object cannot be handled as a map string to any in the value object list")],
  ])("%s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it.each([`listObjToMap([], [], "k")`, `listObjToMap({}, [], "k", "v")`, `transform.listObjToMap([], [], 1, "v")`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
