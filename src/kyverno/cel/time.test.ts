import { describe, expect, it } from "vitest";
import { CelTimestamp } from "../../cel/values.js";
import { run, v, type Outcome } from "./test-harness.js";

const ts = (iso: string) => new CelTimestamp(BigInt(Date.parse(iso)) * 1_000_000n);
const clock = () => ts("2025-01-02T03:45:27Z");

// kyverno/sdk extensions/cel/libs/time/lib_test.go, then Go time semantics.
describe("time library", () => {
  it.each<[string, Outcome]>([
    [`time.truncate(timestamp("2025-01-02T03:45:27Z"), duration("1h"))`, v(ts("2025-01-02T03:00:00Z"))],
    [`time.toCron(timestamp("2025-01-02T15:30:00Z"))`, v("30 15 2 1 4")],
    [`time.now()`, v(clock())],
    [`time.now() - duration("3h") < time.now()`, v(true)],
    [`time.truncate(timestamp("2025-01-02T03:45:27.5Z"), duration("1s"))`, v(ts("2025-01-02T03:45:27Z"))],
    [`time.truncate(timestamp("2025-01-02T03:45:27Z"), duration("24h"))`, v(ts("2025-01-02T00:00:00Z"))],
    [`time.truncate(timestamp("2025-01-02T03:45:27Z"), duration("0s"))`, v(ts("2025-01-02T03:45:27Z"))],
    [`time.truncate(timestamp("2025-01-02T03:45:27Z"), duration("-1h"))`, v(ts("2025-01-02T03:45:27Z"))],
    [`time.truncate(timestamp("1969-12-31T23:59:59Z"), duration("1m"))`, v(ts("1969-12-31T23:59:00Z"))],
    [`time.toCron(timestamp("2024-02-29T00:05:00Z"))`, v("5 0 29 2 4")],
    [`time.toCron(timestamp("2025-06-01T23:59:59Z"))`, v("59 23 1 6 0")],
    [`time.toCron(timestamp("2025-01-02T01:30:00+02:00"))`, v("30 1 2 1 4")], // Go keeps the parsed offset
    [`time.toCron(time.truncate(time.now(), duration("1h")))`, v("0 3 2 1 4")],
  ])("%s", (expr, want) => {
    const out = run(expr, { clock });
    if ("value" in want && want.value instanceof CelTimestamp) {
      expect((out as { value: CelTimestamp }).value.nanos).toBe(want.value.nanos);
    } else expect(out).toEqual(want);
  });

  it.each([`time.now(1)`, `time.truncate(timestamp("2025-01-02T03:45:27Z"), "1h")`, `time.toCron("x")`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
