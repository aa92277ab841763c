/**
 * CEL differences the differential suite (npm run test:reference) found and celmap fixed, as
 * fixed cases: cel-go's answer recorded from reference/bin/celref (k8s.io/apiserver v0.36.6,
 * cel-go v0.26.0) in conformance/reference/cel-regressions.json. Runs without Go.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compareCel } from "./reference/cel-suite.js";
import { celmapAnswer, type CelAnswer } from "./reference/cel-side.js";
import { compareMap } from "./reference/map-suite.js";
import { celmapMapAnswer, type MapAnswer, type MapRequest } from "./reference/map-side.js";

interface Case {
  readonly why: string;
  readonly expr: string;
  readonly mode: "base" | "mutation";
  readonly reference: CelAnswer;
}

const data = JSON.parse(readFileSync(new URL("../conformance/reference/cel-regressions.json", import.meta.url), "utf8")) as {
  vars: Record<string, unknown>;
  cases: Case[];
};

/** The position and types of a compile error ("<input>:1:22: expected type 'bool' but found 'dyn'"), without the snippet. */
const firstLine = (s: string | undefined) => s?.split("\n")[0];

describe("CEL regressions found against cel-go", () => {
  it.each(data.cases.map((c) => [c.why, c] as const))("%s", (_why, c) => {
    const mine = celmapAnswer({ expr: c.expr, mode: c.mode, vars: data.vars });
    expect(compareCel(c.expr, c.reference, mine)).toBeUndefined();
    if (c.reference.stage === "compile") expect(firstLine(mine.error)).toBe(firstLine(c.reference.error));
  });
});

interface MapCase {
  readonly why: string;
  readonly request: MapRequest;
  readonly reference: MapAnswer;
}

const mapData = JSON.parse(readFileSync(new URL("../conformance/reference/map-regressions.json", import.meta.url), "utf8")) as { cases: MapCase[] };

describe("MAP regressions against the apiserver's dispatcher", () => {
  it.each(mapData.cases.map((c) => [c.why.slice(0, 80), c] as const))("%s", (_why, c) => {
    expect(compareMap("", c.reference, celmapMapAnswer(c.request))).toBeUndefined();
  });
});
