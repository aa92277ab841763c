import { describe, expect, it } from "vitest";
import type { LabelSelector } from "../policy/schemas/common.js";
import {
  firstUnmetRequirement,
  labelSelectorAsSelector,
  requirementString,
  selectorIsEmpty,
  selectorMatches,
  selectorString,
  type Labels,
} from "./selector.js";

function parsed(sel: LabelSelector | undefined) {
  const r = labelSelectorAsSelector(sel);
  if (!r.ok) throw new Error(r.error);
  return r.selector;
}

interface Case {
  name: string;
  selector: LabelSelector | undefined;
  labels: Labels | undefined;
  matches: boolean;
}

const CASES: Case[] = [
  { name: "nil selector matches nothing", selector: undefined, labels: { a: "b" }, matches: false },
  { name: "nil selector matches nothing, not even no labels", selector: undefined, labels: undefined, matches: false },
  { name: "empty selector matches everything", selector: {}, labels: { a: "b" }, matches: true },
  { name: "empty selector matches no labels", selector: {}, labels: undefined, matches: true },
  { name: "empty matchLabels and matchExpressions are empty", selector: { matchLabels: {}, matchExpressions: [] }, labels: {}, matches: true },
  { name: "matchLabels equal", selector: { matchLabels: { app: "web" } }, labels: { app: "web", x: "y" }, matches: true },
  { name: "matchLabels different value", selector: { matchLabels: { app: "web" } }, labels: { app: "db" }, matches: false },
  { name: "matchLabels absent key", selector: { matchLabels: { app: "web" } }, labels: {}, matches: false },
  { name: "matchLabels empty value matches empty value", selector: { matchLabels: { app: "" } }, labels: { app: "" }, matches: true },
  { name: "matchLabels empty value needs the key", selector: { matchLabels: { app: "" } }, labels: {}, matches: false },
  { name: "matchLabels all must hold", selector: { matchLabels: { a: "1", b: "2" } }, labels: { a: "1", b: "3" }, matches: false },
  { name: "In listed", selector: { matchExpressions: [{ key: "env", operator: "In", values: ["prod", "stage"] }] }, labels: { env: "stage" }, matches: true },
  { name: "In not listed", selector: { matchExpressions: [{ key: "env", operator: "In", values: ["prod"] }] }, labels: { env: "dev" }, matches: false },
  { name: "In absent key", selector: { matchExpressions: [{ key: "env", operator: "In", values: ["prod"] }] }, labels: {}, matches: false },
  { name: "NotIn absent key matches", selector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] }, labels: {}, matches: true },
  { name: "NotIn other value", selector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] }, labels: { env: "dev" }, matches: true },
  { name: "NotIn listed value", selector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] }, labels: { env: "prod" }, matches: false },
  { name: "Exists present", selector: { matchExpressions: [{ key: "inject", operator: "Exists" }] }, labels: { inject: "" }, matches: true },
  { name: "Exists absent", selector: { matchExpressions: [{ key: "inject", operator: "Exists" }] }, labels: {}, matches: false },
  { name: "DoesNotExist absent", selector: { matchExpressions: [{ key: "inject", operator: "DoesNotExist" }] }, labels: undefined, matches: true },
  { name: "DoesNotExist present", selector: { matchExpressions: [{ key: "inject", operator: "DoesNotExist" }] }, labels: { inject: "no" }, matches: false },
  {
    name: "matchLabels and matchExpressions together",
    selector: { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "NotIn", values: ["db"] }] },
    labels: { app: "web", tier: "front" },
    matches: true,
  },
  {
    name: "prefixed keys",
    selector: { matchLabels: { "kubernetes.io/metadata.name": "team-a" } },
    labels: { "kubernetes.io/metadata.name": "team-a" },
    matches: true,
  },
  { name: "keys are case-sensitive", selector: { matchLabels: { App: "web" } }, labels: { app: "web" }, matches: false },
  { name: "inherited properties are not labels", selector: { matchExpressions: [{ key: "constructor", operator: "Exists" }] }, labels: {}, matches: false },
];

describe("label selector matching", () => {
  for (const c of CASES) {
    it(c.name, () => {
      expect(selectorMatches(parsed(c.selector), c.labels)).toBe(c.matches);
      expect(firstUnmetRequirement(parsed(c.selector), c.labels) === undefined).toBe(c.matches || c.selector === undefined);
    });
  }
});

describe("LabelSelectorAsSelector", () => {
  it("empty is Everything, nil is Nothing", () => {
    expect(selectorIsEmpty(parsed({}))).toBe(true);
    expect(selectorIsEmpty(parsed(undefined))).toBe(false);
    expect(selectorIsEmpty(parsed({ matchLabels: { a: "b" } }))).toBe(false);
  });

  it("prints as Go's String(): requirements sorted by key, values sorted", () => {
    const s = parsed({
      matchLabels: { zone: "a", app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["web", "api"] },
        { key: "env", operator: "NotIn", values: ["prod"] },
        { key: "canary", operator: "DoesNotExist" },
        { key: "beta", operator: "Exists" },
      ],
    });
    expect(selectorString(s)).toBe("app=web,beta,!canary,env notin (prod),tier in (api,web),zone=a");
    expect(s.requirements.map(requirementString)).toHaveLength(6);
  });

  it("unknown operator: Go's message", () => {
    const r = labelSelectorAsSelector({ matchExpressions: [{ key: "a", operator: "Equals", values: ["b"] }] });
    expect(r).toEqual({ ok: false, error: '"Equals" is not a valid label selector operator' });
  });

  it("In without values is an error", () => {
    const r = labelSelectorAsSelector({ matchExpressions: [{ key: "a", operator: "In", values: [] }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("for 'in', 'notin' operators, values set can't be empty");
  });

  it("Exists with values is an error", () => {
    const r = labelSelectorAsSelector({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("values set must be empty for exists and does not exist");
  });

  it("an invalid key is an error", () => {
    const r = labelSelectorAsSelector({ matchLabels: { "bad key": "x" } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain('key: Invalid value: "bad key"');
  });

  it("an invalid value is an error", () => {
    const r = labelSelectorAsSelector({ matchLabels: { a: "not valid!" } });
    expect(r.ok).toBe(false);
  });

  it("explains the first unmet requirement in key order", () => {
    const s = parsed({ matchLabels: { b: "2", a: "1" } });
    expect(firstUnmetRequirement(s, { a: "0", b: "0" })).toEqual({ key: "a", operator: "=", values: ["1"] });
  });
});
