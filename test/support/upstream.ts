/**
 * Upstream reference files that cannot ship with the project (the Kyverno test suites, the
 * Kubernetes OpenAPI document) live in `../shared` beside the repository on development machines
 * and in CI, not beside a lone clone. A test that needs one asks here: it gets the path when the
 * file is there, and otherwise one line on the console says what was skipped and why.
 * (The project's own case data is in `conformance/data/`, always present.)
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const SHARED_ROOT = fileURLToPath(new URL("../../../shared/", import.meta.url));

/**
 * The absolute path of `../shared/<rel>` when it exists; otherwise undefined, after printing
 * `skipped <what>: ../shared/<rel> is absent (...)` once.
 */
export function upstreamPath(rel: string, what: string): string | undefined {
  const p = join(SHARED_ROOT, rel);
  if (existsSync(p)) return p;
  console.log(`skipped ${what}: ../shared/${rel} is absent (upstream files, not shipped with celmap; see conformance/data/PROVENANCE.md)`);
  return undefined;
}
