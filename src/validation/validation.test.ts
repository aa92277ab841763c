/**
 * Unit tests of what the generated oracle cases (test/validation-*.test.ts) do not reach:
 * image tags for pull policies, Secret stringData folding, version conversion (None and Webhook),
 * CRD CEL rule details (transition rules, optionalOldSelf, the cost limits) and ratcheting.
 * Expected texts are the apiserver's (apiextensions-apiserver v0.36.3 `schema/cel/validation.go`).
 */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../admission/json.js";
import { imageTag, defaultPullPolicy } from "./image-ref.js";
import { crdConverter, defaultObject, validateStored, validationContext } from "./index.js";

describe("image references (pull policy defaults)", () => {
  it.each([
    ["nginx", "latest", "Always"],
    ["nginx:latest", "latest", "Always"],
    ["nginx:1.27", "1.27", "IfNotPresent"],
    ["registry.example.com:5000/team/app:v1", "v1", "IfNotPresent"],
    ["registry.example.com:5000/team/app", "latest", "Always"],
    [`nginx@sha256:${"a".repeat(64)}`, "", "IfNotPresent"],
    ["Nginx", undefined, "IfNotPresent"],
    ["", undefined, "IfNotPresent"],
  ])("%s", (image, tag, policy) => {
    expect(imageTag(image)).toBe(tag);
    expect(defaultPullPolicy(image)).toBe(policy);
  });
});

describe("Secret normalisation", () => {
  it("folds stringData into data (base64, UTF-8) and drops it; type Opaque", () => {
    const s = defaultObject({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { a: "eA==" }, stringData: { a: "é", b: "y" } }, validationContext());
    expect(s).toEqual({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { a: "w6k=", b: "eQ==" }, type: "Opaque" });
  });
});

describe("defaultObject identity", () => {
  it("returns the very object when it is already defaulted (the pipeline defaults after every mutation), a new one otherwise", () => {
    const ctx = validationContext();
    const pod: JsonObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx:1.27" }] } };
    const once = defaultObject(pod, ctx);
    expect(once).not.toBe(pod);
    expect(((once.spec as JsonObject).containers as JsonObject[])[0]!.imagePullPolicy).toBe("IfNotPresent");
    expect(defaultObject(once, ctx)).toBe(once);
  });
});

function widgetCrd(conversion?: string, rules: JsonObject[] = [], extra: JsonObject = {}): JsonObject {
  const schema = {
    openAPIV3Schema: {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-validations": rules,
          properties: { owner: { type: "string" }, items: { type: "array", items: { type: "integer" } }, ...extra },
        },
      },
    },
  };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { kind: "Widget", plural: "widgets" },
      scope: "Namespaced",
      ...(conversion !== undefined ? { conversion: { strategy: conversion } } : {}),
      versions: [
        { name: "v1", served: true, storage: true, schema },
        { name: "v2", served: true, storage: false, schema },
      ],
    },
  };
}

const widget = (spec: JsonObject, version = "v1"): JsonObject => ({ apiVersion: `example.com/${version}`, kind: "Widget", metadata: { name: "w1", namespace: "default" }, spec });

describe("version conversion", () => {
  it("strategy None: only apiVersion changes", () => {
    const conv = crdConverter(validationContext([widgetCrd()]));
    expect(conv(widget({ owner: "a" }, "v2"), { group: "example.com", version: "v1", kind: "Widget" })).toEqual({ ok: true, object: widget({ owner: "a" }, "v1") });
  });
  it("strategy Webhook: out of reach offline, said so", () => {
    const r = crdConverter(validationContext([widgetCrd("Webhook")]))(widget({}, "v2"), { group: "example.com", version: "v1", kind: "Widget" });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain("celmap cannot call the CustomResourceDefinition's conversion webhook offline");
  });
  it("other kinds are left alone", () => {
    const pod = { apiVersion: "v1", kind: "Pod" };
    expect(crdConverter(validationContext([widgetCrd()]))(pod, { group: "", version: "v2", kind: "Pod" })).toEqual({ ok: true, object: pod });
  });
});

describe("CRD CEL rules", () => {
  const msg = (r: ReturnType<typeof validateStored>): string | undefined => (r.ok ? undefined : r.status.message);

  it("a transition rule runs on UPDATE only", () => {
    const ctx = validationContext([widgetCrd(undefined, [{ rule: "self.owner == oldSelf.owner", message: "owner is immutable" }])]);
    expect(validateStored(widget({ owner: "b" }), undefined, ctx).ok).toBe(true);
    expect(msg(validateStored(widget({ owner: "b" }), widget({ owner: "a" }), ctx))).toBe('Widget.example.com "w1" is invalid: spec: Invalid value: owner is immutable');
  });

  it("optionalOldSelf: runs on CREATE with oldSelf none", () => {
    const ctx = validationContext([widgetCrd(undefined, [{ rule: "!oldSelf.hasValue() || self.owner == oldSelf.value().owner", optionalOldSelf: true, message: "owner is immutable" }, { rule: "oldSelf.hasValue()", optionalOldSelf: true }])]);
    expect(msg(validateStored(widget({ owner: "b" }), undefined, ctx))).toBe('Widget.example.com "w1" is invalid: spec: Invalid value: failed rule: oldSelf.hasValue()');
  });

  it("an evaluation error names the rule", () => {
    const ctx = validationContext([widgetCrd(undefined, [{ rule: "self.missing == 'x'" }])]);
    expect(msg(validateStored(widget({ owner: "b" }), undefined, ctx))).toBe(`Widget.example.com "w1" is invalid: spec: Invalid value: "object": no such key: missing evaluating rule: self.missing == 'x'`);
  });

  it("the per-call cost limit stops validation with the apiserver's message", () => {
    const rule = "self.items.all(a, self.items.all(b, self.items.all(c, a + b + c >= 0)))";
    const ctx = validationContext([widgetCrd(undefined, [{ rule }])]);
    const items = Array.from({ length: 200 }, (_, i) => i);
    expect(msg(validateStored(widget({ items }), undefined, ctx))).toBe(
      `Widget.example.com "w1" is invalid: spec: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`,
    );
  });

  it("ratcheting: an unchanged invalid value passes on UPDATE, a changed one fails", () => {
    const ctx = validationContext([widgetCrd(undefined, [], { size: { type: "integer", maximum: 3 } })]);
    const old = widget({ size: 5 });
    expect(validateStored(widget({ size: 5, owner: "x" }), old, ctx).ok).toBe(true);
    expect(msg(validateStored(widget({ size: 6 }), old, ctx))).toBe('Widget.example.com "w1" is invalid: spec.size: Invalid value: 6: spec.size in body should be less than or equal to 3');
  });
});
