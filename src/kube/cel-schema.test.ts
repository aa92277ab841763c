/** The schema index adapted for the CEL engine: strict Object mode and value semantics on built-in kinds. */
import { describe, expect, it } from "vitest";
import { APPLY_CONFIGURATION_TYPE, compileExpression, kubernetesBaseEnv, kubernetesEnv } from "../admission/environment.js";
import { kubernetesValue } from "../cel/k8s/values.js";
import { DYN } from "../cel/index.js";
import { SchemaRegistry } from "./schema.js";
import { celSchemaForKind } from "./cel-schema.js";

const registry = SchemaRegistry.builtin();
const deployment = celSchemaForKind(registry, "apps/v1", "Deployment")!;
const pod = celSchemaForKind(registry, "v1", "Pod")!;

describe("strict Object mode against the built-in Deployment schema", () => {
  const env = kubernetesEnv({ kind: "mutation", objectSchema: deployment });
  it.each<[string, string | undefined]>([
    ["Object{spec: Object.spec{replicas: 3}}", undefined],
    [
      "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'c', image: 'i', ports: [Object.spec.template.spec.containers.ports{containerPort: 80}]}]}}}}",
      undefined,
    ],
    ["Object{metadata: Object.metadata{labels: {'a': 'b'}, annotations: {'x': 'y'}}}", undefined],
    ["Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'c', resources: Object.spec.template.spec.containers.resources{limits: {'cpu': '1'}}}]}}}}", undefined],
    ["Object{spec: Object.spec{replicasx: 3}}", "undefined field 'replicasx'"],
    ["Object{spec: Object.spec{replicas: 'three'}}", "expected type of field 'replicas' is 'int' but provided type is 'string'"],
    ["Object{spec: Object.spec{template: Object.spec.templat{}}}", "Object.spec.templat"],
  ])("%s", (expr, want) => {
    const r = compileExpression(env, expr, APPLY_CONFIGURATION_TYPE);
    if (want === undefined) expect(r.ok ? "" : r.detail).toBe("");
    else expect(r.ok ? "" : r.detail).toContain(want);
  });
});

describe("value semantics from the built-in Pod schema", () => {
  const env = kubernetesBaseEnv().extend({ variables: { a: DYN, b: DYN } });
  const podWith = (finalizers: string[], containers: string[]) =>
    kubernetesValue(
      { metadata: { name: "p", finalizers, namespace: null }, spec: { containers: containers.map((name) => ({ name, image: `${name}:1` })) } },
      pod,
    );
  const vars = { a: podWith(["x", "y"], ["app", "side"]), b: podWith(["y", "x"], ["side", "app"]) };
  it.each<[string, boolean]>([
    ["a.metadata.finalizers == b.metadata.finalizers", true], // finalizers: listType set
    ["a.spec.containers == b.spec.containers", true], // containers: listType map keyed by name
    ["(a.metadata.finalizers + ['z', 'x']).size() == 3", true],
    ["!has(a.metadata.namespace)", true],
    ["a.metadata.__namespace__ == 'x'", false],
  ])("%s", (expr, want) => {
    const r = compileExpression(env, expr);
    expect(r.ok).toBe(true);
    if (r.ok) {
      let v: unknown;
      try {
        v = r.program.eval(vars);
      } catch {
        v = false;
      }
      expect(v).toBe(want);
    }
  });
});
