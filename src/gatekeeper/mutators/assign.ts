/**
 * Assign (`mutators/assign/assign_mutator.go`, v3.23.0): sets a value, a field of the
 * object's metadata, or an external-data answer at any location outside `metadata`; a
 * terminal keyed list node replaces or appends a whole element.
 */
import { keyValueMatches } from "../core.js";
import type { Path } from "../path/parser.js";
import type { ApplyTo, AssignField, AssignResource } from "../types.js";
import { fromJSONFloat, goFormatValue, isMap, type GoValue } from "../value.js";
import {
  ASSIGN,
  assignValue,
  base,
  checkKeyNotChanged,
  defaultSetter,
  gatherPathTests,
  hasMetadataRoot,
  LOCATION,
  parseLocation,
  Reject,
  validateAssignField,
  validatedBindings,
  type Binding,
  type MutatorBase,
} from "./common.js";

export interface AssignMutator extends MutatorBase {
  readonly kind: "Assign";
  readonly applyTo: readonly ApplyTo[];
  readonly bindings: readonly Binding[];
  readonly terminalType: "Unknown";
  readonly assign: AssignField;
}

/** `validateObjectAssignedToList`. */
function validateObjectAssignedToList(p: Path, value: GoValue): void {
  const last = p.nodes[p.nodes.length - 1]!;
  if (last.type !== "List") return;
  if (last.glob) throw new Reject(LOCATION, "can't append to a globbed list", "keyed-list-value");
  if (last.keyValue === undefined) throw new Reject(LOCATION, "invalid key value for a non globbed object", "keyed-list-value");
  if (!isMap(value)) {
    throw new Reject(ASSIGN.child("value"), `invalid value: \`${goFormatValue(value)}\`, only objects can be added to keyed lists`, "keyed-list-value");
  }
  const objKey = value[last.keyField];
  if (!keyValueMatches(last.keyValue, objKey)) {
    throw new Reject(
      ASSIGN.child("value"),
      `adding object to list with different key ${last.keyField}: list key ${last.keyValue.toString()}, object key ${goFormatValue(objKey)}`,
    "keyed-list-value",
    );
  }
}

/** `MutatorForAssign`: validates a decoded Assign and builds the mutator (throws {@link Reject}). */
export function compileAssign(d: { version: string; resource: AssignResource }, name: string, generation: number): AssignMutator {
    const spec = d.resource.spec ?? {};
    const location = spec.location ?? "";
    const path = parseLocation(location, (e) => `invalid location format \`${location}\` for Assign ${name}: ${e}`);
    if (hasMetadataRoot(path)) throw new Reject(LOCATION, `assign ${name} can't change metadata`, "location-metadata");
    checkKeyNotChanged(path);
    const assign = spec.parameters?.assign ?? {};
    validateAssignField(spec.parameters?.assign);
    if (assign.value !== undefined) validateObjectAssignedToList(path, fromJSONFloat(assign.value));
    if (path.nodes[path.nodes.length - 1]!.type === "List") {
      if (assign.fromMetadata !== undefined) throw new Reject(ASSIGN.child("fromMetadata"), "cannot assign a metadata field to a list", "location-shape");
      if (assign.externalData !== undefined) {
        throw new Reject(ASSIGN.child("externalData"), "cannot assign external data response to a list", "location-shape");
      }
    }
    const tester = gatherPathTests(spec.parameters?.pathTests ?? [], path, "Assign", name);
    const bindings = validatedBindings(spec.applyTo, "Assign", name);
    const m: AssignMutator = {
      ...base("Assign", name, generation, d.version),
      kind: "Assign",
      location,
      path,
      tester,
      match: spec.match ?? {},
      applyTo: spec.applyTo ?? [],
      bindings,
      terminalType: "Unknown",
      mustTerminate: assign.externalData !== undefined,
      assign,
      setter: (obj, ctx) => defaultSetter(assignValue(assign, obj, ctx)),
    };
    return m;
}
