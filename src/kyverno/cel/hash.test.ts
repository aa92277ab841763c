import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { md5, sha1, sha256 } from "./hash.js";
import { hex, utf8 } from "./common.js";
import { run, v, type Outcome } from "./test-harness.js";

// kyverno/sdk extensions/cel/libs/hash/impl_test.go, then well-known digests.
describe("hash library", () => {
  it.each<[string, Outcome]>([
    [`hash.sha1("ghcr.io/kyverno/kyverno:latest")`, v("98f68a84cd3ada3a25bc42bf69ed8e0297e13022")],
    [`hash.sha256("ghcr.io/kyverno/kyverno:latest")`, v("e98de8e3a54bcb921de9cc72741522823cb30ef9dda17cfd228416ead4ce3760")],
    [`hash.md5("ghcr.io/kyverno/kyverno:latest")`, v("16dc16f633974d1015cad2ffe81e7365")],
    [`sha1("ghcr.io/kyverno/kyverno:latest")`, v("98f68a84cd3ada3a25bc42bf69ed8e0297e13022")],
    [`sha256("")`, v("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")],
    [`md5("")`, v("d41d8cd98f00b204e9800998ecf8427e")],
    [`sha1("")`, v("da39a3ee5e6b4b0d3255bfef95601890afd80709")],
    [`sha256("abc")`, v("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")],
    [`md5("The quick brown fox jumps over the lazy dog")`, v("9e107d9d372bb6826bd81d3542a419d6")],
    [`sha1("The quick brown fox jumps over the lazy dog")`, v("2fd4e1c67a2d28fced849ee1bb76e7391b93eb12")],
    [`sha256("é")`, v("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c")],
  ])("%s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it("agrees with node:crypto across block boundaries", () => {
    for (const n of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 1000]) {
      const s = "ab€".repeat(n).slice(0, n);
      const b = utf8(s);
      expect(hex(sha256(b))).toBe(createHash("sha256").update(b).digest("hex"));
      expect(hex(sha1(b))).toBe(createHash("sha1").update(b).digest("hex"));
      expect(hex(md5(b))).toBe(createHash("md5").update(b).digest("hex"));
    }
  });

  it.each([`sha256(b"x")`, `hash.md5(1)`, `sha512("x")`, `hash.sha256()`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
