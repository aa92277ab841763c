/**
 * The fast YAML writer against the `yaml` package: on generated objects (Kubernetes-like keys and
 * tricky scalars), it writes exactly what `stringify(v, { version: "1.1", lineWidth: 0 })` writes,
 * or declines. And it does not decline the shape admitted Pods have.
 */
import fc from "fast-check";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { fastToYaml } from "./fast-yaml-out.js";

const reference = (v: unknown) => stringify(v, { version: "1.1", lineWidth: 0 });

const TRICKY = [
  "yes", "no", "on", "off", "y", "n", "Y", "true", "null", "~", "", "0x1F", "0755", "08", "1e3", "1.", ".5", "1_000", "+12", "-0", "-", ".inf", ".NaN",
  "12:30", "1:20:30", "2001-12-14", "a: b", "a:b", "a:", "a #b", "a#b", "- a", "-a", "? x", ":x", "@x", "...", "---", "..x", "./a", "a/b", "a=b", "x@y", "a+b",
  "nginx:1.25", "1.25.0", "100m", "1Gi", "app.kubernetes.io/name", "__proto__", "<<", "new\nline", " lead", "trail ", "\u00e9", "=", "_", "0", "01", "1.0",
];
const key = fc.oneof(fc.constantFrom("apiVersion", "kind", "metadata", "name", "labels", "app.kubernetes.io/name", "spec", ...TRICKY), fc.string({ maxLength: 6 }));
const scalar = fc.oneof(fc.constantFrom(...TRICKY), fc.string({ maxLength: 8 }), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, scalar, tie("list"), tie("map")),
  list: fc.array(tie("value"), { maxLength: 4 }),
  map: fc.dictionary(key, tie("value"), { maxKeys: 5 }),
}));

describe("fast YAML writer", () => {
  it("writes what the yaml package writes, or declines", () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 6 }), (v) => {
        const fast = fastToYaml(v);
        if (fast !== undefined) expect(fast).toBe(reference(v));
      }),
      { numRuns: 3000 },
    );
  });

  it("answers on an admitted Pod", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-1", namespace: "shop", labels: { "app.kubernetes.io/name": "web", "sidecar.example.com/inject": "true" }, annotations: {} },
      spec: {
        containers: [{ name: "app", image: "registry.example.com/app:1.2.0", ports: [{ containerPort: 8080n, protocol: "TCP" }], resources: {}, terminationMessagePath: "/dev/termination-log" }],
        restartPolicy: "Always",
        terminationGracePeriodSeconds: 30n,
        tolerations: [],
        enableServiceLinks: true,
      },
    };
    const fast = fastToYaml(pod);
    expect(fast).toBeDefined();
    expect(fast).toBe(reference(pod));
  });
});
