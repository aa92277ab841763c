/**
 * Timestamps and durations: conversions, arithmetic and accessors, as cel-go
 * v0.26 (the Kubernetes 1.36 engine) implements them.
 *
 * Facts that differ from the CEL spec text, kept because cel-go behaves so:
 * - Durations are Go `time.Duration`s: int64 nanoseconds (about ±292 years),
 *   and overflowing arithmetic fails with "integer overflow".
 * - `timestamp(string)` is Go's `time.Parse(time.RFC3339, s)`; a timestamp
 *   keeps the offset it was written with, so `string(timestamp('...+01:00'))`
 *   prints `+01:00` (see {@link ZonedTimestamp}); accessors default to UTC.
 * - Out-of-range timestamps fail with "timestamp overflow"; unparsable strings
 *   with "type conversion error from 'string' to 'google.protobuf.Timestamp'".
 */
import type { Constant, Expr } from "../ast.js";
import { func, memberOverload, overload, type FunctionDecl } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { DURATION, INT, STRING, TIMESTAMP } from "../types.js";
import { CelDuration, CelTimestamp, INT64_MAX, INT64_MIN } from "../values.js";
import { formatShortestFixed } from "../ext/go-format.js";

/**
 * A timestamp that remembers the UTC offset it was parsed with (Go's
 * `time.Time` location), so that `string()` prints it as cel-go does.
 * Equality and ordering look only at `nanos`.
 */
export class ZonedTimestamp extends CelTimestamp {
  constructor(
    nanos: bigint,
    /** Seconds east of UTC. */
    readonly offsetSeconds: number,
  ) {
    super(nanos);
  }
}

const NANOS = 1_000_000_000n;
/** Unix seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z. */
export const MIN_UNIX_SECONDS = -62135596800n;
export const MAX_UNIX_SECONDS = 253402300799n;

const ERR_TS_OVERFLOW = "timestamp overflow";
const ERR_INT_OVERFLOW = "integer overflow";

function offsetOf(t: CelTimestamp): number {
  return t instanceof ZonedTimestamp ? t.offsetSeconds : 0;
}

/** A timestamp with the same location as `like`. */
function withOffset(nanos: bigint, offset: number): CelTimestamp {
  return offset === 0 ? new CelTimestamp(nanos) : new ZonedTimestamp(nanos, offset);
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

function checkInt64(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw new CelEvalError(ERR_INT_OVERFLOW);
  return v;
}

function checkTimestamp(nanos: bigint): bigint {
  const sec = floorDiv(nanos, NANOS);
  if (sec < MIN_UNIX_SECONDS || sec > MAX_UNIX_SECONDS) throw new CelEvalError(ERR_TS_OVERFLOW);
  return nanos;
}

// ---------------------------------------------------------------------------
// Calendar (proleptic Gregorian, as Go's time package).

/** Days since 1970-01-01 of a civil date. */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Civil date of a day count since 1970-01-01. */
export function civilFromDays(z: number): { year: number; month: number; day: number } {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function isLeap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Broken-down local time of a timestamp at a fixed offset. */
interface Civil {
  year: number;
  month: number; // 1-12
  day: number; // 1-31
  yearDay: number; // 1-366
  weekday: number; // 0 = Sunday
  hour: number;
  minute: number;
  second: number;
  nanos: number;
}

function civil(nanos: bigint, offsetSeconds: number): Civil {
  const secs = floorDiv(nanos, NANOS);
  const ns = Number(nanos - secs * NANOS);
  const local = Number(secs) + offsetSeconds;
  const days = Math.floor(local / 86400);
  const sod = local - days * 86400;
  const { year, month, day } = civilFromDays(days);
  const yearDay = DAYS_BEFORE[month - 1]! + day + (month > 2 && isLeap(year) ? 1 : 0);
  return {
    year,
    month,
    day,
    yearDay,
    weekday: (((days + 4) % 7) + 7) % 7,
    hour: Math.floor(sod / 3600),
    minute: Math.floor((sod % 3600) / 60),
    second: sod % 60,
    nanos: ns,
  };
}

// ---------------------------------------------------------------------------
// Parsing and printing.

function digitsAt(s: string, i: number, n: number): number | undefined {
  if (i + n > s.length) return undefined;
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k) - 48;
    if (c < 0 || c > 9) return undefined;
    v = v * 10 + c;
  }
  return v;
}

/**
 * Go's `time.Parse(time.RFC3339, s)`, including the leniencies of its general
 * parser (one-digit hour, ',' before the fraction, fractions longer than nine
 * digits truncated, offsets up to 24:60). Returns undefined when Go fails.
 */
export function parseRfc3339(s: string): { nanos: bigint; offsetSeconds: number } | undefined {
  const year = digitsAt(s, 0, 4);
  if (year === undefined || s[4] !== "-") return undefined;
  const month = digitsAt(s, 5, 2);
  if (month === undefined || s[7] !== "-") return undefined;
  const day = digitsAt(s, 8, 2);
  if (day === undefined || s[10] !== "T") return undefined;
  let i = 11;
  let hour = digitsAt(s, i, 2);
  if (hour !== undefined) i += 2;
  else {
    hour = digitsAt(s, i, 1);
    if (hour === undefined) return undefined;
    i += 1;
  }
  if (s[i] !== ":") return undefined;
  const minute = digitsAt(s, i + 1, 2);
  if (minute === undefined || s[i + 3] !== ":") return undefined;
  const second = digitsAt(s, i + 4, 2);
  if (second === undefined) return undefined;
  i += 6;
  let frac = 0;
  if (i + 1 < s.length && (s[i] === "." || s[i] === ",") && s.charCodeAt(i + 1) >= 48 && s.charCodeAt(i + 1) <= 57) {
    let j = i + 1;
    while (j < s.length && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
    const digits = s.slice(i + 1, Math.min(j, i + 10));
    frac = Number(digits.padEnd(9, "0"));
    i = j;
  }
  if (month < 1 || month > 12) return undefined;
  if (day < 1 || day > daysIn(month, year)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (s[i] === "Z" && i + 1 === s.length) {
    offset = 0;
  } else {
    if (s.length - i !== 6 || s[i + 3] !== ":") return undefined;
    const sign = s[i];
    const oh = digitsAt(s, i + 1, 2);
    const om = digitsAt(s, i + 4, 2);
    if (oh === undefined || om === undefined || oh > 24 || om > 60) return undefined;
    if (sign !== "+" && sign !== "-") return undefined;
    offset = (oh * 60 + om) * 60 * (sign === "-" ? -1 : 1);
  }
  const days = daysFromCivil(year, month, day);
  const secs = BigInt(days) * 86400n + BigInt(hour * 3600 + minute * 60 + second - offset);
  return { nanos: secs * NANOS + BigInt(frac), offsetSeconds: offset };
}

/** `timestamp(string)`. */
export function stringToTimestamp(s: string): CelTimestamp {
  const t = parseRfc3339(s);
  if (t === undefined) throw new CelEvalError("type conversion error from 'string' to 'google.protobuf.Timestamp'");
  checkTimestamp(t.nanos);
  return withOffset(t.nanos, t.offsetSeconds);
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, "0");
}

/** Go's `t.Format(time.RFC3339Nano)` at the given offset (UTC by default). */
export function formatRfc3339(nanos: bigint, offsetSeconds = 0): string {
  const c = civil(nanos, offsetSeconds);
  let out = `${pad(c.year, 4)}-${pad(c.month, 2)}-${pad(c.day, 2)}T${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)}`;
  if (c.nanos !== 0) out += "." + pad(c.nanos, 9).replace(/0+$/, "");
  if (offsetSeconds === 0) return out + "Z";
  const a = Math.abs(offsetSeconds);
  return out + (offsetSeconds < 0 ? "-" : "+") + pad(Math.floor(a / 3600), 2) + ":" + pad(Math.floor((a % 3600) / 60), 2);
}

/** `string(timestamp)`: RFC 3339 with the timestamp's own offset (cel-go keeps the parsed location). */
export function timestampToString(t: CelTimestamp): string {
  return formatRfc3339(t.nanos, offsetOf(t));
}

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["µs", 1_000n], // U+00B5
  ["μs", 1_000n], // U+03BC
  ["ms", 1_000_000n],
  ["s", NANOS],
  ["m", 60n * NANOS],
  ["h", 3600n * NANOS],
]);

const TWO_63 = 1n << 63n;

/** Go's `time.ParseDuration`; undefined where Go returns an error. */
export function parseGoDuration(orig: string): bigint | undefined {
  let s = orig;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") return undefined;
  let d = 0n;
  const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
  while (s !== "") {
    if (!(s[0] === "." || isDigit(s[0]))) return undefined;
    // leading integer
    let i = 0;
    let v = 0n;
    while (i < s.length && isDigit(s[i])) {
      if (v > TWO_63 / 10n) return undefined; // overflow
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > TWO_63) return undefined;
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s !== "" && s[0] === ".") {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (j < s.length && isDigit(s[j])) {
        if (!overflow) {
          if (f > (TWO_63 - 1n) / 10n) {
            overflow = true;
          } else {
            const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
            if (y > TWO_63) overflow = true;
            else {
              f = y;
              scale *= 10;
            }
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) return undefined;
    let u = 0;
    while (u < s.length && !(s[u] === "." || isDigit(s[u]))) u++;
    if (u === 0) return undefined;
    const unit = UNITS.get(s.slice(0, u));
    if (unit === undefined) return undefined;
    s = s.slice(u);
    if (v > TWO_63 / unit) return undefined;
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO_63) return undefined;
    }
    d += v;
    if (d > TWO_63) return undefined;
  }
  if (neg) return -d;
  if (d > TWO_63 - 1n) return undefined;
  return d;
}

/** `duration(string)`. */
export function stringToDuration(s: string): CelDuration {
  const d = parseGoDuration(s);
  if (d === undefined) throw new CelEvalError("type conversion error from 'string' to 'google.protobuf.Duration'");
  return new CelDuration(d);
}

/** Go's `Duration.Seconds()`. */
function durationSeconds(nanos: bigint): number {
  const sec = nanos / NANOS;
  const ns = nanos % NANOS;
  return Number(sec) + Number(ns) / 1e9;
}

/** `string(duration)`: seconds with the shortest decimal that round-trips, then `s` ("1.5s", "0.000000002s"). */
export function durationToString(d: CelDuration): string {
  return formatShortestFixed(durationSeconds(d.nanos)) + "s";
}

// ---------------------------------------------------------------------------
// Arithmetic

export function addTimestampDuration(t: CelTimestamp, d: CelDuration): CelTimestamp {
  return withOffset(checkTimestamp(t.nanos + d.nanos), offsetOf(t));
}

export function subtractTimestampDuration(t: CelTimestamp, d: CelDuration): CelTimestamp {
  checkInt64(-d.nanos);
  return addTimestampDuration(t, new CelDuration(-d.nanos));
}

export function subtractTimestamps(a: CelTimestamp, b: CelTimestamp): CelDuration {
  const s1 = floorDiv(a.nanos, NANOS);
  const s2 = floorDiv(b.nanos, NANOS);
  const n1 = a.nanos - s1 * NANOS;
  const n2 = b.nanos - s2 * NANOS;
  const sec = checkInt64(s1 - s2);
  const scaled = checkInt64(sec * NANOS);
  return new CelDuration(checkInt64(scaled + (n1 - n2)));
}

export function addDurations(a: CelDuration, b: CelDuration): CelDuration {
  return new CelDuration(checkInt64(a.nanos + b.nanos));
}

export function subtractDurations(a: CelDuration, b: CelDuration): CelDuration {
  return new CelDuration(checkInt64(a.nanos - b.nanos));
}

// ---------------------------------------------------------------------------
// Time zones

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(name: string): Intl.DateTimeFormat | undefined {
  let f = zoneFormatters.get(name);
  if (f !== undefined) return f;
  // Go's LoadLocation rejects these outright; ICU would accept some of them.
  if (name.includes("..") || /^[+\-0-9/\\]/.test(name) || /^(GMT|UTC?)[+-]/.test(name)) return undefined;
  try {
    f = new Intl.DateTimeFormat("en-US", { timeZone: name, timeZoneName: "longOffset", year: "numeric" });
  } catch {
    return undefined;
  }
  // ICU matches names case-insensitively; Go's tzdata lookup does not.
  const resolved = f.resolvedOptions().timeZone;
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) return undefined;
  zoneFormatters.set(name, f);
  return f;
}

/** Offset in seconds east of UTC of an IANA zone at an instant. */
function zoneOffsetAt(f: Intl.DateTimeFormat, nanos: bigint): number {
  const ms = Number(floorDiv(nanos, 1_000_000n));
  const part = f.formatToParts(new Date(ms)).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /^GMT(?:([+-])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?)?$/.exec(part);
  if (m === null || m[1] === undefined) return 0;
  const secs = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  return m[1] === "-" ? -secs : secs;
}

/** Go's `strconv.Atoi`, with its error message. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new CelEvalError(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v < INT64_MIN || v > INT64_MAX) throw new CelEvalError(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return Number(v);
}

/**
 * The offset (seconds east of UTC) of time zone `tz` at instant `nanos`, as
 * cel-go's `inTimeZone`: a string with ':' is a numeric offset `[+-]hh:mm`,
 * anything else an IANA name loaded with Go's `time.LoadLocation`.
 */
export function timeZoneOffset(tz: string, nanos: bigint): number {
  const colon = tz.indexOf(":");
  if (colon === -1) {
    if (tz === "" || tz === "UTC" || tz === "Local") return 0;
    const f = zoneFormatter(tz);
    if (f === undefined) throw new CelEvalError(`unknown time zone ${tz}`);
    return zoneOffsetAt(f, nanos);
  }
  const hr = atoi(tz.slice(0, colon));
  const min = atoi(tz.slice(colon + 1));
  const offsetMinutes = tz[0] === "-" ? hr * 60 - min : hr * 60 + min;
  return offsetMinutes * 60;
}

// ---------------------------------------------------------------------------
// Accessors

type Field = (c: Civil) => number;

const TIMESTAMP_FIELDS: ReadonlyArray<readonly [name: string, id: string, tzId: string, field: Field]> = [
  ["getFullYear", "timestamp_to_year", "timestamp_to_year_with_tz", (c) => c.year],
  ["getMonth", "timestamp_to_month", "timestamp_to_month_with_tz", (c) => c.month - 1],
  ["getDayOfYear", "timestamp_to_day_of_year", "timestamp_to_day_of_year_with_tz", (c) => c.yearDay - 1],
  ["getDayOfMonth", "timestamp_to_day_of_month", "timestamp_to_day_of_month_with_tz", (c) => c.day - 1],
  ["getDate", "timestamp_to_day_of_month_1_based", "timestamp_to_day_of_month_1_based_with_tz", (c) => c.day],
  ["getDayOfWeek", "timestamp_to_day_of_week", "timestamp_to_day_of_week_with_tz", (c) => c.weekday],
  ["getHours", "timestamp_to_hours", "timestamp_to_hours_with_tz", (c) => c.hour],
  ["getMinutes", "timestamp_to_minutes", "timestamp_to_minutes_with_tz", (c) => c.minute],
  ["getSeconds", "timestamp_to_seconds", "timestamp_to_seconds_tz", (c) => c.second],
  ["getMilliseconds", "timestamp_to_milliseconds", "timestamp_to_milliseconds_with_tz", (c) => Math.floor(c.nanos / 1e6)],
];

/** Go's Hours()/Minutes()/Seconds(): whole units plus the remainder as a float, then truncated to int. */
function durationUnits(nanos: bigint, unit: bigint): bigint {
  const whole = nanos / unit;
  const rest = nanos % unit;
  return BigInt(Math.trunc(Number(whole) + Number(rest) / Number(unit)));
}

const DURATION_FIELDS: ReadonlyArray<readonly [name: string, id: string, get: (nanos: bigint) => bigint]> = [
  ["getHours", "duration_to_hours", (n) => durationUnits(n, 3600n * NANOS)],
  ["getMinutes", "duration_to_minutes", (n) => durationUnits(n, 60n * NANOS)],
  ["getSeconds", "duration_to_seconds", (n) => durationUnits(n, NANOS)],
  ["getMilliseconds", "duration_to_milliseconds", (n) => n / 1_000_000n],
];

function accessorFunctions(): FunctionDecl[] {
  return TIMESTAMP_FIELDS.map(([name, id, tzId, field]) => {
    const overloads = [
      memberOverload(id, [TIMESTAMP], INT, (t: CelTimestamp) => BigInt(field(civil(t.nanos, 0)))),
      memberOverload(tzId, [TIMESTAMP, STRING], INT, (t: CelTimestamp, tz: string) =>
        BigInt(field(civil(t.nanos, timeZoneOffset(tz, t.nanos)))),
      ),
    ];
    const dur = DURATION_FIELDS.find(([n]) => n === name);
    if (dur !== undefined) {
      const get = dur[2];
      overloads.push(memberOverload(dur[1], [DURATION], INT, (d: CelDuration) => get(d.nanos)));
    }
    return func(name, ...overloads);
  });
}

// ---------------------------------------------------------------------------

export const TIME_FUNCTIONS: readonly FunctionDecl[] = [
  func(
    "timestamp",
    overload("timestamp_to_timestamp", [TIMESTAMP], TIMESTAMP, (t: CelTimestamp) => t),
    overload("string_to_timestamp", [STRING], TIMESTAMP, stringToTimestamp),
    overload("int64_to_timestamp", [INT], TIMESTAMP, (secs: bigint) => {
      if (secs < MIN_UNIX_SECONDS || secs > MAX_UNIX_SECONDS) throw new CelEvalError(ERR_TS_OVERFLOW);
      return new CelTimestamp(secs * NANOS);
    }),
  ),
  func(
    "duration",
    overload("duration_to_duration", [DURATION], DURATION, (d: CelDuration) => d),
    overload("string_to_duration", [STRING], DURATION, stringToDuration),
    // Declared by cel-go v0.26 (Kubernetes 1.36) but without a conversion: it always fails at run time.
    overload("int64_to_duration", [INT], DURATION, () => {
      throw new CelEvalError("type conversion error from 'int' to 'google.protobuf.Duration'");
    }),
  ),
  func(
    "string",
    overload("timestamp_to_string", [TIMESTAMP], STRING, timestampToString),
    overload("duration_to_string", [DURATION], STRING, durationToString),
  ),
  func(
    "int",
    overload("timestamp_to_int64", [TIMESTAMP], INT, (t: CelTimestamp) => floorDiv(t.nanos, NANOS)),
    overload("duration_to_int64", [DURATION], INT, (d: CelDuration) => d.nanos),
  ),
  func(
    "_+_",
    overload("add_timestamp_duration", [TIMESTAMP, DURATION], TIMESTAMP, addTimestampDuration),
    overload("add_duration_timestamp", [DURATION, TIMESTAMP], TIMESTAMP, (d: CelDuration, t: CelTimestamp) =>
      addTimestampDuration(t, d),
    ),
    overload("add_duration_duration", [DURATION, DURATION], DURATION, addDurations),
  ),
  func(
    "_-_",
    overload("subtract_timestamp_timestamp", [TIMESTAMP, TIMESTAMP], DURATION, subtractTimestamps),
    overload("subtract_timestamp_duration", [TIMESTAMP, DURATION], TIMESTAMP, subtractTimestampDuration),
    overload("subtract_duration_duration", [DURATION, DURATION], DURATION, subtractDurations),
  ),
  ...accessorFunctions(),
];

// ---------------------------------------------------------------------------
// Compile-time literal validation

/**
 * cel-go's `ValidateTimestampLiterals()` / `ValidateDurationLiterals()` AST
 * validators (Kubernetes enables both): every `timestamp(<literal>)` and
 * `duration(<literal>)` call is evaluated once after type-checking, and one that
 * fails is reported as "invalid timestamp argument" / "invalid duration
 * argument" at the literal. Returns the issues for the checker to report.
 */
export function validateTimeLiterals(expr: Expr): { id: number; message: string }[] {
  const issues: { id: number; message: string }[] = [];
  const visit = (e: Expr): void => {
    switch (e.kind) {
      case "select":
        visit(e.operand);
        return;
      case "call":
        if (e.target !== undefined) visit(e.target);
        for (const a of e.args) visit(a);
        if ((e.fn === "timestamp" || e.fn === "duration") && e.args.length >= 1 && e.args[0]!.kind === "const") {
          const lit = e.args[0]!;
          if (!literalConverts(e.fn, lit.value)) issues.push({ id: lit.id, message: `invalid ${e.fn} argument` });
        }
        return;
      case "list":
        e.elements.forEach(visit);
        return;
      case "map":
        for (const en of e.entries) {
          visit(en.key);
          visit(en.value);
        }
        return;
      case "struct":
        for (const f of e.fields) visit(f.value);
        return;
      case "comprehension":
        [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result].forEach(visit);
        return;
      default:
        return;
    }
  };
  visit(expr);
  return issues;
}

function literalConverts(fn: "timestamp" | "duration", c: Constant): boolean {
  try {
    if (c.kind === "string") {
      if (fn === "timestamp") stringToTimestamp(c.value);
      else stringToDuration(c.value);
      return true;
    }
    if (c.kind === "int" && fn === "timestamp") return c.value >= MIN_UNIX_SECONDS && c.value <= MAX_UNIX_SECONDS;
    return false; // duration(int) always fails in cel-go v0.26; other literal kinds have no overload
  } catch (e) {
    if (e instanceof CelEvalError) return false;
    throw e;
  }
}
