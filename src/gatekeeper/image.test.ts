import { describe, expect, it } from "vitest";
import { parseImage, validateImageParts } from "./image.js";

// Vectors restated from Gatekeeper v3.23.0 mutators/assignimage/imageparser_test.go.
describe("image reference parsing (TestNewImage)", () => {
  const table: [string, string, string, string][] = [
    ["gcr.io/some-image/hello:latest", "gcr.io", "some-image/hello", ":latest"],
    ["", "", "", ""],
    ["some-image/hello@sha256:abcde", "", "some-image/hello", "@sha256:abcde"],
    ["some-image/hello:latest", "", "some-image/hello", ":latest"],
    ["some-image/hello", "", "some-image/hello", ""],
    ["some-image:tag123", "", "some-image", ":tag123"],
    ["alpine", "", "alpine", ""],
    ["_/alpine", "", "_/alpine", ""],
    ["_/alpine:latest", "", "_/alpine", ":latest"],
    ["library/busybox:v9", "", "library/busybox", ":v9"],
    ["this.that.com/repo/alpine:1.23", "this.that.com", "repo/alpine", ":1.23"],
    ["this.that.com:5000/repo/alpine:latest", "this.that.com:5000", "repo/alpine", ":latest"],
    ["localhost:5000/repo/alpine:latest", "localhost:5000", "repo/alpine", ":latest"],
    ["x.y.z/gcr.io/repo:latest", "x.y.z", "gcr.io/repo", ":latest"],
    ["gcr.io/repo:latest", "gcr.io", "repo", ":latest"],
    ["x.io/get/ready4.//this/not.good:404@yikes/bad/string", "x.io", "get/ready4.//this/not.good", ":404@yikes/bad/string"],
  ];
  for (const [ref, domain, path, tag] of table) {
    it(JSON.stringify(ref), () => expect(parseImage(ref)).toEqual({ domain, path, tag }));
  }
});

describe("parameter validation (TestValidateImageParts)", () => {
  const valid: [string, string, string][] = [
    ["my.register.io:5000", "lib/stuff/app", ":latest"],
    ["localhost:5000", "", ""],
    ["localhost", "", ""],
    ["a.b.c", "", ""],
    ["a-b-c.com:5000", "", ""],
    ["a.b.c:123", "", ""],
    ["", "lib/stuff", ""],
    ["my.reg.io:5000", "a.b.c/stuff", ""],
    ["", "lib/stuff-app__thing/a/b--c/e", ""],
    ["", "", ":latest"],
    ["", "", "@sha256:12345678901234567890123456789012"],
  ];
  for (const [d, p, t] of valid) {
    it(`accepts ${JSON.stringify([d, p, t])}`, () => expect(validateImageParts(d, p, t)).toBeUndefined());
  }
  const invalid: [string, string, string, string][] = [
    ["", "", "", "at least one of"],
    ...[
      "foobar",
      ".foobar",
      "foobar.",
      "foobar.:5000",
      "foobar/:5000",
      ".foobar.",
      "a_b_c:123",
      "/not.ok.io:2000",
      "not.ok.io:2000/",
      "not/ok/io",
      "my.reg.io:abc2000",
      "my.reg.io:2000:",
      "my.reg.io::2000",
      "my.reg.io:latest",
      "my.reg.io@sha256:abcde123456789",
      ";!234.com",
    ].map((d): [string, string, string, string] => [d, "", "", `assignDomain ${JSON.stringify(d)} must be a fully-qualified`]),
    ["", "a.b.c/stuff", ":latest", "assignDomain must be set if the first part of assignPath"],
    ...["lib/stuff/app/", "/lib/stuff/app"].map((p): [string, string, string, string] => ["", p, "", `assignPath ${JSON.stringify(p)}`]),
    ...[":lib/stuff/app", "@lib/stuff/app", "lib/stuff/app:", "lib/stuff/app@", "lib/stuff:things/app"].map(
      (p): [string, string, string, string] => ["my.register.io:5000", p, "", `assignPath ${JSON.stringify(p)}`],
    ),
    ...[
      "latest",
      "sha256:12345678901234567890123456789012",
      "@sha256:123456",
      "@sha256:1XYZ5678901234567890123456789012",
      "/:latest",
      ":latest/",
      ":latest:",
      ":latest@",
      ":lat:est",
      "@sha256:12345678901234567890123456789012@sha256:12345678901234567890123456789012",
      "::latest",
      "@@sha256:1XYZ5678901234567890123456789012",
      "@:latest",
    ].map((t): [string, string, string, string] => ["", "", t, `assignTag ${JSON.stringify(t)}`]),
  ];
  for (const [d, p, t, msg] of invalid) {
    it(`rejects ${JSON.stringify([d, p, t])}`, () => expect(validateImageParts(d, p, t)?.message).toContain(msg));
  }
});
