/**
 * An immutable field path, rendered exactly like apimachinery's `field.Path`
 * (`k8s.io/apimachinery/pkg/util/validation/field/path.go`):
 *
 * - a field name is joined with `.` (`spec.mutations`),
 * - a list index is rendered as `[1]` (`spec.mutations[1].expression`),
 * - a map key is rendered as `[key]`, unquoted (`metadata.labels[app.kubernetes.io/name]`).
 *
 * Every operation returns a new path; a path is never changed after it is built.
 * Paths share their parent, so building children is cheap.
 *
 * Example: `FieldPath.root("spec").child("mutations").index(1).child("expression").toString()`
 * is `"spec.mutations[1].expression"`.
 */

/** One step of a path: a struct field, a list index, or a map key. */
export type PathSegment =
  | { readonly kind: "field"; readonly name: string }
  | { readonly kind: "index"; readonly index: number }
  | { readonly kind: "key"; readonly key: string };

export class FieldPath {
  private constructor(
    private readonly parent: FieldPath | undefined,
    /** The last segment; undefined only for the empty path. */
    readonly last: PathSegment | undefined,
  ) {}

  /** The empty path (renders as `""`); `child` on it starts a path. */
  static readonly empty: FieldPath = new FieldPath(undefined, undefined);

  /** `FieldPath.root("spec", "matchConstraints")` → `spec.matchConstraints`. */
  static root(name: string, ...more: string[]): FieldPath {
    return FieldPath.empty.child(name, ...more);
  }

  /** Rebuilds a path from segments (the inverse of {@link segments}). */
  static of(segments: readonly PathSegment[]): FieldPath {
    let p = FieldPath.empty;
    for (const s of segments) p = new FieldPath(p, s);
    return p;
  }

  /** Appends one or more field names. */
  child(name: string, ...more: string[]): FieldPath {
    let p: FieldPath = new FieldPath(this, { kind: "field", name });
    for (const n of more) p = new FieldPath(p, { kind: "field", name: n });
    return p;
  }

  /** Appends a list index, rendered `[i]`. */
  index(i: number): FieldPath {
    return new FieldPath(this, { kind: "index", index: i });
  }

  /** Appends a map key, rendered `[key]` (apimachinery does not quote keys). */
  key(key: string): FieldPath {
    return new FieldPath(this, { kind: "key", key });
  }

  /** True for the empty path. */
  get isEmpty(): boolean {
    return this.last === undefined;
  }

  /** The segments from the root to this path's end. */
  segments(): PathSegment[] {
    const out: PathSegment[] = [];
    for (let p: FieldPath | undefined = this; p !== undefined && p.last !== undefined; p = p.parent) {
      out.push(p.last);
    }
    return out.reverse();
  }

  /** The path without its last segment (the empty path stays empty). */
  get parentPath(): FieldPath {
    return this.parent ?? FieldPath.empty;
  }

  /**
   * apimachinery rendering. A field name after another segment gets a leading `.`;
   * the first segment of the path never does. Indices and keys are bracketed.
   */
  toString(): string {
    let out = "";
    let first = true;
    for (const s of this.segments()) {
      if (s.kind === "field") {
        out += first ? s.name : "." + s.name;
      } else if (s.kind === "index") {
        out += `[${s.index}]`;
      } else {
        out += `[${s.key}]`;
      }
      first = false;
    }
    return out;
  }

  /** Structural equality. */
  equals(other: FieldPath): boolean {
    const a = this.segments();
    const b = other.segments();
    if (a.length !== b.length) return false;
    return a.every((s, i) => {
      const t = b[i]!;
      if (s.kind !== t.kind) return false;
      if (s.kind === "field") return s.name === (t as { name: string }).name;
      if (s.kind === "index") return s.index === (t as { index: number }).index;
      return s.key === (t as { key: string }).key;
    });
  }
}

/**
 * Renders a path the way the apiserver's strict JSON decoder names unknown fields
 * (`spec.rules[0].http`, map keys joined with `.`: `spec.services.web.port`).
 */
export function decoderPathString(path: FieldPath): string {
  let out = "";
  let first = true;
  for (const s of path.segments()) {
    if (s.kind === "index") out += `[${s.index}]`;
    else {
      const name = s.kind === "field" ? s.name : s.key;
      out += first ? name : "." + name;
    }
    first = false;
  }
  return out;
}
