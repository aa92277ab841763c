/**
 * ModifySet (`mutators/modifyset/modify_set_mutator.go`, v3.23.0): treats the list at the
 * location as a set; `merge` appends the values not already present (deep, type-sensitive
 * equality), `prune` removes them. The location must end in an object node.
 */
import { MutateError, type Setter } from "../core.js";
import type { ApplyTo, ModifySetResource } from "../types.js";
import { deepCopy, deepEqual as deepEqualGo, fromJSON, goFormatValue, NIL_LIST, setKey, type GoMap, type GoValue } from "../value.js";
import {
  base,
  gatherPathTests,
  hasMetadataRoot,
  LOCATION,
  parseLocation,
  Reject,
  validatedBindings,
  type Binding,
  type MutatorBase,
} from "./common.js";

export interface ModifySetMutator extends MutatorBase {
  readonly kind: "ModifySet";
  readonly applyTo: readonly ApplyTo[];
  readonly bindings: readonly Binding[];
  readonly terminalType: "Set";
  readonly operation: "merge" | "prune";
  /** `values.fromList` (null when absent: Go's nil slice). */
  readonly values: readonly GoValue[] | null;
}

function modifySetSetter(op: "merge" | "prune", values: readonly GoValue[] | null): Setter {
  const vals = values === null ? null : values.map(deepCopy);
  const notAList = (v: GoValue | undefined) =>
    new MutateError(`${goFormatValue(v)} is not a list of values, cannot treat it as a set`);
  return {
    keyedListOkay: false,
    keyedListValue(): GoMap {
      throw new MutateError("modifyset setter does not handle keyed lists");
    },
    setValue(obj: GoMap, key: string): void {
      const has = Object.prototype.hasOwnProperty.call(obj, key);
      if (op === "merge") {
        if (!has) {
          setKey(obj, key, vals === null ? NIL_LIST.make() : vals.map(deepCopy));
          return;
        }
        const cur = obj[key];
        if (!Array.isArray(cur)) throw notAList(cur);
        let out = cur;
        let copied = false;
        for (const v of vals ?? []) {
          if (out.some((e) => deepEqualGo(v, e))) continue;
          if (!copied) {
            out = out.slice();
            copied = true;
          }
          out.push(v);
        }
        setKey(obj, key, out);
        return;
      }
      if (!has) return;
      const cur = obj[key];
      if (!Array.isArray(cur)) throw notAList(cur);
      setKey(
        obj,
        key,
        cur.filter((e) => !(vals ?? []).some((v) => deepEqualGo(v, e))),
      );
    },
  };
}

/** `MutatorForModifySet`: validates a decoded ModifySet and builds the mutator (throws {@link Reject}). */
export function compileModifySet(d: { version: string; resource: ModifySetResource }, name: string, generation: number): ModifySetMutator {
    const spec = d.resource.spec ?? {};
    const location = spec.location ?? "";
    const path = parseLocation(location, (e) => `invalid location format \`${location}\` for ModifySet ${name}: ${e}`);
    if (hasMetadataRoot(path)) throw new Reject(LOCATION, `modifyset ${name} can't change metadata`, "location-metadata");
    if (path.nodes.length > 0 && path.nodes[path.nodes.length - 1]!.type === "List") {
      throw new Reject(LOCATION, "final node in a modifyset location cannot be a keyed list", "location-shape");
    }
    const tester = gatherPathTests(spec.parameters?.pathTests ?? [], path, "ModifySet", name);
    const bindings = validatedBindings(spec.applyTo, "ModifySet", name);
    const operation = spec.parameters?.operation ?? "merge";
    const fromList = spec.parameters?.values?.fromList;
    const values = fromList === undefined ? null : fromList.map((v) => fromJSON(v));
    const m: ModifySetMutator = {
      ...base("ModifySet", name, generation, d.version),
      kind: "ModifySet",
      location,
      path,
      tester,
      match: spec.match ?? {},
      applyTo: spec.applyTo ?? [],
      bindings,
      terminalType: "Set",
      mustTerminate: false,
      operation,
      values,
      setter: () => modifySetSetter(operation, values),
    };
    return m;
}
