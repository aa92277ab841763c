/**
 * Findings as SARIF 2.1.0 (the format code-scanning tools read): one rule per check, one result per
 * finding located at the policy's file (and document, as a logical location).
 */
import { CHECK_SUMMARY, CHECKS, type Finding } from "./model.js";

/** `path/to/file.yaml#2` → file and document index. */
function splitSource(source: string | undefined): { uri?: string; doc?: string } {
  if (source === undefined) return {};
  const m = /^(.*?)(?:#(\d+))?$/.exec(source);
  return { uri: m?.[1] ?? source, ...(m?.[2] !== undefined ? { doc: m[2] } : {}) };
}

export function toSarif(findings: readonly Finding[], version: string): unknown {
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "celmap lint",
            version,
            informationUri: "https://github.com/celmap/celmap/blob/main/docs/lint.md",
            rules: CHECKS.map((c) => ({ id: c, shortDescription: { text: CHECK_SUMMARY[c] }, helpUri: `https://github.com/celmap/celmap/blob/main/docs/lint.md#${c}` })),
          },
        },
        results: findings.map((f) => {
          const locations = f.policies
            .map((p) => ({ p, s: splitSource(p.source) }))
            .filter((x) => x.s.uri !== undefined)
            .map(({ p, s }) => ({
              physicalLocation: { artifactLocation: { uri: s.uri }, ...(p.line !== undefined ? { region: { startLine: p.line } } : {}) },
              logicalLocations: [{ name: p.name, kind: "object", fullyQualifiedName: `${s.doc !== undefined ? `#${s.doc} ` : ""}${p.kind}/${p.name}${f.path !== undefined ? `:${f.path}` : ""}` }],
            }));
          return {
            ruleId: f.check,
            level: f.severity === "error" ? "error" : "warning",
            message: { text: f.message },
            ...(locations.length > 0 ? { locations } : {}),
            ...(f.witness !== undefined ? { properties: { witness: f.witness.object, policies: f.policies.map((p) => p.id) } } : { properties: { policies: f.policies.map((p) => p.id) } }),
          };
        }),
      },
    ],
  };
}
