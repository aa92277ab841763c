import { describe, expect, it } from "vitest";
import { outcome, k8sEnv, type Outcome } from "./test-harness.js";
import { URLS_LIBRARY, cost, stringToURL } from "./urls.js";

const env = k8sEnv([URLS_LIBRARY]);
const v = (value: unknown): Outcome => ({ value: value as never });
const parseErr = (url: string, msg: string): Outcome => ({
  evalError: `URL parse error during conversion from string: parse ${JSON.stringify(url)}: ${msg}`,
});
const m = (entries: [string, string[]][]) => new Map(entries);

// Expected values from the examples in k8s.io/apiserver pkg/cel/library/urls.go, then Go net/url behaviour.
describe("URL library (Kubernetes examples)", () => {
  it.each<[string, Outcome]>([
    [`isURL('https://user:pass@example.com:80/path?query=val#fragment')`, v(true)],
    [`isURL('/absolute-path')`, v(true)],
    [`isURL('https://a:b:c/')`, v(false)],
    [`isURL('../relative-path')`, v(false)],
    [`url('https://a:b:c/')`, parseErr("https://a:b:c/", 'invalid port ":b:c" after host')],
    [`url('../relative-path')`, parseErr("../relative-path", "invalid URI for request")],
    [`url('/path').getScheme()`, v("")],
    [`url('https://example.com/').getScheme()`, v("https")],
    [`url('https://example.com:80/').getHost()`, v("example.com:80")],
    [`url('https://example.com/').getHost()`, v("example.com")],
    [`url('https://[::1]:80/').getHost()`, v("[::1]:80")],
    [`url('https://[::1]/').getHost()`, v("[::1]")],
    [`url('/path').getHost()`, v("")],
    [`url('https://example.com:80/').getHostname()`, v("example.com")],
    [`url('https://127.0.0.1:80/').getHostname()`, v("127.0.0.1")],
    [`url('https://[::1]:80/').getHostname()`, v("::1")],
    [`url('/path').getHostname()`, v("")],
    [`url('https://example.com:80/').getPort()`, v("80")],
    [`url('https://example.com/').getPort()`, v("")],
    [`url('/path').getPort()`, v("")],
    [`url('https://example.com/path').getEscapedPath()`, v("/path")],
    [`url('https://example.com/path with spaces/').getEscapedPath()`, v("/path%20with%20spaces/")],
    [`url('https://example.com').getEscapedPath()`, v("")],
    [`url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()`, v(m([["k1", ["a"]], ["k2", ["b", "c"]]]))],
    [`url('https://example.com/path?key with spaces=value with spaces').getQuery()`, v(m([["key with spaces", ["value with spaces"]]]))],
    [`url('https://example.com/path?').getQuery()`, v(m([]))],
    [`url('https://example.com/path').getQuery()`, v(m([]))],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr)).toEqual(want);
  });
});

describe("URL library (Go net/url details)", () => {
  it.each<[string, Outcome]>([
    [`url('HTTPS://Example.com/').getScheme()`, v("https")],
    [`url('https://example.com/a%2Fb').getEscapedPath()`, v("/a%2Fb")],
    [`url('https://example.com/a%41b').getEscapedPath()`, v("/a%41b")],
    [`url('https://example.com/ü').getEscapedPath()`, v("/%C3%BC")],
    [`url('https://example.com/p#frag').getEscapedPath()`, v("/p")],
    [`url('https://x/?a=1+2&b=%41&c&d=&e;f=1&g=%zz&a=3').getQuery()`, v(m([["a", ["1 2", "3"]], ["b", ["A"]], ["c", [""]], ["d", [""]]]))],
    [`url('https://[fe80::1%25en0]:8080/').getHostname()`, v("fe80::1%en0")],
    [`url('https://[::ffff:1.2.3.4]/').getHostname()`, v("::ffff:1.2.3.4")],
    [`url('mailto:someone@example.com').getHost()`, v("")],
    [`url('mongodb://a:1,b:2/').getHost()`, v("a:1,b:2")],
    [`url('*').getEscapedPath()`, v("*")],
    [`url('https://user:pa%20ss@host/') == url('https://user:pa%20ss@host/')`, v(true)],
    [`url('https://host/a b') == url('https://host/a%20b')`, v(true)],
    [`url('https://host/a') == url('https://host/b')`, v(false)],
    [`isURL('')`, v(false)],
    [`isURL('https://exa mple.com/')`, v(false)],
    [`isURL('https://example.com/%zz')`, v(false)],
    [`url('')`, parseErr("", "empty url")],
    [`url('://x')`, parseErr("://x", "missing protocol scheme")],
    [`url('http://[1.2.3.4]/')`, parseErr("http://[1.2.3.4]/", "invalid IP-literal")],
    [`url('http://x[::1]/')`, parseErr("http://x[::1]/", "invalid IP-literal")],
    [`url('http://[::1/')`, parseErr("http://[::1/", "missing ']' in host")],
    [`url('http://[v1.x]/')`, parseErr("http://[v1.x]/", 'invalid host: ParseAddr("v1.x"): unexpected character (at "v1.x")')],
    [`url('http://a{b}/')`, parseErr("http://a{b}/", 'invalid character "{" in host name')],
    [`url('https://example.com/%zz')`, parseErr("https://example.com/%zz", 'invalid URL escape "%zz"')],
    [`url('http://ü@example.com/')`, parseErr("http://ü@example.com/", "net/url: invalid userinfo")],
    [`url('http://x/\\t')`, parseErr("http://x/\t", "net/url: invalid control character in URL")],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr)).toEqual(want);
  });

  it.each([`url(1)`, `isURL(b'x')`, `url('/x').getQuery('a')`, `'https://x'.getHost()`])("rejects %s at compile time", (expr) => {
    expect(outcome(env, expr)).toHaveProperty("compileError");
  });

  it("has the type kubernetes.URL and prints like Go's URL.String", () => {
    const o = outcome(env, `type(url('/x'))`) as { value: { name: string } };
    expect(o.value.name).toBe("kubernetes.URL");
    expect(stringToURL("https://user:pass@example.com:80/path?query=val#fragment").toString()).toBe(
      "https://user:pass@example.com:80/path?query=val#fragment",
    );
    expect(stringToURL("https://host/a b?x=1#f g").toString()).toBe("https://host/a%20b?x=1#f%20g");
    expect(stringToURL("file:///etc/hosts").toString()).toBe("file:///etc/hosts");
  });

  it("costs a string traversal to parse, 1 for accessors", () => {
    expect(cost.string_to_url!.actual(["https://kubernetes.io/"])).toBe(3n);
    expect(cost.url_get_query!.actual([])).toBe(1n);
  });
});
