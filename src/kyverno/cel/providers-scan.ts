/**
 * Which cluster data a set of Kyverno policies reads, found statically on the syntax tree of
 * their CEL expressions: the webhook's live resource provider answers `resource.Get/List` from
 * informer caches, so it must know the GroupVersionResources before a request asks for them.
 *
 * A call counts when it is a member call of `Get`/`get`/`List`/`list` on the identifier
 * `resource` whose first two arguments are string literals (`apiVersion`, `resource`; a
 * subresource suffix `pods/status` is the `pods` cache), or whose first argument is
 * `resource.ToGVR(<literal apiVersion>, <literal kind>)` (a kind to map through discovery).
 * Anything else (arguments computed from variables or the object) is reported in `dynamic`:
 * such a call is answered only if another call made its GVR known, else it fails with an error
 * naming it.
 */
import type { Expr } from "../../cel/ast.js";
import { parse } from "../../cel/parser.js";

export interface ResourceUse {
  readonly apiVersion: string;
  /** The plural, without a subresource. */
  readonly resource: string;
}

export interface KindUse {
  readonly apiVersion: string;
  readonly kind: string;
}

export interface ResourceScan {
  readonly resources: readonly ResourceUse[];
  readonly kinds: readonly KindUse[];
  /** The text of calls whose GVR is not written as literals. */
  readonly dynamic: readonly string[];
  /** Names given to `globalContext.Get` as literals. */
  readonly globalContextNames: readonly string[];
}

const READS = new Set(["Get", "get", "List", "list"]);
const TO_GVR = new Set(["ToGVR", "toGVR"]);

function str(e: Expr | undefined): string | undefined {
  return e?.kind === "const" && e.value.kind === "string" ? e.value.value : undefined;
}

const onIdent = (e: Expr | undefined, name: string): boolean => e?.kind === "ident" && e.name === name;

/** Every string under a key `expression` (MutatingPolicy fields, autogen rules, target constraints), depth first. */
export function policyExpressions(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const v of value) policyExpressions(v, out);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (k === "expression" && typeof v === "string") out.push(v);
      else policyExpressions(v, out);
    }
  }
  return out;
}

/** Scans expressions (unparsable ones are skipped: the policy would not have compiled). */
export function scanResourceCalls(expressions: Iterable<string>): ResourceScan {
  const resources = new Map<string, ResourceUse>();
  const kinds = new Map<string, KindUse>();
  const dynamic = new Set<string>();
  const names = new Set<string>();
  for (const text of expressions) {
    let root: Expr;
    try {
      root = parse(text, { enableOptionalSyntax: true, maxRecursionDepth: -1, expressionSizeCodePointLimit: -1 }).expr;
    } catch {
      continue;
    }
    const visit = (e: Expr): void => {
      switch (e.kind) {
        case "call": {
          if (onIdent(e.target, "resource") && READS.has(e.fn)) {
            const a0 = e.args[0];
            const apiVersion = str(a0);
            const resource = str(e.args[1]);
            if (apiVersion !== undefined && resource !== undefined) {
              const base = resource.split("/")[0]!;
              resources.set(`${apiVersion} ${base}`, { apiVersion, resource: base });
            } else if (a0?.kind === "call" && onIdent(a0.target, "resource") && TO_GVR.has(a0.fn) && str(a0.args[0]) !== undefined && str(a0.args[1]) !== undefined) {
              const k = { apiVersion: str(a0.args[0])!, kind: str(a0.args[1])! };
              kinds.set(`${k.apiVersion} ${k.kind}`, k);
            } else {
              dynamic.add(`resource.${e.fn}(…) in ${JSON.stringify(text.length > 120 ? `${text.slice(0, 117)}...` : text)}`);
            }
          } else if (onIdent(e.target, "resource") && TO_GVR.has(e.fn) && str(e.args[0]) !== undefined && str(e.args[1]) !== undefined) {
            const k = { apiVersion: str(e.args[0])!, kind: str(e.args[1])! };
            kinds.set(`${k.apiVersion} ${k.kind}`, k);
          } else if (onIdent(e.target, "globalContext") && (e.fn === "Get" || e.fn === "get") && str(e.args[0]) !== undefined) {
            names.add(str(e.args[0])!);
          }
          if (e.target !== undefined) visit(e.target);
          for (const a of e.args) visit(a);
          return;
        }
        case "select":
          return visit(e.operand);
        case "list":
          for (const x of e.elements) visit(x);
          return;
        case "map":
          for (const x of e.entries) {
            visit(x.key);
            visit(x.value);
          }
          return;
        case "struct":
          for (const f of e.fields) visit(f.value);
          return;
        case "comprehension":
          for (const x of [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result]) visit(x);
          return;
        default:
          return;
      }
    };
    visit(root);
  }
  return { resources: [...resources.values()], kinds: [...kinds.values()], dynamic: [...dynamic], globalContextNames: [...names] };
}
