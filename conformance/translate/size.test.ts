/**
 * How readable `celmap translate` is, measured (issue 21): every example mutator of Gatekeeper's
 * mutation docs (`DOC_EXAMPLES_YAML`) and every mutation sample of the Gatekeeper library
 * (`gatekeeper-library/*.yaml`, one file per sample, with its provenance) is translated and its
 * total expression size (characters of CEL in matchConditions, variables and mutations; `//`
 * comments dropped, whitespace outside string literals dropped) is compared with a hand-written
 * idiomatic MAP for the same behaviour (`idiomatic/*.yaml`, one per example). The bar is 1.5x
 * on every example.
 *
 * The references are checked too: each one, run through celmap's MAP pipeline on realistic Pods,
 * must give what Gatekeeper's reference semantics give for its mutator, so a reference cannot
 * be small by doing less. The translations' exactness is checked on the same Pods here and in
 * depth by `src/translate/gatekeeper/translate/differential.test.ts` and the shared cases.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { compileMutator, jsonEqual, mutate } from "../../src/gatekeeper/index.js";
import { normalizeResult } from "../../src/translate/gatekeeper/translate/cases.js";
import { DOC_EXAMPLES_YAML } from "../../src/translate/gatekeeper/translate/docs-examples.js";
import { translate, type JsonObject, type TranslateResult } from "../../src/translate/gatekeeper/translate/index.js";
import { runTranslated } from "../../src/translate/gatekeeper/translate/run.js";
import { totalSize } from "./size.js";

const DIR = fileURLToPath(new URL("./idiomatic/", import.meta.url));
const LIBRARY = fileURLToPath(new URL("./gatekeeper-library/", import.meta.url));
const BAR = 1.5;


interface Reference {
  readonly file: string;
  /** The Gatekeeper mutators it stands for (YAML documents). */
  readonly mutators: readonly unknown[];
  readonly policies: readonly JsonObject[];
  /** The docs example's index, when it is one. */
  readonly example?: number;
}

function references(): Reference[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((file) => {
      const policies = parseAllDocuments(readFileSync(DIR + file, "utf8")).map((d) => d.toJS() as JsonObject);
      const ann = (policies[0]!.metadata as { annotations?: Record<string, string> }).annotations ?? {};
      const doc = ann["celmap.io/gatekeeper-docs-example"];
      if (doc !== undefined) return { file, example: Number(doc), mutators: [parse(DOC_EXAMPLES_YAML[Number(doc)]!)], policies };
      const sample = ann["celmap.io/gatekeeper-library-sample"];
      if (sample === undefined) throw new Error(`${file}: no celmap.io/gatekeeper-docs-example or celmap.io/gatekeeper-library-sample annotation`);
      const mutators = parseAllDocuments(readFileSync(`${LIBRARY}${sample}.yaml`, "utf8")).map((d) => d.toJS() as unknown);
      return { file, mutators, policies };
    });
}

function asTranslation(policies: readonly JsonObject[]): TranslateResult {
  return {
    policies: [...policies],
    bindings: policies.map((policy) => {
      const name = (policy.metadata as { name: string }).name;
      return { apiVersion: policy.apiVersion, kind: "MutatingAdmissionPolicyBinding", metadata: { name }, spec: { policyName: name } };
    }),
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
  // Two env variables of one name: valid (the apiserver warns), and Gatekeeper sets both.
  pod("batch", "bar", [container("job", { env: [{ name: "DEPLOYMENT_TIMESTAMP", value: "a" }, { name: "B", value: "2" }, { name: "DEPLOYMENT_TIMESTAMP", value: "b" }] })]),
  // Security contexts partly set, init containers (the library's defaults must keep what is there).
  {
    ...pod("secure", "bar", []),
    metadata: { name: "secure", namespace: "bar", annotations: { "seccomp.security.alpha.kubernetes.io/pod": "unconfined" } },
    spec: {
      initContainers: [container("init", { securityContext: { runAsUser: 5, runAsNonRoot: false, allowPrivilegeEscalation: true } })],
      containers: [
        container("app", { securityContext: { readOnlyRootFilesystem: false, runAsGroup: 7, capabilities: { add: ["NET_ADMIN"] }, seLinuxOptions: { level: "s0" } } }),
        container("sidecar", { securityContext: { capabilities: { add: ["NEW_CAPABILITY"], drop: ["ALL"] } } }),
      ],
      securityContext: { fsGroup: 1, supplementalGroups: [5], seccompProfile: { type: "Localhost", localhostProfile: "p.json" } },
      dnsPolicy: "ClusterFirst",
    },
  },
  // Ephemeral containers and an empty Pod security context.
  { ...pod("debug", "default", [container("app")]), spec: { containers: [container("app")], ephemeralContainers: [container("dbg", { securityContext: { allowPrivilegeEscalation: true } }), container("dbg2")], securityContext: {}, dnsPolicy: "ClusterFirst" } },
  { ...pod("db", "default", [container("db", { image: "my.io/db" })]), spec: { containers: [container("db", { image: "my.io/db" })], dnsPolicy: "Default", dnsConfig: { searches: ["a.local"] } } },
];

function gatekeeperResult(mutators: readonly unknown[], object: JsonObject) {
  const ms = mutators.map((doc) => {
    const c = compileMutator(doc);
    if (!c.ok) throw new Error(`a mutator does not compile: ${JSON.stringify(doc)}`);
    return c.mutator;
  });
  const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: (object.metadata as { namespace: string }).namespace } };
  return { ref: mutate(object, ms, { operation: "CREATE", namespace: ns }), ns };
}

/** Runs `t` on every Pod and returns the first difference from Gatekeeper, if any. */
function difference(mutators: readonly unknown[], t: TranslateResult): string | undefined {
  for (const o of PODS) {
    const { ref, ns } = gatekeeperResult(mutators, o);
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

describe("translations of Gatekeeper's docs examples and library samples vs hand-written MAPs (issue 21)", () => {
  const refs = references();

  it("there is a reference for every docs example and every library sample", () => {
    expect(refs.flatMap((r) => (r.example === undefined ? [] : [r.example])).sort((a, b) => a - b)).toEqual(DOC_EXAMPLES_YAML.map((_, i) => i));
    const samples = readdirSync(LIBRARY).filter((f) => f.endsWith(".yaml")).map((f) => `library-${f}`);
    expect(samples.filter((f) => !refs.some((r) => r.file === f))).toEqual([]);
  });

  it.each(refs.map((r) => [r.file, r] as const))("the reference %s does what Gatekeeper does", (_, r) => {
    expect(difference(r.mutators, asTranslation(r.policies))).toBeUndefined();
  });

  it.each(refs.map((r) => [r.file, r] as const))("the translation of %s is exact on the same Pods", (_, r) => {
    const t = translate(r.mutators);
    expect(t.issues).toEqual([]);
    expect(t.verdicts.map((v) => v.verdict)).toEqual(r.mutators.map(() => "exact"));
    expect(difference(r.mutators, t)).toBeUndefined();
  });

  it(`size: every translation within ${BAR}x of the hand-written MAP`, () => {
    const rows = refs.map((r) => {
      const t = translate(r.mutators);
      const got = totalSize(t.policies);
      const want = totalSize(r.policies);
      return { example: r.file.replace(/\.yaml$/, ""), translated: got, handWritten: want, ratio: Math.round((got / want) * 100) / 100 };
    });
    console.log(
      ["example                                   translated  hand-written  ratio", ...rows.map((x) => `${x.example.padEnd(42)}${String(x.translated).padStart(10)}${String(x.handWritten).padStart(14)}${x.ratio.toFixed(2).padStart(7)}`)].join("\n"),
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
const NOT_YET: Record<string, number> = {};
