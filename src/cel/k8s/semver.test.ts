import { describe, expect, it } from "vitest";
import { outcome, k8sEnv, type Outcome } from "./test-harness.js";
import { SEMVER_LIBRARY, cost, parseSemver, semverLibrary } from "./semver.js";

const env = k8sEnv([SEMVER_LIBRARY]);
const v0 = k8sEnv([semverLibrary(0)]);
const v = (value: unknown): Outcome => ({ value: value as never });
const evalErr = (evalError: string): Outcome => ({ evalError });

// Expected values from k8s.io/apiserver pkg/cel/library/semver_test.go (TestSemver), plus blang/semver's messages.
describe("semver library (Kubernetes TestSemver)", () => {
  it.each<[string, Outcome]>([
    [`semver("1.2.3") == semver("1.2.3")`, v(true)],
    [`semver("v1.0")`, evalErr("No Major.Minor.Patch elements found")],
    [`isSemver("1.2.3-beta.1+build.1")`, v(true)],
    [`isSemver("")`, v(false)],
    [`isSemver("v1.0.0")`, v(false)],
    [`isSemver(" 1.0.0")`, v(false)],
    [`isSemver("1. 0.0")`, v(false)],
    [`isSemver("1.0.0 ")`, v(false)],
    [`isSemver("01.01.01")`, v(false)],
    [`isSemver("1")`, v(false)],
    [`isSemver("1.1")`, v(false)],
    [`isSemver("", true)`, v(false)],
    [`isSemver(" 1.0.0", true)`, v(false)],
    [`isSemver("1. 0.0", true)`, v(false)],
    [`isSemver("1.0.0 ", true)`, v(false)],
    [`isSemver("v1.0.0", true)`, v(true)],
    [`isSemver("01.01.01", true)`, v(true)],
    [`isSemver("1", true)`, v(true)],
    [`isSemver("1.1", true)`, v(true)],
    [`semver("v01.01", true) == semver("1.1.0")`, v(true)],
    [`semver("1.2.3") == semver("1.0.0")`, v(false)],
    [`semver("1.0.0").isLessThan(semver("1.2.3"))`, v(true)],
    [`semver("1.0.0").isLessThan(semver("1.0.0"))`, v(false)],
    [`semver("1.2.3").isGreaterThan(semver("1.0.0"))`, v(true)],
    [`semver("1.0.0").isGreaterThan(semver("1.0.0"))`, v(false)],
    [`semver("1.2.3").compareTo(semver("1.2.3"))`, v(0n)],
    [`semver("1.0.0").compareTo(semver("1.2.3"))`, v(-1n)],
    [`semver("1.2.3").compareTo(semver("1.0.0"))`, v(1n)],
    [`semver("1.2.3").major()`, v(1n)],
    [`semver("1.2.3").minor()`, v(2n)],
    [`semver("1.2.3").patch()`, v(3n)],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr)).toEqual(want);
  });

  it("rejects wrong argument types at compile time", () => {
    const o = outcome(env, `isSemver([1, 2, 3])`) as { compileError: string };
    expect(o.compileError).toMatch(/found no matching overload for 'isSemver' applied to/);
    expect(outcome(env, `semver("1.0.0").major(1)`)).toHaveProperty("compileError");
    expect(outcome(env, `semver("1.0.0").isLessThan("1.0.1")`)).toHaveProperty("compileError");
  });

  it("version 0 has no normalising overloads", () => {
    expect(outcome(v0, `isSemver("1", true)`)).toHaveProperty("compileError");
    expect(outcome(v0, `isSemver("1.0.0")`)).toEqual(v(true));
  });
});

describe("semver parsing, precedence and errors (blang/semver v4)", () => {
  it.each<[string, Outcome]>([
    [`semver("")`, evalErr("Version string empty")],
    [`semver("a.2.3")`, evalErr('Invalid character(s) found in major number "a"')],
    [`semver("01.2.3")`, evalErr('Major number must not contain leading zeroes "01"')],
    [`semver("1.02.3")`, evalErr('Minor number must not contain leading zeroes "02"')],
    [`semver("1.2.03")`, evalErr('Patch number must not contain leading zeroes "03"')],
    [`semver("1..3")`, evalErr('strconv.ParseUint: parsing "": invalid syntax')],
    [`semver("1.2.x")`, evalErr('Invalid character(s) found in patch number "x"')],
    [`semver("1.2.3.4")`, evalErr('Invalid character(s) found in patch number "3.4"')],
    [`semver("1.2.3-")`, evalErr("Prerelease is empty")],
    [`semver("1.2.3-01")`, evalErr('Numeric PreRelease version must not contain leading zeroes "01"')],
    [`semver("1.2.3-a_b")`, evalErr('Invalid character(s) found in prerelease "a_b"')],
    [`semver("1.2.3+")`, evalErr("Build meta data is empty")],
    [`semver("1.2.3+ü")`, evalErr('Invalid character(s) found in build meta data "ü"')],
    [`semver("18446744073709551616.0.0")`, evalErr('strconv.ParseUint: parsing "18446744073709551616": value out of range')],
    [`semver("1.2-beta", true)`, evalErr("short version cannot contain PreRelease/Build meta data")],
    [`semver("18446744073709551615.0.0").major()`, v(-1n)],
    [`semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1"))`, v(true)],
    [`semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta"))`, v(true)],
    [`semver("1.0.0-beta.2").isLessThan(semver("1.0.0-beta.11"))`, v(true)],
    [`semver("1.0.0-rc.1").isLessThan(semver("1.0.0"))`, v(true)],
    [`semver("1.0.0+build.1") == semver("1.0.0+build.2")`, v(true)],
    [`semver("v0001.0002.0003-rc.1", true).compareTo(semver("1.2.3-rc.1"))`, v(0n)],
    [`semver("00.00", true).patch()`, v(0n)],
    [`semver("vv1.0.0", true)`, evalErr('Invalid character(s) found in major number "0v1"')],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr)).toEqual(want);
  });

  it("prints like blang's String", () => {
    expect(parseSemver("1.2.3-rc.1+b.5").toString()).toBe("1.2.3-rc.1+b.5");
    const o = outcome(env, `type(semver("1.0.0"))`) as { value: { name: string } };
    expect(o.value.name).toBe("kubernetes.Semver");
  });

  it("costs a string traversal to parse, 1 otherwise", () => {
    expect(cost.string_bool_to_semver!.actual(["v1.2.3-alpha.1", true])).toBe(2n);
    expect(cost.semver_major!.actual([])).toBe(1n);
  });
});
