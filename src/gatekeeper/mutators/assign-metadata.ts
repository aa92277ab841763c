/**
 * AssignMetadata (`mutators/assignmeta/assignmeta_mutator.go`, v3.23.0): adds a label or an
 * annotation when it is absent (a built-in MustNotExist test on the whole location); never
 * overwrites; applies to every kind (no `applyTo`).
 */
import { goQuote } from "../../diag/index.js";
import type { Path } from "../path/parser.js";
import { Tester } from "../path/tester.js";
import type { AssignField, AssignMetadataResource } from "../types.js";
import {
  ASSIGN,
  assignValue,
  base,
  defaultSetter,
  LOCATION,
  parseLocation,
  Reject,
  validateAssignField,
  type MutatorBase,
} from "./common.js";

export interface AssignMetadataMutator extends MutatorBase {
  readonly kind: "AssignMetadata";
  readonly assign: AssignField;
}

function isValidMetadataPath(p: Path): boolean {
  if (p.nodes.length !== 3 || p.nodes.some((n) => n.type !== "Object")) return false;
  const [a, b] = p.nodes;
  return (
    a?.type === "Object" && a.reference === "metadata" && b?.type === "Object" && (b.reference === "labels" || b.reference === "annotations")
  );
}

/** `MutatorForAssignMetadata`: validates a decoded AssignMetadata and builds the mutator (throws {@link Reject}). */
export function compileAssignMetadata(d: { version: string; resource: AssignMetadataResource }, name: string, generation: number): AssignMetadataMutator {
    const spec = d.resource.spec ?? {};
    const location = spec.location ?? "";
    const path = parseLocation(location, (e) => `invalid location format for AssignMetadata ${name}: ${location}: ${e}`);
    if (!isValidMetadataPath(path)) throw new Reject(LOCATION, `invalid location for assignmetadata ${name}: ${location}`, "location-shape");
    const assign = spec.parameters?.assign ?? {};
    validateAssignField(spec.parameters?.assign);
    if (assign.externalData !== undefined && assign.externalData.dataSource !== "Username") {
      throw new Reject(ASSIGN.child("externalData", "dataSource"), `only username data source is supported for assignmetadata ${name}`, "external-data");
    }
    if (assign.value !== undefined && typeof assign.value !== "string") {
      throw new Reject(
        ASSIGN.child("value"),
        `spec.parameters.assign.value field must be a string for AssignMetadata ${goQuote(name)}`,
      "value-not-string",
      );
    }
    const tester = Tester.create(path, [{ subPath: path, condition: "MustNotExist" }]);
    const m: AssignMetadataMutator = {
      ...base("AssignMetadata", name, generation, d.version),
      kind: "AssignMetadata",
      location,
      path,
      tester,
      match: spec.match ?? {},
      mustTerminate: assign.externalData !== undefined,
      assign,
      setter: (obj, ctx) => defaultSetter(assignValue(assign, obj, ctx)),
    };
    return m;
}
