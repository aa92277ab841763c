import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { gzipCompress, gzipDecompress } from "./gzip.js";
import { err, run, v, type Outcome } from "./test-harness.js";

// kyverno/sdk extensions/cel/libs/gzip/impl_test.go; kyverno-tests chainsaw mutating-policies/gzip
// (gzip.decompress(base64.decode(configMap.data['data']))).
describe("gzip library", () => {
  it.each<[string, Outcome]>([
    [`gzip.decompress(base64.decode("H4sIADP4umkAA8uuLEstyssHAOgPnDMHAAAA"))`, v("kyverno")],
    // Go's own compress output (impl_test.go compress_base64) decompresses too
    [`gzip.decompress(base64.decode("H4sIAAAAAAAA/8quLEstyssHBAAA///oD5wzBwAAAA=="))`, v("kyverno")],
    [`gzip.decompress(gzip.compress("kyverno"))`, v("kyverno")],
    [`gzip.decompress(gzip.compress(""))`, v("")],
    [`gzip.decompress(gzip.compress("héllo wörld ✓"))`, v("héllo wörld ✓")],
    // header as Go writes it: mtime 0, XFL 0, OS 255
    [`base64.encode(gzip.compress("kyverno")).substring(0, 12)`, v("H4sIAAAAAAAA")],
    [`size(gzip.compress("abc")) > 18`, v(true)],
    [`gzip.decompress(b"not gzip at all")`, err("gzip: invalid header")],
    [`gzip.decompress(b"")`, err("EOF")],
    [`gzip.decompress(base64.decode("H4sIADP4umkAA8uuLEstyssHAOgPnDMHAAA="))`, err("unexpected EOF")],
    [`gzip.decompress(base64.decode("H4sIADP4umkAA8uuLEstyssHAOgPnDMIAAAA"))`, err("gzip: invalid checksum")],
    [`gzip.compress(dyn(1))`, err("unsupported type conversion from 'int' to string")],
  ])("%s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it("round-trips with zlib both ways (stored, fixed and dynamic blocks, concatenated members)", () => {
    const texts = ["", "a", "abcabcabcabcabcabc", "x".repeat(70000), JSON.stringify({ data: Array.from({ length: 500 }, (_, i) => `item-${i % 37}`) })];
    for (const t of texts) {
      const b = new TextEncoder().encode(t);
      expect(new TextDecoder().decode(gunzipSync(gzipCompress(b)))).toBe(t);
      for (const level of [0, 1, 6, 9]) expect(new TextDecoder().decode(gzipDecompress(gzipSync(b, { level })))).toBe(t);
    }
    const two = Buffer.concat([gzipSync("ab"), gzipSync("cd")]);
    expect(new TextDecoder().decode(gzipDecompress(two))).toBe("abcd");
  });

  it.each([`gzip.decompress("x")`, `gzip.compress()`, `gzip.decompress(b"x", 1)`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
