import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatPath, printPath } from "./print.js";
import {
  listNode,
  objectNode,
  parsePath,
  pathEqual,
  tryParsePath,
  type Path,
  type PathNode,
} from "./parser.js";
import { Scanner, type Token } from "./token.js";
import { Tester } from "./tester.js";

function tokens(s: string): Token[] {
  const sc = new Scanner(s);
  const out: Token[] = [];
  for (;;) {
    const t = sc.next();
    out.push(t);
    if (t.type === "EOF" || t.type === "ERROR") return out;
  }
}

describe("scanner (token/scanner_test.go)", () => {
  it("reads idents, ints, punctuation and quoted strings", () => {
    expect(tokens(`spec.containers[name: "a b"].x`).map((t) => `${t.type}:${t.literal}`)).toEqual([
      "IDENT:spec",
      "SEPARATOR:.",
      "IDENT:containers",
      "LBRACKET:[",
      "IDENT:name",
      "COLON::",
      "IDENT:a b",
      "RBRACKET:]",
      "SEPARATOR:.",
      "IDENT:x",
      "EOF:",
    ]);
  });
  it("splits a leading digit run from an identifier", () => {
    expect(tokens("0123_foo").map((t) => `${t.type}:${t.literal}`)).toEqual(["INT:0123", "IDENT:_foo", "EOF:"]);
    expect(tokens("-1024")[0]).toEqual({ type: "IDENT", literal: "-1024" });
  });
  it("backslash escapes any character inside quotes", () => {
    expect(tokens(String.raw`'a\'b\\c\n'`)[0]).toEqual({ type: "IDENT", literal: "a'b\\cn" });
    expect(tokens(`"x`)[0]).toEqual({ type: "ERROR", literal: "x" });
    expect(tokens("a/b")[1]).toEqual({ type: "ERROR", literal: "/" });
  });
});

describe("parser (parser/parser_test.go)", () => {
  it("parses objects, keyed lists, globs and integer keys", () => {
    expect(parsePath(`spec.containers[name: *].ports[containerPort: 80].x`).nodes).toEqual([
      objectNode("spec"),
      objectNode("containers"),
      listNode("name", undefined, true),
      objectNode("ports"),
      listNode("containerPort", 80n),
      objectNode("x"),
    ]);
    expect(parsePath(`a["": ""].""`).nodes).toEqual([objectNode("a"), listNode("", ""), objectNode("")]);
    expect(parsePath("a[k: 0123]").nodes[1]).toEqual(listNode("k", 123n));
    expect(parsePath(`a["k": "*"]`).nodes[1]).toEqual(listNode("k", "*"));
    expect(parsePath("").nodes).toEqual([]);
    expect(parsePath("  spec . x  ").nodes).toEqual([objectNode("spec"), objectNode("x")]);
  });

  const errors: [string, string][] = [
    ["spec.", "trailing separators are forbidden"],
    [".spec", `unexpected token: expected field name or eof, got: SEPARATOR: "."`],
    ["a..b", `unexpected token: expected field name or eof, got: SEPARATOR: "."`],
    ["spec.123", `unexpected token: expected field name or eof, got: INT: "123"`],
    ["spec.[a: b]", `unexpected token: expected field name or eof, got: LBRACKET: "["`],
    ["a[k: v][k2: v2]", `unexpected token: expected '.' or eof, got: LBRACKET: "["`],
    ["a[123: x]", `unexpected token: expected keyField in listSpec, got: INT: "123"`],
    ["a[name: ]", `unexpected token: expected key value or glob in listSpec, got: RBRACKET: "]"`],
    ["a[name]", `unexpected token: expected ':' following keyField name, got: RBRACKET: "]"`],
    ["a[key: foo bar]", `unexpected token: expected ']' following listSpec, got: IDENT: "bar"`],
    ["a[k: 0x1A]", `unexpected token: expected ']' following listSpec, got: IDENT: "x1A"`],
    [
      "a[k: 9223372036854775808]",
      "invalid integer: overflow in integer string: 9223372036854775808: parsing key value for key: k",
    ],
    [`"one"two`, `unexpected token: expected '.' or eof, got: IDENT: "two"`],
    [`a."b`, `unexpected token: expected field name or eof, got: ERROR: "b"`],
    ["a/b", `unexpected token: expected '.' or eof, got: ERROR: "/"`],
  ];
  for (const [input, msg] of errors) {
    it(`rejects ${JSON.stringify(input)}`, () => {
      const r = tryParsePath(input);
      expect(r.error?.message).toBe(msg);
    });
  }
  it("accepts the largest int64 key", () => {
    expect(parsePath("a[k: 9223372036854775807]").nodes[1]).toEqual(listNode("k", 9223372036854775807n));
  });
});

describe("printer", () => {
  it("prints as Gatekeeper's Path.String()", () => {
    expect(printPath(parsePath(`spec.containers[name: *].ports[containerPort: 0080]."a.b"`))).toBe(
      `spec.containers[name: *].ports[containerPort: 80]."a.b"`,
    );
    expect(printPath(parsePath(`metadata.annotations."x\\"y"`))).toBe(`metadata.annotations."x\\"y"`);
    expect(printPath(parsePath(`a["": "1x"]`))).toBe(`a["": "1x"]`);
  });
  it("Gatekeeper's printer is not re-parsable for every key; formatPath is", () => {
    const p = parsePath(`metadata.labels."team/x"`);
    expect(printPath(p)).toBe("metadata.labels.team/x");
    expect(tryParsePath(printPath(p)).error).toBeDefined();
    expect(formatPath(p)).toBe(`metadata.labels."team/x"`);
  });
});

// Round trip: parse → print → parse gives the same nodes.
const gkChars = fc.constantFrom(..."abcXYZ019_-'\"\t\n \\*[]:.".split(""));
const anyString = fc.string({ unit: "grapheme", maxLength: 8 });

function pathArb(seg: fc.Arbitrary<string>): fc.Arbitrary<Path> {
  const obj = seg.map((s) => objectNode(s) as PathNode);
  const list = fc.oneof(
    fc.tuple(seg, seg).map(([k, v]) => listNode(k, v) as PathNode),
    fc.tuple(seg, fc.bigInt({ min: 0n, max: (1n << 63n) - 1n })).map(([k, v]) => listNode(k, v) as PathNode),
    seg.map((k) => listNode(k, undefined, true) as PathNode),
  );
  const segment = fc.tuple(obj, fc.option(list, { nil: undefined })).map(([o, l]) => (l === undefined ? [o] : [o, l]));
  return fc.array(segment, { maxLength: 5 }).map((ss) => ({ nodes: ss.flat() }));
}

describe("round trip", () => {
  it("parse(printPath(p)) = p for segments over the quoting alphabet", () => {
    fc.assert(
      fc.property(pathArb(fc.string({ unit: gkChars, maxLength: 6 })), (p) => {
        expect(pathEqual(parsePath(printPath(p)), p)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
  it("parse(formatPath(p)) = p for any segments", () => {
    fc.assert(
      fc.property(pathArb(anyString), (p) => {
        expect(pathEqual(parsePath(formatPath(p)), p)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
  it("parse → print → parse is stable for inputs that parse", () => {
    const inputs = fc.string({ unit: fc.constantFrom(..."ab1_-.[]:*'\" \\".split("")), maxLength: 16 });
    fc.assert(
      fc.property(inputs, (s) => {
        const r = tryParsePath(s);
        if (r.error !== undefined) return;
        expect(pathEqual(parsePath(printPath(r.path)), r.path)).toBe(true);
        expect(pathEqual(parsePath(formatPath(r.path)), r.path)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("pathTests (tester/tester_test.go)", () => {
  const loc = parsePath("spec.some.thing");
  const t = (s: string, c: "MustExist" | "MustNotExist") => ({ subPath: parsePath(s), condition: c });
  it("requires node-wise prefixes (quoting does not matter, key value types do)", () => {
    expect(() => Tester.create(parsePath(`a[name: "b"].c`), [t("a[name:b]", "MustExist")])).not.toThrow();
    expect(() => Tester.create(parsePath("a[port: 80].c"), [t(`a[port: "80"]`, "MustExist")])).toThrow(
      /all subpaths must be a prefix/,
    );
  });
  it("rejects both conditions on one depth", () => {
    expect(() => Tester.create(loc, [t("spec.some", "MustExist"), t("spec.some", "MustNotExist")])).toThrow(
      'conflicting path test conditions: path "spec.some" is marked both MustExist and MustNotExist',
    );
  });
  it("checks parent/child conflicts by list position, as Gatekeeper does", () => {
    expect(() => Tester.create(loc, [t("spec.some", "MustNotExist"), t("spec.some.thing", "MustExist")])).toThrow(
      /conflicting path test conditions/,
    );
    // child first: accepted (and the mutator then never applies)
    const ok = Tester.create(loc, [t("spec.some.thing", "MustExist"), t("spec.some", "MustNotExist")]);
    expect(ok.conditionAt(1)).toBe("MustNotExist");
    expect(ok.conditionAt(2)).toBe("MustExist");
    expect(ok.existsOkay(0) && ok.missingOkay(0)).toBe(true);
  });
});
