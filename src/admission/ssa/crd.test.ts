import { describe, expect, test } from "vitest";
import { SchemaRegistry } from "../../kube/schema.js";
import type { JsonObject } from "../json.js";
import { oracleCase } from "../testdata/cases.js";
import { applyConfiguration } from "./apply.js";
import { crdSchemaNode } from "./crd.js";

// spec.versions[0].schema.openAPIV3Schema of the Widget CRD in map-oracle-cases.yaml.
const widgetSchema: JsonObject = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        size: { type: "integer" },
        mode: { type: "string", default: "auto" },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" }, protocol: { type: "string" } } },
        },
        tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
        args: { type: "array", "x-kubernetes-list-type": "atomic", items: { type: "string" } },
        plain: { type: "array", items: { type: "string" } },
        selector: { type: "object", "x-kubernetes-map-type": "atomic", additionalProperties: { type: "string" } },
        settings: { type: "object", additionalProperties: { type: "string" } },
        extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    },
  },
};

function registryWith(schema: JsonObject): SchemaRegistry {
  const r = SchemaRegistry.builtin();
  r.addKind("oracle.example.com/v1", "Widget", crdSchemaNode(schema));
  return r;
}

function run(reg: SchemaRegistry, live: JsonObject, patch: JsonObject) {
  return applyConfiguration(live, patch, reg.forKind(live.apiVersion as string, live.kind as string), reg);
}

describe("crdSchemaNode", () => {
  const reg = registryWith(widgetSchema);

  test("the Widget schema as the merge sees it", () => {
    const spec = reg.child(reg.forKind("oracle.example.com/v1", "Widget")!, "spec")!;
    expect(reg.child(spec, "ports")).toMatchObject({ t: "list", lt: "map", keys: ["name"] });
    expect(reg.child(spec, "tags")).toMatchObject({ t: "list", lt: "set" });
    expect(reg.child(spec, "plain")).toMatchObject({ t: "list", lt: "atomic" });
    expect(reg.child(spec, "selector")).toMatchObject({ t: "map", atomic: true });
    expect(reg.child(spec, "extra")).toEqual({ t: "map", v: { t: "untyped" } });
    expect(reg.child(reg.forKind("oracle.example.com/v1", "Widget")!, "metadata")).toMatchObject({ t: "struct" });
  });

  test.each<[string, JsonObject]>([
    ["oracle-crd-ac-preserve-unknown-nested-map", { spec: { extra: { b: { c: "d" } } } }],
    ["oracle-crd-ac-preserve-unknown-list", { spec: { extra: { items: ["x"] } } }],
  ])("%s", (name, patch) => {
    const c = oracleCase(name);
    expect(run(reg, c.input, patch)).toEqual({ ok: true, object: c.expected });
  });

  test.each<[string, JsonObject]>([
    ["oracle-crd-ac-untyped-list-atomic", { spec: { plain: ["p2"] } }],
    ["oracle-crd-ac-unknown-field", { spec: { bogus: "x" } }],
  ])("%s", (name, patch) => {
    const c = oracleCase(name);
    const r = run(reg, c.input, patch);
    expect(r.ok ? "" : r.error.message).toBe(c.error);
  });

  test("labels on a custom resource merge through ObjectMeta", () => {
    const c = oracleCase("oracle-crd-ac-preserve-unknown-list");
    const r = run(reg, c.input, { metadata: { labels: { a: "b" } } });
    expect(r.ok && (r.object.metadata as JsonObject).labels).toEqual({ a: "b" });
  });

  test("preserve-unknown-fields with properties is inherited by nested objects; int-or-string and formats accept any scalar; key defaults come from the schema", () => {
    const r = registryWith({
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          properties: {
            nested: { type: "object", properties: { a: { type: "string" } } },
            port: { "x-kubernetes-int-or-string": true },
            when: { type: "string", format: "date-time" },
            items: {
              type: "array",
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["name"],
              items: { type: "object", properties: { name: { type: "string", default: "main" }, v: { type: "integer" } } },
            },
          },
        },
      },
    });
    const live: JsonObject = { apiVersion: "oracle.example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { items: [{ name: "main", v: 1 }] } };
    const out = run(r, live, { spec: { nested: { a: "x", extra: 1 }, other: [1], port: 8080, when: 5, items: [{ v: 2 }] } });
    expect(out).toEqual({
      ok: true,
      object: { ...live, spec: { items: [{ name: "main", v: 2 }], nested: { a: "x", extra: 1 }, other: [1], port: 8080, when: 5 } },
    });
  });

  test("a root with only x-kubernetes-preserve-unknown-fields is a struct with ObjectMeta that allows other fields", () => {
    const r = registryWith({ type: "object", "x-kubernetes-preserve-unknown-fields": true });
    const live: JsonObject = { apiVersion: "oracle.example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { a: 1 } };
    expect(run(r, live, { spec: { b: [1] }, metadata: { labels: { x: "y" } } })).toEqual({
      ok: true,
      object: { ...live, metadata: { name: "w", labels: { x: "y" } }, spec: { a: 1, b: [1] } },
    });
    const bad = run(r, live, { metadata: { bogus: 1 } });
    expect(bad.ok ? "" : bad.error.message).toContain(".metadata.bogus: field not declared in schema");
  });

  test("embedded resources gain apiVersion, kind and metadata", () => {
    const r = registryWith({
      type: "object",
      properties: { spec: { type: "object", properties: { template: { type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } } } } },
    });
    const live: JsonObject = { apiVersion: "oracle.example.com/v1", kind: "Widget", metadata: { name: "w" } };
    const out = run(r, live, { spec: { template: { apiVersion: "v1", kind: "Pod", metadata: { labels: { a: "b" } } } } });
    expect(out.ok).toBe(true);
    const bad = run(r, live, { spec: { template: { metadata: { bogus: 1 } } } });
    expect(bad.ok ? "" : bad.error.message).toBe(
      "error applying patch: failed to convert patch object to typed object: .spec.template.metadata.bogus: field not declared in schema",
    );
  });
});
