/**
 * RFC 6902 JSON Patch with the semantics of `gopkg.in/evanphx/json-patch.v4` (v4.13) as
 * kube-apiserver uses it for MutatingAdmissionPolicy `JSONPatch` mutations: negative array
 * indices enabled, an accumulated `copy` size limit of 3 MiB (the apiserver's
 * `JSONPatchMaxCopyBytes`), and the library's exact error texts.
 *
 * Quirks reproduced (shared/spec/map.md §4.3, read against the library's patch.go):
 * - `add` sets an object key (replacing any value) or inserts into an array; `-` and index == len
 *   append; a negative index counts from the end of the grown array (`-1` appends); index > len is
 *   `Unable to access invalid index`. A missing `value` adds null. The parent must exist.
 * - `replace` on a missing object key adds it; on an array the index must exist (`-` fails);
 *   path `""` replaces the whole document (value must be an object or array).
 * - `remove` needs an existing key / in-range index (negative indices allowed).
 * - `move` reads and removes `from` first (a missing key fails, naming only the key), then adds.
 * - `copy` deep-copies `from` (a missing object key or a null copies null) and counts the copy's
 *   JSON size against the limit.
 * - `test` compares JSON values; a missing key (or null) passes only when the op has no `value`;
 *   a failing `test` makes the whole patch a no-op: {@link applyJsonPatch} returns
 *   `{ok: "test-failed"}` and the caller keeps the object unchanged, with no error.
 * - Any other op is `Unexpected kind: <op>`.
 * - A path is split on `/` and its first segment is ignored (`a/b` addresses `/b`), as the library
 *   does; `~1` and `~0` are unescaped in one pass.
 *
 * The operations are those the apiserver builds from CEL `JSONPatch` values: `path` is always
 * present, an empty `from` is not sent (so it counts as missing), `value` only when set.
 *
 * Numbers: plain JavaScript numbers; `bigint` is accepted anywhere for exact int64 values and
 * compares equal to a number of the same value.
 *
 * Known differences from the Go library, all on inputs the apiserver never produces or that make
 * Go panic: nulls are all treated like nulls of the original document (Go distinguishes a null
 * added by an earlier op of the same patch, which it can even descend into); `replace ""` without a
 * value and a `test` comparing arrays holding nulls, both of which panic in Go, give an error
 * and a value comparison. `test` compares scalars as the library does, by their JSON encoding:
 * the document is encoded by Go (HTML-escaped), the op value by protojson (not), so a string holding
 * `<`, `>`, `&`, U+2028 or U+2029 never tests equal; strings an earlier op of the same patch put
 * into the document are treated alike, although Go keeps their protojson encoding and would find
 * them equal.
 */
import { goQuote } from "../gofmt.js";
import { deepClone, getKey, hasKey, isJsonObject, isNumber, numbersEqual, setKey, type JsonObject, type JsonValue } from "../json.js";

/** One operation as the apiserver builds it from a CEL `JSONPatch` value. */
export interface JsonPatchOperation {
  readonly op?: string;
  readonly path?: string;
  readonly from?: string;
  readonly value?: JsonValue;
}

export type JsonPatchResult =
  /** The patched document (a new value; the input is never modified). */
  | { readonly ok: true; readonly doc: JsonValue }
  /** A `test` op failed: the apiserver leaves the object unchanged and reports nothing. */
  | { readonly ok: "test-failed"; readonly detail: string }
  /** The library's error; the apiserver reports it as `JSON Patch: <error>` (see {@link jsonPatchErrorMessage}). */
  | { readonly ok: false; readonly error: string };

export interface JsonPatchOptions {
  /** Accumulated `copy` size limit in bytes; 0 disables it. Default 3 MiB, as the apiserver sets it. */
  readonly accumulatedCopySizeLimit?: number;
}

export const DEFAULT_COPY_SIZE_LIMIT = 3 * 1024 * 1024;

/** The message the apiserver's MAP plugin reports for a JSON Patch library error. */
export function jsonPatchErrorMessage(error: string): string {
  return `JSON Patch: ${error}`;
}

type Container = JsonObject | JsonValue[];

class PatchError extends Error {}
class TestFailed extends Error {}

const MISSING = "missing value";
const INVALID_INDEX = "invalid index referenced";

/** Applies `patch` to `doc` with evanphx/json-patch v4 semantics. Never modifies its inputs. */
export function applyJsonPatch(doc: JsonValue, patch: readonly JsonPatchOperation[], options: JsonPatchOptions = {}): JsonPatchResult {
  const limit = options.accumulatedCopySizeLimit ?? DEFAULT_COPY_SIZE_LIMIT;
  if (!isContainer(doc)) {
    // The library unmarshals a non-array document into an object and fails for anything else.
    return { ok: false, error: `json: cannot unmarshal ${jsonTypeName(doc)} into Go value of type jsonpatch.partialDoc` };
  }
  // Copy on write: containers are copied when an operation first walks through them, so the result
  // shares every subtree the patch did not touch with `doc` (which the pipeline's memos rely on).
  const root = shallowCopy(doc);
  const state: State = { root, copied: 0, limit, owned: new WeakSet([root]) };
  try {
    for (const op of patch) {
      const kind = typeof op.op === "string" ? op.op : "unknown";
      switch (kind) {
        case "add":
          opAdd(state, op);
          break;
        case "remove":
          opRemove(state, op);
          break;
        case "replace":
          opReplace(state, op);
          break;
        case "move":
          opMove(state, op);
          break;
        case "test":
          opTest(state, op);
          break;
        case "copy":
          opCopy(state, op);
          break;
        default:
          throw new PatchError(`Unexpected kind: ${kind}`);
      }
    }
  } catch (e) {
    if (e instanceof TestFailed) return { ok: "test-failed", detail: e.message };
    if (e instanceof PatchError) return { ok: false, error: e.message };
    throw e;
  }
  return { ok: true, doc: state.root };
}

interface State {
  root: JsonValue;
  copied: number;
  readonly limit: number;
  /** Containers this application created (and so may modify); every other one belongs to the input. */
  readonly owned: WeakSet<object>;
}

function shallowCopy(c: Container): Container {
  if (Array.isArray(c)) return c.slice();
  const out: JsonObject = {};
  for (const k of Object.keys(c)) setKey(out, k, c[k] as JsonValue);
  return out;
}

function isContainer(v: JsonValue | undefined): v is Container {
  return Array.isArray(v) || isJsonObject(v);
}

function jsonTypeName(v: JsonValue): string {
  if (v === null) return "null";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  return "number";
}

/** RFC 6901 unescaping in one pass (Go strings.NewReplacer("~1", "/", "~0", "~")). */
function decodeKey(k: string): string {
  if (k.indexOf("~") < 0) return k;
  return k.replace(/~[01]/g, (m) => (m === "~1" ? "/" : "~"));
}

type Atoi = { readonly n: number } | { readonly err: string };

/** Go `strconv.Atoi` on a 64-bit platform. */
function atoi(s: string): Atoi {
  if (!/^[+-]?[0-9]+$/.test(s)) return { err: `strconv.Atoi: parsing ${goQuote(s)}: invalid syntax` };
  // Short decimal strings are exact as numbers; only long ones need the int64 range check.
  if (s.length <= 15) return { n: Number(s) };
  const big = BigInt(s);
  if (big > 9223372036854775807n || big < -9223372036854775808n) return { err: `strconv.Atoi: parsing ${goQuote(s)}: value out of range` };
  return { n: Number(big) };
}

function indexError(idx: number): PatchError {
  return new PatchError(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
}

/** `container.get`: the value (undefined for a missing key or null), or throws the library's error. */
function get(con: Container, key: string): JsonValue | undefined {
  if (!Array.isArray(con)) {
    const v = getKey(con, key);
    return v === null ? undefined : v;
  }
  const a = atoi(key);
  if ("err" in a) throw new PatchError(a.err);
  let idx = a.n;
  if (idx < 0) {
    if (idx < -con.length) throw indexError(idx);
    idx += con.length;
  }
  if (idx >= con.length) throw indexError(idx);
  const v = con[idx] as JsonValue;
  return v === null ? undefined : v;
}

/** `container.add`: object key set, or array insertion. */
function add(con: Container, key: string, val: JsonValue): void {
  if (!Array.isArray(con)) {
    setKey(con, key, val);
    return;
  }
  if (key === "-") {
    con.push(val);
    return;
  }
  const a = atoi(key);
  if ("err" in a) throw new PatchError(`value was not a proper array index: '${key}': ${a.err}`);
  let idx = a.n;
  const size = con.length + 1;
  if (idx >= size) throw indexError(idx);
  if (idx < 0) {
    if (idx < -size) throw indexError(idx);
    idx += size;
  }
  con.splice(idx, 0, val);
}

/** `container.remove`. */
function remove(con: Container, key: string): void {
  if (!Array.isArray(con)) {
    if (!hasKey(con, key)) throw new PatchError(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete con[key];
    return;
  }
  const a = atoi(key);
  if ("err" in a) throw new PatchError(a.err);
  let idx = a.n;
  if (idx >= con.length) throw indexError(idx);
  if (idx < 0) {
    if (idx < -con.length) throw indexError(idx);
    idx += con.length;
  }
  con.splice(idx, 1);
}

/** `container.set` (replace), called only after `get` succeeded. */
function set(con: Container, key: string, val: JsonValue): void {
  if (!Array.isArray(con)) {
    setKey(con, key, val);
    return;
  }
  const a = atoi(key);
  if ("err" in a) throw new PatchError(a.err);
  let idx = a.n;
  if (idx < 0) idx += con.length;
  con[idx] = val;
}

/**
 * `findObject`: the container holding the last path segment, and that segment unescaped; or
 * undefined when the path has no `/` or an intermediate segment is missing, null or a scalar.
 */
function findObject(state: State, path: string): { con: Container; key: string } | undefined {
  const root = state.root;
  const split = path.split("/");
  if (split.length < 2 || !isContainer(root)) return undefined;
  // The root is owned: the document is copied shallowly at the start and replaced only by copies.
  let doc: Container = root;
  for (const part of split.slice(1, -1)) {
    const key = decodeKey(part);
    let next: JsonValue | undefined;
    try {
      next = get(doc, key);
    } catch (e) {
      if (e instanceof PatchError) return undefined;
      throw e;
    }
    if (!isContainer(next)) return undefined;
    if (!state.owned.has(next)) {
      const copy = shallowCopy(next);
      state.owned.add(copy);
      // `get` succeeded, so the slot exists: an own key, or an index that may count from the end.
      if (Array.isArray(doc)) {
        const n = Number(key);
        doc[n < 0 ? n + doc.length : n] = copy;
      } else setKey(doc, key, copy);
      next = copy;
    }
    doc = next;
  }
  return { con: doc, key: decodeKey(split[split.length - 1] as string) };
}

function wrap(prefix: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof PatchError) throw new PatchError(`${prefix}: ${e.message}`);
    throw e;
  }
}

const PATH_MISSING = `operation missing path field: ${MISSING}`;
const FROM_MISSING = `operation, missing from field: ${MISSING}`;

function pathOf(op: JsonPatchOperation): string | undefined {
  return typeof op.path === "string" ? op.path : undefined;
}

/** The apiserver sends `from` only when it is non-empty. */
function fromOf(op: JsonPatchOperation): string | undefined {
  return typeof op.from === "string" && op.from !== "" ? op.from : undefined;
}

/** The op's value as a fresh copy, or null when the op has none. */
function valueOf(op: JsonPatchOperation): JsonValue {
  return op.value === undefined ? null : deepClone(op.value);
}

function opAdd(state: State, op: JsonPatchOperation): void {
  const path = pathOf(op);
  if (path === undefined) throw new PatchError(`add operation failed to decode path: ${MISSING}`);
  const found = findObject(state, path);
  if (found === undefined) throw new PatchError(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrap(`error in add for path: '${path}'`, () => add(found.con, found.key, valueOf(op)));
}

function opRemove(state: State, op: JsonPatchOperation): void {
  const path = pathOf(op);
  if (path === undefined) throw new PatchError(`remove operation failed to decode path: ${MISSING}`);
  const found = findObject(state, path);
  if (found === undefined) throw new PatchError(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrap(`error in remove for path: '${path}'`, () => remove(found.con, found.key));
}

function opReplace(state: State, op: JsonPatchOperation): void {
  const path = pathOf(op);
  if (path === undefined) throw new PatchError(`replace operation failed to decode path: ${PATH_MISSING}`);
  if (path === "") {
    // The whole document; Go formats its nil error with %w here.
    const v = op.value;
    if (v === undefined || !(v === null || isContainer(v))) throw new PatchError("replace operation value must be object or array: %!w(<nil>)");
    state.root = deepClone(v);
    if (isContainer(state.root)) state.owned.add(state.root);
    return;
  }
  const found = findObject(state, path);
  if (found === undefined) throw new PatchError(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
  try {
    get(found.con, found.key);
  } catch (e) {
    if (e instanceof PatchError) throw new PatchError(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
    throw e;
  }
  wrap(`error in remove for path: '${path}'`, () => set(found.con, found.key, valueOf(op)));
}

function opMove(state: State, op: JsonPatchOperation): void {
  const from = fromOf(op);
  if (from === undefined) throw new PatchError(`move operation failed to decode from: ${FROM_MISSING}`);
  const src = findObject(state, from);
  if (src === undefined) throw new PatchError(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  let val: JsonValue | undefined;
  wrap(`error in move for path: '${src.key}'`, () => {
    val = get(src.con, src.key);
  });
  wrap(`error in move for path: '${src.key}'`, () => remove(src.con, src.key));
  const path = pathOf(op);
  if (path === undefined) throw new PatchError(`move operation failed to decode path: ${PATH_MISSING}`);
  const dst = findObject(state, path);
  if (dst === undefined) throw new PatchError(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  wrap(`error in move for path: '${path}'`, () => add(dst.con, dst.key, val ?? null));
}

function opTest(state: State, op: JsonPatchOperation): void {
  const path = pathOf(op);
  if (path === undefined) throw new PatchError(`test operation failed to decode path: ${PATH_MISSING}`);
  const failed = (): TestFailed => new TestFailed(`testing value ${path} failed: test failed`);
  if (path === "") {
    if (op.value === undefined || !topEqual(state.root, op.value)) throw failed();
    return;
  }
  const found = findObject(state, path);
  if (found === undefined) throw new PatchError(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
  let val: JsonValue | undefined;
  wrap(`error in test for path: '${path}'`, () => {
    val = get(found.con, found.key);
  });
  if (val === undefined) {
    if (op.value === undefined) return;
    throw failed();
  }
  if (op.value === undefined || !topEqual(val, op.value)) throw failed();
}

function opCopy(state: State, op: JsonPatchOperation): void {
  const from = fromOf(op);
  if (from === undefined) throw new PatchError(`copy operation failed to decode from: ${FROM_MISSING}`);
  const src = findObject(state, from);
  if (src === undefined) throw new PatchError(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  let val: JsonValue | undefined;
  wrap(`error in copy for from: '${from}'`, () => {
    val = get(src.con, src.key);
  });
  const path = pathOf(op);
  if (path === undefined) throw new PatchError(`copy operation failed to decode path: ${MISSING}`);
  const dst = findObject(state, path);
  if (dst === undefined) throw new PatchError(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  const copy = val === undefined ? null : deepClone(val);
  state.copied += val === undefined ? 0 : goJsonSize(val);
  if (state.limit > 0 && state.copied > state.limit) {
    throw new PatchError(`Unable to complete the copy, the accumulated size increase of copy is ${state.copied}, exceeding the limit ${state.limit}`);
  }
  wrap("error while adding value during copy", () => add(dst.con, dst.key, copy));
}

/**
 * The library's `lazyNode.equal` for a document value (never null here) against an op value.
 * At the top level a JSON null op value decodes as an empty object or array, so `{}` and `[]`
 * equal null; scalars compare by their encoding, so `1` differs from `"1"`.
 */
function topEqual(doc: JsonValue, val: JsonValue): boolean {
  if (isJsonObject(doc)) {
    if (val === null) return Object.keys(doc).length === 0;
    return isJsonObject(val) && nestedEqual(doc, val);
  }
  if (Array.isArray(doc)) {
    if (val === null) return doc.length === 0;
    return Array.isArray(val) && nestedEqual(doc, val);
  }
  return nestedEqual(doc, val);
}

function nestedEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === null || b === null) return a === b;
  if (isNumber(a) || isNumber(b)) return isNumber(a) && isNumber(b) && numbersEqual(a, b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((e, i) => nestedEqual(e, b[i] as JsonValue));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => hasKey(b, k) && nestedEqual(a[k] as JsonValue, b[k] as JsonValue));
  }
  if (typeof a === "string") return a === b && !GO_ESCAPED.test(a);
  return a === b;
}

/**
 * Characters Go's JSON encoder escapes (HTML-safe escaping) but the protobuf JSON encoding of the
 * op value does not. The library compares scalars by their encoded bytes, so a document string
 * holding one of them never equals the op value.
 */
const GO_ESCAPED = /[<>&\u2028\u2029]/;

const utf8 = new TextEncoder();

/**
 * The byte length of `v` as Go's `json.Marshal` writes it (compact, HTML-escaped), which the
 * library adds to the accumulated copy size.
 */
export function goJsonSize(v: JsonValue): number {
  if (v === null) return 4;
  if (typeof v === "boolean") return v ? 4 : 5;
  if (typeof v === "number" || typeof v === "bigint") return String(v).length;
  if (typeof v === "string") return goJsonStringSize(v);
  if (Array.isArray(v)) return 2 + v.reduce<number>((n, e, i) => n + goJsonSize(e) + (i > 0 ? 1 : 0), 0);
  const keys = Object.keys(v);
  return 2 + keys.reduce<number>((n, k, i) => n + goJsonStringSize(k) + 1 + goJsonSize(v[k] as JsonValue) + (i > 0 ? 1 : 0), 0);
}

/** Printable ASCII that Go's encoder writes as it is (no `"`, `\\`, `<`, `>`, `&`). */
const PLAIN_JSON = /^[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7e]*$/;

function goJsonStringSize(s: string): number {
  if (PLAIN_JSON.test(s)) return s.length + 2;
  let n = 2;
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === '"' || ch === "\\" || ch === "\n" || ch === "\r" || ch === "\t" || ch === "\b" || ch === "\f") n += 2;
    else if (cp < 0x20 || ch === "<" || ch === ">" || ch === "&" || cp === 0x2028 || cp === 0x2029) n += 6;
    else if (cp >= 0xd800 && cp <= 0xdfff) n += 6; // invalid UTF-8 becomes \ufffd
    else n += utf8.encode(ch).length;
  }
  return n;
}
