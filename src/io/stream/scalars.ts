/**
 * Plain-scalar resolution for the fast YAML path (fast-yaml.ts), exact by construction: the very tag
 * list and `resolve` functions of the `yaml` package's schema, chosen as its composer chooses them
 * (first default tag whose `test` matches; the merge key only at a key), with the options
 * src/io/parse.ts passes (`intAsBigInt`, YAML 1.1 with kubectl's tags for .yaml, 1.2 for JSON).
 * Anything the schema reports as an error is a bail-out (`BAIL`), never a guess.
 */
import { Document, isScalar, type Tags } from "yaml";
import { kubectlTags } from "../parse.js";

export const BAIL: unique symbol = Symbol("bail");
export type Resolved = unknown | typeof BAIL;

interface TagLike {
  readonly default?: boolean | "key";
  readonly test?: RegExp;
  resolve(value: string, onError: (msg: string) => void, options: unknown): unknown;
}

export interface ScalarResolver {
  /** The value of a plain scalar (`atKey`: as a mapping key), or BAIL. */
  plain(text: string, atKey: boolean): Resolved;
}

const MEMO_LIMIT = 20_000;

function build(version: "1.1" | "1.2"): ScalarResolver {
  const doc = new Document(null, { version, intAsBigInt: true, ...(version === "1.1" ? { customTags: kubectlTags as (t: Tags) => Tags } : {}) });
  const tags = (doc.schema.tags as unknown as TagLike[]).filter((t) => t.default === true || t.default === "key");
  const options = doc.options;
  const memo = new Map<string, Resolved>();
  const memoKeys = new Map<string, Resolved>();
  const resolve = (text: string, atKey: boolean): Resolved => {
    const tag = tags.find((t) => (t.default === true || (atKey && t.default === "key")) && t.test?.test(text) === true);
    if (tag === undefined) return text; // the schema's string tag
    if (tag.default === "key") return BAIL; // the merge key `<<`
    let failed = false;
    let res: unknown;
    try {
      res = tag.resolve(text, () => (failed = true), options);
    } catch {
      return BAIL;
    }
    if (failed) return BAIL;
    return isScalar(res) ? res.value : res;
  };
  return {
    plain(text, atKey) {
      const m = atKey ? memoKeys : memo;
      let v = m.get(text);
      if (v !== undefined || m.has(text)) return v;
      v = resolve(text, atKey);
      if (m.size >= MEMO_LIMIT) m.clear();
      m.set(text, v);
      return v;
    },
  };
}

const resolvers = new Map<string, ScalarResolver>();

/** The resolver for a YAML version (built once). */
export function scalarResolver(version: "1.1" | "1.2"): ScalarResolver {
  let r = resolvers.get(version);
  if (r === undefined) resolvers.set(version, (r = build(version)));
  return r;
}
