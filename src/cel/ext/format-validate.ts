/**
 * Compile-time checking of `string.format` calls, as cel-go's strings
 * extension does with an AST validator (`cel.validator.string_format`) in every
 * environment with strings version 1+ (Kubernetes included).
 *
 * A call is checked when its receiver is a string literal and its argument a
 * list literal: the format string must parse, each clause's argument must have
 * a type the clause accepts (dyn always passes; for `%s`, list and map literals
 * are checked element by element), and the list must not hold more arguments
 * than the clauses use. The first problem of each call is reported. cel-go also
 * exempts the argument list of `format` from the homogeneous-aggregate-literal
 * check (`"%s %d".format(["a", 1])` compiles in Kubernetes).
 *
 * The checker calls {@link validateFormatCalls} on its result and reports each
 * issue at the node id given.
 */
import type { CallExpr, Expr, ListExpr } from "../ast.js";
import type { CheckedExpr } from "../checked.js";
import { CelEvalError } from "../errors.js";
import type { CelType } from "../types.js";
import type { CelValue } from "../values.js";
import { ClauseError, interpolate, type Formatter } from "./format.js";

export interface FormatIssue {
  /** Node to report at: the offending argument, or the `format` call. */
  readonly id: number;
  readonly message: string;
}

/** cel-go's type kind of a checked type (wrappers have their primitive's kind). */
function kind(t: CelType | undefined): string {
  if (t === undefined) return "dyn";
  if (t.kind === "wrapper") return t.params[0]!.kind;
  return t.kind;
}

function typeName(t: CelType | undefined): string {
  if (t === undefined) return "dyn";
  if (t.kind === "wrapper") return t.params[0]!.name;
  return t.name;
}

const STRING_KINDS = ["list", "map", "int", "uint", "double", "bool", "string", "timestamp", "bytes", "duration", "type", "null"];

interface Rules {
  readonly accepts: Readonly<Record<"d" | "f" | "e" | "b" | "x" | "o", readonly string[]>>;
  readonly messages: Readonly<Record<"s" | "d" | "f" | "e" | "b" | "x" | "o", string>>;
}

const STRING_MESSAGE =
  "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps";

const V1_RULES: Rules = {
  accepts: {
    d: ["int", "uint"],
    f: ["double", "string"],
    e: ["double", "string"],
    b: ["int", "uint", "bool"],
    x: ["int", "uint", "string", "bytes"],
    o: ["int", "uint"],
  },
  messages: {
    s: STRING_MESSAGE,
    d: "decimal clause can only be used on integers",
    f: "fixed-point clause can only be used on doubles",
    e: "scientific clause can only be used on doubles",
    b: "only integers and bools can be formatted as binary",
    x: "only integers, byte buffers, and strings can be formatted as hex",
    o: "octal clause can only be used on integers",
  },
};

const V2_RULES: Rules = {
  accepts: {
    d: ["int", "uint", "double"],
    f: ["int", "uint", "double"],
    e: ["int", "uint", "double"],
    b: ["bool", "int", "uint"],
    x: ["int", "uint", "string", "bytes"],
    o: ["int", "uint"],
  },
  messages: {
    s: STRING_MESSAGE,
    d: "decimal clause can only be used on ints, uints, and doubles",
    f: "fixed-point clause can only be used on ints, uints, and doubles",
    e: "scientific clause can only be used on ints, uints, and doubles",
    b: "only ints, uints, and bools can be formatted as binary",
    x: "only ints, uints, bytes, and strings can be formatted as hex",
    o: "octal clause can only be used on ints and uints",
  },
};

function isFormatCall(e: Expr, checked: CheckedExpr): e is CallExpr {
  if (e.kind !== "call" || e.fn !== "format" || e.target === undefined || e.args.length !== 1) return false;
  const ids = checked.referenceMap.get(e.id)?.overloadIds;
  if (ids !== undefined && ids.length > 0 && !ids.includes("string_format")) return false;
  return e.target.kind === "const" && e.target.value.kind === "string" && e.args[0]!.kind === "list";
}

function children(e: Expr): Expr[] {
  switch (e.kind) {
    case "const":
    case "ident":
      return [];
    case "select":
      return [e.operand];
    case "call":
      return e.target === undefined ? [...e.args] : [e.target, ...e.args];
    case "list":
      return [...e.elements];
    case "map":
      return e.entries.flatMap((en) => [en.key, en.value]);
    case "struct":
      return e.fields.map((f) => f.value);
    case "comprehension":
      return [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result];
  }
}

/** cel-go's `verifyString`: the offending node, or undefined when the argument may be printed with %s. */
function verifyString(e: Expr, checked: CheckedExpr): number | undefined {
  const k = kind(checked.typeMap.get(e.id));
  if (k !== "dyn" && !STRING_KINDS.includes(k)) return e.id;
  if (e.kind === "list") {
    for (const el of e.elements) {
      const bad = verifyString(el, checked);
      if (bad !== undefined) return bad;
    }
  } else if (e.kind === "map") {
    for (const en of e.entries) {
      const bad = verifyString(en.key, checked) ?? verifyString(en.value, checked);
      if (bad !== undefined) return bad;
    }
  }
  return undefined;
}

/** The first issue of one `format` call, if any. */
function validateCall(call: CallExpr, checked: CheckedExpr, version: number): FormatIssue | undefined {
  const target = call.target as Extract<Expr, { kind: "const" }>;
  const format = target.value.kind === "string" ? target.value.value : "";
  const args = (call.args[0] as ListExpr).elements;
  const rules = version >= 4 ? V2_RULES : V1_RULES;
  let badId = call.id;
  let used = 0;
  // Each argument is passed as its index; the clause checks the argument's static type.
  const check = (verb: keyof Rules["accepts"]) => (v: CelValue) => {
    const arg = args[Number(v)]!;
    const t = checked.typeMap.get(arg.id);
    const k = kind(t);
    if (k !== "dyn" && !rules.accepts[verb].includes(k)) {
      badId = arg.id;
      throw new ClauseError(`${rules.messages[verb]}, was given ${typeName(t)}`);
    }
    used++;
    return "";
  };
  const checker: Formatter = {
    s(v) {
      const bad = verifyString(args[Number(v)]!, checked);
      if (bad !== undefined) {
        badId = bad;
        throw new ClauseError(`${rules.messages.s}, was given ${typeName(checked.typeMap.get(bad))}`);
      }
      used++;
      return "";
    },
    d: check("d"),
    f: check("f"),
    e: check("e"),
    b: check("b"),
    x: check("x"),
    o: check("o"),
  };
  try {
    interpolate(format, args.map((_, i) => BigInt(i)), checker, version >= 4 ? 6 : undefined, version >= 5 ? 100 : 0, true);
  } catch (e) {
    if (e instanceof CelEvalError) return { id: badId, message: e.message };
    throw e;
  }
  if (args.length > used) {
    return { id: call.id, message: `too many arguments supplied to string.format (expected ${used}, got ${args.length})` };
  }
  return undefined;
}

/** Issues of every constant `format` call in a checked expression, for strings extension `version` (1+). */
export function validateFormatCalls(checked: CheckedExpr, version: number): FormatIssue[] {
  const issues: FormatIssue[] = [];
  const visit = (e: Expr): void => {
    for (const c of children(e)) visit(c);
    if (isFormatCall(e, checked)) {
      const issue = validateCall(e, checked, version);
      if (issue !== undefined) issues.push(issue);
    }
  };
  if (version >= 1) visit(checked.expr);
  return issues;
}
