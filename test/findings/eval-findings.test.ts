/**
 * `celmap eval` on inputs a newcomer tried (issue 22), in-process through `run(argv, io)` on real
 * files: integers in a MutatingPolicy reaching Kyverno autogen.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { run } from "../../src/cli/run.js";
import { captureIo } from "../support/memory-io.js";
import { upstreamPath } from "../support/upstream.js";

const dir = mkdtempSync(join(tmpdir(), "celmap-findings-"));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const POD = file("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers: [{name: c, image: nginx:1}]\n");

describe("celmap eval: Kyverno autogen with integers in the policy", () => {
  it("a MutatingPolicy with spec.webhookConfiguration.timeoutSeconds is evaluated (it crashed: 'Do not know how to serialize a BigInt')", async () => {
    const policy = file(
      "timeout.yaml",
      `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: add-label}
spec:
  webhookConfiguration: {timeoutSeconds: 10}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'team': 'a'}}}"
`,
    );
    const io = captureIo();
    const code = await run(["eval", "-f", policy, "-r", POD, "-o", "json"], io);
    expect(io.err).not.toContain("internal error");
    expect(code).toBe(0);
    expect(JSON.stringify(JSON.parse(io.out))).toContain('"labels":{"team":"a"}');
  });

  const sample = upstreamPath("kyverno-tests/policies/other-mpol/replace-image-registry/replace-image-registry.yaml", "1 test (the replace-image-registry sample policy)");
  it.skipIf(sample === undefined)("the stock sample replace-image-registry rewrites the image", async () => {
    const io = captureIo();
    const code = await run(["eval", "-f", sample!, "-r", POD], io);
    expect(io.err).toBe("");
    expect(code).toBe(0);
    expect((parse(io.out) as { spec: { containers: { image: string }[] } }).spec.containers[0]!.image).toBe("myregistry.corp.com/nginx:1");
  });
});
