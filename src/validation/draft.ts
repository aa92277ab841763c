/**
 * Copy-on-write editing of a JSON object, for the defaulter that runs after every mutation: the
 * input is never modified, nothing is copied until something is written, and then only the
 * objects and lists on the path to the write are, so the result shares every untouched subtree
 * with the input (and is the input itself when nothing was written).
 *
 *     const d = new Draft(pod);
 *     d.obj("spec").setIfAbsent("enableServiceLinks", true);
 *     const out = d.done(); // pod itself if spec.enableServiceLinks was set; else a new pod and spec, the rest shared
 *
 * Reads see the writes made so far. A draft is per call: it is not kept after {@link Draft.done}.
 */
import { hasKey, isJsonObject, setKey, type JsonObject, type JsonValue } from "../admission/json.js";

/** An object being edited. */
export class Draft {
  private copy: JsonObject | undefined;
  private kids: Map<string, Draft | ListDraft> | undefined;

  constructor(private readonly base: JsonObject) {}

  /** The object the draft started from. */
  get original(): JsonObject {
    return this.base;
  }

  /** Whether nothing has been changed so far. */
  unchanged(): boolean {
    return this.done() === this.base;
  }

  /** The value at `key` as it is now (a child being edited: its current value). */
  get(key: string): JsonValue | undefined {
    const kid = this.kids?.get(key);
    if (kid !== undefined) return kid.done();
    return (this.copy ?? this.base)[key];
  }

  keys(): string[] {
    return Object.keys(this.copy ?? this.base);
  }

  set(key: string, value: JsonValue): void {
    this.kids?.delete(key);
    this.writable()[key] = value;
  }

  delete(key: string): void {
    this.kids?.delete(key);
    if (hasKey(this.copy ?? this.base, key)) delete this.writable()[key];
  }

  setIfAbsent(key: string, value: JsonValue): void {
    const v = this.get(key);
    if (v === undefined || v === null) this.set(key, value);
  }

  /** The object at `key` to edit, or undefined when it is not an object. */
  child(key: string): Draft | undefined {
    const kid = this.kids?.get(key);
    if (kid instanceof Draft) return kid;
    const v = this.get(key);
    if (!isJsonObject(v)) return undefined;
    const d = new Draft(v);
    (this.kids ??= new Map()).set(key, d);
    return d;
  }

  /** The object at `key` to edit, created (`{}`) when absent or not an object (a Go struct field without a pointer). */
  obj(key: string): Draft {
    const c = this.child(key);
    if (c !== undefined) return c;
    this.set(key, {});
    return this.child(key) as Draft;
  }

  /**
   * The object elements of the list at `key` to edit (none when it is not a list); with `wanted`,
   * only those for which it is true of the element as the list holds it (no draft is made for the others).
   */
  objects(key: string, wanted?: (element: JsonObject) => boolean): Draft[] {
    const kid = this.kids?.get(key);
    if (kid instanceof ListDraft) return kid.objects(wanted);
    const v = this.get(key);
    if (!Array.isArray(v)) return [];
    const d = new ListDraft(v);
    (this.kids ??= new Map()).set(key, d);
    return d.objects(wanted);
  }

  /** The object as edited: the input when nothing changed, else a new object sharing what did not. */
  done(): JsonObject {
    if (this.kids !== undefined) {
      for (const [k, kid] of this.kids) {
        const v = kid.done();
        if (v !== (this.copy ?? this.base)[k]) this.writable()[k] = v;
      }
    }
    return this.copy ?? this.base;
  }

  private writable(): JsonObject {
    if (this.copy === undefined) {
      const c: JsonObject = {};
      for (const k of Object.keys(this.base)) setKey(c, k, this.base[k] as JsonValue);
      this.copy = c;
    }
    return this.copy;
  }
}

/** A list whose object elements are being edited. */
class ListDraft {
  /** Drafts by index, made when first asked for. */
  private items: (Draft | undefined)[] | undefined;
  private last: JsonValue[] | undefined;

  constructor(private readonly base: JsonValue[]) {}

  objects(wanted?: (element: JsonObject) => boolean): Draft[] {
    const out: Draft[] = [];
    for (let i = 0; i < this.base.length; i++) {
      let d = this.items?.[i];
      if (d === undefined) {
        const e = this.base[i];
        if (!isJsonObject(e) || (wanted !== undefined && !wanted(e))) continue;
        d = new Draft(e);
        (this.items ??= [])[i] = d;
      } else if (wanted !== undefined && !wanted(d.original)) continue;
      out.push(d);
    }
    return out;
  }

  done(): JsonValue[] {
    if (this.items === undefined) return this.base;
    let out: JsonValue[] | undefined;
    for (let i = 0; i < this.base.length; i++) {
      const was = this.base[i] as JsonValue;
      const v = this.items[i]?.done() ?? was;
      if (v !== was && out === undefined) out = this.base.slice(0, i);
      if (out !== undefined) out.push(v);
    }
    if (out === undefined) return this.base;
    // The same list as last time when nothing changed since (so the parent does not copy again).
    if (this.last !== undefined && this.last.length === out.length && out.every((v, i) => v === (this.last as JsonValue[])[i])) return this.last;
    this.last = out;
    return out;
  }
}
