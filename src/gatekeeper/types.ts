/**
 * The mutator resources of `mutations.gatekeeper.sh` as their CRDs (Gatekeeper v3.23.0,
 * `config/crd/bases`) define them: zod schemas for the structural part (types, enums, the
 * wildcard pattern, required fields, CRD defaults, pruning of unknown fields, `null` treated
 * as absent). Assign, AssignMetadata and ModifySet are served as v1, v1beta1 and v1alpha1
 * (field-identical); AssignImage only as v1alpha1.
 */
import { z } from "zod";
import {
  FieldPath,
  invalid,
  notSupported,
  required,
  type FieldError,
} from "../diag/index.js";
import { setKey } from "./value.js";

export const GROUP = "mutations.gatekeeper.sh";
export type MutatorKind = "Assign" | "AssignImage" | "AssignMetadata" | "ModifySet";
export const MUTATOR_KINDS: readonly MutatorKind[] = ["Assign", "AssignImage", "AssignMetadata", "ModifySet"];

/** Versions each kind is served in. */
export const SERVED_VERSIONS: Readonly<Record<MutatorKind, readonly string[]>> = {
  Assign: ["v1", "v1beta1", "v1alpha1"],
  AssignMetadata: ["v1", "v1beta1", "v1alpha1"],
  ModifySet: ["v1", "v1beta1", "v1alpha1"],
  AssignImage: ["v1alpha1"],
};

/** CRD pattern of `match.name`, `namespaces[]`, `excludedNamespaces[]`. */
export const WILDCARD_PATTERN = /^\*?[-:a-z0-9]*\*?$/;

const strings = z.array(z.string());

const applyTo = z.object({
  groups: strings.optional(),
  versions: strings.optional(),
  kinds: strings.optional(),
  operations: z.array(z.enum(["CREATE", "UPDATE", "*"])).optional(),
});
export type ApplyTo = z.infer<typeof applyTo>;

const wildcard = z.string().regex(WILDCARD_PATTERN);

const labelSelector = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(z.object({ key: z.string(), operator: z.string(), values: strings.optional() }))
    .optional(),
});
export type LabelSelector = z.infer<typeof labelSelector>;

const match = z.object({
  source: z.enum(["All", "Generated", "Original"]).optional(),
  kinds: z.array(z.object({ apiGroups: strings.optional(), kinds: strings.optional() })).optional(),
  scope: z.string().optional(),
  namespaces: z.array(wildcard).optional(),
  excludedNamespaces: z.array(wildcard).optional(),
  labelSelector: labelSelector.optional(),
  namespaceSelector: labelSelector.optional(),
  name: wildcard.optional(),
});
export type Match = z.infer<typeof match>;

const externalData = z.object({
  provider: z.string(),
  dataSource: z.enum(["ValueAtLocation", "Username"]).default("ValueAtLocation"),
  failurePolicy: z.enum(["UseDefault", "Ignore", "Fail"]).default("Fail"),
  default: z.string().optional(),
});
export type ExternalData = z.infer<typeof externalData>;

const assignField = z.object({
  // x-kubernetes-preserve-unknown-fields: any JSON (null = unset)
  value: z.unknown().optional(),
  fromMetadata: z.object({ field: z.string().optional() }).optional(),
  externalData: externalData.optional(),
});
export type AssignField = z.infer<typeof assignField>;

const pathTests = z.array(
  z.object({ subPath: z.string().optional(), condition: z.enum(["MustExist", "MustNotExist"]).optional() }),
);

const metadata = z.object({
  name: z.string().optional(),
  generation: z.number().int().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

const assignSpec = z.object({
  applyTo: z.array(applyTo).optional(),
  match: match.optional(),
  location: z.string().optional(),
  parameters: z.object({ pathTests: pathTests.optional(), assign: assignField.optional() }).optional(),
});

const assignMetadataSpec = z.object({
  match: match.optional(),
  location: z.string().optional(),
  parameters: z.object({ assign: assignField.optional() }).optional(),
});

const modifySetSpec = z.object({
  applyTo: z.array(applyTo).optional(),
  match: match.optional(),
  location: z.string().optional(),
  parameters: z
    .object({
      pathTests: pathTests.optional(),
      operation: z.enum(["merge", "prune"]).default("merge"),
      values: z.object({ fromList: z.array(z.unknown()).optional() }).optional(),
    })
    .optional(),
});

const assignImageSpec = z.object({
  applyTo: z.array(applyTo).optional(),
  match: match.optional(),
  location: z.string().optional(),
  parameters: z
    .object({
      pathTests: pathTests.optional(),
      assignDomain: z.string().optional(),
      assignPath: z.string().optional(),
      assignTag: z.string().optional(),
    })
    .optional(),
});

const resource = <S extends z.ZodType>(spec: S) =>
  z.object({ apiVersion: z.string(), kind: z.string(), metadata: metadata.optional(), spec: spec.optional() });

export const SCHEMAS = {
  Assign: resource(assignSpec),
  AssignMetadata: resource(assignMetadataSpec),
  ModifySet: resource(modifySetSpec),
  AssignImage: resource(assignImageSpec),
} as const;

export type AssignResource = z.infer<(typeof SCHEMAS)["Assign"]>;
export type AssignMetadataResource = z.infer<(typeof SCHEMAS)["AssignMetadata"]>;
export type ModifySetResource = z.infer<(typeof SCHEMAS)["ModifySet"]>;
export type AssignImageResource = z.infer<(typeof SCHEMAS)["AssignImage"]>;
export type PathTestSpec = NonNullable<NonNullable<NonNullable<AssignResource["spec"]>["parameters"]>["pathTests"]>[number];

/** Removes `null` members recursively except inside preserve-unknown-fields values. */
function dropNulls(v: unknown, keep: (path: readonly (string | number)[]) => boolean, path: (string | number)[] = []): unknown {
  if (keep(path)) return v;
  if (Array.isArray(v)) return v.map((x, i) => dropNulls(x, keep, [...path, i]));
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === null || x === undefined) continue;
      setKey(out, k, dropNulls(x, keep, [...path, k]));
    }
    return out;
  }
  return v;
}

function isPreserved(path: readonly (string | number)[]): boolean {
  const s = path.join(".");
  return s === "spec.parameters.assign.value" || /^spec\.parameters\.values\.fromList\.\d+$/.test(s);
}

function jsonTypeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "bigint") return "integer";
  return typeof v;
}

function toFieldPath(path: readonly PropertyKey[]): FieldPath {
  let p = FieldPath.empty;
  for (const s of path) p = typeof s === "number" ? p.index(s) : p.child(String(s));
  return p;
}

/** zod issues → apiserver-worded field errors (as the CRD's OpenAPI validation reports them). */
function issuesToErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const out: FieldError[] = [];
  for (const is of issues) {
    const path = toFieldPath(is.path);
    const input = (is as { input?: unknown }).input;
    switch (is.code) {
      case "invalid_type":
        if (input === undefined) out.push(required(path));
        else {
          const t = jsonTypeName(input);
          out.push(invalid(path, t, `${path.toString()} in body must be of type ${is.expected}: "${t}"`));
        }
        break;
      case "invalid_value":
        out.push(notSupported(path, input as string, is.values.map(String)));
        break;
      case "invalid_format":
        if (is.format === "regex") {
          const pattern = (is as { pattern?: string }).pattern ?? "";
          const src = pattern.startsWith("/") ? pattern.slice(1, pattern.lastIndexOf("/")) : pattern;
          out.push(invalid(path, input as string, `${path.toString()} in body should match '${src}'`));
        } else out.push(invalid(path, input as string, is.message));
        break;
      default:
        out.push(invalid(path, (input ?? null) as string, is.message));
    }
  }
  return out;
}

export type DecodedResource =
  | { kind: "Assign"; version: string; resource: AssignResource }
  | { kind: "AssignMetadata"; version: string; resource: AssignMetadataResource }
  | { kind: "ModifySet"; version: string; resource: ModifySetResource }
  | { kind: "AssignImage"; version: string; resource: AssignImageResource };

/**
 * Structural (CRD) validation and defaulting of one mutator document. Unknown fields are
 * pruned, as the apiserver does; `null` counts as absent.
 */
export function decodeResource(doc: unknown): { ok: true; value: DecodedResource } | { ok: false; errors: FieldError[] } {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    return { ok: false, errors: [invalid(FieldPath.empty, jsonTypeName(doc), "a mutator must be an object")] };
  }
  const d = doc as Record<string, unknown>;
  const apiVersion = typeof d["apiVersion"] === "string" ? d["apiVersion"] : "";
  const kind = typeof d["kind"] === "string" ? d["kind"] : "";
  const slash = apiVersion.indexOf("/");
  const group = slash >= 0 ? apiVersion.slice(0, slash) : "";
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
  if (group !== GROUP || !(MUTATOR_KINDS as readonly string[]).includes(kind)) {
    return {
      ok: false,
      errors: [notSupported(FieldPath.root("kind"), `${kind}.${apiVersion}`, MUTATOR_KINDS.map((k) => `${k}.${GROUP}`))],
    };
  }
  const k = kind as MutatorKind;
  if (!SERVED_VERSIONS[k].includes(version)) {
    return {
      ok: false,
      errors: [notSupported(FieldPath.root("apiVersion"), apiVersion, SERVED_VERSIONS[k].map((v) => `${GROUP}/${v}`))],
    };
  }
  const cleaned = dropNulls(doc, isPreserved);
  const r = SCHEMAS[k].safeParse(cleaned, { reportInput: true });
  if (!r.success) return { ok: false, errors: issuesToErrors(r.error.issues) };
  if ((r.data.metadata?.name ?? "") === "") {
    // apimachinery ValidateObjectMeta (a mutator cannot be created through the API without a name)
    return { ok: false, errors: [required(FieldPath.root("metadata", "name"), "name or generateName is required")] };
  }
  return { ok: true, value: { kind: k, version, resource: r.data } as DecodedResource };
}
