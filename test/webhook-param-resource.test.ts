/** `celmap webhook --param-resource`: the param kinds the cluster source watches. */
import { describe, expect, it } from "vitest";
import { parseParamResource } from "../src/cli/commands/webhook.js";

describe("--param-resource", () => {
  it("reads a core-group resource", () => {
    expect(parseParamResource("v1/configmaps=ConfigMap")).toEqual({ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", role: "param" });
  });
  it("reads a grouped resource", () => {
    expect(parseParamResource("example.com/v1beta1/rule-settings=RuleSetting")).toEqual({
      group: "example.com",
      version: "v1beta1",
      resource: "rule-settings",
      kind: "RuleSetting",
      role: "param",
    });
  });
  it("refuses a value without the kind, naming the expected form", () => {
    expect(() => parseParamResource("v1/configmaps")).toThrow(/use \[group\/\]version\/resource=Kind, e\.g\. v1\/configmaps=ConfigMap/);
  });
});
