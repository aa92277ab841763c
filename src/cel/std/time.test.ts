import { describe, expect, it } from "vitest";
import type { FunctionDecl } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { CelDuration, CelTimestamp } from "../values.js";
import {
  TIME_FUNCTIONS,
  ZonedTimestamp,
  civilFromDays,
  daysFromCivil,
  durationToString,
  parseGoDuration,
  parseRfc3339,
  stringToDuration,
  stringToTimestamp,
  timestampToString,
  validateTimeLiterals,
} from "./time.js";

function impl(fns: readonly FunctionDecl[], id: string): (...args: any[]) => unknown {
  for (const f of fns) for (const o of f.overloads) if (o.id === id) return o.impl!;
  throw new Error(`no overload ${id}`);
}
const call = (id: string, ...args: unknown[]) => impl(TIME_FUNCTIONS, id)(...args);
const ts = (s: string) => stringToTimestamp(s);
const dur = (s: string) => stringToDuration(s);
const err = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof CelEvalError) return e.message;
    throw e;
  }
  throw new Error("expected a CelEvalError");
};

describe("calendar", () => {
  it("round-trips day numbers over the whole range", () => {
    for (let d = daysFromCivil(1, 1, 1); d <= daysFromCivil(9999, 12, 31); d += 997) {
      const c = civilFromDays(d);
      expect(daysFromCivil(c.year, c.month, c.day)).toBe(d);
    }
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(civilFromDays(-719162)).toEqual({ year: 1, month: 1, day: 1 });
  });
});

describe("Go duration syntax", () => {
  it.each<[string, bigint | undefined]>([
    ["1h2m3.5s", 3723_500_000_000n],
    ["-1.5h", -5_400_000_000_000n],
    ["+5s", 5_000_000_000n],
    ["100ns", 100n],
    ["1us", 1000n],
    ["1µs", 1000n],
    ["1μs", 1000n],
    ["1ms", 1_000_000n],
    ["0", 0n],
    ["-0", 0n],
    ["0s", 0n],
    [".5s", 500_000_000n],
    ["1.s", 1_000_000_000n],
    ["1h45m47s", 6347_000_000_000n],
    ["9223372036854775807ns", 9223372036854775807n],
    ["-9223372036854775808ns", -9223372036854775808n],
    ["9223372036854775808ns", undefined],
    ["2562048h", undefined],
    ["", undefined],
    ["1", undefined],
    ["s", undefined],
    [".s", undefined],
    ["1d", undefined],
    ["1 s", undefined],
    ["1.0000000000000000000001s", 1_000_000_000n],
    ["0.3333333333h", 1_199_999_999_880n],
  ])("%s", (s, want) => {
    expect(parseGoDuration(s)).toBe(want);
  });
});

describe("RFC 3339 parsing (Go time.Parse)", () => {
  it.each<[string, string | undefined]>([
    ["2009-02-13T23:31:30Z", "2009-02-13T23:31:30Z"],
    ["2009-02-13T23:31:30.123456789Z", "2009-02-13T23:31:30.123456789Z"],
    ["2009-02-13T23:31:30.1234567891Z", "2009-02-13T23:31:30.123456789Z"],
    ["2009-02-13T23:31:30.100Z", "2009-02-13T23:31:30.1Z"],
    ["2009-02-13T23:31:30,5Z", "2009-02-13T23:31:30.5Z"],
    ["2009-02-13T3:31:30Z", "2009-02-13T03:31:30Z"],
    ["2009-02-13T23:31:30+01:00", "2009-02-13T23:31:30+01:00"],
    ["2009-02-13T23:31:30-02:30", "2009-02-13T23:31:30-02:30"],
    ["2009-02-13T23:31:30+00:00", "2009-02-13T23:31:30Z"],
    ["2023-02-03T23:31:20+00:00", "2023-02-03T23:31:20Z"],
    ["2000-02-29T00:00:00Z", "2000-02-29T00:00:00Z"],
    ["2001-02-29T00:00:00Z", undefined],
    ["2009-13-13T23:31:30Z", undefined],
    ["2009-02-13T24:00:00Z", undefined],
    ["2009-02-13T23:60:00Z", undefined],
    ["2009-02-13T23:31:60Z", undefined],
    ["2009-02-13t23:31:30Z", undefined],
    ["2009-02-13T23:31:30z", undefined],
    ["2009-02-13T23:31:30", undefined],
    ["2009-02-13 23:31:30Z", undefined],
    ["2009-02-13T23:31:30Zjunk", undefined],
    ["2009-02-13T23:31:30+0100", undefined],
    ["10000-01-01T00:00:00Z", undefined],
    ["2009-02-13T23:31:30.Z", undefined],
  ])("%s", (s, want) => {
    const t = parseRfc3339(s);
    if (want === undefined) expect(t).toBeUndefined();
    else expect(timestampToString(t!.offsetSeconds === 0 ? new CelTimestamp(t!.nanos) : new ZonedTimestamp(t!.nanos, t!.offsetSeconds))).toBe(want);
  });
});

describe("conversions", () => {
  it("timestamp(string) errors", () => {
    expect(err(() => ts("0000-01-01T00:00:00Z"))).toBe("timestamp overflow");
    expect(err(() => ts("0001-01-01T00:00:00+01:00"))).toBe("timestamp overflow");
    expect(err(() => ts("10000-01-01T00:00:00Z"))).toBe("type conversion error from 'string' to 'google.protobuf.Timestamp'");
    expect(err(() => ts("nope"))).toBe("type conversion error from 'string' to 'google.protobuf.Timestamp'");
    expect(ts("0001-01-01T00:00:00Z").nanos).toBe(-62135596800n * 1_000_000_000n);
    expect(ts("9999-12-31T23:59:59.999999999Z").nanos).toBe(253402300799n * 1_000_000_000n + 999_999_999n);
  });
  it("timestamp(int) and int(timestamp)", () => {
    expect(timestampToString(call("int64_to_timestamp", 1234567890n) as CelTimestamp)).toBe("2009-02-13T23:31:30Z");
    expect(err(() => call("int64_to_timestamp", 253402300800n))).toBe("timestamp overflow");
    expect(call("timestamp_to_int64", ts("2009-02-13T23:31:30Z"))).toBe(1234567890n);
    expect(call("timestamp_to_int64", ts("1969-12-31T23:59:59.5Z"))).toBe(-1n);
  });
  it("duration(string) errors", () => {
    expect(err(() => dur("320000000000s"))).toBe("type conversion error from 'string' to 'google.protobuf.Duration'");
    expect(err(() => call("int64_to_duration", 1n))).toBe("type conversion error from 'int' to 'google.protobuf.Duration'");
  });
  it.each<[bigint, string]>([
    [1_000_000_000_000_000n, "1000000s"],
    [6347_000_000_000n, "6347s"],
    [1_500_000_000n, "1.5s"],
    [-1_500_000_000n, "-1.5s"],
    [2n, "0.000000002s"],
    [0n, "0s"],
    [5400_000_000_000n, "5400s"],
    [123_321_456_789n, "123.321456789s"],
    [9223372036854775807n, "9223372036.854776s"],
  ])("string(duration %s)", (n, want) => {
    expect(durationToString(new CelDuration(n))).toBe(want);
  });
  it("string(timestamp) keeps the parsed offset; int(duration) is nanoseconds", () => {
    expect(call("timestamp_to_string", ts("2009-02-13T23:31:30.5-08:00"))).toBe("2009-02-13T23:31:30.5-08:00");
    expect(call("timestamp_to_string", ts("9999-12-31T23:59:59.999999999Z"))).toBe("9999-12-31T23:59:59.999999999Z");
    expect(call("duration_to_int64", dur("1s"))).toBe(1_000_000_000n);
  });
});

describe("arithmetic", () => {
  const eq = (a: unknown, b: CelTimestamp | CelDuration) => expect((a as CelTimestamp).nanos).toBe(b.nanos);
  it("adds and subtracts", () => {
    eq(call("add_timestamp_duration", ts("2009-02-13T23:00:00Z"), dur("240s")), ts("2009-02-13T23:04:00Z"));
    eq(call("add_duration_timestamp", dur("120s"), ts("2009-02-13T23:01:00Z")), ts("2009-02-13T23:03:00Z"));
    eq(call("add_duration_duration", dur("600s"), dur("50s")), dur("650s"));
    eq(call("add_timestamp_duration", ts("0001-01-01T00:00:01.000000001Z"), dur("-999999999ns")), ts("0001-01-01T00:00:00.000000002Z"));
    eq(call("add_timestamp_duration", ts("0001-01-01T00:00:01.999999999Z"), dur("999999999ns")), ts("0001-01-01T00:00:02.999999998Z"));
    eq(call("subtract_timestamp_duration", ts("2009-02-13T23:10:00Z"), dur("600s")), ts("2009-02-13T23:00:00Z"));
    eq(call("subtract_timestamp_timestamp", ts("2009-02-13T23:31:00Z"), ts("2009-02-13T23:29:00Z")), dur("120s"));
    eq(call("subtract_duration_duration", dur("900s"), dur("42s")), dur("858s"));
  });
  it("keeps the location of the timestamp operand", () => {
    expect(timestampToString(call("add_timestamp_duration", ts("2009-02-13T23:00:00+05:30"), dur("1h")) as CelTimestamp)).toBe(
      "2009-02-14T00:00:00+05:30",
    );
  });
  it("range errors", () => {
    expect(err(() => call("add_timestamp_duration", ts("0001-01-01T00:00:00Z"), dur("-1s")))).toBe("timestamp overflow");
    expect(err(() => call("add_timestamp_duration", ts("9999-12-31T23:59:59Z"), dur("1s")))).toBe("timestamp overflow");
    expect(err(() => call("add_timestamp_duration", ts("9999-12-31T23:59:59.999999999Z"), dur("1ns")))).toBe("timestamp overflow");
    expect(err(() => call("add_timestamp_duration", ts("0001-01-01T00:00:00Z"), dur("-1ns")))).toBe("timestamp overflow");
    expect(err(() => call("subtract_timestamp_timestamp", ts("9999-12-31T23:59:59Z"), ts("0001-01-01T00:00:00Z")))).toBe("integer overflow");
    expect(err(() => call("subtract_timestamp_timestamp", ts("0001-01-01T00:00:00Z"), ts("9999-12-31T23:59:59Z")))).toBe("integer overflow");
    expect(err(() => call("add_duration_duration", dur("2562047h"), dur("2562047h")))).toBe("integer overflow");
    expect(err(() => call("subtract_duration_duration", dur("-2562047h"), dur("2562047h")))).toBe("integer overflow");
    expect(err(() => call("subtract_timestamp_duration", ts("2009-02-13T23:10:00Z"), new CelDuration(-(2n ** 63n))))).toBe("integer overflow");
  });
});

describe("accessors", () => {
  const t = ts("2009-02-13T23:31:30Z");
  it.each<[string, unknown[], bigint]>([
    ["timestamp_to_day_of_month_1_based", [t], 13n],
    ["timestamp_to_day_of_month", [t], 12n],
    ["timestamp_to_day_of_week", [t], 5n],
    ["timestamp_to_day_of_year", [t], 43n],
    ["timestamp_to_year", [t], 2009n],
    ["timestamp_to_hours", [t], 23n],
    ["timestamp_to_milliseconds", [ts("2009-02-13T23:31:20.123456789Z")], 123n],
    ["timestamp_to_minutes", [t], 31n],
    ["timestamp_to_month", [t], 1n],
    ["timestamp_to_seconds", [t], 30n],
    ["timestamp_to_day_of_month_1_based_with_tz", [t, "Australia/Sydney"], 14n],
    ["timestamp_to_day_of_month_with_tz", [t, "US/Central"], 12n],
    ["timestamp_to_day_of_month_with_tz", [t, "+11:00"], 13n],
    ["timestamp_to_day_of_month_with_tz", [ts("2009-02-13T02:00:00Z"), "-02:30"], 11n],
    ["timestamp_to_day_of_month_with_tz", [ts("2009-02-13T02:00:00Z"), "America/St_Johns"], 11n],
    ["timestamp_to_day_of_week_with_tz", [t, "UTC"], 5n],
    ["timestamp_to_day_of_year_with_tz", [t, "US/Central"], 43n],
    ["timestamp_to_year_with_tz", [t, "-09:30"], 2009n],
    ["timestamp_to_hours_with_tz", [t, "02:00"], 1n],
    ["timestamp_to_minutes_with_tz", [t, "Asia/Kathmandu"], 16n],
    ["timestamp_to_month_with_tz", [t, "UTC"], 1n],
    ["timestamp_to_seconds_tz", [t, "-00:00"], 30n],
    ["timestamp_to_year_with_tz", [ts("2023-01-01T05:30:00Z"), "-08:00"], 2022n],
    ["timestamp_to_month_with_tz", [ts("2023-01-01T05:30:00Z"), "America/Los_Angeles"], 11n],
    ["timestamp_to_day_of_year_with_tz", [ts("2023-01-01T05:00:00Z"), "America/Los_Angeles"], 364n],
    ["timestamp_to_day_of_month_with_tz", [ts("2023-07-01T05:00:00Z"), "America/Los_Angeles"], 29n],
    ["timestamp_to_day_of_week_with_tz", [ts("2023-07-16T05:00:00Z"), "America/Los_Angeles"], 6n],
    ["timestamp_to_hours_with_tz", [ts("2023-07-14T10:30:45.123Z"), "America/Los_Angeles"], 3n],
    ["timestamp_to_day_of_year", [ts("2023-01-02T00:00:00Z")], 1n],
    ["timestamp_to_day_of_year", [ts("2024-12-31T00:00:00Z")], 365n],
    ["timestamp_to_day_of_week", [ts("0001-01-01T00:00:00Z")], 1n],
    // Before the zone's first transition Go uses local mean time.
    ["timestamp_to_minutes_with_tz", [ts("1800-01-01T12:00:00Z"), "America/New_York"], 3n],
    // Accessors without a zone use UTC even for a timestamp written with an offset.
    ["timestamp_to_hours", [ts("2009-02-13T23:31:30+05:00")], 18n],
    ["duration_to_hours", [dur("10000s")], 2n],
    ["duration_to_minutes", [dur("3730s")], 62n],
    ["duration_to_seconds", [dur("3730s")], 3730n],
    ["duration_to_seconds", [dur("-3723.456s")], -3723n],
    ["duration_to_milliseconds", [dur("123.321456789s")], 123321n],
    ["duration_to_hours", [new CelDuration(9223372036854775807n)], 2562047n],
    // Go adds the remainder as a float: 59.99999999999999 minutes round up to an hour.
    ["duration_to_hours", [new CelDuration(3600n * 1_000_000_000n * 1_000_000n - 1n)], 1_000_000n],
  ])("%s %#", (id, args, want) => {
    expect(call(id, ...args)).toBe(want);
  });
  it("time zone errors", () => {
    expect(err(() => call("timestamp_to_hours_with_tz", t, "Mars/Olympus"))).toBe("unknown time zone Mars/Olympus");
    expect(err(() => call("timestamp_to_hours_with_tz", t, "america/new_york"))).toBe("unknown time zone america/new_york");
    expect(err(() => call("timestamp_to_hours_with_tz", t, "x:00"))).toBe('strconv.Atoi: parsing "x": invalid syntax');
  });
});

describe("literal validation (cel-go ValidateTimestampLiterals/ValidateDurationLiterals)", () => {
  it.each<[string, string[]]>([
    ["timestamp('2024-01-01T00:00:00Z') < timestamp(x)", []],
    ["timestamp('2024-13-01T00:00:00Z')", ["invalid timestamp argument"]],
    ["[duration('1h'), duration('1d')]", ["invalid duration argument"]],
    ["timestamp(253402300800)", ["invalid timestamp argument"]],
    ["timestamp(0)", []],
    ["duration(5)", ["invalid duration argument"]],
    ["x.all(y, duration('bad') > duration('1s'))", ["invalid duration argument"]],
  ])("%s", async (source, want) => {
    const { Env } = await import("../env.js");
    const { DYN } = await import("../types.js");
    const parsed = new Env({ variables: { x: DYN } }).parse(source);
    expect(validateTimeLiterals(parsed.expr).map((i) => i.message)).toEqual(want);
  });
});
