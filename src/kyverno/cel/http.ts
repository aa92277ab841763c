/**
 * Kyverno's HTTP library (`kyverno.http`, kyverno/sdk `extensions/cel/libs/http`):
 * the variable `http` of type `http.Context`, with member functions in
 * PascalCase and (since 1.18) camelCase:
 *
 * - `http.Get(url)`, `http.Get(url, headers map(string, string))` → `any`
 * - `http.Post(url, body any)`, `http.Post(url, body, headers)` → `any` (body JSON-encoded)
 * - `http.Client(caBundle string)` → `http.Context`: a client trusting that PEM bundle
 *   (an empty bundle: the same client).
 *
 * Live results (http.go `executeRequest`): the body is decoded as JSON into Go
 * `any` (numbers are doubles; an undecodable body is null). An object body is
 * returned with an added `statusCode` key; anything else as `{body, statusCode}`.
 * A non-2xx status is not an error. Failures read `request failed: <err>`.
 * `Put` is not in Kyverno 1.19.
 */
import { func, memberOverload, type Library } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { ANY, STRING, mapType, opaqueType } from "../../cel/types.js";
import { CelObject, type CelMapKey, type CelValue } from "../../cel/values.js";
import { ProviderError, fromGoJson, stringMap, toGoNative } from "./common.js";

export const HTTP_CONTEXT_TYPE = opaqueType("http.Context");

/**
 * HTTP access for `http.*` (Kyverno's `http.ContextInterface`). Synchronous (see
 * `providers.ts`). Results are Go values after JSON decoding: return plain JSON
 * (numbers become CEL doubles, as Go decodes them). Throw {@link ProviderError}
 * for a failed request.
 */
export interface HttpProvider {
  get(url: string, headers: Readonly<Record<string, string>>): unknown;
  /** `body` is the Go-native form of the CEL value (see `toGoNative`); encode with `goJsonMarshal`. */
  post(url: string, body: unknown, headers: Readonly<Record<string, string>>): unknown;
  /** A provider that trusts `caBundle` (PEM). Throw ProviderError("failed to parse PEM CA bundle for APICall") when it is invalid. */
  client(caBundle: string): HttpProvider;
}

/** The run-time value of `http` and of `http.Client(...)`. */
export class HttpContext extends CelObject {
  readonly celType = HTTP_CONTEXT_TYPE;
  constructor(readonly provider: HttpProvider) {
    super();
  }
}

function provider(v: CelValue): HttpProvider {
  if (!(v instanceof HttpContext)) throw new CelEvalError("no such overload");
  return v.provider;
}

function call<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ProviderError) throw new CelEvalError(`request failed: ${e.message}`);
    throw e;
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

function get(c: CelValue, url: string, headers?: ReadonlyMap<CelMapKey, CelValue>): CelValue {
  const p = provider(c);
  const h = headers === undefined ? NO_HEADERS : stringMap(headers);
  return fromGoJson(call(() => p.get(url, h)));
}

function post(c: CelValue, url: string, body: CelValue, headers?: ReadonlyMap<CelMapKey, CelValue>): CelValue {
  const p = provider(c);
  const h = headers === undefined ? NO_HEADERS : stringMap(headers);
  const native = toGoNative(body);
  return fromGoJson(call(() => p.post(url, native, h)));
}

function client(c: CelValue, caBundle: string): CelValue {
  const p = provider(c);
  return new HttpContext(call(() => p.client(caBundle)));
}

const CTX = HTTP_CONTEXT_TYPE;
const HEADERS = mapType(STRING, STRING);

function decls(suffix: string, camel: boolean) {
  const n = (s: string): string => (camel ? s[0]!.toLowerCase() + s.slice(1) : s);
  return [
    func(
      n("Get"),
      memberOverload(`http_get_string_${suffix}`, [CTX, STRING], ANY, (c: CelValue, u: string) => get(c, u)),
      memberOverload(`http_get_string_headers_${suffix}`, [CTX, STRING, HEADERS], ANY, get),
    ),
    func(
      n("Post"),
      memberOverload(`http_post_string_any_${suffix}`, [CTX, STRING, ANY], ANY, (c: CelValue, u: string, b: CelValue) => post(c, u, b)),
      memberOverload(`http_post_string_any_headers_${suffix}`, [CTX, STRING, ANY, HEADERS], ANY, post),
    ),
    func(n("Client"), memberOverload(`http_client_string_${suffix}`, [CTX, STRING], CTX, client)),
  ];
}

/** Declares `http`; bind it to `new HttpContext(provider)` at evaluation. */
export const HTTP_LIBRARY: Library = {
  name: "kyverno.http",
  variables: [{ name: "http", type: HTTP_CONTEXT_TYPE }],
  functions: [...decls("pascal", false), ...decls("camel", true)],
};
