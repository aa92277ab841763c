/**
 * Adapts celmap's schema index (`src/kube/schema.ts`) to the schema interface the
 * CEL engine's Kubernetes value semantics and strict Object mode take
 * (`CelSchemaNode` in `src/cel/k8s/values.ts`; `src/cel` imports nothing outside itself).
 *
 *     const pod = celSchemaForKind(SchemaRegistry.builtin(), "v1", "Pod");
 *     kubernetesEnv({ kind: "mutation", objectSchema: pod });   // Object.spec{replicasx: 1} no longer compiles
 *     kubernetesValue(podJson, pod);                           // set/map lists, escaping, null-as-absent
 */
import type { CelSchemaNode } from "../cel/k8s/values.js";
import type { SchemaNode, SchemaRegistry } from "./schema.js";

/** The schema of a kind as a {@link CelSchemaNode}, or undefined for an unknown kind. */
export function celSchemaForKind(registry: SchemaRegistry, apiVersion: string, kind: string): CelSchemaNode | undefined {
  const node = registry.forKind(apiVersion, kind);
  return node === undefined ? undefined : celSchema(registry, node);
}

/** One node, adapted lazily (children are adapted when first asked for). */
export function celSchema(registry: SchemaRegistry, node: SchemaNode): CelSchemaNode {
  const cache = new WeakMap<SchemaNode, CelSchemaNode>();
  const adapt = (n: SchemaNode): CelSchemaNode => {
    let c = cache.get(n);
    if (c === undefined) {
      c = build(n);
      cache.set(n, c);
    }
    return c;
  };
  const build = (n: SchemaNode): CelSchemaNode => {
    const child = (name: string): CelSchemaNode | undefined => {
      const ch = registry.child(n, name);
      return ch === undefined ? undefined : adapt(ch);
    };
    switch (n.t) {
      case "struct":
        return { kind: "struct", child, element: () => undefined };
      case "map":
        return { kind: "map", child, element: () => undefined };
      case "list":
        return {
          kind: "list",
          listType: n.lt,
          ...(n.keys === undefined ? {} : { listMapKeys: n.keys }),
          child: () => undefined,
          element: () => adapt(registry.element(n)),
        };
      case "scalar":
        return { kind: "scalar", scalar: n.s, ...(n.fmt === undefined ? {} : { format: n.fmt }), child: () => undefined, element: () => undefined };
      default:
        return { kind: "untyped", child, element: () => undefined };
    }
  };
  return adapt(node);
}
