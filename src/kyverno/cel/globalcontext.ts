/**
 * Kyverno's global context library (`kyverno.globalcontext`, kyverno/sdk
 * `extensions/cel/libs/globalcontext`): the variable `globalContext` of type
 * `globalcontext.Context`, with `Get(name)` and `Get(name, projection)` (and
 * camelCase `get`, since 1.18) → `dyn`.
 *
 * Reads a `GlobalContextEntry` (kyverno.io/v2beta1) cache entry, optionally
 * one of its projections. In the controller a missing entry is `null`; an
 * entry that looks like a Kubernetes object (`apiVersion` and `kind`) comes
 * back as unstructured data (integers as `int`), anything else as Go decoded it
 * (JSON numbers as doubles). Errors read `failed to get global reference: <err>`.
 */
import { func, memberOverload, type Library } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { DYN, STRING, opaqueType } from "../../cel/types.js";
import { CelObject, type CelValue } from "../../cel/values.js";
import { ProviderError } from "./common.js";

export const GLOBAL_CONTEXT_TYPE = opaqueType("globalcontext.Context");

/**
 * Global context entries (Kyverno's `globalcontext.ContextInterface`).
 * Return the CEL value directly (see `globalContextValue` for Kyverno's
 * conversion of stored data), `null` for a missing entry; throw
 * {@link ProviderError} for a failure (e.g. a missing projection).
 */
export interface GlobalContextProvider {
  getGlobalReference(name: string, projection: string): CelValue;
}

export class GlobalContextValue extends CelObject {
  readonly celType = GLOBAL_CONTEXT_TYPE;
  constructor(readonly provider: GlobalContextProvider) {
    super();
  }
}

function get(c: CelValue, name: string, projection = ""): CelValue {
  if (!(c instanceof GlobalContextValue)) throw new CelEvalError("no such overload");
  try {
    return c.provider.getGlobalReference(name, projection);
  } catch (e) {
    if (e instanceof ProviderError) throw new CelEvalError(`failed to get global reference: ${e.message}`);
    throw e;
  }
}

const CTX = GLOBAL_CONTEXT_TYPE;
const decl = (name: string, suffix: string) =>
  func(
    name,
    memberOverload(`globalcontext_get_string_${suffix}`, [CTX, STRING], DYN, (c: CelValue, n: string) => get(c, n)),
    memberOverload(`globalcontext_get_string_string_${suffix}`, [CTX, STRING, STRING], DYN, get),
  );

/** Declares `globalContext`; bind it to `new GlobalContextValue(provider)` at evaluation. */
export const GLOBAL_CONTEXT_LIBRARY: Library = {
  name: "kyverno.globalcontext",
  variables: [{ name: "globalContext", type: GLOBAL_CONTEXT_TYPE }],
  functions: [decl("Get", "pascal"), decl("get", "camel")],
};
