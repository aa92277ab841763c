import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FieldPath } from "../diag/field-path.js";
import { formatLoadError, listInputFiles, loadFile, loadPaths, parseDocuments } from "./load.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "celmap-load-"));
  mkdirSync(join(dir, "b-sub", "deeper"), { recursive: true });
  mkdirSync(join(dir, ".hidden"));
  writeFileSync(join(dir, "z.yaml"), "kind: Z\n");
  writeFileSync(join(dir, "a.yml"), "kind: A\n---\nkind: A2\n");
  writeFileSync(join(dir, "B.json"), '{"kind": "B", "n": 1.0, "i": 2}');
  writeFileSync(join(dir, "notes.txt"), "kind: ignored\n");
  writeFileSync(join(dir, ".hidden", "h.yaml"), "kind: Hidden\n");
  writeFileSync(join(dir, "b-sub", "c.yaml"), "kind: C\n");
  writeFileSync(join(dir, "b-sub", "deeper", "d.yaml"), "kind: D\n");
  writeFileSync(join(dir, "b-sub", "broken.yaml"), "kind: E\nspec: [1,\n  bad: : x\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("parseDocuments", () => {
  it("splits multi-document YAML, numbering documents from 0 and skipping empty ones", () => {
    const r = parseDocuments("kind: A\n---\n---\n# only a comment\n---\nkind: B\n", "f.yaml");
    expect(r.errors).toEqual([]);
    expect(r.documents.map((d) => [d.value, d.source.docIndex, d.source.line])).toEqual([
      [{ kind: "A" }, 0, 1],
      [{ kind: "B" }, 3, 6],
    ]);
  });

  it("expands kind: List and *List kinds into items with itemIndex", () => {
    const text = "apiVersion: v1\nkind: List\nitems:\n- kind: A\n- kind: B\n---\nkind: MutatingAdmissionPolicyList\nitems:\n  - kind: C\n";
    const r = parseDocuments(text, "l.yaml");
    expect(r.documents.map((d) => [d.value, d.source.docIndex, d.source.itemIndex, d.source.line, d.source.column])).toEqual([
      [{ kind: "A" }, 0, 0, 4, 3],
      [{ kind: "B" }, 0, 1, 5, 3],
      [{ kind: "C" }, 1, 0, 9, 5],
    ]);
  });

  it("does not expand lists when asked not to", () => {
    const r = parseDocuments("kind: List\nitems: []\n", "l.yaml", { expandLists: false });
    expect(r.documents.map((d) => d.value)).toEqual([{ kind: "List", items: [] }]);
  });

  it("json mode: all numbers are JS numbers", () => {
    const r = parseDocuments("i: 1\nf: 1.0\nbig: 12\n", "n.yaml");
    expect(r.documents[0]!.value).toEqual({ i: 1, f: 1, big: 12 });
  });

  it("cel mode: integers are bigint, floats stay numbers (1.0 is a double)", () => {
    const r = parseDocuments("i: 1\nf: 1.0\ne: 1e3\nbig: 12345678901234567890\nl: [1, 2.5]\n", "n.yaml", { numbers: "cel" });
    const v = r.documents[0]!.value as Record<string, unknown>;
    expect(v["i"]).toBe(1n);
    expect(v["f"]).toBe(1);
    expect(typeof v["f"]).toBe("number");
    expect(v["e"]).toBe(1000);
    expect(v["big"]).toBe(12345678901234567890n);
    expect(v["l"]).toEqual([1n, 2.5]);
  });

  it("reads YAML 1.1 scalars like kubectl (yes/on booleans, 0755 octal) but keeps dates as strings", () => {
    const r = parseDocuments("a: yes\nb: off\nc: 0755\nd: 2020-01-01\ne: 1:20\n", "k.yaml");
    expect(r.documents[0]!.value).toEqual({ a: true, b: false, c: 493, d: "2020-01-01", e: "1:20" });
    const r12 = parseDocuments("a: yes\nc: 0755\n", "k.yaml", { yamlVersion: "1.2" });
    expect(r12.documents[0]!.value).toEqual({ a: "yes", c: 755 });
  });

  it("reports syntax errors with file:line:column and keeps other documents", () => {
    const r = parseDocuments("kind: A\n---\nkind: B\nspec: [1,\n  x: : y\n---\nkind: C\n", "bad.yaml");
    expect(r.documents.map((d) => (d.value as { kind: string }).kind)).toEqual(["A", "C"]);
    expect(r.errors.length).toBeGreaterThan(0);
    const e = r.errors[0]!;
    expect(e.docIndex).toBe(1);
    expect(e.line).toBeGreaterThanOrEqual(4);
    expect(formatLoadError(e)).toMatch(/^bad\.yaml:\d+:\d+: \S/);
    expect(e.message).not.toContain("\n");
  });

  it("reports duplicate keys", () => {
    const r = parseDocuments("kind: A\nkind: B\n", "dup.yaml");
    expect(r.documents).toEqual([]);
    expect(r.errors.map((e) => [e.code, e.line, e.column])).toEqual([["DUPLICATE_KEY", 2, 1]]);
    expect(formatLoadError(r.errors[0]!)).toBe("dup.yaml:2:1: Map keys must be unique");
  });

  it("locates field paths (key positions; deepest existing part for missing fields)", () => {
    const text = [
      "apiVersion: admissionregistration.k8s.io/v1",
      "kind: MutatingAdmissionPolicy",
      "metadata:",
      "  name: p",
      "  labels:",
      "    app.kubernetes.io/name: x",
      "spec:",
      "  mutations:",
      "  - patchType: Merge",
      "  - patchType: JSONPatch",
      "    jsonPatch:",
      "      expression: '[]'",
      "",
    ].join("\n");
    const d = parseDocuments(text, "p.yaml").documents[0]!;
    const spec = FieldPath.root("spec");
    expect(d.locate(spec.child("mutations").index(1).child("patchType"))).toEqual({ line: 10, column: 5 });
    expect(d.locate(spec.child("mutations").index(0))).toEqual({ line: 9, column: 5 });
    expect(d.locate(spec.child("mutations").index(1).child("jsonPatch", "expression"))).toEqual({ line: 12, column: 7 });
    expect(d.locate(FieldPath.root("metadata", "labels").key("app.kubernetes.io/name"))).toEqual({ line: 6, column: 5 });
    // missing: falls back to the deepest existing ancestor
    expect(d.locate(spec.child("reinvocationPolicy"))).toEqual({ line: 7, column: 1 });
    expect(d.locate(FieldPath.empty)).toEqual({ line: 1, column: 1 });
  });

  it("locates inside list items relative to the item", () => {
    const d = parseDocuments("kind: List\nitems:\n- kind: A\n  spec:\n    x: 1\n", "l.yaml").documents[0]!;
    expect(d.locate(FieldPath.root("spec", "x"))).toEqual({ line: 5, column: 5 });
  });
});

describe("files and directories", () => {
  it("lists .yaml/.yml/.json recursively in byte order, skipping hidden and other files", () => {
    const rel = listInputFiles(dir).map((f) => f.slice(dir.length + 1));
    expect(rel).toEqual(["B.json", "a.yml", "b-sub/broken.yaml", "b-sub/c.yaml", "b-sub/deeper/d.yaml", "z.yaml"]);
  });

  it("loads a directory: documents in file order, errors collected, JSON floats kept", () => {
    const r = loadPaths(dir, { numbers: "cel" });
    expect(r.documents.map((d) => (d.value as { kind: string }).kind)).toEqual(["B", "A", "A2", "C", "D", "Z"]);
    expect(r.documents[0]!.value).toEqual({ kind: "B", n: 1, i: 2n });
    expect(r.documents[2]!.source).toMatchObject({ file: join(dir, "a.yml"), docIndex: 1 });
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.errors.every((e) => e.file === join(dir, "b-sub", "broken.yaml"))).toBe(true);
  });

  it("reports a missing path without throwing", () => {
    const r = loadPaths(join(dir, "nope.yaml"));
    expect(r.documents).toEqual([]);
    expect(r.errors.map((e) => [e.code, e.message])).toEqual([["READ_ERROR", "no such file or directory"]]);
    expect(loadFile(join(dir, "nope.yaml")).errors[0]!.code).toBe("READ_ERROR");
  });
});
