/**
 * The traversal engine shared by every mutator kind (`mutators/core/mutation_function.go`,
 * v3.23.0): one recursive walk of the location over the live object, creating missing maps,
 * lists and keyed elements on the way (attached only when something below was mutated), with
 * the pathTests consulted at each depth, and a setter that does the work at the end.
 */
import type { ListNode, Path } from "./path/parser.js";
import { goNodeString } from "./path/print.js";
import type { Tester } from "./path/tester.js";
import { GoFloat, goTypeName, isMap, setKey, type GoMap, type GoValue } from "./value.js";

/** An error raised while mutating an object (Gatekeeper's message). */
export class MutateError extends Error {
  override readonly name = "MutateError";
}

/** What to do at the end of the location (`core.Setter`). */
export interface Setter {
  setValue(obj: GoMap, key: string): void;
  readonly keyedListOkay: boolean;
  keyedListValue(): GoMap;
}

/** Go `==` between a path key value (string or int64) and an element's value. */
export function keyValueMatches(kv: string | bigint | undefined, v: GoValue | undefined): boolean {
  if (typeof kv === "string") return v === kv;
  if (typeof kv === "bigint") return typeof v === "number" && Number.isInteger(v) && BigInt(v) === kv;
  return false;
}

/** A path key value as a JSON value in the object (int64 → number). */
export function keyValueToGo(kv: string | bigint): GoValue {
  return typeof kv === "string" ? kv : Number(kv);
}

function listKeyEquals(kv: string | bigint | undefined, v: GoValue | undefined): boolean {
  if (v instanceof GoFloat) return false;
  return keyValueMatches(kv, v);
}

class State {
  constructor(
    readonly path: Path,
    readonly tester: Tester,
    readonly setter: Setter,
  ) {}

  walk(current: GoValue, depth: number): [boolean, GoValue] {
    const entry = this.path.nodes[depth]!;
    const last = depth === this.path.nodes.length - 1;
    if (entry.type === "Object") {
      if (!isMap(current)) {
        throw new MutateError(
          `mismatch between path entry (type: object) and received object (type: ${goTypeName(current)}). Path: ${goNodeString(entry)}`,
        );
      }
      const exists = Object.prototype.hasOwnProperty.call(current, entry.reference);
      if (exists ? !this.tester.existsOkay(depth) : !this.tester.missingOkay(depth)) return [false, null];
      if (last) {
        this.setter.setValue(current, entry.reference);
        return [true, current];
      }
      const next = exists ? current[entry.reference]! : this.createMissing(depth);
      const [mutated, value] = this.walk(next, depth + 1);
      if (mutated) setKey(current, entry.reference, value);
      return [mutated, current];
    }
    if (!Array.isArray(current)) {
      throw new MutateError(
        `mismatch between path entry (type: List) and received object (type: ${goTypeName(current)}). Path: ${goNodeString(entry)}`,
      );
    }
    let copy: GoValue[] = current.slice();
    if (last) {
      if (!this.setter.keyedListOkay) throw new MutateError("mutator does not understand keyed lists");
      return this.setListElement(copy, entry, depth);
    }
    if (entry.glob && !this.tester.existsOkay(depth)) return [false, null];
    let mutated = false;
    let found = false;
    for (const el of copy) {
      if (entry.glob) {
        const [m] = this.walk(el, depth + 1);
        mutated = mutated || m;
        found = true;
      } else if (isMap(el) && Object.prototype.hasOwnProperty.call(el, entry.keyField)) {
        if (listKeyEquals(entry.keyValue, el[entry.keyField])) {
          if (!this.tester.existsOkay(depth)) return [false, null];
          const [m] = this.walk(el, depth + 1);
          mutated = mutated || m;
          found = true;
        }
      }
    }
    if (!entry.glob && !found) {
      if (!this.tester.missingOkay(depth)) return [false, null];
      const next = this.createMissing(depth);
      copy = [...copy, next];
      const [m] = this.walk(next, depth + 1);
      mutated = mutated || m;
    }
    return [mutated, copy];
  }

  private setListElement(list: GoValue[], entry: ListNode, depth: number): [boolean, GoValue] {
    if (entry.glob) throw new MutateError("last path entry can not be globbed");
    const value = this.setter.keyedListValue();
    if (entry.keyValue === undefined) throw new MutateError("encountered nil key value when setting a new list element");
    for (let i = 0; i < list.length; i++) {
      const el = list[i]!;
      if (!isMap(el)) {
        throw new MutateError(`cast error, unable to case ${goTypeName(el)} to map[string]interface{}`);
      }
      if (Object.prototype.hasOwnProperty.call(el, entry.keyField) && listKeyEquals(entry.keyValue, el[entry.keyField])) {
        const nk = value[entry.keyField];
        if (!Object.prototype.hasOwnProperty.call(value, entry.keyField) || !listKeyEquals(entry.keyValue, nk)) {
          throw new MutateError("key value of replaced object must not change");
        }
        if (!this.tester.existsOkay(depth)) return [false, null];
        list[i] = value;
        return [true, list];
      }
    }
    if (!this.tester.missingOkay(depth)) return [false, null];
    return [true, [...list, value]];
  }

  private createMissing(depth: number): GoValue {
    const entry = this.path.nodes[depth]!;
    const nextEntry = this.path.nodes[depth + 1]!;
    const next: GoValue = nextEntry.type === "Object" ? {} : [];
    if (entry.type === "List") {
      if (!isMap(next)) throw new MutateError("two consecutive list path entries not allowed");
      if (entry.keyValue === undefined) throw new MutateError("list entry has no key value");
      setKey(next, entry.keyField, keyValueToGo(entry.keyValue));
    }
    return next;
  }
}

/** `core.Mutate`: walks `obj` in place; returns whether the setter ran somewhere attached. */
export function mutatePath(path: Path, tester: Tester, setter: Setter, obj: GoMap): boolean {
  if (path.nodes.length === 0) throw new MutateError("attempting to mutate an empty target location");
  const [mutated] = new State(path, tester, setter).walk(obj, 0);
  return mutated;
}

