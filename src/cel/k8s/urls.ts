/**
 * The Kubernetes URL library (`kubernetes.urls`): `url(string) URL`,
 * `isURL(string)`, and the URL methods `getScheme`, `getHost`, `getHostname`,
 * `getPort`, `getEscapedPath`, `getQuery`, as `k8s.io/apiserver/pkg/cel/library/urls.go`
 * declares them over Go's `net/url` (see `go-url.ts`):
 *
 * - `isURL(s)` is `url.ParseRequestURI(s) == nil`: an absolute URI (with a
 *   scheme) or an absolute path; no relative references, no empty string.
 * - `url(s)` checks with `ParseRequestURI`, then keeps `url.Parse(s)` (which
 *   also splits off a `#fragment`). Errors read
 *   `URL parse error during conversion from string: parse "…": …`.
 * - `getHost` is the host with port, IPv6 addresses in brackets; `getHostname`
 *   drops the port and brackets; `getPort` is "" when there is none.
 * - `getQuery` maps each key to all its values (`+` and `%XX` decoded;
 *   malformed pairs and pairs with `;` dropped).
 * - `==` compares the Go `String()` forms.
 */
import { func, memberOverload, overload, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { BOOL, STRING, listType, mapType, opaqueType } from "../types.js";
import { CelObject, type CelValue } from "../values.js";
import { FIXED_1, STRING_TRAVERSAL_COST_FACTOR, UNKNOWN_SIZE, actualSize, multiplyByCostFactor, scaleRange, type CostEntry } from "./cost-model.js";
import { GoURLError, escapedPath, hostname, parseRequestURI, parseURL, port, query, urlString, type GoURL } from "./go-url.js";

export const URL_TYPE = opaqueType("kubernetes.URL");

export class CelURL extends CelObject {
  override readonly celType = URL_TYPE;
  constructor(readonly url: GoURL) {
    super();
  }
  override toString(): string {
    return urlString(this.url);
  }
  /** Go `URL.Equal`: another type is "no such overload". */
  override equals(other: CelValue): boolean {
    if (!(other instanceof CelURL)) throw new CelEvalError("no such overload");
    return urlString(this.url) === urlString(other.url);
  }
}

export function stringToURL(s: string): CelURL {
  try {
    parseRequestURI(s);
    return new CelURL(parseURL(s));
  } catch (e) {
    if (e instanceof GoURLError) throw new CelEvalError(`URL parse error during conversion from string: ${e.message}`);
    throw e;
  }
}

export function isURL(s: string): boolean {
  try {
    parseRequestURI(s);
    return true;
  } catch (e) {
    if (e instanceof GoURLError) return false;
    throw e;
  }
}

function getQuery(u: CelURL): CelValue {
  const out = new Map<string, CelValue>();
  for (const [k, vs] of query(u.url)) out.set(k, vs);
  return out;
}

const U = URL_TYPE;

export const URLS_LIBRARY: Library = {
  name: "kubernetes.urls",
  /** Cost rules for the estimator and run-time tracking (`cost` below; a getter, as it is defined later). */
  get costs() {
    return cost;
  },
  functions: [
    func("url", overload("string_to_url", [STRING], U, stringToURL)),
    func("getScheme", memberOverload("url_get_scheme", [U], STRING, (u: CelURL) => u.url.scheme)),
    func("getHost", memberOverload("url_get_host", [U], STRING, (u: CelURL) => u.url.host)),
    func("getHostname", memberOverload("url_get_hostname", [U], STRING, (u: CelURL) => hostname(u.url))),
    func("getPort", memberOverload("url_get_port", [U], STRING, (u: CelURL) => port(u.url))),
    func("getEscapedPath", memberOverload("url_get_escaped_path", [U], STRING, (u: CelURL) => escapedPath(u.url))),
    func("getQuery", memberOverload("url_get_query", [U], mapType(STRING, listType(STRING)), getQuery)),
    func("isURL", overload("is_url_string", [STRING], BOOL, isURL)),
  ],
};

// ---------------------------------------------------------------------------
// Cost (k8s.io/apiserver pkg/cel/library/cost.go), for the cost estimator.

const nominal: Pick<CostEntry, "estimate" | "actual"> = { estimate: () => FIXED_1, actual: () => 1n };

/**
 * Cost of every overload of the URL library, by overload id. `isURL` is not
 * handled by cost.go, so cel-go's default (1) applies; it is listed for completeness.
 * `_==_` on two URLs: runtime 1; the estimate is [1, max(size)] × 0.1 with the size
 * taken from the right operand for both sides (a quirk of cost.go).
 */
export const cost: Readonly<Record<string, CostEntry>> = {
  string_to_url: {
    function: "url",
    estimate: (args) => scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR),
    actual: (args) => multiplyByCostFactor(actualSize(args[0]), STRING_TRAVERSAL_COST_FACTOR),
    note: "string traversal: ceil(size(s) × 0.1); the result has the size of s",
  },
  is_url_string: { function: "isURL", ...nominal, note: "not in cost.go: cel-go default 1" },
  url_get_scheme: { function: "getScheme", ...nominal, note: "1" },
  url_get_host: { function: "getHost", ...nominal, note: "1" },
  url_get_hostname: { function: "getHostname", ...nominal, note: "1" },
  url_get_port: { function: "getPort", ...nominal, note: "1" },
  url_get_escaped_path: { function: "getEscapedPath", ...nominal, note: "1" },
  url_get_query: { function: "getQuery", ...nominal, note: "1" },
  equals_url: {
    function: "_==_",
    estimate: (args) => {
      const rhs = args[1] ?? { min: 1n, max: 1n };
      return scaleRange({ min: 1n, max: rhs.max }, STRING_TRAVERSAL_COST_FACTOR);
    },
    actual: () => 1n,
    note: "runtime 1; estimate [1, size(rhs).max] × 0.1",
  },
};
