/**
 * AssignImage (`mutators/assignimage`, v3.23.0): rewrites the domain, path and/or tag of the
 * image reference (a string) at the location, creating it when missing. Served only as
 * v1alpha1.
 */
import { MutateError, type Setter } from "../core.js";
import { mutateImage, validateImageParts } from "../image.js";
import type { ApplyTo, AssignImageResource } from "../types.js";
import { goFormatValue, goTypeName, setKey, type GoMap } from "../value.js";
import {
  base,
  checkKeyNotChanged,
  gatherPathTests,
  hasMetadataRoot,
  LOCATION,
  PARAMS,
  parseLocation,
  Reject,
  validatedBindings,
  type Binding,
  type MutatorBase,
} from "./common.js";

export interface AssignImageMutator extends MutatorBase {
  readonly kind: "AssignImage";
  readonly applyTo: readonly ApplyTo[];
  readonly bindings: readonly Binding[];
  readonly terminalType: "String";
  readonly assignDomain: string;
  readonly assignPath: string;
  readonly assignTag: string;
}

function imageSetter(domain: string, path: string, tag: string): Setter {
  return {
    keyedListOkay: false,
    keyedListValue(): GoMap {
      throw new MutateError("assignimage setter does not handle keyed lists");
    },
    setValue(obj: GoMap, key: string): void {
      let s = "";
      if (Object.prototype.hasOwnProperty.call(obj, key)) {
        const v = obj[key];
        if (typeof v !== "string") {
          throw new MutateError(
            `expected value at AssignImage location to be a string, got ${goFormatValue(v)} of type ${goTypeName(v)}`,
          );
        }
        s = v;
      }
      setKey(obj, key, mutateImage(domain, path, tag, s));
    },
  };
}

/** `MutatorForAssignImage`: validates a decoded AssignImage and builds the mutator (throws {@link Reject}). */
export function compileAssignImage(d: { version: string; resource: AssignImageResource }, name: string, generation: number): AssignImageMutator {
    const spec = d.resource.spec ?? {};
    const location = spec.location ?? "";
    const path = parseLocation(location, (e) => `invalid location format \`${location}\` for assignImage ${name}: ${e}`);
    if (hasMetadataRoot(path)) throw new Reject(LOCATION, `assignImage ${name} can't change metadata`, "location-metadata");
    if (path.nodes.length > 0 && path.nodes[path.nodes.length - 1]!.type === "List") {
      throw new Reject(LOCATION, `assignImage ${name} cannot mutate list-type fields`, "location-shape");
    }
    checkKeyNotChanged(path);
    const p = spec.parameters ?? {};
    const domain = p.assignDomain ?? "";
    const ipath = p.assignPath ?? "";
    const tag = p.assignTag ?? "";
    const bad = validateImageParts(domain, ipath, tag);
    if (bad !== undefined) {
      throw new Reject(bad.field === undefined ? PARAMS : PARAMS.child(bad.field), `assignImage ${name} has invalid parameters: ${bad.message}`, "image-parameters");
    }
    const tester = gatherPathTests(p.pathTests ?? [], path, "AssignImage", name);
    const bindings = validatedBindings(spec.applyTo, "AssignImage", name);
    const m: AssignImageMutator = {
      ...base("AssignImage", name, generation, d.version),
      kind: "AssignImage",
      location,
      path,
      tester,
      match: spec.match ?? {},
      applyTo: spec.applyTo ?? [],
      bindings,
      terminalType: "String",
      mustTerminate: true,
      assignDomain: domain,
      assignPath: ipath,
      assignTag: tag,
      setter: () => imageSetter(domain, ipath, tag),
    };
    return m;
}
