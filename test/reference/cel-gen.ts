/**
 * Random CEL expressions over Kubernetes-shaped values, typed by the environment: each
 * generator yields source text whose checked type is the one asked for (or, rarely and on
 * purpose, a compile error such as a heterogeneous literal), built from the standard library
 * and the 1.36 extension libraries (strings v2, lists, sets, regex, URLs, IP/CIDR, format,
 * semver, quantity, optionals, two-variable comprehensions).
 */
import fc from "fast-check";

export type T =
  | "int" | "uint" | "double" | "string" | "bool" | "bytes"
  | "listInt" | "listString" | "mapSI" | "mapSS" | "optInt" | "optString"
  | "quantity" | "dyn" | "duration" | "timestamp";

export const RESULT_TYPES: readonly T[] = [
  "int", "uint", "double", "string", "bool", "bytes", "listInt", "listString", "mapSI", "mapSS",
  "optInt", "optString", "dyn", "duration", "timestamp",
];

/** A CEL string literal for any JS string. */
export function lit(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += ch;
  }
  return out + '"';
}

const WORDS = [
  "", "a", "b", "ab", "abc", "A", "Abc", "a-b", "a.b.c", "-x", "x-", " a ", "a b", "é", "ß", "ǅ", "🙂", "日本",
  "app", "web", "nginx", "nginx:1.25", "kube-system", "default", "%", "%s", "\\", "\"", "'", "\t", "a\nb",
  "1", "-1", "10", "1.5", "1e3", "0x10", "true", "9223372036854775807", "-9223372036854775808", "18446744073709551615",
];
const QUANTITIES = ["0", "1", "500m", "1.5", "1Gi", "1G", "2Ki", "1e3", "100M", "-1", "0.001", "1E", "12345678901234567890", "abc", "1.5Gi", "1m"];
const IPS = ["10.0.0.1", "127.0.0.1", "0.0.0.0", "::1", "::", "fe80::1", "2001:db8::1", "192.168.1.256", "ff02::1", "::ffff:1.2.3.4", "010.0.0.1", "1.2.3"];
const CIDRS = ["10.0.0.0/8", "192.168.0.0/16", "10.0.0.1/8", "::/0", "2001:db8::/32", "0.0.0.0/0", "1.2.3.4/33", "fe80::/10"];
const URLS = ["https://example.com", "https://example.com:8443/a/b?x=1&x=2&y=", "http://[::1]:80/", "/relative/path", "example.com", "https://user@host/%2F", "ftp://h/p#f", "https://ex ample.com"];
const SEMVERS = ["1.2.3", "v1.2.3", "1.2", "1.2.3-alpha.1", "1.2.3+build", "01.2.3", "0.0.0", "10.20.30"];
const REGEXES = ["a+", "^[a-z]+$", "(a)(b)?", "[0-9]+", ".*", "\\d+", "(?i)abc", "^$", "a|b", "[", "x{2,}"];
const TIMESTAMPS = ["2024-01-02T03:04:05Z", "1970-01-01T00:00:00Z", "2024-02-29T23:59:59.999999999Z", "2024-01-02T03:04:05+01:00", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "bad"];
const DURATIONS = ["1s", "1h30m", "-2m", "0s", "1.5s", "100ms", "1us", "1ns", "3000000h", "bad", "1d"];
const FORMATS = ["dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime", "nope"];

const pick = <V>(xs: readonly V[]) => fc.constantFrom(...xs);
const strLit = fc.oneof({ arbitrary: pick(WORDS), weight: 4 }, { arbitrary: fc.string({ maxLength: 6 }), weight: 1 }).map(lit);
const fromPool = (xs: readonly string[]) => fc.oneof({ arbitrary: pick(xs), weight: 5 }, { arbitrary: pick(WORDS), weight: 1 }).map(lit);
const smallInt = fc.integer({ min: -3, max: 12 }).map(String);
const intLit = fc.oneof(
  { arbitrary: fc.integer({ min: -100, max: 100 }), weight: 6 },
  { arbitrary: pick([2147483647, -2147483648, 4294967296, 1000000]), weight: 1 },
).map(String);
const bigIntLit = pick(["9223372036854775807", "-9223372036854775807 - 1", "4611686018427387904"]);
const uintLit = fc.oneof(fc.integer({ min: 0, max: 100 }).map((n) => `${n}u`), pick(["18446744073709551615u", "9223372036854775808u"]));
const doubleLit = fc.oneof(
  pick(["0.0", "-0.0", "1.5", "-2.25", "1e308", "1e-300", "3.0", "0.1", "1e19", "-1e19", "9.2233720368547758e18"]),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).map((d) => (Number.isInteger(d) ? `${d}.0` : String(d)).replace(/^(-?)(\d+)e/, "$1$2.0e")),
);

/** Fields of the generated `object` (see objectArb), by their run-time type. */
const OBJECT_FIELDS: Partial<Record<T, readonly string[]>> = {
  int: ["object.spec.replicas", "object.spec.ports[0]", "object.metadata.generation"],
  double: ["object.spec.ratio"],
  bool: ["object.spec.paused"],
  string: ["object.metadata.name", "object.metadata.namespace", "object.spec.containers[0].image", "object.spec.containers[0].name", "params.data.key", "object.spec.containers[0].resources.limits.cpu"],
  listString: ["object.spec.tags"],
  listInt: ["object.spec.ports"],
  mapSS: ["object.metadata.labels", "object.metadata.annotations", "params.data"],
  dyn: ["object.spec", "object.metadata", "object.spec.containers", "oldObject", "params", "object.spec.containers[0]"],
};

const cache = new Map<string, fc.Arbitrary<string>>();

/** An expression of type `t` with at most `d` levels of nesting. */
export function expr(t: T, d: number): fc.Arbitrary<string> {
  const key = `${t}:${d}`;
  let a = cache.get(key);
  if (a === undefined) {
    const leaves = atoms(t);
    a = d <= 0 ? leaves : fc.oneof({ arbitrary: leaves, weight: 3 }, ...composites(t, d - 1).map((c) => ({ arbitrary: c, weight: 2 })));
    cache.set(key, a);
  }
  return a;
}

const tpl = (strings: TemplateStringsArray, ...parts: fc.Arbitrary<string>[]): fc.Arbitrary<string> =>
  fc.tuple(...parts).map((xs) => strings.reduce((acc, s, i) => acc + s + (i < xs.length ? xs[i] : ""), ""));

function atoms(t: T): fc.Arbitrary<string> {
  const fields = (OBJECT_FIELDS[t] ?? []).map((f) => fc.constant(f));
  const opt = (xs: fc.Arbitrary<string>[]) => fc.oneof(...xs, ...fields);
  switch (t) {
    case "int": return opt([intLit, intLit, bigIntLit]);
    case "uint": return uintLit;
    case "double": return opt([doubleLit, doubleLit]);
    case "string": return opt([strLit, strLit]);
    case "bool": return opt([pick(["true", "false"])]);
    case "bytes": return opt([strLit.map((s) => "b" + s), pick(['b"\\xff\\x00"', 'b"abc"', 'b""'])]);
    case "listInt": return opt([fc.array(intLit, { maxLength: 4 }).map((xs) => `[${xs.join(", ")}]`)]);
    case "listString": return opt([fc.array(strLit, { maxLength: 4 }).map((xs) => `[${xs.join(", ")}]`)]);
    case "mapSI": return fc.array(fc.tuple(strLit, intLit), { maxLength: 3 }).map((es) => `{${es.map(([k, v]) => `${k}: ${v}`).join(", ")}}`);
    case "mapSS": return opt([fc.array(fc.tuple(strLit, strLit), { maxLength: 3 }).map((es) => `{${es.map(([k, v]) => `${k}: ${v}`).join(", ")}}`)]);
    case "optInt": return fc.oneof(pick(["optional.none()", "object.?spec.?replicas", "object.?spec.?missing"]), intLit.map((i) => `optional.of(${i})`));
    case "optString": return fc.oneof(pick(["optional.none()", "object.?metadata.?name", "object.metadata.?labels['app']", "object.metadata.labels[?'app']"]), strLit.map((s) => `optional.of(${s})`));
    case "quantity": return fromPool(QUANTITIES).map((q) => `quantity(${q})`);
    case "dyn": return opt([intLit.map((i) => `dyn(${i})`), pick(["null", "dyn('x')", "dyn([1, 'a'])", "dyn({'a': 1})"])]);
    case "duration": return fromPool(DURATIONS).map((s) => `duration(${s})`);
    case "timestamp": return fromPool(TIMESTAMPS).map((s) => `timestamp(${s})`);
  }
}

function composites(t: T, d: number): fc.Arbitrary<string>[] {
  const I = expr("int", d), U = expr("uint", d), D = expr("double", d), S = expr("string", d), B = expr("bool", d);
  const LI = expr("listInt", d), LS = expr("listString", d), MSI = expr("mapSI", d), MSS = expr("mapSS", d);
  const OI = expr("optInt", d), OS = expr("optString", d), Q = expr("quantity", d), Y = expr("dyn", d);
  const DU = expr("duration", d), TS = expr("timestamp", d);
  const n = smallInt;
  const op = (ops: readonly string[]) => pick(ops);
  const ternary = (x: fc.Arbitrary<string>) => tpl`${B} ? ${x} : ${x}`;
  switch (t) {
    case "int": return [
      tpl`(${I} ${op(["+", "-", "*", "/", "%"])} ${I})`, tpl`-${I}`, tpl`size(${S})`, tpl`${LI}.size()`, tpl`size(${MSS})`,
      tpl`int(${D})`, tpl`int(${S})`, tpl`int(${U})`, tpl`${S}.indexOf(${S})`, tpl`${S}.lastIndexOf(${S}, ${I})`, tpl`${S}.indexOf(${S}, ${n})`,
      tpl`${LI}[${n}]`, tpl`${LI}.sum()`, tpl`${LI}.min()`, tpl`${LI}.max()`, tpl`${LI}.indexOf(${I})`, tpl`${MSI}[${S}]`,
      tpl`${Q}.asInteger()`, tpl`${Q}.sign()`, tpl`${Q}.compareTo(${Q})`, tpl`${OI}.orValue(${I})`, tpl`${OI}.value()`, ternary(I),
      tpl`semver(${fromPool(SEMVERS)}).${op(["major", "minor", "patch"])}()`, tpl`ip(${fromPool(IPS)}).family()`, tpl`cidr(${fromPool(CIDRS)}).prefixLength()`,
      tpl`${TS}.${op(["getFullYear", "getMonth", "getDayOfYear", "getHours", "getMilliseconds", "getDayOfWeek"])}()`, tpl`${DU}.${op(["getSeconds", "getMinutes", "getMilliseconds"])}()`,
      tpl`int(${TS})`, tpl`[${I}, ${I}].exists_one(x, x > ${n}) ? 1 : 0`, tpl`${LI}.filter(x, x > ${n}).size()`,
      tpl`dyn(${Y}) + ${I}`, tpl`int(${I}) * 2`,
    ];
    case "uint": return [tpl`(${U} ${op(["+", "-", "*", "/", "%"])} ${U})`, tpl`uint(${I})`, tpl`uint(${D})`, tpl`uint(${S})`, ternary(U)];
    case "double": return [
      tpl`(${D} ${op(["+", "-", "*", "/"])} ${D})`, tpl`-${D}`, tpl`double(${I})`, tpl`double(${S})`, tpl`double(${U})`, tpl`${Q}.asApproximateFloat()`, ternary(D),
      tpl`[${D}, ${D}].${op(["sum", "min", "max"])}()`,
    ];
    case "string": return [
      tpl`${S} + ${S}`, tpl`${S}.substring(${n})`, tpl`${S}.substring(${n}, ${n})`, tpl`${S}.${op(["lowerAscii", "upperAscii", "trim"])}()`,
      tpl`${S}.replace(${S}, ${S})`, tpl`${S}.replace(${S}, ${S}, ${n})`, tpl`${S}.charAt(${n})`, tpl`${LS}.join()`, tpl`${LS}.join(${S})`,
      tpl`string(${I})`, tpl`string(${D})`, tpl`string(${U})`, tpl`string(${B})`, tpl`string(${expr("bytes", d)})`, tpl`string(${DU})`, tpl`string(${TS})`,
      tpl`${fromPool(["%s", "%d", "%s-%s", "%x", "%o", "%b", "%e", "%f", "%.3f", "%X", "%%", "%s %d"])}.format([${Y}, ${I}])`,
      tpl`strings.quote(${S})`, tpl`${S}.find(${fromPool(REGEXES)})`, tpl`${LS}[${n}]`, tpl`${MSS}[${S}]`, tpl`${OS}.orValue(${S})`, ternary(S),
      tpl`url(${fromPool(URLS)}).${op(["getScheme", "getHost", "getHostname", "getPort", "getEscapedPath"])}()`,
      tpl`string(ip(${fromPool(IPS)}))`, tpl`string(cidr(${fromPool(CIDRS)}).ip())`, tpl`string(cidr(${fromPool(CIDRS)}).masked())`,
      tpl`string(${Y})`, tpl`${S}.split(${S})[0]`, tpl`jsonpatch.escapeKey(${S})`,
    ];
    case "bool": return [
      tpl`!${B}`, tpl`(${B} ${op(["&&", "||"])} ${B})`, tpl`(${I} ${op(["<", "<=", "==", "!=", ">", ">="])} ${I})`,
      tpl`(${I} ${op(["<", "==", ">="])} ${D})`, tpl`(${U} ${op(["<", "==", ">"])} ${I})`, tpl`(${D} ${op(["<", "==", "!="])} ${D})`,
      tpl`(${S} ${op(["<", "==", ">="])} ${S})`, tpl`${S}.${op(["startsWith", "endsWith", "contains"])}(${S})`, tpl`${S}.matches(${fromPool(REGEXES)})`,
      tpl`${I} in ${LI}`, tpl`${S} in ${LS}`, tpl`${S} in ${MSS}`, tpl`${LI}.all(x, x ${op(["<", ">", "!="])} ${I})`, tpl`${LS}.exists(x, x.startsWith(${S}))`,
      tpl`${LI}.exists_one(x, x == ${I})`, tpl`sets.${op(["contains", "equivalent", "intersects"])}(${LI}, ${LI})`,
      tpl`${op(["isURL", "isIP", "isCIDR", "isQuantity", "isSemver"])}(${S})`, tpl`isSemver(${fromPool(SEMVERS)}, true)`,
      tpl`${Q}.${op(["isGreaterThan", "isLessThan"])}(${Q})`, tpl`${Q}.isInteger()`, tpl`${LI}.isSorted()`, tpl`${LS}.isSorted()`, tpl`${OI}.hasValue()`,
      tpl`ip(${fromPool(IPS)}).${op(["isLoopback", "isUnspecified", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast"])}()`,
      tpl`ip.isCanonical(${fromPool(IPS)})`, tpl`cidr(${fromPool(CIDRS)}).containsIP(${fromPool(IPS)})`, tpl`cidr(${fromPool(CIDRS)}).containsCIDR(${fromPool(CIDRS)})`,
      tpl`format.${pick(FORMATS)}().validate(${S}).hasValue()`, tpl`format.named(${fromPool(FORMATS)}).hasValue()`,
      tpl`semver(${fromPool(SEMVERS)}).${op(["isGreaterThan", "isLessThan"])}(semver(${fromPool(SEMVERS)}))`,
      tpl`has(object.${pick(["spec", "spec.replicas", "spec.missing", "metadata.labels", "status"])})`, tpl`${MSI}.all(k, v, v > ${I} || k == ${S})`,
      tpl`${MSS}.exists(k, v, k.contains(v))`, tpl`${Y} == ${Y}`, tpl`${LI} == ${LI}`, tpl`${MSS} == ${MSS}`, tpl`${OS} == ${OS}`, tpl`${TS} < ${TS}`, tpl`${DU} > ${DU}`,
      tpl`${LI}.exists(x, x / ${I} > 1)`, tpl`${Y} in ${LI}`, tpl`type(${Y}) == ${pick(["int", "string", "map", "list", "double", "null_type", "bool"])}`,
    ];
    case "bytes": return [tpl`bytes(${S})`, tpl`${expr("bytes", d)} + ${expr("bytes", d)}`];
    case "listInt": return [
      tpl`${LI} + ${LI}`, tpl`${LI}.map(x, x ${op(["*", "+", "-", "/"])} ${I})`, tpl`${LI}.filter(x, x ${op(["<", ">", "!="])} ${I})`,
      tpl`${LI}.${op(["reverse", "distinct", "sort"])}()`, tpl`${LI}.slice(${n}, ${n})`, tpl`${LI}.sortBy(x, -x)`, tpl`lists.range(${n})`,
      tpl`[${LI}, ${LI}].flatten()`, tpl`${LS}.map(x, size(x))`, tpl`${MSI}.map(k, ${MSI}[k])`, tpl`${LI}.transformList(i, v, v + i)`,
      tpl`${LI}.transformList(i, v, v > ${I}, i)`, tpl`[${I}, ${I}, ${I}]`, ternary(LI), tpl`${LI}.map(x, x > ${I}, x * 2)`,
    ];
    case "listString": return [
      tpl`${LS} + ${LS}`, tpl`${S}.split(${S})`, tpl`${S}.split(${S}, ${n})`, tpl`${S}.findAll(${fromPool(REGEXES)})`, tpl`${S}.findAll(${fromPool(REGEXES)}, ${n})`,
      tpl`${MSS}.map(k, k)`, tpl`${LS}.${op(["reverse", "distinct", "sort"])}()`, tpl`${LS}.filter(x, x != ${S})`, tpl`${LS}.map(x, x + ${S})`,
      tpl`${LS}.sortBy(x, size(x))`, tpl`format.${pick(FORMATS)}().validate(${S}).orValue([])`, tpl`${LI}.map(x, string(x))`, ternary(LS),
      tpl`${MSS}.transformList(k, v, k + v)`, tpl`[${S}, ${S}]`,
    ];
    case "mapSI": return [
      tpl`${MSI}.transformMap(k, v, v + ${I})`, tpl`${LS}.transformMapEntry(i, v, {v: i})`, tpl`{${S}: ${I}, ${S}: ${I}}`, ternary(MSI),
      tpl`${MSS}.transformMap(k, v, size(v))`,
    ];
    case "mapSS": return [
      tpl`${MSS}.transformMap(k, v, v + ${S})`, tpl`${MSS}.transformMap(k, v, k != ${S}, v.upperAscii())`, tpl`{${S}: ${S}}`, ternary(MSS),
      tpl`{?${S}: ${OS}}`, tpl`${MSS}.transformMapEntry(k, v, {v: k})`,
    ];
    case "optInt": return [
      tpl`${OI}.or(${OI})`, tpl`${OI}.optMap(x, x + ${I})`, tpl`${OI}.optFlatMap(x, x > ${I} ? optional.of(x) : optional.none())`,
      tpl`${LI}[?${n}]`, tpl`${MSI}[?${S}]`, tpl`${LI}.first()`, tpl`${LI}.last()`, tpl`optional.ofNonZeroValue(${I})`, ternary(OI),
    ];
    case "optString": return [tpl`${OS}.or(${OS})`, tpl`${OS}.optMap(x, x + ${S})`, tpl`${MSS}[?${S}]`, tpl`${LS}[?${n}]`, tpl`optional.ofNonZeroValue(${S})`, tpl`${LS}.last()`];
    case "quantity": return [tpl`${Q}.add(${Q})`, tpl`${Q}.sub(${Q})`, tpl`${Q}.add(${I})`, tpl`${Q}.sub(${I})`];
    case "dyn": return [
      tpl`dyn(${I})`, tpl`dyn(${S})`, tpl`dyn(${LS})`, tpl`dyn(${D})`, tpl`dyn(${MSS})`, tpl`[${Y}, ${Y}]`, tpl`{${S}: ${Y}}`,
      tpl`{"a": ${B}, "b": ${Y}}`, tpl`[${I}, ${Y}]`, tpl`[${S}, ${I}]`, tpl`${Y}[${S}]`, tpl`${Y}[${n}]`, tpl`${Y}.spec`,
      tpl`object.spec.containers.map(c, c.name)`, tpl`object.spec.containers.filter(c, has(c.resources)).map(c, c.resources)`,
      tpl`object.metadata.labels.filter(k, k.startsWith(${S}))`, tpl`${Y}.orValue(1)`, tpl`${OS}.value()`, tpl`${OI}`, tpl`${Q}`, tpl`type(${Y})`,
    ];
    case "duration": return [tpl`${DU} + ${DU}`, tpl`${DU} - ${DU}`, tpl`${TS} - ${TS}`, tpl`duration(string(${I}) + "s")`];
    case "timestamp": return [tpl`${TS} + ${DU}`, tpl`${TS} - ${DU}`, tpl`timestamp(${I})`];
  }
}

const label = fc.constantFrom("app", "tier", "team", "env", "a.b/c", "é");
const word = fc.constantFrom(...WORDS.slice(0, 24));

/** A Pod-like `object` (some fields absent), an `oldObject` and a ConfigMap-like `params`. */
export const varsArb = fc.record({
  object: fc.record(
    {
      apiVersion: fc.constant("v1"),
      kind: fc.constant("Pod"),
      metadata: fc.record(
        {
          name: word,
          namespace: fc.constantFrom("default", "kube-system", "team-a"),
          generation: fc.integer({ min: 0, max: 5 }),
          labels: fc.dictionary(label, word, { maxKeys: 3 }),
          annotations: fc.dictionary(label, word, { maxKeys: 2 }),
        },
        { requiredKeys: ["name", "namespace"] },
      ),
      spec: fc.record(
        {
          replicas: fc.oneof(fc.integer({ min: -2, max: 10 }), fc.constantFrom(2147483647)),
          ratio: fc.oneof(fc.constantFrom(0.5, 1.25, -3.75), fc.double({ min: -100, max: 100, noNaN: true })),
          paused: fc.boolean(),
          tags: fc.array(word, { maxLength: 4 }),
          ports: fc.array(fc.integer({ min: 1, max: 65535 }), { maxLength: 4 }),
          containers: fc.array(
            fc.record(
              { name: word, image: word, resources: fc.record({ limits: fc.record({ cpu: fc.constantFrom(...QUANTITIES), memory: fc.constantFrom("1Gi", "512Mi") }) }) },
              { requiredKeys: ["name"] },
            ),
            { minLength: 1, maxLength: 3 },
          ),
        },
        { requiredKeys: ["containers"] },
      ),
    },
    { requiredKeys: ["apiVersion", "kind", "metadata", "spec"] },
  ),
  oldObject: fc.oneof(fc.constant(null), fc.record({ metadata: fc.record({ name: word }) })),
  params: fc.record({ data: fc.dictionary(fc.constantFrom("key", "other"), word, { maxKeys: 2 }) }),
});

export const celCaseArb = fc.record({
  expr: fc.constantFrom(...RESULT_TYPES).chain((t) => expr(t, 3)),
  mode: fc.constantFrom<"base" | "mutation">("base", "base", "base", "mutation"),
  vars: varsArb,
});
export type CelCase = typeof celCaseArb extends fc.Arbitrary<infer C> ? C : never;
