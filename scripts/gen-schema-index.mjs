#!/usr/bin/env node
// Generates src/kube/builtin-schemas.generated.ts from the Kubernetes OpenAPI v2 document
// (../shared/k8s-openapi/swagger.json by default): for every definition, only what merging,
// typing and cost estimation need (structure, scalar types and formats, list types and keys,
// map types, size bounds), with descriptions dropped.
//
//   node scripts/gen-schema-index.mjs [path/to/swagger.json [output.ts]]
//
// The output is committed; test/schema-index.test.ts regenerates it and fails on any drift.
import { readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const source = process.argv[2] ?? path.join(root, "..", "shared", "k8s-openapi", "swagger.json");
const out = process.argv[3] ?? path.join(root, "src", "kube", "builtin-schemas.generated.ts");

const text = readFileSync(source, "utf8");
const doc = JSON.parse(text);
const defs = doc.definitions;

// Defaults of list-map key fields. The v2 document carries no `default`s for built-in types, but
// server-side apply keys items with the defaulted value (ContainerPort and ServicePort protocol
// default to TCP through +default markers in k8s.io/api). Checked: these are the only optional
// key fields of built-in keyed lists that have a default.
const KEY_DEFAULTS = {
  "io.k8s.api.core.v1.ContainerPort": { protocol: "TCP" },
  "io.k8s.api.core.v1.ServicePort": { protocol: "TCP" },
};

// Definitions the OpenAPI v3 document publishes as `oneOf` several scalar types (kube-openapi
// OpenAPIV3OneOfTypes), which structured-merge-diff turns into an untyped scalar. The v2 document
// says only `type: string` for Quantity, so we mark it here.
const ONE_OF_SCALARS = {
  "io.k8s.apimachinery.pkg.api.resource.Quantity": "quantity",
};

const refName = (ref) => ref.replace(/^#\/definitions\//, "");

function bounds(s, node) {
  for (const k of ["maxLength", "maxItems", "maxProperties"]) if (typeof s[k] === "number") node[k] = s[k];
  return node;
}

/** Converts one schema (a definition or a property) into an index node or a reference. */
function convert(s) {
  if (s.$ref) {
    const name = refName(s.$ref);
    // A property-level map type overrides the referenced struct's relationship (kube-openapi schemaconv).
    if (s["x-kubernetes-map-type"]) return { ref: name, mapType: s["x-kubernetes-map-type"] };
    return name;
  }
  if (s["x-kubernetes-preserve-unknown-fields"]) return bounds(s, { t: "untyped", preserveUnknown: true });
  if (s["x-kubernetes-int-or-string"]) return { t: "scalar", s: "string", fmt: "int-or-string" };
  switch (s.type) {
    case "array": {
      const node = { t: "list", e: s.items ? convert(s.items) : { t: "untyped" } };
      const lt = s["x-kubernetes-list-type"];
      const strategy = (s["x-kubernetes-patch-strategy"] ?? "").split(",");
      if (lt) {
        node.lt = lt;
        if (lt === "map") node.keys = s["x-kubernetes-list-map-keys"] ?? [];
      } else if (strategy.includes("merge")) {
        // Built-in types without a list-type fall back to the strategic-merge markers.
        const key = s["x-kubernetes-patch-merge-key"];
        node.lt = key ? "map" : "set";
        if (key) node.keys = [key];
      } else {
        node.lt = "atomic";
      }
      if (node.lt === "map" && typeof node.e === "string" && KEY_DEFAULTS[node.e]) node.keyDefaults = KEY_DEFAULTS[node.e];
      return bounds(s, node);
    }
    case "object":
    case undefined: {
      if (s.properties && Object.keys(s.properties).length > 0) {
        const f = {};
        for (const name of Object.keys(s.properties).sort()) f[name] = convert(s.properties[name]);
        const node = { t: "struct", f };
        if (Array.isArray(s.required) && s.required.length > 0) node.required = [...s.required].sort();
        if (s["x-kubernetes-map-type"] === "atomic") node.atomic = true;
        return bounds(s, node);
      }
      if (s.additionalProperties && typeof s.additionalProperties === "object") {
        const node = { t: "map", v: convert(s.additionalProperties) };
        if (s["x-kubernetes-map-type"] === "atomic") node.atomic = true;
        return bounds(s, node);
      }
      // No properties and no additionalProperties: a deduced (untyped) value, e.g. RawExtension, JSON.
      return { t: "untyped" };
    }
    default: {
      const node = { t: "scalar", s: s.type };
      if (s.format) node.fmt = s.format;
      if (Array.isArray(s.enum)) node.enum = s.enum;
      return bounds(s, node);
    }
  }
}

const types = {};
const kinds = {};
for (const name of Object.keys(defs).sort()) {
  const s = defs[name];
  types[name] = ONE_OF_SCALARS[name] ? { t: "scalar", s: "string", fmt: ONE_OF_SCALARS[name] } : convert(s);
  for (const gvk of s["x-kubernetes-group-version-kind"] ?? []) {
    // List kinds and options kinds share the GVK table; keep the first definition per GVK.
    const key = `${gvk.group ? `${gvk.group}/` : ""}${gvk.version}/${gvk.kind}`;
    if (!(key in kinds)) kinds[key] = name;
  }
}

const index = { kinds, types };
const json = JSON.stringify(index);
const digest = createHash("sha256").update(text).digest("hex");
const banner = `// GENERATED by scripts/gen-schema-index.mjs from the Kubernetes OpenAPI v2 document
// (shared/k8s-openapi/swagger.json, sha256 ${digest}). Do not edit: regenerate.
// Kubernetes API definitions are Apache-2.0 licensed (the Kubernetes project).
`;
writeFileSync(out, `${banner}\n/** The compact schema index as JSON text; parse it with \`loadBuiltinSchemas()\` in schema.ts. */\nexport const BUILTIN_SCHEMAS_JSON = ${JSON.stringify(json)};\n`);
console.log(`wrote ${path.relative(root, out)}: ${Object.keys(types).length} types, ${Object.keys(kinds).length} kinds, ${json.length} bytes`);
