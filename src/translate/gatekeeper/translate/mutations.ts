/**
 * One mutator's effect as a CEL `list(JSONPatch)` expression (gatekeeper.md §5.5): the
 * location walk (`location.ts`) with each kind's setter at the end.
 *
 * - Assign: set the value (no patch when already equal); terminal keyed node: replace the
 *   first matching element wholesale or append (a non-map element before the first match is
 *   Gatekeeper's cast error).
 * - AssignMetadata: Assign guarded by the built-in MustNotExist on the full location.
 * - ModifySet: merge appends the values not yet present (duplicates in `fromList` dropped,
 *   order kept), prune keeps the elements equal to none of the values; a present non-list
 *   fails as in Gatekeeper.
 * - AssignImage: Gatekeeper's image parser as CEL string surgery; a present non-string fails.
 */
import { defaultSetter } from "../../../gatekeeper/index.js";
import type { Mutator } from "../../../gatekeeper/index.js";
import type { Condition } from "../../../gatekeeper/index.js";
import { deepEqual, fromJSON, toJSON, type GoValue } from "../../../gatekeeper/index.js";
import { mutateImage } from "../../../gatekeeper/index.js";
import { addOp, celLiteral, celString, errorOp, Names, ptrAppend, ptrIndex, replaceOp } from "./cel.js";
import { keyMatch, LocationCompiler, type Terminal } from "./location.js";

/** `fromMetadata` as CEL. */
export function fromMetadataCel(field: string | undefined): string {
  if (field === "namespace") return `((request.kind.group == "" && request.kind.kind == "Namespace") ? "" : request.?namespace.orValue(""))`;
  return `object.metadata.?name.orValue("")`;
}

const MARKER = "\u0000celmap-run-time-value\u0000";

function valueTerminal(valueCel: string, staticValue: GoValue, marker: { text: string; expr: string } | undefined, cond: (d: number) => Condition | undefined, lastDepth: number): Terminal {
  return {
    present: (cur, key, ptr) => `(${cur}[${celString(key)}] == ${valueCel} ? [] : ${addOp(ptr, valueCel)})`,
    missing: (ptr) => addOp(ptr, valueCel),
    keyedTerminal: (cur, node, ptr, names) => {
      const j = names.next("i");
      const e = names.next("e");
      const ix = names.next("ix");
      const c = cond(lastDepth);
      const missing = c === "MustExist" ? "[]" : addOp(ptrAppend(ptr), valueCel);
      const present =
        c === "MustNotExist" ? "[]" : `(${cur}[${ix}[0]] == ${valueCel} ? [] : ${replaceOp(ptrIndex(ptr, `${ix}[0]`), valueCel)})`;
      return (
        `[${cur}.transformList(${j}, ${e}, type(${e}) != map || (${keyMatch(e, node)}), ${j})].map(${ix},\n` +
        `  size(${ix}) == 0 ? ${missing} :\n` +
        `  type(${cur}[${ix}[0]]) != map ? ${errorOp("cast error, unable to cast a list element to map[string]interface{}")} :\n` +
        `  ${present})[0]`
      );
    },
    setter: defaultSetter(staticValue),
    ...(marker !== undefined ? { marker } : {}),
  };
}

/** ModifySet's values without repeats (first occurrences, in order). */
export function dedupe(vals: readonly GoValue[]): GoValue[] {
  const out: GoValue[] = [];
  for (const v of vals) if (!out.some((x) => deepEqual(x, v))) out.push(v);
  return out;
}

/**
 * The CEL of `NEW(s)` for AssignImage (D, P, T folded in). Gatekeeper's parser splits `s` into
 * a domain (the part before the first `/` when it has a `.` or `:`, or is `localhost`), a path
 * and a tag (from the first `:` or `@` of the rest); `k` is where the rest begins, computed once.
 * The rest is its path followed by its tag, so keeping both keeps the rest as it is.
 */
export function imageCel(s: string, domain: string, path: string, tag: string, names: Names): string {
  if (domain !== "" && path !== "" && tag !== "") return celString(`${domain}/${path}${tag}`);
  const hasDom = `(${s}.matches("^[^/]*[.:][^/]*/") || ${s}.startsWith("localhost/"))`;
  const k = names.next("k");
  const dom = domain !== "" ? celString(`${domain}/`) : `${s}.substring(0, ${k})`;
  const rest = `${s}.substring(${k})`;
  const tagRe = celString("[:@][\\s\\S]*");
  let tail: string;
  if (path !== "" && tag !== "") tail = celString(path + tag);
  else if (path === "" && tag === "") tail = rest;
  else if (path !== "") tail = `${celString(path)} + ${rest}.find(${tagRe})`;
  else {
    const r = names.next("r");
    tail = `[${rest}].map(${r}, ${r}.substring(0, size(${r}) - size(${r}.find(${tagRe}))))[0] + ${celString(tag)}`;
  }
  return `[${hasDom} ? ${s}.indexOf("/") + 1 : 0].map(${k}, ${dom} + ${tail})[0]`;
}

export interface MutationCel {
  readonly expression: string;
  readonly usesFlatten: boolean;
  /** `ApplyConfiguration` (an `Object{…}` expression) or `JSONPatch` (a `list(JSONPatch)` one). */
  readonly patchType: "ApplyConfiguration" | "JSONPatch";
}

/**
 * AssignMetadata as an ApplyConfiguration, which is provably the same: labels and annotations
 * are granular maps of every kind's ObjectMeta, so merging `{key: value}` adds exactly that key
 * (creating the map when missing) and touches nothing else; an existing key (any value) means
 * no change (`Object{}`), which is Gatekeeper's built-in MustNotExist.
 */
export function assignMetadataApplyConfiguration(m: Mutator): string | undefined {
  const e = assignMetadataEntry(m);
  if (e === undefined) return undefined;
  const k = celString(e.key);
  return `(${k} in object.metadata.?${e.field}.orValue({}) ?\n  Object{} :\n  Object{metadata: Object.metadata{${e.field}: {${k}: ${e.value}}}})`;
}

/** What an AssignMetadata (without external data) sets: the map, the key, and the value as CEL. */
export function assignMetadataEntry(m: Mutator): { field: string; key: string; value: string } | undefined {
  if (m.kind !== "AssignMetadata" || m.assign.externalData !== undefined) return undefined;
  const [, field, key] = m.path.nodes;
  if (field?.type !== "Object" || key?.type !== "Object") return undefined;
  const value = m.assign.fromMetadata !== undefined ? fromMetadataCel(m.assign.fromMetadata.field) : celLiteral(m.assign.value);
  return { field: field.reference, key: key.reference, value };
}

/**
 * Several independent AssignMetadata mutators as one ApplyConfiguration, provably the same as
 * their single ones in any order: they set distinct keys (two on one key interfere, so they are
 * never bundled) and none matches on a label another sets (that interferes too), so no one's
 * decision reads another's write, and merging the union of granular `{key: value}` entries is
 * merging each. An entry is present when its mutator matches (`guard`, a comment naming its
 * match criteria above it) and its key is absent; a map with no entry is left out
 * (`optional.ofNonZeroValue`), so nothing is created for it.
 */
export function assignMetadataBundle(items: readonly { m: Mutator; guard: string | undefined; comment: string }[]): string | undefined {
  const byField = new Map<string, string[]>();
  for (const { m, guard, comment } of items) {
    const e = assignMetadataEntry(m);
    if (e === undefined) return undefined;
    const k = celString(e.key);
    const absent = `!(${k} in object.metadata.?${e.field}.orValue({}))`;
    const cond = guard === undefined ? absent : `(${guard}) &&\n      ${absent}`;
    const entry = `${comment.replace(/^/gm, "    ")}\n    ?${k}: (${cond}) ?\n      optional.of(dyn(${e.value})) : optional.none()`;
    if (!byField.has(e.field)) byField.set(e.field, []);
    byField.get(e.field)!.push(entry);
  }
  const fields = [...byField].map(([f, entries]) => `  ?${f}: optional.ofNonZeroValue({\n${entries.join(",\n")}\n  })`);
  return `Object{metadata: Object.metadata{\n${fields.join(",\n")}\n}}`;
}

/** The mutator's setter on the CEL side (its terminal); throws for external data and AssignMetadata's ApplyConfiguration form. */
export function terminalFor(m: Mutator): Terminal {
  const cond = (d: number) => m.tester.conditionAt(d);
  const lastDepth = m.path.nodes.length - 1;
  switch (m.kind) {
    case "Assign":
    case "AssignMetadata": {
      const a = m.assign;
      if (a.externalData !== undefined) throw new Error("external data cannot be translated");
      if (a.fromMetadata !== undefined) {
        const expr = fromMetadataCel(a.fromMetadata.field);
        return valueTerminal(expr, MARKER, { text: MARKER, expr }, cond, lastDepth);
      }
      return valueTerminal(celLiteral(a.value), fromJSON(a.value), undefined, cond, lastDepth);
    }
    case "ModifySet": {
      const vals = m.values;
      const valsCel = celLiteral(vals === null ? null : toJSON(vals as GoValue));
      const dv = vals === null ? [] : dedupe(vals);
      const dvCel = celLiteral(toJSON(dv));
      const notAList = errorOp("the value at the location is not a list of values, cannot treat it as a set");
      const setter = m.setter({}, { username: "" });
      if (m.operation === "merge") {
        return {
          present: (cur, key, ptr, nm) => {
            const x = `${cur}[${celString(key)}]`;
            if (dv.length === 0) return `(type(${x}) != list ? ${notAList} : [])`;
            const v = nm.next("v");
            return `(type(${x}) != list ? ${notAList} :\n  ${dvCel}.exists(${v}, !(${v} in ${x})) ? ${addOp(ptr, `${x} + ${dvCel}.filter(${v}, !(${v} in ${x}))`)} : [])`;
          },
          missing: (ptr) => addOp(ptr, valsCel),
          setter,
        };
      }
      return {
        present: (cur, key, ptr, nm) => {
          const x = `${cur}[${celString(key)}]`;
          if (dv.length === 0) return `(type(${x}) != list ? ${notAList} : [])`;
          const v = nm.next("v");
          return `(type(${x}) != list ? ${notAList} :\n  ${x}.exists(${v}, ${v} in ${dvCel}) ? ${addOp(ptr, `${x}.filter(${v}, !(${v} in ${dvCel}))`)} : [])`;
        },
        missing: () => "[]",
        setter,
      };
    }
    case "AssignImage": {
      const { assignDomain: d, assignPath: p, assignTag: t } = m;
      return {
        present: (cur, key, ptr, nm) => {
          const x = `${cur}[${celString(key)}]`;
          const s = nm.next("s");
          const n = nm.next("n");
          return (
            `(type(${x}) != string ? ${errorOp("expected value at AssignImage location to be a string")} :\n` +
            `  [string(${x})].map(${s}, [${imageCel(s, d, p, t, nm)}].map(${n}, ${n} == ${s} ? [] : ${addOp(ptr, n)})[0])[0])`
          );
        },
        missing: (ptr) => addOp(ptr, celString(mutateImage(d, p, t, ""))),
        setter: m.setter({}, { username: "" }),
      };
    }
  }
}

/** The mutator's patch expression (no match guard). Throws for external data (refused earlier). */
export function mutationCel(m: Mutator, names: Names): MutationCel {
  const ac = assignMetadataApplyConfiguration(m);
  if (ac !== undefined) return { expression: ac, usesFlatten: false, patchType: "ApplyConfiguration" };
  const lc = new LocationCompiler(m.path, m.tester, terminalFor(m), names);
  const expression = lc.compile();
  return { expression, usesFlatten: lc.usesFlatten, patchType: "JSONPatch" };
}
