/**
 * How readable `celmap translate` is, measured (issue 21): every example mutator of Gatekeeper's
 * mutation docs (`DOC_EXAMPLES_YAML`) is translated and its total expression size (characters
 * of CEL in matchConditions, variables and mutations; `//` comments dropped, whitespace outside
 * string literals dropped) is compared with a hand-written idiomatic MAP for the same behaviour
 * (`idiomatic/*.yaml`, one per example). The bar is 1.5x on every example.
 *
 * The references are checked too: each one, run through celmap's MAP pipeline on realistic Pods,
 * must give what Gatekeeper's reference semantics give for its mutator, so a reference cannot
 * be small by doing less. The translations' exactness is checked on the same Pods here and in
 * depth by `src/translate/gatekeeper/translate/differential.test.ts` and the shared cases.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { jsonEqual } from "../../src/gatekeeper/index.js";
import { compileMutator } from "../../src/gatekeeper/index.js";
import { mutate } from "../../src/gatekeeper/index.js";
import { normalizeResult } from "../../src/translate/gatekeeper/translate/cases.js";
import { DOC_EXAMPLES_YAML } from "../../src/translate/gatekeeper/translate/docs-examples.js";
import { translate, type JsonObject, type TranslateResult } from "../../src/translate/gatekeeper/translate/index.js";
import { runTranslated } from "../../src/translate/gatekeeper/translate/run.js";

const DIR = fileURLToPath(new URL("./idiomatic/", import.meta.url));
const BAR = 1.5;

/** CEL text without `//` comments and without whitespace outside string literals. */
export function celSize(expression: string): number {
  let n = 0;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i]!;
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < expression.length && expression[j] !== c) j += expression[j] === "\\" ? 2 : 1;
      n += j + 1 - i;
      i = j;
    } else if (c === "/" && expression[i + 1] === "/") {
      while (i < expression.length && expression[i] !== "\n") i++;
    } else if (!/\s/.test(c)) n++;
  }
  return n;
}

/** Every CEL expression of the policies. */
function expressions(policies: readonly JsonObject[]): string[] {
  const out: string[] = [];
  for (const p of policies) {
    const spec = (p.spec ?? {}) as {
      matchConditions?: { expression: string }[];
      variables?: { expression: string }[];
      mutations?: { applyConfiguration?: { expression: string }; jsonPatch?: { expression: string } }[];
    };
    for (const c of spec.matchConditions ?? []) out.push(c.expression);
    for (const v of spec.variables ?? []) out.push(v.expression);
    for (const m of spec.mutations ?? []) out.push(m.applyConfiguration?.expression ?? m.jsonPatch?.expression ?? "");
  }
  return out;
}

export const totalSize = (policies: readonly JsonObject[]) => expressions(policies).reduce((s, e) => s + celSize(e), 0);

interface Reference {
  readonly file: string;
  readonly example: number;
  readonly policy: JsonObject;
}

function references(): Reference[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((file) => {
      const policy = parse(readFileSync(DIR + file, "utf8")) as JsonObject;
      const ann = ((policy.metadata as { annotations?: Record<string, string> }).annotations ?? {})["celmap.io/gatekeeper-docs-example"];
      return { file, example: Number(ann), policy };
    });
}

function asTranslation(policy: JsonObject): TranslateResult {
  const name = (policy.metadata as { name: string }).name;
  return {
    policies: [policy],
    bindings: [{ apiVersion: policy.apiVersion, kind: "MutatingAdmissionPolicyBinding", metadata: { name }, spec: { policyName: name } }],
    verdicts: [],
    issues: [],
  };
}

const container = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: "nginx:1.25", imagePullPolicy: "IfNotPresent", ...extra });
function pod(name: string, namespace: string, containers: unknown[], extra: Record<string, unknown> = {}): JsonObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace, ...extra }, spec: { containers, dnsPolicy: "ClusterFirst" } };
}
/** Realistic Pods the docs' examples act on (and some they must leave alone). */
const PODS: JsonObject[] = [
  pod("nginx-1", "default", [container("nginx"), container("foo", { securityContext: { privileged: true } })]),
  pod("web", "bar", [container("foo"), container("app", { args: ["--alsologtostderr", "-v=2"] })], { labels: { app: "web" } }),
  pod("nginx-2", "system", [container("nginx", { image: "docker.io/library/nginx:1.25" })], { annotations: { owner: "team-a" } }),
  pod("api", "bar", [
    container("api", { image: "localhost:5000/api@sha256:" + "f".repeat(64), env: [{ name: "A", value: "1" }, { name: "DEPLOYMENT_TIMESTAMP", value: "old" }] }),
    container("networking", { image: "old/net:1", args: ["--alsologtostderr"] }),
  ], { labels: { owner: "me", namespace: "x" } }),
  { ...pod("db", "default", [container("db", { image: "my.io/db" })]), spec: { containers: [container("db", { image: "my.io/db" })], dnsPolicy: "Default", dnsConfig: { searches: ["a.local"] } } },
];

function gatekeeperResult(example: number, object: JsonObject) {
  const c = compileMutator(parse(DOC_EXAMPLES_YAML[example]!));
  if (!c.ok) throw new Error(`docs example ${example} does not compile`);
  const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: (object.metadata as { namespace: string }).namespace } };
  return { ref: mutate(object, [c.mutator], { operation: "CREATE", namespace: ns }), ns };
}

/** Runs `t` on every Pod and returns the first difference from Gatekeeper, if any. */
function difference(example: number, t: TranslateResult): string | undefined {
  for (const o of PODS) {
    const { ref, ns } = gatekeeperResult(example, o);
    const got = runTranslated(t, o, { operation: "CREATE", namespace: ns });
    if (ref.error !== undefined) {
      if (got.allowed) return `Gatekeeper: error ${ref.error}; MAP admitted`;
      continue;
    }
    if (!got.allowed) return `on ${JSON.stringify(o)}: MAP denied: ${got.message ?? ""}`;
    const a = normalizeResult(ref.object, o);
    const b = normalizeResult(got.object, o);
    if (!jsonEqual(a, b)) return `on ${JSON.stringify(o)}:\n  Gatekeeper: ${JSON.stringify(a)}\n  MAP:        ${JSON.stringify(b)}`;
  }
  return undefined;
}

describe("translations of Gatekeeper's docs examples vs hand-written MAPs (issue 21)", () => {
  const refs = references();

  it("there is a reference for every docs example", () => {
    expect(refs.map((r) => r.example).sort((a, b) => a - b)).toEqual(DOC_EXAMPLES_YAML.map((_, i) => i));
  });

  it.each(refs.map((r) => [r.file, r] as const))("the reference %s does what Gatekeeper does", (_, r) => {
    expect(difference(r.example, asTranslation(r.policy))).toBeUndefined();
  });

  it.each(refs.map((r) => [r.file, r] as const))("the translation of %s is exact on the same Pods", (_, r) => {
    const t = translate([parse(DOC_EXAMPLES_YAML[r.example]!)]);
    expect(t.issues).toEqual([]);
    expect(t.verdicts.map((v) => v.verdict)).toEqual(["exact"]);
    expect(difference(r.example, t)).toBeUndefined();
  });

  it(`size: every translation within ${BAR}x of the hand-written MAP`, () => {
    const rows = refs.map((r) => {
      const t = translate([parse(DOC_EXAMPLES_YAML[r.example]!)]);
      const got = totalSize(t.policies);
      const want = totalSize([r.policy]);
      return { example: r.file.replace(/\.yaml$/, ""), translated: got, handWritten: want, ratio: Math.round((got / want) * 100) / 100 };
    });
    console.log(
      ["example                           translated  hand-written  ratio", ...rows.map((x) => `${x.example.padEnd(34)}${String(x.translated).padStart(10)}${String(x.handWritten).padStart(14)}${x.ratio.toFixed(2).padStart(7)}`)].join("\n"),
    );
    const over = rows.filter((x) => x.ratio > (NOT_YET[x.example] ?? BAR));
    expect(over.map((x) => `${x.example}: ${x.ratio}x (allowed ${NOT_YET[x.example] ?? BAR}x)`)).toEqual([]);
    console.log(`${rows.filter((x) => x.ratio <= BAR).length} of ${rows.length} examples within ${BAR}x`);
  });
});

/**
 * Examples not yet within the bar, with the ratio they must not exceed (what they measured when
 * recorded): a ratchet, to be lowered to the bar (and the entry deleted) as translation improves.
 */
const NOT_YET: Record<string, number> = {
  "docs-05-privileged": 1.61,
  "docs-07-env-create-only": 8.7,
  "docs-08-sidecar": 5.8,
  "docs-11-nginx-digest": 13.98,
};
