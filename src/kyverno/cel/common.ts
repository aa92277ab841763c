/**
 * Shared by the Kyverno libraries: how Go values cross into CEL (the two JSON
 * decodings Kyverno's libraries use), how CEL values cross back into Go
 * (`ConvertToNative` then `encoding/json`), and the errors providers throw.
 *
 * Two decodings, because Kyverno has two:
 *
 * - **Unstructured** (`resource.*`, `globalContext.*` entries that are Kubernetes
 *   objects): `k8s.io/apimachinery` decodes integral numbers to `int64`, so they
 *   are CEL `int`. That is {@link fromJson} of the engine.
 * - **Go `encoding/json` into `any`** (`json.unmarshal`, `yaml.parse`,
 *   `http.*` bodies, `x509.decode`, image metadata): every number is a `float64`,
 *   so it is a CEL `double` (`json.unmarshal('{"a":1}').a == 1.0`). That is
 *   {@link fromGoJson}.
 */
import { CelEvalError } from "../../cel/errors.js";
import { fromJson, toJson, type JsonValue } from "../../cel/runtime/json.js";
import { CelType } from "../../cel/types.js";
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelUint, type CelMapKey, type CelValue } from "../../cel/values.js";

export { fromJson };
export type { JsonValue };

/** A JSON object as providers hand it over (a Kubernetes object, an HTTP body, an image descriptor). */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Go `encoding/json` decoded into `any`, then `NativeToValue`: numbers are always
 * doubles; objects are maps with string keys; arrays are lists.
 */
export function fromGoJson(value: unknown): CelValue {
  switch (typeof value) {
    case "boolean":
    case "string":
      return value;
    case "number":
      return value;
    case "bigint":
      return Number(value);
    case "object": {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map(fromGoJson);
      const m = new Map<CelMapKey, CelValue>();
      for (const k of Object.keys(value)) {
        const v = (value as Record<string, unknown>)[k];
        if (v !== undefined) m.set(k, fromGoJson(v));
      }
      return m;
    }
    default:
      return null;
  }
}

/** Why a provider could not answer; the libraries word their errors by it, as Kyverno does by the apimachinery error reason. */
export type ProviderErrorReason = "NotFound" | "Forbidden" | "Unauthorized" | "BadRequest" | "Other";

/**
 * An error a provider reports for one call (the Go `error` of a `ContextInterface`
 * method). The library turns it into the CEL error Kyverno produces, e.g.
 * `failed to get resource: permission denied: <message>`.
 */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  constructor(
    message: string,
    readonly reason: ProviderErrorReason = "Other",
  ) {
    super(message);
  }
}

/**
 * Thrown by a provider that has no data for a call **yet** — the webhook
 * pattern for asynchronous sources (see `providers.ts`). It is not a CEL
 * error: it is not absorbed by `||`/`&&` and aborts the evaluation, so the
 * caller can fetch `requests` asynchronously into its cache and evaluate again.
 */
export class DataPendingError extends Error {
  override readonly name = "DataPendingError";
  constructor(readonly requests: readonly DataRequest[]) {
    super(`data pending: ${requests.map(describeRequest).join(", ")}`);
  }
}

/** One external read an expression asked for (what a webhook prefetches). */
export type DataRequest =
  | { readonly kind: "resource.get"; readonly apiVersion: string; readonly resource: string; readonly namespace: string; readonly name: string }
  | {
      readonly kind: "resource.list";
      readonly apiVersion: string;
      readonly resource: string;
      readonly namespace: string;
      readonly labels?: Readonly<Record<string, string>>;
    }
  | { readonly kind: "resource.post"; readonly apiVersion: string; readonly resource: string; readonly namespace: string; readonly data: JsonValue }
  | { readonly kind: "resource.toGVR"; readonly apiVersion: string; readonly resourceKind: string }
  | {
      readonly kind: "http";
      readonly method: "GET" | "POST";
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly body?: JsonValue;
      readonly caBundle?: string;
    }
  | { readonly kind: "globalContext"; readonly name: string; readonly projection: string }
  | { readonly kind: "imagedata"; readonly image: string };

export function describeRequest(r: DataRequest): string {
  switch (r.kind) {
    case "resource.get":
      return `resource.Get(${JSON.stringify(r.apiVersion)}, ${JSON.stringify(r.resource)}, ${JSON.stringify(r.namespace)}, ${JSON.stringify(r.name)})`;
    case "resource.list":
      return `resource.List(${JSON.stringify(r.apiVersion)}, ${JSON.stringify(r.resource)}, ${JSON.stringify(r.namespace)}${r.labels === undefined ? "" : `, ${JSON.stringify(r.labels)}`})`;
    case "resource.post":
      return `resource.Post(${JSON.stringify(r.apiVersion)}, ${JSON.stringify(r.resource)}, ${JSON.stringify(r.namespace)}, …)`;
    case "resource.toGVR":
      return `resource.ToGVR(${JSON.stringify(r.apiVersion)}, ${JSON.stringify(r.resourceKind)})`;
    case "http":
      return `http.${r.method === "GET" ? "Get" : "Post"}(${JSON.stringify(r.url)})`;
    case "globalContext":
      return `globalContext.Get(${JSON.stringify(r.name)}${r.projection === "" ? "" : `, ${JSON.stringify(r.projection)}`})`;
    case "imagedata":
      return `image.GetMetadata(${JSON.stringify(r.image)})`;
  }
}

// ---------------------------------------------------------------------------
// CEL → Go native → JSON

/** A CEL map with string keys as a plain record (`ConvertToNative[map[string]string]`). */
export function stringMap(m: ReadonlyMap<CelMapKey, CelValue>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of m) {
    if (typeof k !== "string" || typeof v !== "string") throw new CelEvalError("type conversion error from map to 'map[string]string'");
    out[k] = v;
  }
  return out;
}

/**
 * A CEL value as the Go value `ConvertToNative` gives for JSON encoding
 * (`map[string]any`, `[]any`, primitives). Ints stay `bigint` so that large ones
 * encode exactly; doubles stay numbers; bytes are base64 (Go `[]byte`).
 */
export function toGoNative(v: CelValue, nullAsEnum = false): unknown {
  // cel-go converts null to `structpb.NullValue_NULL_VALUE` (an int32 enum, JSON 0) for `any`
  // targets, and to a JSON null for `*structpb.Value` targets.
  if (v === null) return nullAsEnum ? 0n : null;
  if (typeof v === "boolean" || typeof v === "string" || typeof v === "bigint" || typeof v === "number") return v;
  if (v instanceof CelUint) return v.value;
  if (Array.isArray(v)) return v.map((x) => toGoNative(x, nullAsEnum));
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v as ReadonlyMap<CelMapKey, CelValue>) {
      if (typeof k !== "string") throw new CelEvalError(`unsupported type conversion from 'map' key ${typeof k === "bigint" ? "int" : typeof k} to 'string'`);
      out[k] = toGoNative(x, nullAsEnum);
    }
    return out;
  }
  if (v instanceof Uint8Array) return new GoBytes(v);
  // time.Time marshals as an RFC 3339 string; time.Duration is an int64 of nanoseconds.
  if (v instanceof CelTimestamp) return toJson(v);
  if (v instanceof CelDuration) return v.nanos;
  if (v instanceof CelOptional) return v.value === undefined ? null : toGoNative(v.value, nullAsEnum);
  if (v instanceof CelType) return v.toString();
  if (v instanceof CelObject) {
    const j = (v as CelObject & { toJSON?: () => unknown }).toJSON;
    if (typeof j === "function") return j.call(v);
    throw new CelEvalError(`type conversion error from '${v.celType.name}' to 'map[string]interface {}'`);
  }
  return null;
}

/** A Go `[]byte` (JSON: base64). */
export class GoBytes {
  constructor(readonly bytes: Uint8Array) {}
}
/** Already-encoded JSON. */
export class GoJsonRaw {
  constructor(readonly json: string) {}
}

/**
 * Go `json.Marshal` of a native value: map keys sorted, HTML characters
 * escaped (`<` → `\u003c`), floats in Go's shortest form, NaN/±Inf rejected.
 */
export function goJsonMarshal(v: unknown): string {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "boolean":
      return v ? "true" : "false";
    case "bigint":
      return v.toString();
    case "number":
      if (!Number.isFinite(v)) throw new CelEvalError(`json: unsupported value: ${Number.isNaN(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf"}`);
      return goFloat(v);
    case "string":
      return goJsonString(v);
  }
  if (Array.isArray(v)) return `[${v.map(goJsonMarshal).join(",")}]`;
  if (v instanceof GoBytes) return goJsonString(base64(v.bytes));
  if (v instanceof GoJsonRaw) return v.json;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort(compareUtf8);
  return `{${keys.map((k) => `${goJsonString(k)}:${goJsonMarshal(o[k])}`).join(",")}}`;
}

function compareUtf8(a: string, b: string): number {
  // Go sorts map keys by their UTF-8 bytes; code-point order is the same.
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i]!.codePointAt(0)!;
    const y = cb[i]!.codePointAt(0)!;
    if (x !== y) return x - y;
  }
  return ca.length - cb.length;
}

/** Go's float64 JSON form: like JavaScript's, except exponents are at least… the same: `1e+21`, `1e-7`. */
function goFloat(f: number): string {
  if (Object.is(f, -0)) return "-0";
  return String(f);
}

export function goJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "<":
      case ">":
      case "&":
        out += `\\u00${c.toString(16)}`;
        continue;
    }
    if (c < 0x20 || c === 0x2028 || c === 0x2029) {
      out += `\\u${c.toString(16).padStart(4, "0")}`;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      out += "\\ufffd"; // a lone surrogate is invalid UTF-8: Go writes U+FFFD
      continue;
    }
    out += ch;
  }
  return `${out}"`;
}

export function base64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]!);
  return btoa(s);
}

/** UTF-8 bytes of a string (Go `[]byte(s)`). */
export function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

/** Go `string(b)`: invalid UTF-8 sequences become U+FFFD. */
export function fromUtf8(b: Uint8Array): string {
  return new TextDecoder("utf-8", { fatal: false }).decode(b);
}

/** Hexadecimal, lowercase (Go `hex.EncodeToString`). */
export function hex(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += b[i]!.toString(16).padStart(2, "0");
  return s;
}

/**
 * The error cel-go's `ConvertToNative(reflect.TypeOf(""))` gives for a non-string
 * value (the Kyverno libraries call it on `dyn` arguments).
 */
export function notAStringError(v: CelValue): CelEvalError {
  if (typeof v === "bigint") return new CelEvalError("unsupported type conversion from 'int' to string");
  if (v instanceof CelUint) return new CelEvalError("unsupported type conversion from 'uint' to string");
  if (typeof v === "boolean") return new CelEvalError("type conversion error from bool to 'string'");
  if (typeof v === "number") return new CelEvalError("type conversion error from Double to 'string'");
  if (v === null) return new CelEvalError("type conversion error from 'null_type' to 'string'");
  if (v instanceof Uint8Array) return new CelEvalError("type conversion error from Bytes to 'string'");
  if (Array.isArray(v)) return new CelEvalError("type conversion error from list to 'string'");
  if (v instanceof Map) return new CelEvalError("type conversion error from map to 'string'");
  if (v instanceof CelTimestamp) return new CelEvalError("type conversion error from 'Timestamp' to 'string'");
  if (v instanceof CelDuration) return new CelEvalError("type conversion error from 'Duration' to 'string'");
  return new CelEvalError("type conversion error to 'string'");
}
