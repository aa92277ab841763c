import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { upstreamPath } from "./support/upstream.js";

// The committed index must be exactly what the generator makes from the shared OpenAPI document.
const SWAGGER = upstreamPath("k8s-openapi/swagger.json", "1 test (the committed schema index against the OpenAPI document)");

test.skipIf(SWAGGER === undefined)("src/kube/builtin-schemas.generated.ts is up to date with scripts/gen-schema-index.mjs", () => {
  const out = path.join(mkdtempSync(path.join(tmpdir(), "celmap-schema-")), "index.ts");
  execFileSync(process.execPath, ["scripts/gen-schema-index.mjs", SWAGGER!, out]);
  expect(readFileSync(out, "utf8")).toBe(readFileSync("src/kube/builtin-schemas.generated.ts", "utf8"));
});
