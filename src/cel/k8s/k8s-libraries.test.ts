/** All Kubernetes libraries of this directory together with the extensions a 1.36 environment has. */
import { describe, expect, it } from "vitest";
import { listsLibrary } from "../ext/lists.js";
import { OPTIONAL_LIBRARY } from "../ext/optionals.js";
import { SETS_LIBRARY } from "../ext/sets.js";
import { stringsLibrary } from "../ext/strings.js";
import { DYN } from "../types.js";
import { FORMAT_LIBRARY } from "./format.js";
import { K8S_LISTS_LIBRARY } from "./lists.js";
import { QUANTITY_LIBRARY } from "./quantity.js";
import { REGEX_LIBRARY } from "./regex.js";
import { SEMVER_LIBRARY } from "./semver.js";
import { outcome, k8sEnv } from "./test-harness.js";
import { URLS_LIBRARY } from "./urls.js";

const env = k8sEnv(
  [
    stringsLibrary(2),
    listsLibrary(3),
    SETS_LIBRARY,
    OPTIONAL_LIBRARY,
    URLS_LIBRARY,
    REGEX_LIBRARY,
    K8S_LISTS_LIBRARY,
    QUANTITY_LIBRARY,
    FORMAT_LIBRARY,
    SEMVER_LIBRARY,
  ],
  { obj: DYN },
);

describe("Kubernetes 1.36 libraries together", () => {
  it.each<[string, unknown]>([
    [`"abcabc".lastIndexOf("c")`, 5n],
    [`["a", "c", "c"].lastIndexOf("c")`, 2n],
    [`"a,b".split(",").indexOf("b")`, 1n],
    [`[3, 1, 2].sort().isSorted()`, true],
    [`[quantity("1Gi"), quantity("500Mi")].all(q, q.isGreaterThan(quantity("100Mi")))`, true],
    [`semver("1.2.3").isGreaterThan(semver("1.2.0")) && quantity("2").isGreaterThan(quantity("1"))`, true],
    [`url("https://example.com:8443/x").getPort().find("[0-9]+")`, "8443"],
    [`format.dns1123Label().validate(obj.name).orValue([]).size()`, 0n],
    [`obj.limits.map(l, quantity(l).asApproximateFloat()).max()`, 2048],
    [`obj.versions.filter(v, isSemver(v, true)).map(v, semver(v, true).minor()).sum()`, 30n],
  ])("%s", (expr, want) => {
    const obj = new Map<string, unknown>([
      ["name", "web"],
      ["limits", ["1Ki", "2Ki", "100m"]],
      ["versions", ["v1.10", "x", "1.20.3"]],
    ]);
    expect(outcome(env, expr, { obj: obj as never })).toEqual({ value: want });
  });
});
