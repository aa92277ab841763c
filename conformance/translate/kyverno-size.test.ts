/**
 * Kyverno MutatingPolicy → MAP generation, held to the same bar as the Gatekeeper translation
 * (issue 21): on every MutatingPolicy of Kyverno's sample library (`../shared/kyverno-tests/
 * policies/*-mpol/`, read in place: upstream files are not copied into the project), the
 * generated MAP's CEL is the policy's own, with nothing added (no guards, no wrappers): its
 * size equals the source's (`size.ts`), and `--explain`'s account says so. Generation is
 * switched on for each sample (`autogen.mutatingAdmissionPolicy.enabled`, pod-controller autogen
 * off), as a user migrating it would; samples Kyverno still declines (its own CEL libraries,
 * server-side apply) are counted, with Kyverno's reason.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { JsonObject } from "../../src/translate/gatekeeper/translate/index.js";
import { generateMap } from "../../src/translate/kyverno/generate-map.js";
import { translateMutatingPolicies } from "../../src/translate/kyverno/index.js";
import { totalSize } from "./size.js";

const ROOT = fileURLToPath(new URL("../../../shared/kyverno-tests/policies/", import.meta.url));

/** Each sample's policy file (`<group>-mpol/<name>/<name>.yaml`). */
function samples(): { file: string; policy: JsonObject }[] {
  const out: { file: string; policy: JsonObject }[] = [];
  for (const group of readdirSync(ROOT).filter((d) => d.endsWith("-mpol")).sort()) {
    for (const name of readdirSync(ROOT + group).sort()) {
      const file = `${ROOT}${group}/${name}/${name}.yaml`;
      if (!existsSync(file) || !statSync(file).isFile()) continue;
      for (const d of parseAllDocuments(readFileSync(file, "utf8"))) {
        const policy = d.toJS() as JsonObject;
        if (policy?.kind === "MutatingPolicy") out.push({ file: `${group}/${name}`, policy });
      }
    }
  }
  return out;
}

/** The policy as a user migrating it to a native MAP would set it. */
function withGeneration(p: JsonObject): JsonObject {
  const spec = structuredClone((p.spec ?? {}) as Record<string, unknown>);
  spec.autogen = { ...((spec.autogen as object | undefined) ?? {}), mutatingAdmissionPolicy: { enabled: true }, podControllers: { controllers: [] } };
  return { ...p, spec };
}

describe.skipIf(!existsSync(ROOT))("Kyverno MutatingPolicy → MAP: the generated MAP is the policy's own CEL (issue 21)", () => {
  it("on every sample MutatingPolicy: nothing added, --explain says what it holds", () => {
    const all = samples();
    expect(all.length).toBeGreaterThan(0);
    let generated = 0;
    const declined = new Map<string, number>();
    for (const s of all) {
      const p = withGeneration(s.policy);
      const r = generateMap(p);
      if (!r.generated) {
        const why = (r.reason ?? "").replace(/: .*/, "");
        declined.set(why, (declined.get(why) ?? 0) + 1);
        continue;
      }
      generated++;
      expect(totalSize([r.policy as JsonObject]), s.file).toBe(totalSize([p]));
      const report = translateMutatingPolicies([p]).reports[0]!;
      expect(report.explain, s.file).toMatch(/^MAP mpol-.*: \d+ mutations?.*carried verbatim/);
    }
    console.log(`Kyverno samples: ${all.length} MutatingPolicies, ${generated} generated with their own CEL unchanged; declined: ${JSON.stringify(Object.fromEntries(declined))}`);
    expect(generated).toBeGreaterThan(0);
  });
});

if (!existsSync(ROOT)) console.log(`kyverno-size: skipped (no ${ROOT}: Kyverno's sample policies are read from ../shared, not copied)`);
