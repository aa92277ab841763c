import { describe, expect, test } from "vitest";
import { SchemaRegistry, type ListNode, type SchemaNode } from "./schema.js";

const registry = SchemaRegistry.builtin();

/** Walks a dotted path of struct fields and list elements (`[]`) from a kind's root. */
function at(apiVersion: string, kind: string, path: string): SchemaNode {
  let node = registry.forKind(apiVersion, kind);
  if (node === undefined) throw new Error(`no kind ${apiVersion}/${kind}`);
  for (const step of path.split(".")) {
    if (step === "[]") {
      if (node.t !== "list") throw new Error(`${path}: not a list at ${step}`);
      node = registry.element(node);
      continue;
    }
    const next: SchemaNode | undefined = registry.child(node, step);
    if (next === undefined) throw new Error(`${path}: no field ${step}`);
    node = next;
  }
  return node;
}

describe("built-in schema index: list types the apiserver merges by", () => {
  const lists: Array<[string, string, string, ListNode["lt"], string[] | undefined]> = [
    ["v1", "Pod", "spec.containers", "map", ["name"]],
    ["v1", "Pod", "spec.initContainers", "map", ["name"]],
    ["v1", "Pod", "spec.volumes", "map", ["name"]],
    ["v1", "Pod", "spec.tolerations", "atomic", undefined],
    ["v1", "Pod", "spec.imagePullSecrets", "map", ["name"]],
    ["v1", "Pod", "spec.containers.[].env", "map", ["name"]],
    ["v1", "Pod", "spec.containers.[].ports", "map", ["containerPort", "protocol"]],
    ["v1", "Pod", "spec.containers.[].args", "atomic", undefined],
    ["v1", "Pod", "metadata.ownerReferences", "map", ["uid"]],
    ["v1", "Pod", "metadata.finalizers", "set", undefined],
    ["v1", "Service", "spec.ports", "map", ["port", "protocol"]],
    ["apps/v1", "Deployment", "spec.template.spec.containers", "map", ["name"]],
  ];
  test.each(lists)("%s %s %s is %s keyed by %j", (v, k, path, lt, keys) => {
    const node = at(v, k, path);
    expect(node.t).toBe("list");
    expect((node as ListNode).lt).toBe(lt);
    expect((node as ListNode).keys).toEqual(keys);
  });

  test("key fields with defaults carry them (ContainerPort.protocol = TCP)", () => {
    const ports = at("v1", "Pod", "spec.containers.[].ports") as ListNode;
    expect(ports.keyDefaults).toEqual({ protocol: "TCP" });
  });
});

describe("built-in schema index: atomic structs and maps, scalars", () => {
  test("Deployment spec.selector (LabelSelector) is an atomic struct", () => {
    const node = at("apps/v1", "Deployment", "spec.selector");
    expect(node).toMatchObject({ t: "struct", atomic: true });
  });
  test("PodSpec nodeSelector is an atomic map", () => {
    expect(at("v1", "Pod", "spec.nodeSelector")).toMatchObject({ t: "map", atomic: true });
  });
  test("labels are a granular map of strings", () => {
    const node = at("v1", "Pod", "metadata.labels");
    expect(node.t).toBe("map");
    expect("atomic" in node && node.atomic).toBeFalsy();
    expect(registry.child(node, "app")).toMatchObject({ t: "scalar", s: "string" });
  });
  test("replicas is an int32 integer; resource quantities are quantity scalars", () => {
    expect(at("apps/v1", "Deployment", "spec.replicas")).toMatchObject({ t: "scalar", s: "integer", fmt: "int32" });
    expect(at("v1", "Pod", "spec.containers.[].resources.limits.cpu")).toMatchObject({ t: "scalar", fmt: "quantity" });
  });
  test("unknown kinds and undeclared fields are undefined, not guessed", () => {
    expect(registry.forKind("example.com/v1", "Widget")).toBeUndefined();
    expect(registry.child(at("v1", "Pod", "spec"), "replicasx")).toBeUndefined();
  });
  test("run-time kinds (CRDs) are served next to the built-ins", () => {
    const r = SchemaRegistry.builtin();
    r.addKind("example.com/v1", "Widget", { t: "struct", f: { spec: { t: "struct", f: { size: { t: "scalar", s: "integer" } } } } });
    expect(r.child(r.forKind("example.com/v1", "Widget")!, "spec")).toMatchObject({ t: "struct" });
    expect(r.forKind("v1", "Pod")).toMatchObject({ t: "struct" });
  });
});
