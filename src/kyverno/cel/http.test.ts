import { describe, expect, it } from "vitest";
import { ProviderError, goJsonMarshal } from "./common.js";
import type { HttpProvider } from "./http.js";
import { OfflineHttpProvider, kyvernoCliHttpMock, liveHttpResult } from "./providers.js";
import { err, m, run, v, type Outcome } from "./test-harness.js";

/** A provider that answers as the live library does (http.go executeRequest) from canned bodies, recording requests. */
class FakeLive implements HttpProvider {
  constructor(
    private readonly body: string,
    private readonly status = 200,
    private readonly ca = "",
    readonly calls: unknown[] = [],
  ) {}
  private answer(): unknown {
    let body: unknown = null;
    try {
      body = JSON.parse(this.body);
    } catch {
      body = null;
    }
    return liveHttpResult(body as never, this.status);
  }
  get(url: string, headers: Readonly<Record<string, string>>): unknown {
    this.calls.push(["GET", url, headers, this.ca]);
    return this.answer();
  }
  post(url: string, body: unknown, headers: Readonly<Record<string, string>>): unknown {
    this.calls.push(["POST", url, goJsonMarshal(body), headers, this.ca]);
    return this.answer();
  }
  client(caBundle: string): HttpProvider {
    if (caBundle === "bad") throw new ProviderError("failed to parse PEM CA bundle for APICall");
    return new FakeLive(this.body, this.status, caBundle, this.calls);
  }
}

describe("http library (live result shapes, kyverno/sdk http/impl_test.go)", () => {
  it.each<[string, string, number, Outcome]>([
    [`http.get("http://localhost:8080")`, `{"body": "ok"}`, 200, v(m({ body: "ok", statusCode: 200 }))],
    [`http.Get("http://localhost:8080", {"Authorization": "Bearer token"}).body`, `{"body": "ok"}`, 200, v("ok")],
    [`http.post("http://localhost:8080", { "key": dyn("value"), "foo": dyn(2) }).statusCode`, `{"body": "ok"}`, 200, v(200)],
    [`http.Post("http://localhost:8080", {"key": "value"}, {"Authorization": "Bearer token"}).body`, `{"body": "ok"}`, 200, v("ok")],
    // object bodies get statusCode; anything else is {body, statusCode}; numbers are doubles
    [`http.Get("http://x/list")`, `[1, 2]`, 200, v(m({ body: [1, 2], statusCode: 200 }))],
    [`http.Get("http://x/n").body`, `3`, 200, v(3)],
    [`http.Get("http://x/bad")`, `not json`, 500, v(m({ body: null, statusCode: 500 }))],
    [`http.Get("http://x/obj").count + 1.0`, `{"count": 1}`, 404, v(2)],
    [`http.Client("").Get("http://x").statusCode`, `{}`, 201, v(201)],
    [`http.client("bad").get("http://x")`, `{}`, 200, err("request failed: failed to parse PEM CA bundle for APICall")],
  ])("%s", (expr, body, status, want) => {
    expect(run(expr, { http: new FakeLive(body, status) })).toEqual(want);
  });

  it("sends headers, JSON bodies and the CA bundle to the provider", () => {
    const p = new FakeLive("{}");
    run(`http.Post("https://svc/x", {"a": dyn([1, 2]), "b": dyn("<&>")}, {"H": "v"})`, { http: p });
    run(`http.client("PEM").get("https://svc/y")`, { http: p });
    expect(p.calls).toEqual([
      ["POST", "https://svc/x", `{"a":[1,2],"b":"\\u003c\\u0026\\u003e"}`, { H: "v" }, ""],
      ["GET", "https://svc/y", {}, "PEM"],
    ]);
  });

  it.each([`http.Get(1)`, `http.Get("x", {"a": 1})`, `http.Put("x", {})`, `http.Post("x")`, `http.Client(1)`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});

describe("http library (offline mocks, as Kyverno's CLI apiCallResponses)", () => {
  // kyverno-tests test/conformance/chainsaw/mutating-policies/context/api-call/http-{get,post}
  const http = new OfflineHttpProvider({
    hint: "give it with --http-responses",
    mocks: [
      { url: "http://test-api-service.default.svc.cluster.local:80", response: kyvernoCliHttpMock({ data: { label: "kyverno" } }) },
      { method: "POST", url: "http://test-api-service.default.svc.cluster.local/", response: kyvernoCliHttpMock({ received: true }, 201) },
      { method: "GET", url: "http://test-api-service.default.svc.cluster.local/", response: kyvernoCliHttpMock("get") },
    ],
  });
  it.each<[string, Outcome]>([
    [`http.get("http://test-api-service.default.svc.cluster.local:80").body.data.label`, v("kyverno")],
    [`http.get("http://test-api-service.default.svc.cluster.local:80").statusCode`, v(200)],
    [`http.post("http://test-api-service.default.svc.cluster.local/", {"a": "b"}).body.received`, v(true)],
    [`http.post("http://test-api-service.default.svc.cluster.local/", {"a": "b"}).statusCode`, v(201)],
    [`http.Get("http://test-api-service.default.svc.cluster.local/").body`, v("get")],
    [`http.Client("").Get("http://test-api-service.default.svc.cluster.local:80").body.data.label`, v("kyverno")],
    [`http.Get("http://elsewhere/")`, err(`request failed: http.Get("http://elsewhere/"): no response for this URL in the offline data (give it with --http-responses)`)],
    [`http.Post("http://elsewhere/", {})`, err(`request failed: http.Post("http://elsewhere/"): no response for this URL in the offline data (give it with --http-responses)`)],
    [`http.Client("garbage").Get("http://elsewhere/")`, err("request failed: failed to parse PEM CA bundle for APICall")],
  ])("%s", (expr, want) => {
    expect(run(expr, { http })).toEqual(want);
  });

  it("forbids http in namespaced policies unless allowed", () => {
    const msg = "request failed: http calls are not allowed in namespaced policies: set --allowHTTPInNamespacedPolicies to enable";
    const url = "http://test-api-service.default.svc.cluster.local:80";
    expect(run(`http.Get("${url}")`, { http, namespace: "ns" })).toEqual(err(msg));
    expect(run(`http.Client("").Post("${url}", {})`, { http, namespace: "ns" })).toEqual(err(msg));
    expect(run(`http.Get("${url}").statusCode`, { http, namespace: "ns", allowHttpInNamespacedPolicies: true })).toEqual(v(200));
  });
});
