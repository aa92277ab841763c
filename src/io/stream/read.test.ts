/**
 * The streaming reader (read.ts + chunk.ts) against the whole-file loader (src/io/load.ts) on
 * generated files: the same documents with the same sources (file#doc, List items), the same
 * errors at the same document and line for a malformed document in the middle, whatever the fast
 * path did; JSON Lines give one document per line. Real files in a temp directory.
 */
import fc from "fast-check";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { loadFile } from "../load.js";
import { parseChunk } from "./chunk.js";
import { readChunks } from "./read.js";

const dir = mkdtempSync(join(tmpdir(), "celmap-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function streamed(file: string) {
  const documents: { value: unknown; source: unknown }[] = [];
  const errors: { docIndex?: number; line?: number; code: string }[] = [];
  for await (const item of readChunks([file])) {
    if ("error" in item) {
      errors.push({ code: item.error.code });
      continue;
    }
    const r = parseChunk(item.chunk, { numbers: "cel" });
    for (const d of r.documents) documents.push({ value: d.value, source: { file: d.source.file, docIndex: d.source.docIndex, itemIndex: d.source.itemIndex } });
    for (const e of r.errors) errors.push({ docIndex: e.docIndex, line: e.line, code: e.code });
  }
  return { documents, errors };
}

function loaded(file: string) {
  const r = loadFile(file, { numbers: "cel" });
  return {
    documents: r.documents.map((d) => ({ value: d.value, source: { file: d.source.file, docIndex: d.source.docIndex, itemIndex: d.source.itemIndex } })),
    errors: r.errors.map((e) => ({ docIndex: e.docIndex, line: e.line, code: e.code })),
  };
}

const pod = fc.record({
  apiVersion: fc.constant("v1"),
  kind: fc.constant("Pod"),
  metadata: fc.record({ name: fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/), labels: fc.dictionary(fc.constantFrom("app", "tier", "on", "yes"), fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("on", "0x1F", "1e3", "~"))) }),
  spec: fc.record({ containers: fc.array(fc.record({ name: fc.constantFrom("a", "b"), image: fc.constantFrom("nginx:1.25", "busybox") }), { minLength: 1, maxLength: 2 }) }),
});

/** A document of a stream: a Pod, a List of Pods, an empty document, a comment, or a malformed one. */
const part = fc.oneof(
  { weight: 6, arbitrary: pod.map((p) => stringify(p, { version: "1.1" })) },
  { weight: 1, arbitrary: fc.array(pod, { maxLength: 3 }).map((items) => stringify({ apiVersion: "v1", kind: "List", items }, { version: "1.1" })) },
  { weight: 1, arbitrary: fc.constantFrom("", "# just a comment\n", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n   bad: indent\n", "a: [unclosed\n", "a: &x 1\nb: *x\n") },
);

describe("streaming reader = whole-file loader", () => {
  it("YAML streams: same documents, sources and errors (incl. a malformed document in the middle)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 8 }), fc.constantFrom("---\n", "---\n# c\n", "...\n---\n", "...\n", "...\n# c\n...\n"), fc.boolean(), fc.boolean(), async (parts, sep, lead, crlf) => {
        let text = (lead ? "---\n" : "") + parts.join(sep);
        if (crlf) text = text.replace(/\n/g, "\r\n");
        const file = join(dir, `s${n++}.yaml`);
        writeFileSync(file, text);
        expect(await streamed(file)).toEqual(loaded(file));
      }),
      { numRuns: 150 },
    );
  });

  it("JSON and JSON Lines: the documents of each line, Lists expanded, a bad line named by its line", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof({ weight: 5, arbitrary: pod.map((p) => JSON.stringify(p)) }, { weight: 1, arbitrary: fc.constantFrom('{"a":', "not json") }), { minLength: 1, maxLength: 8 }), async (lines) => {
        const file = join(dir, `s${n++}.jsonl`);
        writeFileSync(file, `${lines.join("\n")}\n`);
        const s = await streamed(file);
        const good = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('{"apiVersion'));
        expect(s.documents.map((d) => (d.source as { docIndex: number }).docIndex)).toEqual(good.map(([, i]) => i));
        for (const [k, [l]] of good.entries()) expect(s.documents[k]!.value).toEqual(loaded(writeJson(l)).documents[0]!.value);
        const bad = lines.map((l, i) => [l, i] as const).filter(([l]) => !l.startsWith('{"apiVersion'));
        expect(s.errors.map((e) => e.line)).toEqual(bad.map(([, i]) => i + 1));
      }),
      { numRuns: 60 },
    );
  });
});

function writeJson(text: string): string {
  const file = join(dir, `j${n++}.json`);
  writeFileSync(file, text);
  return file;
}
