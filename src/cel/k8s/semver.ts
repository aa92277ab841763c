/**
 * The Kubernetes semver library (`kubernetes.Semver`): `semver(string)`,
 * `isSemver(string)`, and from version 1 (Kubernetes 1.33+) `semver(string, bool)`
 * and `isSemver(string, bool)` which normalise first; Semver methods `major`,
 * `minor`, `patch`, `isGreaterThan`, `isLessThan`, `compareTo`. As
 * `k8s.io/apiserver/pkg/cel/library/semverlib.go` over `github.com/blang/semver/v4`:
 *
 * - `Parse` is strict: exactly `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]`, no `v`,
 *   no leading zeroes, no whitespace; its error messages are blang's.
 * - Normalisation (Kubernetes' `normalizeAndParse`, not blang's `ParseTolerant`:
 *   it does not trim spaces): strip one leading `v`, strip leading zeroes of
 *   the dot-separated parts, pad `1` / `1.2` with `.0`; a short version with
 *   `-` or `+` is the error "short version cannot contain PreRelease/Build meta data".
 * - Ordering is semver precedence (build metadata ignored); `==` is `Compare == 0`.
 * - `major()` etc. are Go `types.Int(uint64)`: parts above 2^63-1 wrap negative.
 */
import { func, memberOverload, overload, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { goQuote } from "../ext/go-format.js";
import { BOOL, INT, STRING, opaqueType } from "../types.js";
import { CelObject, type CelValue } from "../values.js";
import { FIXED_1, STRING_TRAVERSAL_COST_FACTOR, UNKNOWN_SIZE, actualSize, multiplyByCostFactor, scaleRange, type CostEntry } from "./cost-model.js";

export const SEMVER_TYPE = opaqueType("kubernetes.Semver");

const UINT64_MAX = 2n ** 64n - 1n;

interface PRVersion {
  readonly isNum: boolean;
  readonly num: bigint;
  readonly str: string;
}

export class Semver extends CelObject {
  override readonly celType = SEMVER_TYPE;
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly PRVersion[],
    readonly build: readonly string[],
  ) {
    super();
  }

  /** blang `Version.Compare`: -1, 0 or 1 by semver precedence. */
  compare(o: Semver): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const) {
      if (a !== b) return a > b ? 1 : -1;
    }
    if (this.pre.length === 0 && o.pre.length === 0) return 0;
    if (this.pre.length === 0) return 1;
    if (o.pre.length === 0) return -1;
    let i = 0;
    for (; i < this.pre.length && i < o.pre.length; i++) {
      const c = comparePR(this.pre[i]!, o.pre[i]!);
      if (c !== 0) return c;
    }
    if (i === this.pre.length && i === o.pre.length) return 0;
    return i === this.pre.length ? -1 : 1;
  }

  /** Go `Semver.Equal`: another type is "no such overload". */
  override equals(other: CelValue): boolean {
    if (!(other instanceof Semver)) throw new CelEvalError("no such overload");
    return this.compare(other) === 0;
  }

  /** blang `Version.String`. */
  override toString(): string {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.pre.length > 0) s += "-" + this.pre.map((p) => (p.isNum ? p.num.toString() : p.str)).join(".");
    if (this.build.length > 0) s += "+" + this.build.join(".");
    return s;
  }
}

function comparePR(v: PRVersion, o: PRVersion): number {
  if (v.isNum && !o.isNum) return -1;
  if (!v.isNum && o.isNum) return 1;
  if (v.isNum) return v.num === o.num ? 0 : v.num > o.num ? 1 : -1;
  // Go compares strings bytewise; prerelease identifiers are ASCII.
  return v.str === o.str ? 0 : v.str > o.str ? 1 : -1;
}

export class SemverParseError extends Error {}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const hasLeadingZeroes = (s: string): boolean => s.length > 1 && s[0] === "0";

/** Go `strconv.ParseUint(s, 10, 64)` on a digits-only string. */
function parseUint(s: string): bigint {
  if (s.length === 0) throw new SemverParseError(`strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > UINT64_MAX) throw new SemverParseError(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return v;
}

/** Go `strings.SplitN(s, sep, n)` for n > 0. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

function numberPart(s: string, name: "major" | "minor" | "patch"): bigint {
  const label = name[0]!.toUpperCase() + name.slice(1);
  if (!NUMBERS.test(s)) throw new SemverParseError(`Invalid character(s) found in ${name} number ${goQuote(s)}`);
  if (hasLeadingZeroes(s)) throw new SemverParseError(`${label} number must not contain leading zeroes ${goQuote(s)}`);
  return parseUint(s);
}

/** blang/semver v4 `Parse`. Throws {@link SemverParseError} with blang's message. */
export function parseSemver(s: string): Semver {
  if (s.length === 0) throw new SemverParseError("Version string empty");
  const parts = splitN(s, ".", 3);
  if (parts.length !== 3) throw new SemverParseError("No Major.Minor.Patch elements found");
  const major = numberPart(parts[0]!, "major");
  const minor = numberPart(parts[1]!, "minor");
  let patchStr = parts[2]!;
  let build: string[] = [];
  let prerelease: string[] = [];
  const b = patchStr.indexOf("+");
  if (b >= 0) {
    build = patchStr.slice(b + 1).split(".");
    patchStr = patchStr.slice(0, b);
  }
  const p = patchStr.indexOf("-");
  if (p >= 0) {
    prerelease = patchStr.slice(p + 1).split(".");
    patchStr = patchStr.slice(0, p);
  }
  const patch = numberPart(patchStr, "patch");
  const pre: PRVersion[] = [];
  for (const prstr of prerelease) {
    if (prstr.length === 0) throw new SemverParseError("Prerelease is empty");
    if (NUMBERS.test(prstr)) {
      if (hasLeadingZeroes(prstr)) {
        throw new SemverParseError(`Numeric PreRelease version must not contain leading zeroes ${goQuote(prstr)}`);
      }
      pre.push({ isNum: true, num: parseUint(prstr), str: "" });
    } else if (ALPHANUM.test(prstr)) {
      pre.push({ isNum: false, num: 0n, str: prstr });
    } else {
      throw new SemverParseError(`Invalid character(s) found in prerelease ${goQuote(prstr)}`);
    }
  }
  for (const str of build) {
    if (str.length === 0) throw new SemverParseError("Build meta data is empty");
    if (!ALPHANUM.test(str)) throw new SemverParseError(`Invalid character(s) found in build meta data ${goQuote(str)}`);
  }
  return new Semver(major, minor, patch, pre, build);
}

/** Kubernetes `normalizeAndParse`. */
export function normalizeAndParseSemver(s: string): Semver {
  if (s.startsWith("v")) s = s.slice(1);
  const parts = splitN(s, ".", 3);
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i]!;
    if (p.length > 1) {
      p = p.replace(/^0+/, "");
      if (p.length === 0 || !(p[0]! >= "0" && p[0]! <= "9")) p = "0" + p;
      parts[i] = p;
    }
  }
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) {
      throw new SemverParseError("short version cannot contain PreRelease/Build meta data");
    }
    while (parts.length < 3) parts.push("0");
  }
  return parseSemver(parts.join("."));
}

function toSemver(s: string, normalize = false): Semver {
  try {
    return normalize ? normalizeAndParseSemver(s) : parseSemver(s);
  } catch (e) {
    if (e instanceof SemverParseError) throw new CelEvalError(e.message);
    throw e;
  }
}

function isSemver(s: string, normalize = false): boolean {
  try {
    if (normalize) normalizeAndParseSemver(s);
    else parseSemver(s);
    return true;
  } catch (e) {
    if (e instanceof SemverParseError) return false;
    throw e;
  }
}

/** `types.Int(uint64)`: two's-complement wrap. */
const toInt = (v: bigint): bigint => BigInt.asIntN(64, v);

/** The semver library at `version` (Kubernetes 1.36 uses version 1). */
export function semverLibrary(version = 1): Library {
  const S = SEMVER_TYPE;
  const semverOverloads = [overload("string_to_semver", [STRING], S, (s: string) => toSemver(s))];
  const isSemverOverloads = [overload("is_semver_string", [STRING], BOOL, (s: string) => isSemver(s))];
  if (version >= 1) {
    semverOverloads.push(overload("string_bool_to_semver", [STRING, BOOL], S, toSemver));
    isSemverOverloads.push(overload("is_semver_string_bool", [STRING, BOOL], BOOL, isSemver));
  }
  return {
    name: "kubernetes.Semver",
    get costs() {
      return cost;
    },
    functions: [
      func("semver", ...semverOverloads),
      func("isSemver", ...isSemverOverloads),
      func("isGreaterThan", memberOverload("semver_is_greater_than", [S, S], BOOL, (a: Semver, b: Semver) => a.compare(b) === 1)),
      func("isLessThan", memberOverload("semver_is_less_than", [S, S], BOOL, (a: Semver, b: Semver) => a.compare(b) === -1)),
      func("compareTo", memberOverload("semver_compare_to", [S, S], INT, (a: Semver, b: Semver) => BigInt(a.compare(b)))),
      func("major", memberOverload("semver_major", [S], INT, (v: Semver) => toInt(v.major))),
      func("minor", memberOverload("semver_minor", [S], INT, (v: Semver) => toInt(v.minor))),
      func("patch", memberOverload("semver_patch", [S], INT, (v: Semver) => toInt(v.patch))),
    ],
  };
}

/** The library as Kubernetes 1.36 has it (version 1). */
export const SEMVER_LIBRARY: Library = semverLibrary(1);

// ---------------------------------------------------------------------------
// Cost (k8s.io/apiserver pkg/cel/library/cost.go), for the cost estimator.

const nominal: Pick<CostEntry, "estimate" | "actual"> = { estimate: () => FIXED_1, actual: () => 1n };
const traversal = (fn: string): CostEntry => ({
  function: fn,
  estimate: (args) => scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR),
  actual: (args) => multiplyByCostFactor(actualSize(args[0]), STRING_TRAVERSAL_COST_FACTOR),
  note: "string traversal: ceil(size(s) × 0.1)",
});

/** Cost of every overload of the semver library, by overload id (`_==_` on two Semvers under `equals_semver`). */
export const cost: Readonly<Record<string, CostEntry>> = {
  string_to_semver: traversal("semver"),
  string_bool_to_semver: traversal("semver"),
  is_semver_string: traversal("isSemver"),
  is_semver_string_bool: traversal("isSemver"),
  semver_is_greater_than: { function: "isGreaterThan", ...nominal, note: "1" },
  semver_is_less_than: { function: "isLessThan", ...nominal, note: "1" },
  semver_compare_to: { function: "compareTo", ...nominal, note: "1" },
  semver_major: { function: "major", ...nominal, note: "1" },
  semver_minor: { function: "minor", ...nominal, note: "1" },
  semver_patch: { function: "patch", ...nominal, note: "1" },
  equals_semver: { function: "_==_", ...nominal, note: "equality of two kubernetes.Semver values: 1" },
};
