/**
 * Kyverno's time library (`kyverno.time`, kyverno/sdk `extensions/cel/libs/time`):
 *
 * - `time.now() → timestamp`: the current time (the clock is injectable for tests
 *   and reproducible offline runs).
 * - `time.truncate(timestamp, duration) → timestamp`: Go `Time.Truncate`, rounding
 *   down to a multiple of the duration **since the zero time** (0001-01-01), so
 *   `24h` truncates to midnight UTC; a duration ≤ 0 leaves the time unchanged.
 * - `time.toCron(timestamp) → string`: `"<minute> <hour> <day> <month> <weekday>"`
 *   (no padding, Sunday = 0) in the timestamp's own offset: Go's `time.Time`
 *   keeps the offset a timestamp was parsed with (UTC otherwise).
 */
import { func, overload, type Library } from "../../cel/decls.js";
import { DURATION, STRING, TIMESTAMP } from "../../cel/types.js";
import { CelDuration, CelTimestamp } from "../../cel/values.js";
import { ZonedTimestamp, civilFromDays } from "../../cel/std/time.js";

const NANOS = 1_000_000_000n;
/** Nanoseconds from 0001-01-01T00:00:00Z to the Unix epoch. */
const ZERO_TO_UNIX = 62135596800n * NANOS;

export function truncate(t: CelTimestamp, d: CelDuration): CelTimestamp {
  if (d.nanos <= 0n) return t;
  const sinceZero = t.nanos + ZERO_TO_UNIX;
  const rem = ((sinceZero % d.nanos) + d.nanos) % d.nanos;
  const nanos = t.nanos - rem;
  return t instanceof ZonedTimestamp ? new ZonedTimestamp(nanos, t.offsetSeconds) : new CelTimestamp(nanos);
}

export function toCron(t: CelTimestamp): string {
  const offset = t instanceof ZonedTimestamp ? BigInt(t.offsetSeconds) : 0n;
  let secs = t.nanos / NANOS + offset;
  if (t.nanos % NANOS < 0n) secs -= 1n;
  const days = Number((secs - (((secs % 86400n) + 86400n) % 86400n)) / 86400n);
  const daySecs = Number(((secs % 86400n) + 86400n) % 86400n);
  const { month, day } = civilFromDays(days);
  const weekday = (((days + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
  return `${Math.floor((daySecs % 3600) / 60)} ${Math.floor(daySecs / 3600)} ${day} ${month} ${weekday}`;
}

/** The current time as a timestamp (millisecond precision from `Date.now()`). */
export const systemClock = (): CelTimestamp => new CelTimestamp(BigInt(Date.now()) * 1_000_000n);

/** The library with the given clock (default: the system clock). */
export function timeLibrary(now: () => CelTimestamp = systemClock): Library {
  return {
    name: "kyverno.time",
    functions: [
      func("time.now", overload("time_now", [], TIMESTAMP, () => now())),
      func("time.truncate", overload("time_truncate", [TIMESTAMP, DURATION], TIMESTAMP, truncate)),
      func("time.toCron", overload("time_to_cron", [TIMESTAMP], STRING, toCron)),
    ],
  };
}

export const TIME_LIBRARY: Library = timeLibrary();
