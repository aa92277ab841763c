import { it } from "vitest";
import { run } from "./test-harness.js";
it("q", () => {
  for (const e of [
  `resource.Get("v1", "configmaps", "default", "missing") == null`,
  `resource.List("v1", "configmaps", "test-namespace").items.map(i, i.metadata.name)`,
  `resource.Post("authorization.k8s.io/v1", "subjectaccessreviews", {"spec": {"user": "u", "n": 1}}).status.allowed`,
  ]) console.log(JSON.stringify(run(e)));
});
