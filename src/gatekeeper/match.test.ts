import { describe, expect, it } from "vitest";
import { appliesTo, matches, wildcardMatches, wildcardMatchesGenerateName } from "./match.js";

const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web-1", namespace: "kube-system", labels: { app: "x" } } };

describe("wildcards (pkg/wildcard)", () => {
  it("prefix, suffix, infix, exact", () => {
    expect(wildcardMatches("kube-*", "kube-system")).toBe(true);
    expect(wildcardMatches("*-system", "kube-system")).toBe(true);
    expect(wildcardMatches("*be-sy*", "kube-system")).toBe(true);
    expect(wildcardMatches("kube-", "kube-system")).toBe(false);
    expect(wildcardMatches("*", "")).toBe(true);
    expect(wildcardMatches("**", "x")).toBe(true);
    expect(wildcardMatches("a*b", "aXb")).toBe(false);
  });
  it("generateName only by prefix or infix", () => {
    expect(wildcardMatchesGenerateName("web-*", "web-")).toBe(true);
    expect(wildcardMatchesGenerateName("*eb*", "web-")).toBe(true);
    expect(wildcardMatchesGenerateName("web-", "web-")).toBe(false);
    expect(wildcardMatchesGenerateName("*-", "web-")).toBe(false);
  });
});

describe("applyTo", () => {
  const gvk = { group: "", version: "v1", kind: "Pod" };
  it("needs GVK and operation in the same entry", () => {
    const a = [
      { groups: [""], versions: ["v1"], kinds: ["Pod"], operations: ["CREATE" as const] },
      { groups: ["apps"], versions: ["v1"], kinds: ["Deployment"], operations: ["UPDATE" as const] },
    ];
    expect(appliesTo(a, gvk, "CREATE")).toBe(true);
    expect(appliesTo(a, gvk, "UPDATE")).toBe(false);
    expect(appliesTo(a, gvk, "DELETE")).toBe(false);
    expect(appliesTo(a, gvk, "")).toBe(false);
    expect(appliesTo([{ groups: [""], versions: ["v1"], kinds: ["Pod"] }], gvk, "")).toBe(true);
  });
});

describe("match", () => {
  const t = (object: unknown, namespace?: unknown) => ({
    object: object as never,
    namespace: namespace as never,
    source: "Original" as const,
  });
  it("wraps selector errors as Gatekeeper does", () => {
    expect(() => matches({ labelSelector: { matchExpressions: [{ key: "a", operator: "Bad" }] } }, t(pod))).toThrow(
      'failed to run Match criteria: "Bad" is not a valid label selector operator',
    );
    expect(() => matches({ labelSelector: { matchLabels: { "a/b/c": "x" } } }, t(pod))).toThrow(
      /^failed to run Match criteria: key: Invalid value: "a\/b\/c": a valid label key/,
    );
  });
  it("short-circuits in Gatekeeper's order (kinds before a bad selector)", () => {
    expect(
      matches({ kinds: [{ kinds: ["Service"] }], labelSelector: { matchExpressions: [{ key: "a", operator: "Bad" }] } }, t(pod)),
    ).toBe(false);
  });
  it("labels with a non-string value count as no labels", () => {
    const odd = { ...pod, metadata: { ...pod.metadata, labels: { app: "x", n: 1 } } };
    expect(matches({ labelSelector: { matchLabels: { app: "x" } } }, t(odd))).toBe(false);
  });
  it("uses the Namespace object's name for namespaces when given", () => {
    expect(matches({ namespaces: ["prod"] }, t(pod, { apiVersion: "v1", kind: "Namespace", metadata: { name: "prod" } }))).toBe(true);
    expect(matches({ namespaces: ["prod"] }, t(pod))).toBe(false);
  });
});
