/**
 * The fast YAML path against the `yaml` package, the reference: on generated objects written by
 * `yaml` in several styles and on hand-written tricky documents, the fast path either bails or gives
 * exactly what `yaml` gives (with src/io/parse.ts's options: YAML 1.1 with kubectl's tags, integers
 * as bigint). It must also answer (not bail) on the block style Kubernetes manifests use.
 */
import fc from "fast-check";
import { stringify, type ToStringOptions } from "yaml";
import { describe, expect, it } from "vitest";
import { parseDocuments } from "../parse.js";
import { fastYaml } from "./fast-yaml.js";
import { scalarResolver } from "./scalars.js";

function reference(text: string, version: "1.1" | "1.2"): { ok: true; value: unknown } | { ok: false } {
  const r = parseDocuments(text, "t.yaml", { numbers: "cel", expandLists: false, yamlVersion: version });
  if (r.errors.length > 0) return { ok: false };
  return { ok: true, value: r.documents.length === 0 ? null : r.documents[0]!.value };
}

/** The property: bail, or agree with `yaml`. Returns whether the fast path answered. */
function agrees(text: string, version: "1.1" | "1.2" = "1.1"): boolean {
  const fast = fastYaml(text, scalarResolver(version));
  if (fast === undefined) return false;
  const ref = reference(text, version);
  expect(ref.ok, `the fast path accepted what yaml rejects:\n${text}`).toBe(true);
  if (ref.ok) expect(fast.value, text).toStrictEqual(ref.value);
  return true;
}

const TRICKY = [
  "yes", "no", "on", "off", "Yes", "NO", "y", "n", "Y", "true", "False", "TRUE", "null", "Null", "~", "",
  "0x1F", "0o17", "017", "0755", "08", "0b101", "1e3", "1E3", "-1e-3", "1.", ".5", "1_000", "+12", "-0", "0", "-",
  ".inf", "-.inf", ".NaN", ".nan", "12:30", "1:20:30", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
  "a: b", "a:b", "a #b", "a#b", "#a", "- a", "-a", "--flag=x", "? x", ":x", "x:", "@x", "`x", "%x", "!x", "&a", "*a", "|", ">",
  "[a]", "{a}", "a, b", "'quoted'", '"dq"', "back\\slash", "tab\there", "new\nline", "cr\r", "\u00e9t\u00e9", "\u{1F600}",
  "  lead", "trail  ", "nginx:1.25", "100m", "1Gi", "app.kubernetes.io/name", "<<", "__proto__", "=", "...", "---",
];

const key = fc.oneof(
  fc.constantFrom("apiVersion", "kind", "metadata", "name", "labels", "app.kubernetes.io/name", "spec", "containers", "image", "a b", "x-y_z"),
  fc.constantFrom(...TRICKY),
  fc.string({ maxLength: 8 }),
);
const scalar = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ maxLength: 12 }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.integer().map((n) => BigInt(n)),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const { value: yamlValue } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, tie("list"), tie("map")),
  list: fc.array(tie("value"), { maxLength: 4 }),
  map: fc.dictionary(key, tie("value"), { maxKeys: 5 }),
}));
const root = fc.dictionary(key, yamlValue, { minKeys: 1, maxKeys: 6 });

const STYLES: readonly ToStringOptions[] = [
  {},
  { lineWidth: 0 },
  { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN" },
  { defaultStringType: "QUOTE_SINGLE" },
  { indentSeq: false },
  { indent: 4 },
  { collectionStyle: "flow" },
  { flowCollectionPadding: false, collectionStyle: "flow" },
];

describe("fast YAML path: bail or agree with the yaml package", () => {
  it("on generated objects written by yaml in several styles (YAML 1.1 and 1.2)", () => {
    fc.assert(
      fc.property(root, fc.constantFrom(...STYLES), fc.constantFrom("1.1" as const, "1.2" as const), (v, style, version) => {
        const text = stringify(v, { version, ...style });
        agrees(text, version);
        agrees(`---\n${text}`, version);
        agrees(`# head\n---\n${text}...\n# tail\n`, version);
        agrees(text.replace(/\n/g, "\r\n"), version);
      }),
      { numRuns: 600 },
    );
  });

  it("on tricky scalars written plain, quoted, in flow sequences and with comments", () => {
    const forms = (s: string): string[] => [
      `k: ${s}\n`, `k: ${s} # c\n`, `k: "${s}"\n`, `k: '${s}'\n`, `- ${s}\n`, `k: [${s}]\n`, `k: [${s}, x]\n`, `${s}: v\n`, `"${s}": v\n`,
      `a:\n- ${s}\n`, `a:\n  - k: ${s}\n    j: 1\n`, `k: ${s}\n  more\n`, `k:\n  ${s}\n`,
    ];
    for (const s of TRICKY) for (const text of forms(s)) agrees(text);
    fc.assert(
      fc.property(fc.string({ maxLength: 10 }), fc.constantFrom(...[0, 1, 2, 3, 4, 5, 6, 7, 8]), (s, f) => {
        agrees(forms(s)[f]!);
      }),
      { numRuns: 2000 },
    );
  });

  it("on hand-written documents: escapes, markers, comments, CRLF, indentation", () => {
    const docs = [
      'a: "esc \\" \\\\ \\n \\t \\x41 \\u00e9 \\U0001F600 \\/ \\0 \\e \\N \\_ \\L \\P \\ "\n',
      'a: "bad \\q"\n', 'a: "\\uD800"\n', "a: 'it''s'\n", "a: 'open\n", 'a: "open\n  more"\n',
      "a: 1\nb:\n  c: 2\n  d:\n  - 3\n  - e: 4\n    f: 5\n", "- a\n-\n- - b\n", "-\n  a: 1\n", "- # c\n  a: 1\n",
      "a: 1\n a: 2\n", "a: 1\na: 2\n", "a:\n  b: 1\n c: 2\n", "  a: 1\n  b: 2\n", "a: &x 1\nb: *x\n", "a: !!str 1\n",
      "a: |\n  x\n", "a: >-\n  x\n", "? a\n: b\n", "<<: {a: 1}\n", "a: {b: 1}\n", "a: {}\nb: []\n", "a: [ ]\n", "a: [a,]\n",
      "%YAML 1.1\n---\na: 1\n", "--- a: 1\n", "--- # c\na: 1\n", "---\n", "# only\n", "a: 1\n...\n", "a: 1\n...\n# c\n",
      "a: b\r\nc: d\r\n", "a: b\rc: d\n", "a:\tb\n", "\ufeffa: 1\n", "a: 1 #c\nb: 2#c\n", "a: x\n\n\n  # c\nb: y\n",
      "a:\n- 1\n- 2\nb: 3\n", "a:\n  - 1\n - 2\n", "k: v\n- x\n", "- a: 1\n  - x\n", "- a: 1\n   b: 2\n", "-   a: 1\n    b: 2\n",
      "__proto__: 1\n", "a: 1\n---\nb: 2\n",
    ];
    for (const d of docs) agrees(d);
  });

  it("answers (does not bail) on the block style of Kubernetes manifests", () => {
    const pod = `apiVersion: v1
kind: Pod
metadata:
  name: web-1   # a comment
  namespace: shop
  labels:
    app.kubernetes.io/name: web
    tier: "frontend"
  annotations: {}
spec:
  containers:
  - name: app
    image: nginx:1.25
    args: ["--port", "8080", -v]
    ports:
      - containerPort: 8080
        protocol: TCP
    resources:
      limits: {cpu: 500m}
`;
    expect(agrees(pod.replace("{cpu: 500m}", "\n        cpu: 500m"))).toBe(true);
    fc.assert(
      fc.property(fc.array(fc.record({ name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), n: fc.nat(), on: fc.boolean() }), { maxLength: 5 }), (items) => {
        expect(agrees(stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "x", labels: { a: "b" } }, spec: { items } }, { version: "1.1" }))).toBe(true);
      }),
    );
  });
});
