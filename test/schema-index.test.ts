import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "vitest";

// The committed index must be exactly what the generator makes from the shared OpenAPI document.
test("src/kube/builtin-schemas.generated.ts is up to date with scripts/gen-schema-index.mjs", () => {
  const out = path.join(mkdtempSync(path.join(tmpdir(), "celmap-schema-")), "index.ts");
  execFileSync(process.execPath, ["scripts/gen-schema-index.mjs", "../shared/k8s-openapi/swagger.json", out]);
  expect(readFileSync(out, "utf8")).toBe(readFileSync("src/kube/builtin-schemas.generated.ts", "utf8"));
});
