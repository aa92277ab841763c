/**
 * `celmap test <dir>...`: runs Kyverno `kyverno-test.yaml` suites (kyverno.md §5.2) — MutatingPolicy,
 * NamespacedMutatingPolicy and MutatingAdmissionPolicy results — through celmap's pipeline, prints
 * a table as `kyverno test` does and `N passed, N failed`; `--junit <file>`; exit 1 on failure.
 *
 * Deliberate differences from Kyverno's CLI (its quirks, kyverno.md §5.2):
 * - integers stay integers (Kyverno turns every input integer into a float64);
 * - a NamespacedMutatingPolicy applies only to requests in its namespace (Kyverno does not scope
 *   it offline);
 * - each (result, resource) row is counted once;
 * - results for other policy kinds (ClusterPolicy, ValidatingPolicy, …) are listed as `not run`
 *   and counted neither way.
 */
import { writeFileSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { evaluateWithAutogen, mutateExisting, runsAtAdmission, type KyvernoContext, type KyvernoOutcome, OfflineImageDataProvider, OfflineResourceProvider, OfflineHttpProvider, OfflineGlobalContextProvider, kyvernoCliHttpMock, type KyvernoProviders, decodeMutatingPolicy, decodePolicyException, isKyvernoMutatingPolicy, isKyvernoPolicyException, type MutatingPolicy, type PolicyException } from "../../kyverno/index.js";
import { newAdmissionRequest, type JsonObject, type Operation } from "../../admission/index.js";
import { formatLoadError, loadPaths, type LoadedDocument } from "../../io/load.js";
import { ExitCode, type CliIo, type Command } from "../command.js";
import { HELP_OPTION, UsageError, type OptionSpec, type ParsedArgs } from "../options.js";
import { colorWanted, palette } from "../render/color.js";
import { admit, type PolicySet } from "../../engine/index.js";
import { isObject, loadInputs } from "../render/session.js";
import { lintDocuments } from "./lint.js";
import { parseTestCaseSelector, selects, SubresourceTable, type TestCaseSelector } from "./test-values.js";

const OPTIONS: readonly OptionSpec[] = [
  { name: "file-name", short: "f", type: "string", placeholder: "<name>", description: "The test file name to look for (default kyverno-test.yaml)." },
  { name: "junit", type: "string", placeholder: "<file>", description: "Also write the results as a JUnit XML report to <file>." },
  { name: "fail-only", type: "boolean", description: "Print only the failed rows." },
  { name: "detailed-results", type: "boolean", description: "Add a MESSAGE column (why a policy skipped, errored or differed)." },
  {
    name: "lint",
    type: "boolean",
    description:
      "Also run celmap lint's checks on each suite's policies (its resources as samples, plus generated objects): every finding is a failed row (RESULT Fail, REASON Lint: <check>), so CI fails on a set that is order-dependent, not idempotent or does not converge.",
  },
  {
    name: "test-case-selector",
    short: "t",
    type: "string",
    placeholder: "<selector>",
    description: 'Run only the results selected by "policy=<name>, rule=<name>, resource=<name>" (any combination; * and ? wildcards), as kyverno test -t.',
  },
  { name: "remove-color", type: "boolean", description: "No colour in the output (also: NO_COLOR, or output that is not a terminal)." },
  HELP_OPTION,
];

export const testCommand: Command = {
  name: "test",
  summary: "Run Kyverno kyverno-test.yaml suites (MutatingPolicy and MutatingAdmissionPolicy results) offline.",
  usage: "celmap test <dir>... [-f kyverno-test.yaml] [-t <selector>] [--junit <file>] [--fail-only] [--detailed-results] [--remove-color] [--lint]",
  description:
    "Walks each directory for kyverno-test.yaml files and runs their MutatingPolicy, NamespacedMutatingPolicy and " +
    "MutatingAdmissionPolicy results through celmap's admission pipeline: policies, resources, variables/values, " +
    "userinfo, exceptions, paramResources, clusterResources (offline resource.Get/List, CRD schemas), context (image " +
    "data), apiCallResponses, globalContextEntries, targetResources (mutateExisting). Prints a table like 'kyverno " +
    "test' and its last line 'Test Summary: N tests passed and N tests failed'. Unlike Kyverno's CLI, integers stay integers, namespaced policies are scoped to " +
    "their namespace and each row is counted once.",
  options: OPTIONS,
  examples: [
    { command: "celmap test policies/", explanation: "Runs every kyverno-test.yaml under policies/." },
    { command: "celmap test . --junit report.xml", explanation: "Also writes a JUnit report for CI." },
    { command: "celmap test policies/ --lint", explanation: "Also fails when a suite's policies are order-dependent, not idempotent or do not converge (celmap lint's checks)." },
  ],
  sections: [{ title: "Exit codes", body: "  0  every row passed\n  1  a row failed, or a suite could not be loaded\n  2  bad usage" }],
  run: runTest,
};

export interface Row {
  readonly suite: string;
  readonly policy: string;
  readonly resource: string;
  readonly expected: string;
  /** `skip`: not compared (its resource is missing from the patchedResources file), as kyverno test does. */
  readonly outcome: "pass" | "fail" | "skip" | "not-run";
  readonly reason: string;
  readonly message?: string;
}

function findTests(path: string, name: string, out: string[], seen = new Set<string>()): void {
  let st;
  try {
    st = statSync(path);
  } catch {
    return;
  }
  if (st.isFile()) {
    out.push(path);
    return;
  }
  // Each directory once, whatever the links to it (a link to an ancestor would loop).
  const real = realpathSync(path);
  if (seen.has(real)) return;
  seen.add(real);
  const entries = readdirSync(path).sort();
  for (const e of entries) {
    const p = join(path, e);
    if (e === name) {
      if (statSync(p).isFile()) out.push(p);
    } else if (e !== "node_modules" && e !== ".git") {
      try {
        if (statSync(p).isDirectory()) findTests(p, name, out, seen);
      } catch {
        /* dangling link */
      }
    }
  }
}

function asList(v: unknown): string[] {
  if (typeof v === "string") return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function meta(o: JsonObject, f: string): string {
  const md = isObject(o.metadata) ? o.metadata : {};
  return typeof md[f] === "string" ? (md[f] as string) : "";
}

function synthetic(value: JsonObject, file: string): LoadedDocument {
  return { value, source: { file, docIndex: 0 } as never, locate: () => undefined };
}

/** Kyverno's tidy: drops empty maps, empty lists and nulls, recursively. */
export function tidy(v: unknown): unknown {
  if (Array.isArray(v)) {
    const out = v.map(tidy).filter((x) => x !== undefined);
    return out.length === 0 ? undefined : out;
  }
  if (v === null) return undefined;
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const t = tidy(x);
      if (t !== undefined) out[k] = t;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v;
}

/** Deep equality where an integer bigint equals the same number. Returns the first differing path. */
export function firstDifference(a: unknown, b: unknown, path = ""): string | undefined {
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) {
    return typeof a === typeof b ? (a === b ? undefined : path || "/") : Number(a) === Number(b) ? undefined : path || "/";
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return path || "/";
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}/${i}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) {
      const d = firstDifference(a[k], b[k], `${path}/${k}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return a === b ? undefined : path || "/";
}

interface Suite {
  readonly file: string;
  readonly dir: string;
  readonly test: JsonObject;
}

interface Loaded {
  readonly mpols: MutatingPolicy[];
  readonly mapNames: Set<string>;
  readonly otherNames: Set<string>;
  readonly session: PolicySet;
  readonly resources: JsonObject[];
  readonly targets: JsonObject[];
  readonly ctx: KyvernoContext;
  readonly user?: { username: string; groups: string[] };
  readonly globalOperation?: Operation;
  readonly subresources: SubresourceTable;
}

const MAP_KINDS = new Set(["MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"]);

function loadSuite(s: Suite, errors: string[]): Loaded | undefined {
  const rel = (p: string, base = s.dir): string => resolve(base, p);
  const load = (paths: readonly string[], base = s.dir): LoadedDocument[] => {
    if (paths.length === 0) return [];
    const r = loadPaths(paths.map((p) => rel(p, base)), { numbers: "cel" });
    for (const e of r.errors) errors.push(formatLoadError(e));
    return r.documents;
  };
  const t = s.test;
  const mpols: MutatingPolicy[] = [];
  const mapDocs: LoadedDocument[] = [];
  const mapNames = new Set<string>();
  const otherNames = new Set<string>();
  const exceptions: PolicyException[] = [];
  const policyDocs = load(asList(t.policies));
  const exceptionDocs = load(asList(t.exceptions));
  for (const d of [...policyDocs, ...exceptionDocs]) {
    const v = d.value;
    if (!isObject(v)) continue;
    if (isKyvernoMutatingPolicy(v)) {
      const r = decodeMutatingPolicy(v);
      if (r.ok) mpols.push(r.value);
      else errors.push(...r.errors.map((e) => `${d.source.file}: ${String(v.kind)} ${meta(v, "name")}: ${e}`));
    } else if (isKyvernoPolicyException(v)) {
      const r = decodePolicyException(v);
      if (r.ok) exceptions.push(r.value);
      else errors.push(...r.errors.map((e) => `${d.source.file}: PolicyException ${meta(v, "name")}: ${e}`));
    } else if (typeof v.apiVersion === "string" && v.apiVersion.startsWith("admissionregistration.k8s.io/") && MAP_KINDS.has(String(v.kind))) {
      mapDocs.push(d);
      if (v.kind === "MutatingAdmissionPolicy") mapNames.add(meta(v, "name"));
    } else {
      otherNames.add(meta(v, "name"));
    }
  }
  // Kyverno's CLI applies a MAP without binding as if it were bound (a convenience; a cluster needs one).
  const bound = new Set(mapDocs.flatMap((d) => (isObject(d.value) && d.value.kind === "MutatingAdmissionPolicyBinding" && isObject(d.value.spec) ? [String(d.value.spec.policyName)] : [])));
  for (const d of [...mapDocs]) {
    const v = d.value as JsonObject;
    if (v.kind !== "MutatingAdmissionPolicy" || bound.has(meta(v, "name"))) continue;
    mapDocs.push(
      synthetic(
        { apiVersion: String(v.apiVersion), kind: "MutatingAdmissionPolicyBinding", metadata: { name: `${meta(v, "name")}-binding` }, spec: { policyName: meta(v, "name") } },
        `${d.source.file} (implicit binding)`,
      ),
    );
  }

  // clusterResources: ClusterResource docs (spec.crds paths, spec.resources inline) or plain objects.
  const crdDocs: LoadedDocument[] = [];
  const clusterObjects: JsonObject[] = [];
  for (const f of asList(t.clusterResources)) {
    for (const d of load([f])) {
      const v = d.value;
      if (!isObject(v)) continue;
      if (v.kind === "ClusterResource" && isObject(v.spec)) {
        crdDocs.push(...load(asList(v.spec.crds), dirname(d.source.file)));
        for (const o of Array.isArray(v.spec.resources) ? v.spec.resources : []) if (isObject(o)) clusterObjects.push(o);
      } else if (v.kind === "CustomResourceDefinition") crdDocs.push(d);
      else clusterObjects.push(v);
    }
  }
  // values: namespaces, namespaceSelector, globalValues.
  const namespaces = new Map<string, JsonObject>();
  for (const o of clusterObjects) if (o.apiVersion === "v1" && o.kind === "Namespace") namespaces.set(meta(o, "name"), o);
  let globalOperation: Operation | undefined;
  const values = load(asList(t.variables))[0]?.value;
  const subresources = new SubresourceTable(values);
  for (const e of subresources.problems) errors.push(`${asList(t.variables)[0] ?? ""}: ${e}`);
  if (isObject(values)) {
    for (const ns of Array.isArray(values.namespaces) ? values.namespaces : []) if (isObject(ns)) namespaces.set(meta(ns, "name"), ns);
    for (const sel of Array.isArray(values.namespaceSelector) ? values.namespaceSelector : []) {
      if (!isObject(sel) || typeof sel.name !== "string") continue;
      const labels = { ...(isObject(sel.labels) ? sel.labels : {}), "kubernetes.io/metadata.name": sel.name };
      namespaces.set(sel.name, { apiVersion: "v1", kind: "Namespace", metadata: { name: sel.name, labels } });
    }
    const gv = isObject(values.globalValues) ? values.globalValues : {};
    const op = gv["request.operation"];
    if (op === "CREATE" || op === "UPDATE" || op === "DELETE") globalOperation = op;
  }
  const paramDocs = load(asList(t.paramResources));
  const nsDocs = [...namespaces.values()].map((n) => synthetic(n, `${s.file} (namespaces)`));
  const built = loadInputs([...crdDocs, ...mapDocs, ...paramDocs, ...nsDocs]);
  errors.push(...built.errorLines);

  // userinfo
  let user: { username: string; groups: string[] } | undefined;
  const ui = load(asList(t.userinfo))[0]?.value;
  if (isObject(ui) && isObject(ui.userInfo)) user = { username: String(ui.userInfo.username ?? ""), groups: asList(ui.userInfo.groups) };

  // library providers
  const images: JsonObject[] = [];
  for (const d of load(asList(t.context))) {
    const v = d.value;
    if (isObject(v) && isObject(v.spec)) {
      for (const o of Array.isArray(v.spec.resources) ? v.spec.resources : []) if (isObject(o)) clusterObjects.push(o);
      for (const i of Array.isArray(v.spec.images) ? v.spec.images : []) if (isObject(i)) images.push(i);
    }
  }
  const http = new OfflineHttpProvider({
    mocks: (Array.isArray(t.apiCallResponses) ? t.apiCallResponses : []).flatMap((r) => {
      if (!isObject(r)) return [];
      const url = typeof r.url === "string" ? r.url : typeof r.urlPath === "string" ? r.urlPath : "";
      const resp = isObject(r.response) ? r.response : {};
      const method = r.method === "GET" || r.method === "POST" ? r.method : undefined;
      return [{ url, ...(method !== undefined ? { method } : {}), response: kyvernoCliHttpMock((resp.body ?? null) as never, typeof resp.statusCode === "number" ? resp.statusCode : Number(resp.statusCode ?? 200)) }];
    }),
  });
  const globalContext = new OfflineGlobalContextProvider({
    entries: (Array.isArray(t.globalContextEntries) ? t.globalContextEntries : []).flatMap((e) => (isObject(e) && typeof e.name === "string" ? [{ name: e.name, data: (e.data ?? null) as never }] : [])),
  });
  const mappings = crdDocs.flatMap((d) => {
    const v = d.value;
    if (!isObject(v) || !isObject(v.spec) || !isObject(v.spec.names)) return [];
    const spec = v.spec;
    const names = spec.names as JsonObject;
    return (Array.isArray(spec.versions) ? spec.versions : []).flatMap((ver) =>
      isObject(ver) ? [{ apiVersion: `${String(spec.group)}/${String(ver.name)}`, kind: String(names.kind), resource: String(names.plural), namespaced: spec.scope === "Namespaced" }] : [],
    );
  });
  const resources = load(asList(t.resources)).flatMap((d) => (isObject(d.value) ? [d.value] : []));
  const targets = load(asList(t.targetResources)).flatMap((d) => (isObject(d.value) ? [d.value] : []));
  // As Kyverno's CLI: the targets are in the (fake) cluster that resource.Get/List read.
  clusterObjects.push(...targets);
  const providers: KyvernoProviders = {
    resource: new OfflineResourceProvider({ objects: clusterObjects as never, mappings: mappings as never, missing: "null-if-kind-known", hint: "give it in clusterResources" }),
    http,
    globalContext,
    imageData: new OfflineImageDataProvider({ images: images as never, hint: "give it in the context file" }),
  };
  const session = built.policySet;
  const ctx: KyvernoContext = {
    catalog: session.catalog,
    schemas: session.schemas,
    namespaces: (n) => session.namespaces.get(n),
    providers,
    exceptions,
  };
  return { mpols, mapNames, otherNames, session, resources, targets, ctx, subresources, ...(user !== undefined ? { user } : {}), ...(globalOperation !== undefined ? { globalOperation } : {}) };
}

interface ResourceRun {
  /** MAP per policy: pass | skip | nomatch | error, with the object after all MAPs. */
  readonly maps: Map<string, { result: string; object: JsonObject | null; message?: string }>;
  readonly mpols: Map<string, KyvernoOutcome>;
}

function requestFor(l: Loaded, object: JsonObject, op: Operation): ReturnType<typeof newAdmissionRequest> {
  // A resource of a subresource kind declared in the Values file is a request on that subresource.
  const sub = l.subresources.lookup(object);
  return newAdmissionRequest(
    {
      operation: op,
      ...(sub !== undefined ? { resource: sub.resource, subResource: sub.subResource } : {}),
      object: op === "DELETE" ? null : object,
      oldObject: op === "CREATE" ? null : object,
      ...(l.user !== undefined ? { userInfo: { username: l.user.username, groups: [...l.user.groups] } } : {}),
    } as never,
    l.session.catalog,
  );
}

function runResource(l: Loaded, object: JsonObject, op: Operation): ResourceRun | { error: string } {
  const maps = new Map<string, { result: string; object: JsonObject | null; message?: string }>();
  let current: JsonObject = object;
  if (l.mapNames.size > 0 && op !== "DELETE") {
    // Kyverno's CLI does not default (defaulting off) nor validate the result (validate off, the engine's default).
    const ev = admit(l.session, { operation: op, object, ...(op === "UPDATE" ? { oldObject: object } : {}), ...(l.user !== undefined ? { userInfo: l.user } : {}) }, { defaulting: false });
    if (!ev.ok) return { error: ev.error.message };
    const r = ev.result;
    const invs = r.trace.passes[0]?.invocations ?? [];
    for (const name of l.mapNames) {
      const mine = invs.filter((i) => i.policy === name);
      if (mine.length === 0) maps.set(name, { result: "nomatch", object: r.object });
      else if (mine.every((i) => i.skipped !== undefined && i.mutations.length === 0)) maps.set(name, { result: "skip", object: r.object, message: mine[0]!.skipped! });
      else {
        const err = mine.flatMap((i) => i.mutations).find((m) => m.outcome === "error" || m.outcome === "aborted");
        maps.set(name, err !== undefined ? { result: "error", object: r.object, message: err.error ?? "" } : { result: "pass", object: r.object });
      }
    }
    if (r.object !== null && r.allowed) current = r.object;
  }
  const mpols = new Map<string, KyvernoOutcome>();
  const built = requestFor(l, current, op);
  if (!built.ok) return { error: built.error };
  let obj: JsonObject | null = op === "DELETE" ? null : current;
  for (const p of l.mpols) {
    if (!runsAtAdmission(p)) continue;
    const o = evaluateWithAutogen(p, { ...built.request, object: obj }, obj, l.ctx);
    mpols.set(p.metadata.name, o);
    if (o.result === "pass") obj = o.object;
  }
  return { maps, mpols };
}

/** mutateExisting: for each trigger the policy matches at admission, its targets mutated (src/kyverno `mutateExisting`). */
function runMutateExisting(l: Loaded, p: MutatingPolicy, op: Operation): Map<string, KyvernoOutcome> {
  const out = new Map<string, KyvernoOutcome>();
  const candidates = l.targets.length > 0 ? l.targets : l.resources;
  for (const trigger of l.resources) {
    const tr = requestFor(l, trigger, op);
    if (!tr.ok) continue;
    const r = mutateExisting(p, { request: tr.request, object: op === "DELETE" ? null : trigger }, candidates, l.ctx, (target) => {
      const req = requestFor(l, target, "UPDATE");
      return req.ok ? req.request : undefined;
    });
    if (!r.fired) continue;
    for (const t of r.targets) out.set(`${String(t.target.kind)}/${meta(t.target, "namespace")}/${meta(t.target, "name")}`, t.outcome);
  }
  return out;
}

function resourceMatches(o: JsonObject, kind: string, ref: string): boolean {
  if (kind !== "" && o.kind !== kind) return false;
  const slash = ref.indexOf("/");
  if (slash >= 0) {
    const ns = ref.slice(0, slash);
    return meta(o, "name") === ref.slice(slash + 1) && (meta(o, "namespace") === ns || (meta(o, "namespace") === "" && ns === "default"));
  }
  return meta(o, "name") === ref;
}

interface RunOptions {
  readonly selector?: TestCaseSelector;
  /** A line for stderr (a warning that changes the outcome). */
  readonly warn: (line: string) => void;
}

/** The document of `file` (relative to the suite) that is `got` (same kind, name, namespace); undefined also when the file cannot be read. */
function findPatched(s: Suite, file: string, got: JsonObject): { found?: JsonObject; readable: boolean } {
  const docs = loadPaths([resolve(s.dir, file)], { numbers: "cel" });
  const want = docs.documents.map((d) => d.value).filter(isObject);
  const ns = (o: JsonObject): string => meta(o, "namespace") || "default";
  const found = want.find((w) => w.kind === got.kind && meta(w, "name") === meta(got, "name") && (meta(w, "namespace") === "" || ns(w) === ns(got)));
  return { ...(found !== undefined ? { found } : {}), readable: docs.errors.length === 0 };
}

/** A namespaced resource given without namespace is admitted in "default": an expectation with or without metadata.namespace: default is the same object. */
function withoutDefaultNs(o: JsonObject): JsonObject {
  if (!isObject(o.metadata) || (meta(o, "namespace") !== "default" && meta(o, "namespace") !== "")) return o;
  const md = { ...o.metadata };
  delete md.namespace;
  return { ...o, metadata: md };
}

function runSuite(s: Suite, rows: Row[], options: RunOptions = { warn: () => {} }): void {
  const errors: string[] = [];
  const l = loadSuite(s, errors);
  const results = Array.isArray(s.test.results) ? s.test.results.filter(isObject) : [];
  const suiteName = s.file;
  if (l === undefined || errors.length > 0) {
    for (const r of results) rows.push({ suite: suiteName, policy: String(r.policy ?? ""), resource: "", expected: String(r.result ?? ""), outcome: "fail", reason: "Suite error", message: errors.join("; ") });
    return;
  }
  const cache = new Map<string, ResourceRun | { error: string }>();
  const existing = new Map<string, Map<string, KyvernoOutcome>>();
  for (const r of results) {
    const policyRef = String(r.policy ?? "");
    const policy = policyRef.includes("/") ? policyRef.slice(policyRef.indexOf("/") + 1) : policyRef;
    const expected = String(r.result ?? "");
    const kind = String(r.kind ?? "");
    const op = (typeof r.operation === "string" ? r.operation : (l.globalOperation ?? "CREATE")) as Operation;
    const isMap = l.mapNames.has(policy);
    const mpol = l.mpols.find((p) => p.metadata.name === policy);
    let refs = asList(r.resources);
    if (Array.isArray(r.resourceSpecs)) {
      refs = refs.concat(r.resourceSpecs.filter(isObject).map((x) => (typeof x.namespace === "string" && x.namespace !== "" ? `${x.namespace}/${String(x.name)}` : String(x.name))));
    }
    const pool = mpol !== undefined && !runsAtAdmission(mpol) ? (l.targets.length > 0 ? l.targets : l.resources) : l.resources;
    if (refs.length === 0) refs = pool.filter((o) => kind === "" || o.kind === kind).map((o) => (meta(o, "namespace") !== "" ? `${meta(o, "namespace")}/${meta(o, "name")}` : meta(o, "name")));
    const selector = options.selector;
    if (selector !== undefined) refs = refs.filter((ref) => selects(selector, policyRef, ref));
    for (const ref of refs) {
      const row = (outcome: Row["outcome"], reason: string, message?: string): void => {
        rows.push({ suite: suiteName, policy: policyRef, resource: `${kind !== "" ? `${kind}/` : ""}${ref}`, expected, outcome, reason, ...(message !== undefined ? { message } : {}) });
      };
      if (!isMap && mpol === undefined) {
        row("not-run", l.otherNames.has(policy) ? "Not a mutating policy (not run)" : "Policy not found (not run)");
        continue;
      }
      const resource = pool.find((o) => resourceMatches(o, kind, ref));
      if (resource === undefined) {
        row("fail", "Resource not found");
        continue;
      }
      let outcome: { result: string; object: JsonObject | null; message?: string } | undefined;
      if (mpol !== undefined && !runsAtAdmission(mpol)) {
        let m = existing.get(`${policy}|${op}`);
        if (m === undefined) existing.set(`${policy}|${op}`, (m = runMutateExisting(l, mpol, op)));
        outcome = m.get(`${String(resource.kind)}/${meta(resource, "namespace")}/${meta(resource, "name")}`);
      } else {
        const key = `${l.resources.indexOf(resource)}|${op}`;
        let run = cache.get(key);
        if (run === undefined) cache.set(key, (run = runResource(l, resource, op)));
        if ("error" in run) {
          row("fail", "Error", run.error);
          continue;
        }
        outcome = isMap ? run.maps.get(policy) : run.mpols.get(policy);
      }
      if (outcome === undefined || outcome.result === "nomatch") {
        // Kyverno's MPOL engine answers a policy whose matchConstraints do not select the resource
        // with an empty response: 'kyverno test' reports the row as Excluded and counts it as a pass
        // (suite sample-policy-exclusion). A MAP that does not match gives no response: Not found.
        const excluded = expected === "skip" || (mpol !== undefined && outcome !== undefined);
        // No false pass: when the row names a patched resource for it, the unmutated resource must
        // equal that expectation (a policy that never ran cannot have made the expected change).
        if (excluded && expected === "pass" && typeof r.patchedResources === "string") {
          const { found } = findPatched(s, r.patchedResources, resource);
          if (found !== undefined && firstDifference(tidy(withoutDefaultNs(found)), tidy(withoutDefaultNs(resource))) !== undefined) {
            row("fail", "Excluded, resource diff", `the policy did not run on ${kind} ${ref} (${outcome?.message ?? "its match constraints do not select it"}), so it is not the one in ${r.patchedResources}`);
            continue;
          }
        }
        row(excluded ? "pass" : "fail", excluded ? "Excluded" : "Not found", outcome?.message);
        continue;
      }
      // kyverno test: a mutation's result is pass when the patched object equals the expected one
      // and fail when it differs, so `result: fail` + patchedResources asserts a difference.
      const comparesPatch = outcome.result === "pass" && expected === "fail" && typeof r.patchedResources === "string";
      if (outcome.result !== expected && !comparesPatch) {
        row("fail", `Want ${expected}, got ${outcome.result}`, outcome.message);
        continue;
      }
      if ((expected === "pass" || comparesPatch) && typeof r.patchedResources === "string") {
        const got = outcome.object;
        const { found: match, readable } = got !== null ? findPatched(s, r.patchedResources, got) : { readable: true };
        if (match === undefined || got === null) {
          // No document for this resource in the file: the patched object cannot equal it.
          if (comparesPatch) row("pass", "Ok", `no ${kind} ${ref} in ${r.patchedResources}: differs as expected`);
          else if (readable && r.failOnMissingResources !== true) {
            // kyverno test: a resource not in the patched-resource manifest is skipped with a warning
            // unless the result sets failOnMissingResources.
            const msg = `no ${kind} ${ref} in ${r.patchedResources}: not compared (set failOnMissingResources: true to fail)`;
            options.warn(`warning: ${suiteName}: ${policyRef}: ${msg}`);
            row("skip", "Not in patchedResources", msg);
          } else row("fail", "Patched resource not found", `no ${kind} ${ref} in ${r.patchedResources}`);
          continue;
        }
        const diff = firstDifference(tidy(withoutDefaultNs(match)), tidy(withoutDefaultNs(got)));
        if (comparesPatch) {
          if (diff === undefined) row("fail", "Want fail, got pass", "the patched resource equals the expected one");
          else row("pass", "Ok", `differs as expected at ${diff}`);
          continue;
        }
        if (diff !== undefined) {
          row("fail", "Resource diff", `first difference at ${diff}`);
          continue;
        }
      }
      row("pass", "Ok", outcome.message);
    }
  }
}

function xml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * `--lint`: celmap lint on what the suite runs: its MutatingAdmissionPolicies (a MAP without binding
 * gets the implicit one Kyverno's CLI gives it), Kyverno MutatingPolicies and exceptions, param
 * resources and the CRDs of its clusterResources; its resources are the samples. One failed row per
 * finding; other policy kinds are left out.
 */
function lintSuite(s: Suite, rows: Row[]): void {
  const errors: string[] = [];
  const load = (paths: readonly string[], base = s.dir): LoadedDocument[] => {
    if (paths.length === 0) return [];
    const r = loadPaths(paths.map((p) => resolve(base, p)), { numbers: "cel" });
    errors.push(...r.errors.map(formatLoadError));
    return r.documents;
  };
  const docs: LoadedDocument[] = [];
  for (const d of load([...asList(s.test.policies), ...asList(s.test.exceptions)])) {
    const v = d.value;
    if (!isObject(v)) continue;
    const map = typeof v.apiVersion === "string" && v.apiVersion.startsWith("admissionregistration.k8s.io/") && MAP_KINDS.has(String(v.kind));
    if (map || isKyvernoMutatingPolicy(v) || isKyvernoPolicyException(v)) docs.push(d);
  }
  const bound = new Set(docs.flatMap((d) => (isObject(d.value) && d.value.kind === "MutatingAdmissionPolicyBinding" && isObject(d.value.spec) ? [String(d.value.spec.policyName)] : [])));
  for (const d of [...docs]) {
    const v = d.value as JsonObject;
    if (v.kind !== "MutatingAdmissionPolicy" || bound.has(meta(v, "name"))) continue;
    docs.push(synthetic({ apiVersion: String(v.apiVersion), kind: "MutatingAdmissionPolicyBinding", metadata: { name: `${meta(v, "name")}-binding` }, spec: { policyName: meta(v, "name") } }, `${d.source.file} (implicit binding)`));
  }
  docs.push(...load(asList(s.test.paramResources)));
  for (const d of load(asList(s.test.clusterResources))) {
    const v = d.value;
    if (!isObject(v)) continue;
    if (v.kind === "ClusterResource" && isObject(v.spec)) docs.push(...load(asList(v.spec.crds), dirname(d.source.file)));
    else if (v.kind === "CustomResourceDefinition") docs.push(d);
  }
  const samples = load(asList(s.test.resources));
  const run = errors.length > 0 ? { errors, report: undefined } : lintDocuments(docs, samples);
  if (run.report === undefined) {
    rows.push({ suite: s.file, policy: "", resource: "", expected: "lint", outcome: "fail", reason: "Lint: bad input", message: run.errors.join("; ") });
    return;
  }
  for (const finding of run.report.findings) {
    const w = finding.witness?.object;
    const md = w !== undefined && isObject(w.metadata) ? w.metadata : {};
    rows.push({
      suite: s.file,
      policy: finding.policies.map((p) => p.name).join(", "),
      resource: w !== undefined ? `${String(w.kind)}/${typeof md.namespace === "string" ? `${md.namespace}/` : ""}${String(md.name ?? "")}${finding.witness?.origin === "generated" ? " (generated)" : ""}` : "",
      expected: "lint",
      outcome: "fail",
      reason: `Lint: ${finding.check}`,
      message: finding.message,
    });
  }
  if (run.report.findings.length === 0) rows.push({ suite: s.file, policy: "(all)", resource: "", expected: "lint", outcome: "pass", reason: "Lint: clean" });
}

export function junitReport(rows: readonly Row[]): string {
  const suites = new Map<string, Row[]>();
  for (const r of rows) {
    if (r.outcome === "not-run") continue;
    const list = suites.get(r.suite) ?? [];
    list.push(r);
    suites.set(r.suite, list);
  }
  let out = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="celmap test" tests="${[...suites.values()].flat().length}" failures="${rows.filter((r) => r.outcome === "fail").length}">\n`;
  for (const [name, list] of suites) {
    out += `  <testsuite name="${xml(name)}" tests="${list.length}" failures="${list.filter((r) => r.outcome === "fail").length}">\n`;
    for (const r of list) {
      out += `    <testcase classname="${xml(r.policy)}" name="${xml(`${r.resource} ${r.expected}`)}">`;
      if (r.outcome === "fail") out += `<failure message="${xml(r.reason)}">${xml(r.message ?? "")}</failure>`;
      if (r.outcome === "skip") out += `<skipped message="${xml(r.message ?? r.reason)}"></skipped>`;
      out += "</testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  return `${out}</testsuites>\n`;
}

function table(header: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => `│ ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" │ ")} │\n`;
  const rule = (l: string, m: string, r: string): string => `${l}${widths.map((w) => "─".repeat(w + 2)).join(m)}${r}\n`;
  return rule("┌", "┬", "┐") + line(header) + rule("├", "┼", "┤") + body.map(line).join("") + rule("└", "┴", "┘");
}

async function runTest(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positionals.length === 0) throw new UsageError("missing <dir>: give the directories to search for kyverno-test.yaml");
  const name = typeof args.values["file-name"] === "string" ? args.values["file-name"] : "kyverno-test.yaml";
  const junit = typeof args.values["junit"] === "string" ? args.values["junit"] : undefined;
  const failOnly = args.values["fail-only"] === true;
  const detailed = args.values["detailed-results"] === true;
  const p = palette(args.values["remove-color"] !== true && colorWanted(process.stdout.isTTY));
  let selector: TestCaseSelector | undefined;
  if (typeof args.values["test-case-selector"] === "string") {
    try {
      selector = parseTestCaseSelector(args.values["test-case-selector"]);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  if (junit !== undefined) {
    const dir = dirname(resolve(junit));
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      /* reported below */
    }
    if (!isDir) throw new UsageError(`--junit ${junit}: the directory ${dir} does not exist`);
  }
  const files: string[] = [];
  for (const d of args.positionals) findTests(d, name, files);
  if (files.length === 0) {
    io.stderr(`celmap test: no ${name} found under ${args.positionals.join(", ")}\n`);
    return 1;
  }
  const rows: Row[] = [];
  for (const file of files) {
    io.stdout(`Loading test  ( ${file} ) ...\n`);
    const loaded = loadPaths([file], { numbers: "cel" });
    const test = loaded.documents[0]?.value;
    if (loaded.errors.length > 0 || !isObject(test)) {
      io.stdout(`  ${p.red("error")}: ${loaded.errors.map(formatLoadError).join("; ") || "empty test file"}\n`);
      rows.push({ suite: file, policy: "", resource: "", expected: "", outcome: "fail", reason: "Test file error" });
      continue;
    }
    if (test.kind !== "Test" || typeof test.apiVersion !== "string") {
      io.stdout(`  ${p.red("error")}: not a kind: Test document with an apiVersion (a top-level 'name' is Kyverno's deprecated schema)\n`);
      rows.push({ suite: file, policy: "", resource: "", expected: "", outcome: "fail", reason: "Test file error" });
      continue;
    }
    const start = rows.length;
    runSuite({ file, dir: dirname(file), test }, rows, { ...(selector !== undefined ? { selector } : {}), warn: (line) => io.stderr(`${line}\n`) });
    if (args.values["lint"] === true) lintSuite({ file, dir: dirname(file), test }, rows);
    const mine = rows.slice(start).filter((r) => !failOnly || r.outcome === "fail");
    if (mine.length === 0) continue;
    const header = ["ID", "POLICY", "RULE", "RESOURCE", "RESULT", "REASON", ...(detailed ? ["MESSAGE"] : [])];
    const body = mine.map((r, i) => [
      String(i + 1),
      r.policy,
      "",
      r.resource,
      r.outcome === "pass" ? "Pass" : r.outcome === "fail" ? "Fail" : r.outcome === "skip" ? "Skip" : "Not run",
      r.reason,
      ...(detailed ? [r.message ?? ""] : []),
    ]);
    io.stdout(table(header, body));
    for (const r of rows.slice(start)) if (r.outcome === "fail" && !detailed && r.message !== undefined) io.stdout(`  ${p.red("fail")}: ${r.policy} ${r.resource}: ${r.reason}: ${r.message}\n`);
    io.stdout("\n");
  }
  const passed = rows.filter((r) => r.outcome === "pass").length;
  const failed = rows.filter((r) => r.outcome === "fail").length;
  const notRun = rows.filter((r) => r.outcome === "not-run").length;
  const skipped = rows.filter((r) => r.outcome === "skip").length;
  if (junit !== undefined) {
    try {
      writeFileSync(junit, junitReport(rows));
    } catch (e) {
      io.stderr(`celmap test: cannot write the JUnit report ${junit}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      return 1;
    }
  }
  // kyverno test's last line (skipped rows are not compared: counted neither way, said apart).
  const extra = [skipped > 0 ? `${skipped} not compared` : "", notRun > 0 ? `${notRun} results of other policy kinds not run` : ""].filter((x) => x !== "");
  const summary = failOnly ? `Test Summary: ${failed} out of ${passed + failed} tests failed` : `Test Summary: ${passed} tests passed and ${failed} tests failed`;
  io.stdout(`${summary}${extra.length > 0 ? ` (${extra.join(", ")})` : ""}\n`);
  return failed > 0 ? 1 : ExitCode.ok;
}
