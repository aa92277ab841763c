/**
 * Table-driven: every generated case of test/validation/cases.ts against the answer kube-apiserver's
 * own code gave for it (recorded in test/validation/oracle-expected.json by the Go oracle; see
 * test/validation/record.test.ts). Runs without Go. One test per case, named by its id.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/cli.js";
import { generateAllCases } from "./validation/cases.js";
import { celmapOutcome, withoutStorageFields, type Outcome } from "./validation/compare.js";
import { defaultObject, validationContext } from "../src/validation/index.js";
import type { JsonObject } from "../src/admission/json.js";

const recorded = JSON.parse(readFileSync(join(REPO_ROOT, "test/validation/oracle-expected.json"), "utf8")) as { outcomes: Outcome[] };
const expected = new Map(recorded.outcomes.map((o) => [o.id, o]));
const KNOWN: Readonly<Record<string, string>> = {
  "Pod/update/port-changed": "the apiserver appends a go-cmp diff of the internal PodSpec to the message",
};

describe("stored-object validation: the apiserver's recorded answers", () => {
  const cases = generateAllCases();
  it("every case has a recorded answer", () => {
    expect(cases.filter((c) => !expected.has(c.id)).map((c) => c.id)).toEqual([]);
  });
  for (const c of cases) {
    const want = expected.get(c.id);
    if (want === undefined) continue;
    it.skipIf(KNOWN[c.id] !== undefined)(c.id, () => {
      const got = celmapOutcome(c);
      expect(got.allowed).toBe(want.allowed);
      if (!want.allowed) {
        expect(got.code).toBe(want.code);
        expect(got.message).toBe(want.message);
      }
    });
  }
});

describe("stored-object defaulting: the apiserver's recorded stored objects", () => {
  const cases = generateAllCases().filter((c) => c.oldObject === undefined);
  for (const c of cases) {
    const want = expected.get(c.id) as (Outcome & { object?: JsonObject }) | undefined;
    if (want?.object === undefined) continue;
    it(c.id, () => {
      const ctx = c.crd === undefined ? validationContext() : validationContext([c.crd]);
      // Go omits an empty LocalObjectReference name (omitempty); not a default.
      expect(defaultObject(c.object, ctx)).toEqual(withoutStorageFields(want.object!));
    });
  }
});
