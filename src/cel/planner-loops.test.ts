/**
 * Cost tracking of comprehension loops: for each macro shape (map, filter, exists, all,
 * exists_one, the two-variable forms), with and without errors absorbed, the tracked value or
 * error, the actual cost, and for every cost limit from 0 up to that cost the figure the
 * CelCostLimitError reports (so the iteration where the limit stops the loop) must equal what
 * `planner-loops.golden.json` records. That record was made with the planner before the tracked
 * loops had functions of their own (commit f72ab99), under cel-go's default cost options and
 * Kubernetes' (presence tests free, constant folding), checked and unchecked.
 *
 * `limits` is run-length encoded: `25*14` is 14 limits in a row whose evaluation stopped at cost 25;
 * -1 is an evaluation that stayed within its limit.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { CelCostLimitError, KUBERNETES_COST_OPTIONS, type CostOptions } from "./cost-runtime.js";
import { Env } from "./env.js";
import { CelEvalError } from "./errors.js";
import { TWO_VAR_COMPREHENSIONS_LIBRARY } from "./ext/comprehensions.js";
import { OPTIONAL_LIBRARY } from "./ext/optionals.js";
import type { Program } from "./planner.js";
import { fromJson } from "./runtime/json.js";
import { DYN, type CelType } from "./types.js";
import type { CelValue } from "./values.js";

interface Run {
  readonly value?: string;
  readonly error?: string;
  readonly cost: number;
  readonly limits: string;
}
interface GoldenCase {
  readonly name: string;
  readonly expr: string;
  readonly vars: Record<string, unknown>;
  /** By "<cost options> <checked|unchecked>". */
  readonly runs: Record<string, Run>;
}

const GOLDEN: readonly GoldenCase[] = JSON.parse(readFileSync(new URL("./planner-loops.golden.json", import.meta.url), "utf8"));
const COST_OPTIONS: Record<string, CostOptions> = { default: {}, kubernetes: KUBERNETES_COST_OPTIONS };

/** JSON integers as CEL ints. */
function ints(v: unknown): unknown {
  if (typeof v === "number") return BigInt(v);
  if (Array.isArray(v)) return v.map(ints);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, ints(x)]));
  return v;
}

function show(v: CelValue): string {
  return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x instanceof Map ? Object.fromEntries(x) : x));
}

type Outcome = { value: string; cost: number } | { error: string; cost: number } | { limitCost: number };

function outcome(p: Program, vars: Record<string, CelValue>, limit?: number): Outcome {
  try {
    const r = p.evalWithCost(vars, limit === undefined ? undefined : { costLimit: limit });
    return { value: show(r.value), cost: r.cost };
  } catch (e) {
    if (e instanceof CelCostLimitError) {
      expect(p.lastCost).toBe(e.cost);
      expect(e.limit).toBe(limit);
      return { limitCost: e.cost };
    }
    if (e instanceof CelEvalError) return { error: e.message, cost: p.lastCost! };
    throw e;
  }
}

function runLengths(encoded: string): number[] {
  const out: number[] = [];
  for (const part of encoded.split(" ")) {
    const [v, n] = part.split("*");
    for (let i = 0; i < Number(n ?? 1); i++) out.push(Number(v));
  }
  return out;
}

describe("tracked comprehension loops charge as recorded", () => {
  for (const c of GOLDEN) {
    test(`${c.name}: ${c.expr}`, () => {
      const vars: Record<string, CelValue> = {};
      const variables: Record<string, CelType> = {};
      for (const [k, x] of Object.entries(c.vars)) {
        vars[k] = fromJson(ints(x) as never);
        variables[k] = DYN;
      }
      for (const [key, want] of Object.entries(c.runs)) {
        const [costName, mode] = key.split(" ");
        const env = new Env({ libraries: [OPTIONAL_LIBRARY, TWO_VAR_COMPREHENSIONS_LIBRARY], variables, cost: COST_OPTIONS[costName!]! });
        const parsed = env.parse(c.expr);
        const ast = mode === "checked" ? env.check(parsed) : parsed;
        const full = outcome(env.program(ast), vars);
        expect(full, key).toEqual(want.value !== undefined ? { value: want.value, cost: want.cost } : { error: want.error, cost: want.cost });
        // Every limit below the cost stops the evaluation; the figure tells where.
        const got: number[] = [];
        for (let l = 0; l <= want.cost; l++) {
          const o = outcome(env.program(ast), vars, l);
          got.push("limitCost" in o ? o.limitCost : -1);
        }
        expect(got, `${key} limits`).toEqual(runLengths(want.limits));
        // One program evaluated again and again (the tracked plan made once) agrees too.
        const p = env.program(ast);
        for (let l = 0; l <= want.cost; l++) {
          const o = outcome(p, vars, l);
          expect("limitCost" in o ? o.limitCost : -1, `${key} limit ${l}, same program`).toBe(got[l]);
        }
      }
    });
  }
});
