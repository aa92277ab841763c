/**
 * Small CEL text builders for the translator: literals from JSON values (homogeneous
 * aggregate literals are on in the Kubernetes environments, so every element and map value
 * is wrapped in `dyn(…)`), JSON-pointer pieces, and the always-failing "error" patch.
 */

/** A CEL string literal (JSON's escapes are valid CEL escapes). */
export function celString(s: string): string {
  return JSON.stringify(s);
}

/** Marker for a dynamic value inside a static JSON template (rendered as `expr`). */
export class Dynamic {
  constructor(readonly expr: string) {}
}

/** A JSON value (possibly containing {@link Dynamic} parts) as a CEL literal. */
export function celLiteral(v: unknown, top = true): string {
  const wrap = (s: string) => (top ? s : `dyn(${s})`);
  if (v instanceof Dynamic) return wrap(v.expr);
  // null and booleans too: `[dyn(1), true]` is rejected by the homogeneous-literal validator.
  if (v === null || v === undefined) return wrap("null");
  if (typeof v === "boolean") return wrap(v ? "true" : "false");
  if (typeof v === "string") return wrap(celString(v));
  if (typeof v === "number") {
    if (Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER) return wrap(String(v));
    if (!Number.isFinite(v)) throw new Error(`not a JSON number: ${v}`);
    const s = String(v);
    return wrap(/[.eE]/.test(s) ? s : `${s}.0`);
  }
  if (Array.isArray(v)) return wrap(`[${v.map((x) => celLiteral(x, false)).join(", ")}]`);
  if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>);
    return wrap(`{${entries.map(([k, x]) => `${celString(k)}: ${celLiteral(x, false)}`).join(", ")}}`);
  }
  throw new Error(`not a JSON value: ${String(v)}`);
}

/** `~` → `~0`, `/` → `~1` (RFC 6901). */
export function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A JSON pointer under construction: escaped static text and dynamic CEL string expressions. */
export type Pointer = readonly (string | Dynamic)[];

export function ptrChild(p: Pointer, key: string): Pointer {
  return [...p, "/" + escapePointer(key)];
}

export function ptrIndex(p: Pointer, indexVar: string): Pointer {
  return [...p, "/", new Dynamic(`string(${indexVar})`)];
}

export function ptrAppend(p: Pointer): Pointer {
  return [...p, "/-"];
}

/** The pointer as a CEL string expression (adjacent static parts merged). */
export function ptrCel(p: Pointer): string {
  const parts: string[] = [];
  let acc = "";
  for (const x of p) {
    if (typeof x === "string") acc += x;
    else {
      if (acc !== "") parts.push(celString(acc));
      acc = "";
      parts.push(x.expr);
    }
  }
  if (acc !== "" || parts.length === 0) parts.push(celString(acc));
  return parts.join(" + ");
}

/** `[JSONPatch{op: "add", path: …, value: …}]`. */
export function addOp(p: Pointer, valueCel: string): string {
  return `[JSONPatch{op: "add", path: ${ptrCel(p)}, value: ${valueCel}}]`;
}

export function replaceOp(p: Pointer, valueCel: string): string {
  return `[JSONPatch{op: "replace", path: ${ptrCel(p)}, value: ${valueCel}}]`;
}

/**
 * A patch that always fails when applied (`Unexpected kind: gatekeeper error: …`): how a
 * Gatekeeper mutation error becomes a MAP policy error. The whole mutation then fails, so none
 * of its other operations apply (Gatekeeper's all-or-nothing for that request).
 */
export function errorOp(message: string): string {
  return `[JSONPatch{op: ${celString(`gatekeeper error: ${message}`)}, path: ""}]`;
}

/** Indents the continuation lines of a multi-line CEL fragment by two spaces. */
export function indent(s: string): string {
  return s.replace(/\n/g, "\n  ");
}

/** `/* … *\/`-free line comment: CEL supports `//` comments to the end of the line. */
export function comment(text: string): string {
  return text
    .split("\n")
    .map((l) => `// ${l}`)
    .join("\n");
}

/** Variable-name supply for nested comprehensions. */
export class Names {
  private n = 0;
  next(prefix: string): string {
    return `${prefix}${this.n++}`;
  }
}
