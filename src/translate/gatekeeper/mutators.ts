/**
 * Building mutators from their resources, with exactly Gatekeeper's acceptance rules and error
 * texts (`MutatorForAssign`, `MutatorForAssignMetadata`, `MutatorForModifySet`,
 * `MutatorForAssignImage`, v3.23.0), each error placed at the field it is about. Structural
 * (CRD) validation and defaulting come first (`types.ts`); then Gatekeeper's own checks, which
 * stop at the first problem as Gatekeeper does.
 */
import { FieldPath, errorBody, goQuote, type FieldError } from "../../diag/index.js";
import { keyValueMatches, mutatePath, MutateError, type Setter } from "./core.js";
import { mutateImage, validateImageParts } from "./image.js";
import { effectiveOperations, validateOperations, type Operation } from "./match.js";
import { nodeEqual, objectNode, printPath, tryParsePath, type Path } from "./path/parser.js";
import { Tester, type Condition, type PathTest } from "./path/tester.js";
import {
  decodeResource,
  GROUP,
  type ApplyTo,
  type AssignField,
  type ExternalData,
  type Match,
  type MutatorKind,
  type PathTestSpec,
} from "./types.js";
import {
  deepCopy,
  deepEqual as deepEqualGo,
  ExternalDataPlaceholder,
  fromJSON,
  fromJSONFloat,
  goFormatValue,
  goTypeName,
  isMap,
  NIL_LIST,
  setKey,
  type GoMap,
  type GoValue,
} from "./value.js";

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

interface MutatorBase {
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

export interface AssignMutator extends MutatorBase {
  readonly kind: "Assign";
  readonly applyTo: readonly ApplyTo[];
  readonly bindings: readonly Binding[];
  readonly terminalType: "Unknown";
  readonly assign: AssignField;
}

export interface AssignMetadataMutator extends MutatorBase {
  readonly kind: "AssignMetadata";
  readonly assign: AssignField;
}

export interface ModifySetMutator extends MutatorBase {
  readonly kind: "ModifySet";
  readonly applyTo: readonly ApplyTo[];
  readonly bindings: readonly Binding[];
  readonly terminalType: "Set";
  readonly operation: "merge" | "prune";
  /** `values.fromList` (null when absent: Go's nil slice). */
  readonly values: readonly GoValue[] | null;
}

export interface AssignImageMutator extends MutatorBase {
  readonly kind: "AssignImage";
  readonly applyTo: readonly ApplyTo[];
  readonly bindings: readonly Binding[];
  readonly terminalType: "String";
  readonly assignDomain: string;
  readonly assignPath: string;
  readonly assignTag: string;
}

export type Mutator = AssignMutator | AssignMetadataMutator | ModifySetMutator | AssignImageMutator;
export type MutatorWithSchema = AssignMutator | ModifySetMutator | AssignImageMutator;

export function hasSchema(m: Mutator): m is MutatorWithSchema {
  return m.kind !== "AssignMetadata";
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
  readonly fieldError?: FieldError;
}

export type CompileResult = { ok: true; mutator: Mutator } | { ok: false; issues: MutatorIssue[] };

class Reject extends Error {
  constructor(
    readonly path: FieldPath,
    message: string,
  ) {
    super(message);
  }
}

const SPEC = FieldPath.root("spec");
const LOCATION = SPEC.child("location");
const PARAMS = SPEC.child("parameters");
const ASSIGN = PARAMS.child("assign");

const utf8 = new TextEncoder();

/** `core.ValidateName`: at most 63 bytes. */
function validateName(name: string): void {
  if (utf8.encode(name).length > 63) throw new Reject(FieldPath.root("metadata", "name"), "maximum name length is 63 characters");
}

function parseLocation(location: string, wrap: (err: string) => string): Path {
  const r = tryParsePath(location);
  if (r.error !== undefined) throw new Reject(LOCATION, wrap(r.error.message));
  return r.path;
}

function hasMetadataRoot(p: Path): boolean {
  return p.nodes.length > 0 && nodeEqual(p.nodes[0]!, objectNode("metadata"));
}

/** `core.CheckKeyNotChanged`. */
function checkKeyNotChanged(p: Path): void {
  if (p.nodes.length === 0) throw new Reject(LOCATION, "empty path");
  if (p.nodes.length < 2) return;
  const last = p.nodes[p.nodes.length - 1]!;
  const prev = p.nodes[p.nodes.length - 2]!;
  if (prev.type !== "List") return;
  if (last.type !== "Object") throw new Reject(LOCATION, "invalid path format: child of a list can't be a list");
  if (last.reference === prev.keyField) throw new Reject(LOCATION, "invalid path format: changing the item key is not allowed");
}

/** `AssignField.Validate`. */
function validateAssignField(a: AssignField | undefined): void {
  const f = a ?? {};
  const set = [f.value !== undefined, f.fromMetadata !== undefined, f.externalData !== undefined].filter(Boolean).length;
  if (set === 0) throw new Reject(ASSIGN, "assign must set one of `externalData`, `value` or `fromMetadata`: invalid assign field");
  if (set > 1) throw new Reject(ASSIGN, "assign must only set one of `externalData`, `value` or `fromMetadata`: invalid assign field");
  if (f.fromMetadata !== undefined) {
    const field = f.fromMetadata.field ?? "";
    if (field !== "namespace" && field !== "name") {
      throw new Reject(ASSIGN.child("fromMetadata", "field"), `field ${field} is not recognized: invalid fromMetadata field`);
    }
  }
  if (f.externalData !== undefined) {
    const e = f.externalData;
    if (e.failurePolicy === "UseDefault" && (e.default ?? "") === "") {
      throw new Reject(ASSIGN.child("externalData", "default"), "`default` must not be empty when `failurePolicy` is set to `UseDefault`");
    }
  }
}

function gatherPathTests(specs: readonly PathTestSpec[], location: Path, kind: string, name: string): Tester {
  const tests: PathTest[] = [];
  specs.forEach((pt, i) => {
    const sub = pt.subPath ?? "";
    const r = tryParsePath(sub);
    if (r.error !== undefined) {
      throw new Reject(
        PARAMS.child("pathTests").index(i).child("subPath"),
        `problem parsing sub path \`${sub}\` for ${kind} ${name}: ${r.error.message}`,
      );
    }
    tests.push({ subPath: r.path, condition: (pt.condition ?? "") as Condition });
  });
  try {
    return Tester.create(location, tests);
  } catch (e) {
    throw new Reject(PARAMS.child("pathTests"), (e as Error).message);
  }
}

/** `core.NewValidatedBindings`. */
function validatedBindings(applyTo: readonly ApplyTo[] | undefined, kind: string, name: string): Binding[] {
  const list = applyTo ?? [];
  list.forEach((a, i) => {
    if ((a.groups ?? []).length === 0 || (a.versions ?? []).length === 0 || (a.kinds ?? []).length === 0) {
      throw new Reject(
        SPEC.child("applyTo").index(i),
        `invalid applyTo for ${kind} mutator ${name}, all of group, version and kind must be specified`,
      );
    }
  });
  const opErr = validateOperations(list);
  if (opErr !== undefined) throw new Reject(SPEC.child("applyTo"), `invalid applyTo for ${kind} mutator ${name}: ${opErr}`);
  if (list.length === 0) throw new Reject(SPEC.child("applyTo"), `applyTo required for ${kind} mutator ${name}`);
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
function assignValue(a: AssignField, obj: GoMap, ctx: MutationContext): GoValue {
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
function defaultSetter(value: GoValue): Setter {
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

/** `validateObjectAssignedToList`. */
function validateObjectAssignedToList(p: Path, value: GoValue): void {
  const last = p.nodes[p.nodes.length - 1]!;
  if (last.type !== "List") return;
  if (last.glob) throw new Reject(LOCATION, "can't append to a globbed list");
  if (last.keyValue === undefined) throw new Reject(LOCATION, "invalid key value for a non globbed object");
  if (!isMap(value)) {
    throw new Reject(ASSIGN.child("value"), `invalid value: \`${goFormatValue(value)}\`, only objects can be added to keyed lists`);
  }
  const objKey = value[last.keyField];
  if (!keyValueMatches(last.keyValue, objKey)) {
    throw new Reject(
      ASSIGN.child("value"),
      `adding object to list with different key ${last.keyField}: list key ${last.keyValue.toString()}, object key ${goFormatValue(objKey)}`,
    );
  }
}

function base(kind: MutatorKind, name: string, generation: number, version: string) {
  const id: MutatorID = { group: GROUP, kind, namespace: "", name };
  return { id, generation, version, display: `${kind}//${name}:${generation}` };
}

/**
 * Validates one mutator resource (a parsed YAML/JSON document) and builds the mutator.
 * `generation` defaults to 1 (what the apiserver gives a newly created resource).
 */
export function compileMutator(doc: unknown): CompileResult {
  const decoded = decodeResource(doc);
  if (!decoded.ok) {
    return {
      ok: false,
      issues: decoded.errors.map((fe) => ({ path: fe.path, message: errorBody(fe), fieldError: fe })),
    };
  }
  const d = decoded.value;
  const name = d.resource.metadata?.name ?? "";
  const generation = d.resource.metadata?.generation ?? 1;
  try {
    validateName(name);
    switch (d.kind) {
      case "Assign": {
        const spec = d.resource.spec ?? {};
        const location = spec.location ?? "";
        const path = parseLocation(location, (e) => `invalid location format \`${location}\` for Assign ${name}: ${e}`);
        if (hasMetadataRoot(path)) throw new Reject(LOCATION, `assign ${name} can't change metadata`);
        checkKeyNotChanged(path);
        const assign = spec.parameters?.assign ?? {};
        validateAssignField(spec.parameters?.assign);
        if (assign.value !== undefined) validateObjectAssignedToList(path, fromJSONFloat(assign.value));
        if (path.nodes[path.nodes.length - 1]!.type === "List") {
          if (assign.fromMetadata !== undefined) throw new Reject(ASSIGN.child("fromMetadata"), "cannot assign a metadata field to a list");
          if (assign.externalData !== undefined) {
            throw new Reject(ASSIGN.child("externalData"), "cannot assign external data response to a list");
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
        return { ok: true, mutator: m };
      }
      case "AssignMetadata": {
        const spec = d.resource.spec ?? {};
        const location = spec.location ?? "";
        const path = parseLocation(location, (e) => `invalid location format for AssignMetadata ${name}: ${location}: ${e}`);
        if (!isValidMetadataPath(path)) throw new Reject(LOCATION, `invalid location for assignmetadata ${name}: ${location}`);
        const assign = spec.parameters?.assign ?? {};
        validateAssignField(spec.parameters?.assign);
        if (assign.externalData !== undefined && assign.externalData.dataSource !== "Username") {
          throw new Reject(ASSIGN.child("externalData", "dataSource"), `only username data source is supported for assignmetadata ${name}`);
        }
        if (assign.value !== undefined && typeof assign.value !== "string") {
          throw new Reject(
            ASSIGN.child("value"),
            `spec.parameters.assign.value field must be a string for AssignMetadata ${goQuote(name)}`,
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
        return { ok: true, mutator: m };
      }
      case "ModifySet": {
        const spec = d.resource.spec ?? {};
        const location = spec.location ?? "";
        const path = parseLocation(location, (e) => `invalid location format \`${location}\` for ModifySet ${name}: ${e}`);
        if (hasMetadataRoot(path)) throw new Reject(LOCATION, `modifyset ${name} can't change metadata`);
        if (path.nodes.length > 0 && path.nodes[path.nodes.length - 1]!.type === "List") {
          throw new Reject(LOCATION, "final node in a modifyset location cannot be a keyed list");
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
        return { ok: true, mutator: m };
      }
      case "AssignImage": {
        const spec = d.resource.spec ?? {};
        const location = spec.location ?? "";
        const path = parseLocation(location, (e) => `invalid location format \`${location}\` for assignImage ${name}: ${e}`);
        if (hasMetadataRoot(path)) throw new Reject(LOCATION, `assignImage ${name} can't change metadata`);
        if (path.nodes.length > 0 && path.nodes[path.nodes.length - 1]!.type === "List") {
          throw new Reject(LOCATION, `assignImage ${name} cannot mutate list-type fields`);
        }
        checkKeyNotChanged(path);
        const p = spec.parameters ?? {};
        const domain = p.assignDomain ?? "";
        const ipath = p.assignPath ?? "";
        const tag = p.assignTag ?? "";
        const bad = validateImageParts(domain, ipath, tag);
        if (bad !== undefined) {
          throw new Reject(bad.field === undefined ? PARAMS : PARAMS.child(bad.field), `assignImage ${name} has invalid parameters: ${bad.message}`);
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
        return { ok: true, mutator: m };
      }
    }
  } catch (e) {
    if (e instanceof Reject) return { ok: false, issues: [{ path: e.path, message: e.message }] };
    throw e;
  }
}

function isValidMetadataPath(p: Path): boolean {
  if (p.nodes.length !== 3 || p.nodes.some((n) => n.type !== "Object")) return false;
  const [a, b] = p.nodes;
  return (
    a?.type === "Object" && a.reference === "metadata" && b?.type === "Object" && (b.reference === "labels" || b.reference === "annotations")
  );
}

/** Applies one mutator to `obj` in place (the caller has checked that it matches). */
export function applyMutator(m: Mutator, obj: GoMap, ctx: MutationContext): boolean {
  return mutatePath(m.path, m.tester, m.setter(obj, ctx), obj);
}

/** Printable form of a location (for messages). */
export function locationString(m: Mutator): string {
  return printPath(m.path);
}
