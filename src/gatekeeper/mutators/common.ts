/**
 * What every mutator kind shares: identity, the error model, and Gatekeeper's common checks
 * (`mutators/core/mutator.go`, `apis/mutations/unversioned/value.go`, v3.23.0). Each check
 * throws a {@link Reject} carrying Gatekeeper's message and the field it is about; a kind's
 * builder stops at the first one, as Gatekeeper does.
 */
import { FieldPath, type FieldError } from "../../diag/index.js";
import { MutateError, type Setter } from "../core.js";
import { effectiveOperations, validateOperations, type Operation } from "../match.js";
import { nodeEqual, objectNode, tryParsePath, type Path } from "../path/parser.js";
import { Tester, type Condition, type PathTest } from "../path/tester.js";
import { GROUP, type ApplyTo, type AssignField, type ExternalData, type Match, type MutatorKind, type PathTestSpec } from "../types.js";
import { ExternalDataPlaceholder, fromJSONFloat, goFormatValue, goTypeName, isMap, setKey, type GoMap, type GoValue } from "../value.js";

/** `types.ID`: the sort key of the System. */
export interface MutatorID {
  readonly group: string;
  readonly kind: MutatorKind;
  readonly namespace: string;
  readonly name: string;
}

/** `ID.String()`: `Assign.mutations.gatekeeper.sh /name`. */
export function idString(id: MutatorID): string {
  return `${id.kind}.${id.group} ${id.namespace}/${id.name}`;
}

/** A schema binding: one GVK and operation a mutator with `applyTo` registers its path under. */
export interface Binding {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly operation: Operation;
}

/** The terminal type of a mutator's location in the schema DB. */
export type TerminalType = "Unknown" | "Set" | "String";

/** What a mutation needs from the request. */
export interface MutationContext {
  readonly username: string;
}

export interface MutatorBase {
  readonly id: MutatorID;
  readonly generation: number;
  /** The apiVersion the resource was written in. */
  readonly version: string;
  readonly location: string;
  readonly path: Path;
  readonly tester: Tester;
  readonly match: Match;
  /** `Kind/namespace/name:generation`, as in the `gatekeeper.sh/mutations` annotation. */
  readonly display: string;
  /** Builds the setter for one application. */
  setter(obj: GoMap, ctx: MutationContext): Setter;
  /** Whether the location must not be extended by other mutators (schema DB). */
  readonly mustTerminate: boolean;
}

/**
 * A rejected mutator. `message` is Gatekeeper's error text (for structural errors, the
 * apiserver's error body, e.g. `Unsupported value: "x": supported values: …`); `path` the
 * field it is about, so `${path}: ${message}` reads like an apiserver field error;
 * `fieldError` is set for structural (CRD schema) errors.
 */
export interface MutatorIssue {
  readonly path: FieldPath;
  readonly message: string;
  /** Stable identifier of the rule, for callers that branch on it. */
  readonly code: IssueCode;
  readonly fieldError?: FieldError;
}

/** The rules a mutator can break (`schema`: the CRD's structural schema). */
export type IssueCode =
  | "schema"
  | "name-too-long"
  | "location-syntax"
  | "location-metadata"
  | "location-empty"
  | "location-shape"
  | "key-changed"
  | "assign-source"
  | "from-metadata-field"
  | "external-data"
  | "keyed-list-value"
  | "value-not-string"
  | "path-tests"
  | "apply-to"
  | "image-parameters";

/** A builder's first problem: Gatekeeper's message at a field, with a stable code. */
export class Reject extends Error {
  constructor(
    readonly path: FieldPath,
    message: string,
    readonly code: IssueCode,
  ) {
    super(message);
  }
}

export const SPEC = FieldPath.root("spec");
export const LOCATION = SPEC.child("location");
export const PARAMS = SPEC.child("parameters");
export const ASSIGN = PARAMS.child("assign");

const utf8 = new TextEncoder();

/** `core.ValidateName`: at most 63 bytes. */
export function validateName(name: string): void {
  if (utf8.encode(name).length > 63) throw new Reject(FieldPath.root("metadata", "name"), "maximum name length is 63 characters", "name-too-long");
}

export function parseLocation(location: string, wrap: (err: string) => string): Path {
  const r = tryParsePath(location);
  if (r.error !== undefined) throw new Reject(LOCATION, wrap(r.error.message), "location-syntax");
  return r.path;
}

export function hasMetadataRoot(p: Path): boolean {
  return p.nodes.length > 0 && nodeEqual(p.nodes[0]!, objectNode("metadata"));
}

/** `core.CheckKeyNotChanged`. */
export function checkKeyNotChanged(p: Path): void {
  if (p.nodes.length === 0) throw new Reject(LOCATION, "empty path", "location-empty");
  if (p.nodes.length < 2) return;
  const last = p.nodes[p.nodes.length - 1]!;
  const prev = p.nodes[p.nodes.length - 2]!;
  if (prev.type !== "List") return;
  if (last.type !== "Object") throw new Reject(LOCATION, "invalid path format: child of a list can't be a list", "location-shape");
  if (last.reference === prev.keyField) throw new Reject(LOCATION, "invalid path format: changing the item key is not allowed", "key-changed");
}

/** `AssignField.Validate`. */
export function validateAssignField(a: AssignField | undefined): void {
  const f = a ?? {};
  const set = [f.value !== undefined, f.fromMetadata !== undefined, f.externalData !== undefined].filter(Boolean).length;
  if (set === 0) throw new Reject(ASSIGN, "assign must set one of `externalData`, `value` or `fromMetadata`: invalid assign field", "assign-source");
  if (set > 1) throw new Reject(ASSIGN, "assign must only set one of `externalData`, `value` or `fromMetadata`: invalid assign field", "assign-source");
  if (f.fromMetadata !== undefined) {
    const field = f.fromMetadata.field ?? "";
    if (field !== "namespace" && field !== "name") {
      throw new Reject(ASSIGN.child("fromMetadata", "field"), `field ${field} is not recognized: invalid fromMetadata field`, "from-metadata-field");
    }
  }
  if (f.externalData !== undefined) {
    const e = f.externalData;
    if (e.failurePolicy === "UseDefault" && (e.default ?? "") === "") {
      throw new Reject(ASSIGN.child("externalData", "default"), "`default` must not be empty when `failurePolicy` is set to `UseDefault`", "external-data");
    }
  }
}

export function gatherPathTests(specs: readonly PathTestSpec[], location: Path, kind: string, name: string): Tester {
  const tests: PathTest[] = [];
  specs.forEach((pt, i) => {
    const sub = pt.subPath ?? "";
    const r = tryParsePath(sub);
    if (r.error !== undefined) {
      throw new Reject(
        PARAMS.child("pathTests").index(i).child("subPath"),
        `problem parsing sub path \`${sub}\` for ${kind} ${name}: ${r.error.message}`,
      "path-tests",
      );
    }
    tests.push({ subPath: r.path, condition: (pt.condition ?? "") as Condition });
  });
  try {
    return Tester.create(location, tests);
  } catch (e) {
    throw new Reject(PARAMS.child("pathTests"), (e as Error).message, "path-tests");
  }
}

/** `core.NewValidatedBindings`. */
export function validatedBindings(applyTo: readonly ApplyTo[] | undefined, kind: string, name: string): Binding[] {
  const list = applyTo ?? [];
  list.forEach((a, i) => {
    if ((a.groups ?? []).length === 0 || (a.versions ?? []).length === 0 || (a.kinds ?? []).length === 0) {
      throw new Reject(
        SPEC.child("applyTo").index(i),
        `invalid applyTo for ${kind} mutator ${name}, all of group, version and kind must be specified`,
      "apply-to",
      );
    }
  });
  const opErr = validateOperations(list);
  if (opErr !== undefined) throw new Reject(SPEC.child("applyTo"), `invalid applyTo for ${kind} mutator ${name}: ${opErr}`, "apply-to");
  if (list.length === 0) throw new Reject(SPEC.child("applyTo"), `applyTo required for ${kind} mutator ${name}`, "apply-to");
  const seen = new Map<string, Binding>();
  for (const a of list) {
    for (const g of a.groups!) for (const v of a.versions!) for (const k of a.kinds!) {
      for (const op of effectiveOperations(a)) {
        const b: Binding = { group: g, version: v, kind: k, operation: op };
        seen.set(JSON.stringify([g, v, k, op]), b);
      }
    }
  }
  return [...seen.values()];
}

/** `AssignField.GetValue`: a fresh value per application. */
export function assignValue(a: AssignField, obj: GoMap, ctx: MutationContext): GoValue {
  if (a.fromMetadata !== undefined) {
    const md = obj["metadata"];
    const v = isMap(md) ? md[a.fromMetadata.field === "namespace" ? "namespace" : "name"] : undefined;
    return typeof v === "string" ? v : "";
  }
  if (a.value !== undefined) return fromJSONFloat(a.value);
  const e = a.externalData as ExternalData;
  return new ExternalDataPlaceholder(
    e.provider,
    e.dataSource,
    e.failurePolicy,
    e.default ?? "",
    e.dataSource === "Username" ? ctx.username : "",
  );
}

/** `core.defaultSetter`: sets the (same) value at every location it reaches in one application. */
export function defaultSetter(value: GoValue): Setter {
  return {
    keyedListOkay: true,
    keyedListValue(): GoMap {
      if (!isMap(value)) throw new MutateError(`assign.value for keyed list is not an object: ${goFormatValue(value)}`);
      return value;
    },
    setValue(obj: GoMap, key: string): void {
      let v = value;
      if (value instanceof ExternalDataPlaceholder) {
        const incoming = value.copy();
        if (Object.prototype.hasOwnProperty.call(obj, key)) {
          const prev = obj[key];
          if (prev instanceof ExternalDataPlaceholder) incoming.valueAtLocation = prev.valueAtLocation;
          else if (typeof prev === "string") incoming.valueAtLocation = prev;
          else {
            throw new MutateError(
              `value assigned to external data placeholder is not a string, got ${goFormatValue(value)} (${goTypeName(value)})`,
            );
          }
        }
        v = incoming;
      }
      setKey(obj, key, v);
    },
  };
}

export function base(kind: MutatorKind, name: string, generation: number, version: string) {
  const id: MutatorID = { group: GROUP, kind, namespace: "", name };
  return { id, generation, version, display: `${kind}//${name}:${generation}` };
}
