import { describe, expect, test } from "vitest";
import { CelEvalError } from "./errors.js";
import { kubernetesBaseEnv } from "./k8s/base-env.js";
import { fromJson } from "./runtime/json.js";
import { DYN } from "./types.js";

// cel-go v0.26 answers recorded with reference/bin/celref (conformance/reference/cel-regressions.json).
// The admission environment declares `object` as dyn, as here (src/admission/environment.ts).
const env = kubernetesBaseEnv().extend({ variables: { object: DYN } });
const object = fromJson({ metadata: { name: "p" }, spec: { ports: [80, 443] } });

function run(expr: string): unknown {
  const program = env.program(env.compile(expr));
  try {
    return program.eval({ object });
  } catch (e) {
    if (e instanceof CelEvalError) return `error: ${e.message}`;
    throw e;
  }
}

describe("types derived from an inferred type keep their run-time overload checks", () => {
  test("a call typed from an argument whose type a free type parameter took (no TypeError)", () => {
    expect(run("[object.spec.ports, object.spec.ports].flatten().map(x, x - optional.of(44).orValue(object.metadata.generation)).map(x, string(x))")).toBe(
      "error: no such overload: string(int)",
    );
  });
  test("the iteration variable over an inferred list", () => {
    expect(run("[object.spec.ports].flatten().map(x, string(x))")).toBe("error: no such overload: string(int)");
  });
  test("a well-typed call still runs", () => {
    expect(run("object.spec.ports.map(x, x * 0).map(x, string(x))")).toEqual(["0", "0"]);
  });
});
