import { describe, expect, it } from "vitest";
import { builtinDefaulter, composeDefaulters, crdDefaulter } from "./defaulting.js";
import type { JsonObject } from "./json.js";

const gvk = (group: string, version: string, kind: string) => ({ group, version, kind });

describe("builtinDefaulter (subset)", () => {
  it("Pod: requests default to limits where unset; other kinds' templates are not", () => {
    const pod: JsonObject = {
      apiVersion: "v1",
      kind: "Pod",
      spec: { containers: [{ name: "a", resources: { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "500m" } } }, { name: "b", resources: {} }] },
    };
    expect(builtinDefaulter(pod, gvk("", "v1", "Pod")).spec).toEqual({
      containers: [{ name: "a", resources: { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "500m", memory: "1Gi" } } }, { name: "b", resources: {} }],
    });
    const dep: JsonObject = { spec: { replicas: 2, template: { spec: { containers: [{ name: "a", resources: { limits: { cpu: "1" } } }] } } } };
    expect(builtinDefaulter(dep, gvk("apps", "v1", "Deployment"))).toEqual(dep);
  });
  it("volume defaultMode 420 in every pod spec; replicas 1", () => {
    const dep: JsonObject = { spec: { template: { spec: { volumes: [{ name: "c", configMap: { name: "x" } }, { name: "e", emptyDir: {} }] } } } };
    expect(builtinDefaulter(dep, gvk("apps", "v1", "Deployment"))).toEqual({
      spec: { replicas: 1, template: { spec: { volumes: [{ name: "c", configMap: { name: "x", defaultMode: 420 } }, { name: "e", emptyDir: {} }] } } },
    });
    expect(dep.spec).not.toHaveProperty("replicas");
  });
  it("Namespace: metadata.name label and phase Active", () => {
    expect(builtinDefaulter({ metadata: { name: "n", labels: { a: "b", "kubernetes.io/metadata.name": "x" } } }, gvk("", "v1", "Namespace"))).toEqual({
      metadata: { name: "n", labels: { a: "b", "kubernetes.io/metadata.name": "n" } },
      status: { phase: "Active" },
    });
  });
  it("leaves other kinds alone", () => {
    const cm: JsonObject = { data: {} };
    expect(builtinDefaulter(cm, gvk("", "v1", "ConfigMap"))).toBe(cm);
  });
});

describe("crdDefaulter", () => {
  const crd: JsonObject = {
    spec: {
      group: "example.com",
      names: { kind: "Widget" },
      versions: [
        {
          name: "v1",
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: {
                    mode: { type: "string", default: "auto" },
                    nested: { type: "object", properties: { x: { type: "integer", default: 1 } } },
                    items: { type: "array", items: { type: "object", properties: { p: { type: "string", default: "d" } } } },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
  it("fills absent properties wherever their parent exists", () => {
    const d = crdDefaulter(crd);
    expect(d({ spec: { items: [{}, { p: "q" }] } }, gvk("example.com", "v1", "Widget"))).toEqual({ spec: { mode: "auto", items: [{ p: "d" }, { p: "q" }] } });
    expect(d({ spec: { mode: "manual", nested: {} } }, gvk("example.com", "v1", "Widget"))).toEqual({ spec: { mode: "manual", nested: { x: 1 } } });
    expect(d({}, gvk("example.com", "v1", "Widget"))).toEqual({});
    expect(d({ spec: {} }, gvk("example.com", "v2", "Widget"))).toEqual({ spec: {} });
  });
  it("composes", () => {
    const d = composeDefaulters(builtinDefaulter, crdDefaulter(crd));
    expect(d({ spec: {} }, gvk("example.com", "v1", "Widget"))).toEqual({ spec: { mode: "auto" } });
  });
});
