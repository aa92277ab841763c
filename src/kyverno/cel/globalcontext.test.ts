import { describe, expect, it } from "vitest";
import { DataPendingError } from "./common.js";
import { OfflineGlobalContextProvider } from "./providers.js";
import { err, m, run, v, type Outcome } from "./test-harness.js";

// kyverno-tests test/conformance/chainsaw/mutating-policies/context/globalcontextentry: projection "app_label".
const globalContext = new OfflineGlobalContextProvider({
  entries: [
    { name: "gctxentry-apicall-mpol", data: { items: [] }, projections: { app_label: "nginx" } },
    { name: "deployments", data: [{ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { replicas: 2 } }] },
    { name: "one-object", data: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { n: "1" }, count: 3 } },
    { name: "plain", data: { count: 3, nested: { ok: true } } },
    { name: "scalar", data: "text" },
  ],
});

describe("globalContext library", () => {
  it.each<[string, Outcome]>([
    [`globalContext.get("gctxentry-apicall-mpol", "app_label")`, v("nginx")],
    [`globalContext.Get("gctxentry-apicall-mpol")`, v(m({ items: [] }))],
    [`globalContext.Get("plain").count`, v(3)], // Go-decoded JSON: a double
    [`globalContext.Get("plain", "nested")`, v(m({ ok: true }))], // without declared projections: keys of the data
    [`globalContext.Get("one-object").count`, v(3n)], // a Kubernetes object: unstructured, an int
    [`globalContext.Get("deployments")[0].spec.replicas`, v(2)],
    [`globalContext.Get("scalar")`, v("text")],
    [`globalContext.Get("missing")`, v(null)], // a missing entry is null
    [`globalContext.get("missing", "p")`, v(null)],
    [`globalContext.Get("gctxentry-apicall-mpol", "nope")`, err(`failed to get global reference: projection "nope" not found in global context entry "gctxentry-apicall-mpol"`)],
    [`globalContext.Get("scalar", "p")`, err(`failed to get global reference: projection "p" not found in global context entry "scalar": stored value is not an object`)],
  ])("%s", (expr, want) => {
    expect(run(expr, { globalContext })).toEqual(want);
  });

  it.each([`globalContext.Get(1)`, `globalContext.Get("a", "b", "c")`, `globalContext.List("a")`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });

  it("can require data (error) or defer it (pending)", () => {
    expect(run(`globalContext.Get("x")`, { globalContext: new OfflineGlobalContextProvider({ missing: "error", hint: "give it with --global-context" }) })).toEqual(
      err(`failed to get global reference: globalContext.Get("x"): no such global context entry in the offline data (give it with --global-context)`),
    );
    const pending = new OfflineGlobalContextProvider({ missing: "pending" });
    expect(() => run(`globalContext.Get("x", "p")`, { globalContext: pending })).toThrow(DataPendingError);
    pending.setEntry({ name: "x", data: {}, projections: { p: 1 } });
    expect(run(`globalContext.Get("x", "p")`, { globalContext: pending })).toEqual(v(1));
  });
});
