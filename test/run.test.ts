/** `run(argv, io)`, the programmatic entry point, in-process with an injected I/O. */
import { describe, expect, it } from "vitest";
import { run, type CliIo } from "../src/cli/run.js";

function memoryIo(files: Record<string, string> = {}): CliIo & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout(text: string) {
      io.out += text;
    },
    stderr(text: string) {
      io.err += text;
    },
    readFile(path: string): string {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
      return text;
    },
  };
  return io;
}

describe("run()", () => {
  it("evaluates and writes the JSON result", async () => {
    const io = memoryIo();
    expect(await run(["cel", "[1, 2].map(x, x * 2)"], io)).toBe(0);
    expect(io.out).toBe("[2,4]\n");
    expect(io.err).toBe("");
  });

  it("reads --vars through io.readFile", async () => {
    const io = memoryIo({ "vars.yaml": "object:\n  spec:\n    replicas: 3\n" });
    expect(await run(["cel", "object.spec.replicas * 2", "--vars", "vars.yaml"], io)).toBe(0);
    expect(io.out).toBe("6\n");
  });

  it("returns 1 for CEL errors and 2 for usage errors, never throws", async () => {
    const a = memoryIo();
    expect(await run(["cel", "1 +"], a)).toBe(1);
    expect(a.err).toMatch(/^ERROR: <input>:1:/);
    const b = memoryIo();
    expect(await run(["cel", "x", "--vars", "missing.json"], b)).toBe(2);
    expect(b.err).toContain("ENOENT");
    const c = memoryIo();
    expect(await run(["nope"], c)).toBe(2);
  });
});
