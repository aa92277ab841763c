import { describe, expect, it } from "vitest";
import type { Binding, MutatorWithSchema } from "./mutators/index.js";
import { parsePath } from "./path/parser.js";
import { conflictMessage, SchemaDB } from "./schema.js";

// Scenarios restated from Gatekeeper v3.23.0 pkg/mutation/schema/schema_test.go (TestDB_Upsert),
// with Gatekeeper's fake mutators: terminal type Unknown, optional must-terminate.
const ops = ["CREATE", "UPDATE"] as const;
function fake(name: string, location: string, mustTerminate: boolean, bindings: Binding[]): MutatorWithSchema {
  return {
    id: { group: "mutations.gatekeeper.sh", kind: "Assign", namespace: "", name },
    path: parsePath(location),
    bindings,
    terminalType: "Unknown",
    mustTerminate,
  } as unknown as MutatorWithSchema;
}
const pod = (version = "v1"): Binding[] => ops.map((operation) => ({ group: "", version, kind: "Pod", operation }));
const podOp = (operation: "CREATE" | "UPDATE"): Binding[] => [{ group: "", version: "v1", kind: "Pod", operation }];

function conflictsAfter(before: MutatorWithSchema[], add: MutatorWithSchema): string[] {
  const db = new SchemaDB();
  for (const m of before) db.add(m);
  return db.add(add).map((id) => id.name);
}

describe("schema conflicts (TestDB_Upsert)", () => {
  const cases: [string, MutatorWithSchema[], MutatorWithSchema, string[]][] = [
    ["add mutator", [], fake("bar", "spec.containers[name: foo].image", false, pod()), []],
    [
      "add conflicting mutator",
      [fake("foo", "spec.containers.image", false, pod())],
      fake("bar", "spec.containers[name: foo].image", false, pod()),
      ["bar", "foo"],
    ],
    [
      "different version does not conflict",
      [fake("foo", "spec.containers.image", false, pod())],
      fake("bar", "spec.containers[name: foo].image", false, pod("v2")),
      [],
    ],
    [
      "disjoint operations do not conflict",
      [fake("foo", "spec.containers.image", false, podOp("CREATE"))],
      fake("bar", "spec.containers[name: foo].image", false, podOp("UPDATE")),
      [],
    ],
    [
      "overlapping operations conflict",
      [fake("foo", "spec.containers.image", false, podOp("CREATE"))],
      fake("bar", "spec.containers[name: foo].image", false, podOp("CREATE")),
      ["bar", "foo"],
    ],
    [
      "globbed list does not conflict with non-globbed list",
      [fake("foo", "spec.containers[name: foo].image", false, pod())],
      fake("bar", "spec.containers[name: *].image", false, pod()),
      [],
    ],
    [
      "external data path conflicts with a longer path",
      [fake("foo", "spec.containers[name: foo].image", true, pod())],
      fake("bar", "spec.containers[name: *].image.test", false, pod()),
      ["bar", "foo"],
    ],
    [
      "a longer path conflicts with an external data path",
      [fake("foo", "spec.containers[name: foo].image.test", false, pod())],
      fake("bar", "spec.containers[name: *].image", true, pod()),
      ["bar", "foo"],
    ],
    [
      "external data paths do not conflict with each other",
      [fake("foo", "spec.containers[name: foo].image", true, pod())],
      fake("bar", "spec.containers[name: *].image", true, pod()),
      [],
    ],
    [
      "different key fields on one list conflict",
      [fake("foo", "spec[image: bar].x", false, pod())],
      fake("bar", "spec[name: foo].x", false, pod()),
      ["bar", "foo"],
    ],
  ];
  for (const [name, before, add, want] of cases) {
    it(name, () => expect(conflictsAfter(before, add)).toEqual(want));
  }

  it("conflicts are not transitive", () => {
    const v1: Binding[] = [{ group: "", version: "v1", kind: "Role", operation: "CREATE" }];
    const v2: Binding[] = [{ group: "", version: "v2", kind: "Role", operation: "CREATE" }];
    const db = new SchemaDB();
    db.add(fake("foo", "spec.name.image", false, v1));
    db.add(fake("bar", "spec[name: foo].image", false, [...v1, ...v2]));
    db.add(fake("qux", "spec[name: foo].tag", false, v2));
    expect(db.conflicts().map((i) => i.name)).toEqual(["bar", "foo"]);
  });

  it("prints Gatekeeper's error", () => {
    const db = new SchemaDB();
    db.add(fake("foo", "spec.containers.image", false, pod()));
    expect(conflictMessage(db.add(fake("bar", "spec.containers[name: foo].image", false, pod())))).toBe(
      "the following mutators have conflicting schemas: [Assign.mutations.gatekeeper.sh /bar,Assign.mutations.gatekeeper.sh /foo]",
    );
  });
});
