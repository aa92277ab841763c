/**
 * Running MAP conformance case files (the format of `shared/conformance/map-cases.yaml`: transcribed
 * Kubernetes tests, and `map-oracle-cases.yaml`: what a real kube-apiserver v1.36.2 returned) through
 * celmap's `evaluate` (src/admission). Shipped, so `celmap conformance` runs them from the installed
 * package; `npm run conformance` (conformance/map/runner.ts) uses the same code on the case files in conformance/data.
 * One suite per file; each case is run by its shape:
 *
 * - `kind: expression`: the expression is compiled in the mutation environment and evaluated
 *   with no variables bound; `value` is compared as JSON (`Object` values as the apply
 *   configuration they convert to, `JSONPatch` values as the RFC 6902 operation), `compileError`
 *   as a substring of the compile error.
 * - `kind: match`: MatchResources evaluation only, on the TestMatcher resource set (deployments in
 *   extensions/v1beta1, apps/v1, apps/v1beta1, apps/v1alpha1).
 * - mutations, by `harness`:
 *   - `patcher`, `compile`: the policy's mutations applied once, in order, no defaulting, no
 *     reinvocation; no API validation (a stored expression that does not compile surfaces when it
 *     runs, as these tests do); request CREATE with an empty namespace unless the case gives one
 *     (a `namespaceObject` names it); a case's `params` is the param object;
 *   - `dispatcher`: one dispatcher pass with the fake defaulter of dispatcher_test.go
 *     (Deployment `spec.strategy.type` = RollingUpdate when empty);
 *   - `plugin`: one pass, no defaulting;
 *   - `apiserver`: policies and bindings go through API validation with the real CEL compiler
 *     (a rejection is `errorClass: policyCreation`), the request is a dry run, reinvocation is on.
 *     Defaulting and validation before storage as the engine does them (src/validation: built-in
 *     defaulting, CRD pruning and defaults; a 422 Invalid is compared with the case's error); what
 *     else a case needs from the server is in the ledger.
 *   Expected objects: `patcher`…`plugin` compare as Go's `equality.Semantic.DeepEqual` on the
 *   typed objects would (null, empty and zero-valued fields equal absent ones; apiVersion/kind
 *   ignored); `apiserver` compares exactly, minus the server-populated metadata fields
 *   (resourceVersion, uid, creationTimestamp, managedFields, generation, selfLink), apiVersion/kind
 *   and status.
 *   The oracle's requests are made as the admin user the cases record (system:masters), whose
 *   authorizer checks are allowed; other users get "no opinion".
 *   Expected errors: `error` is a substring of the 403 message (or one of its causes), of the
 *   500 message (`status500`), or of the policy's 422 (`policyCreation`).
 * Defaulted policy fields: a policy without matchConstraints.resourceRules matches every resource;
 * without reinvocationPolicy it is `Never`; a binding without a name is named after its policy.
 */
import type { EvaluateResult } from "../admission/pipeline.js";
import { deepEqual, isJsonObject, type JsonObject, type JsonValue } from "../admission/json.js";
import { ResourceCatalog, type GroupVersionKind, type GroupVersionResource } from "../admission/match/catalog.js";
import { matchResources } from "../admission/match/match.js";
import { newAdmissionRequest, type AdmissionRequest, type Operation, type RequestInput } from "../admission/request.js";
import { CelCompileError, toJson, type CelValue } from "../cel/index.js";
import { JSON_PATCH_LIST_TYPE, kubernetesEnv } from "../admission/environment.js";
import { jsonPatchOperations, JsonPatchValue } from "../cel/k8s/jsonpatch.js";
import { ObjectValue, applyConfigurationJson } from "../cel/k8s/object.js";
import type { Authorizer } from "../cel/k8s/authz.js";
import { loadFile } from "../io/load.js";
import { admit, errorText, load, type AdmitOptions, type AdmitRequest, type EngineDocument, type LoadOptions, type PolicySet } from "../engine/index.js";
import type { MatchResources } from "../policy/schemas/common.js";
import type { KnownFailure, Outcome, Suite, SuiteCase } from "./suite.js";

type Obj = JsonObject;

export interface MapCase {
  readonly name: string;
  readonly source_test?: string;
  readonly kind?: "mutation" | "expression" | "match";
  readonly harness?: string;
  readonly operation?: Operation;
  readonly object?: Obj;
  readonly oldObject?: Obj;
  readonly initialObject?: Obj;
  readonly namespaceObject?: Obj;
  readonly params?: Obj;
  readonly paramObjects?: Obj[];
  readonly crd?: Obj;
  readonly request?: Obj;
  readonly subresource?: string;
  readonly resource?: GroupVersionResource;
  readonly authorizer?: string;
  readonly policy?: Obj;
  readonly policies?: Obj[];
  readonly bindings?: Obj[];
  readonly expression?: string;
  readonly criteria?: MatchResources;
  readonly notes?: string;
  readonly expect: {
    readonly object?: Obj;
    readonly error?: string;
    readonly errorClass?: string;
    readonly value?: JsonValue;
    readonly compileError?: string;
    readonly matches?: boolean;
    readonly matchResource?: string;
    readonly matchKind?: string;
  };
}

/** Whether a parsed case file is in the MAP format (a mapping with a `cases` list). */
export function isMapCaseFile(doc: unknown): boolean {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return false;
  const cases = (doc as { cases?: unknown }).cases;
  return (
    Array.isArray(cases) &&
    cases.length > 0 &&
    cases.every((c) => typeof c === "object" && c !== null && typeof (c as { name?: unknown }).name === "string" && typeof (c as { expect?: unknown }).expect === "object")
  );
}

/** The cases of a MAP case file (integers exact, YAML 1.2). Throws with the file's problems. */
export function loadMapCases(path: string): MapCase[] {
  const r = loadFile(path, { numbers: "cel", yamlVersion: "1.2" });
  if (r.errors.length > 0) throw new Error(`${path}: ${r.errors.map((e) => e.message).join("; ")}`);
  const doc = r.documents[0]?.value as { cases?: MapCase[] } | undefined;
  return doc?.cases ?? [];
}

// ---------------------------------------------------------------------------------------------
// Comparison

const SERVER_METADATA = ["resourceVersion", "uid", "creationTimestamp", "managedFields", "generation", "selfLink"];

/** Go's Semantic.DeepEqual on typed objects: null, empty and zero values are absent. */
function semantic(v: JsonValue): JsonValue | undefined {
  if (v === null) return undefined;
  if (Array.isArray(v)) {
    const items = v.map((e) => semantic(e) ?? null);
    return items.length === 0 ? undefined : items;
  }
  if (isJsonObject(v)) {
    const out: Obj = {};
    for (const [k, e] of Object.entries(v)) {
      const s = semantic(e);
      if (s !== undefined) out[k] = s;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (v === "" || v === false || v === 0 || v === 0n) return undefined;
  return v;
}

function stripTop(o: Obj, server: boolean): Obj {
  const out: Obj = { ...o };
  delete out.apiVersion;
  delete out.kind;
  if (server) {
    delete out.status;
    if (isJsonObject(out.metadata)) {
      const md: Obj = { ...out.metadata };
      for (const k of SERVER_METADATA) delete md[k];
      out.metadata = md;
    }
  }
  return out;
}

function show(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? Number(x) : x));
}

function firstDifference(a: JsonValue | undefined, b: JsonValue | undefined, path = ""): string {
  if (a === undefined || b === undefined) return `${path || "<root>"}: got ${show(a)}, want ${show(b)}`;
  if (isJsonObject(a) && isJsonObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!deepEqual(a[k] ?? null, b[k] ?? null) || (k in a) !== (k in b)) return firstDifference(a[k], b[k], `${path}.${k}`);
    }
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i]!, b[i]!)) return firstDifference(a[i], b[i], `${path}[${i}]`);
  }
  return `${path || "<root>"}: got ${show(a)}, want ${show(b)}`;
}

function compareObject(got: Obj | null, want: Obj, exact: boolean): Outcome {
  if (got === null) return { ok: false, message: "no object" };
  const g = stripTop(got, exact);
  const w = stripTop(want, exact);
  const a = exact ? g : (semantic(g) ?? {});
  const b = exact ? w : (semantic(w) ?? {});
  if (deepEqual(a, b)) return { ok: true };
  return { ok: false, message: `object differs: ${firstDifference(a, b)}` };
}

function describeResult(r: EvaluateResult): string {
  if (r.allowed) return "admitted";
  return `denied ${r.status!.code} ${r.status!.reason}: ${r.status!.message}`;
}

// ---------------------------------------------------------------------------------------------
// Building the inputs

const MATCH_ALL_RULES = [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }];

function policyDocument(p: Obj, fallbackName: string): Obj {
  const { name, mutations, matchConstraints, reinvocationPolicy, ...rest } = p as Obj & { mutations?: Obj[] };
  const mc = isJsonObject(matchConstraints) ? { ...matchConstraints } : {};
  if (mc.resourceRules === undefined) mc.resourceRules = MATCH_ALL_RULES as unknown as JsonValue;
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name: typeof name === "string" ? name : fallbackName },
    spec: {
      ...rest,
      matchConstraints: mc,
      reinvocationPolicy: typeof reinvocationPolicy === "string" ? reinvocationPolicy : "Never",
      mutations: (mutations ?? []).map(
        (m): Obj =>
          m.patchType === "JSONPatch"
            ? { patchType: "JSONPatch", jsonPatch: { expression: m.expression as string } }
            : { patchType: m.patchType as string, applyConfiguration: { expression: m.expression as string } },
      ),
    },
  };
}

function bindingDocument(b: Obj, index: number): Obj {
  const { name, ...spec } = b;
  const policyName = String(spec.policyName ?? "");
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicyBinding",
    metadata: { name: typeof name === "string" ? name : `${policyName}-binding-${index}` },
    spec,
  };
}

/** The identity the oracle's requests were made with (the cases that record `request.userInfo` show it). */
const ORACLE_USER = { username: "admin", uid: "admin-uid", groups: ["system:masters", "system:authenticated"] };

const ALLOW_ALL: Authorizer = { authorize: () => ({ decision: "allow", reason: "" }) };

/**
 * The oracle cluster's authorization as far as the cases can tell: members of system:masters are
 * superusers (allowed by the privileged-group authorizer); anyone else gets RBAC's "no opinion"
 * (which the chain turns into a denial).
 */
const MASTERS_ONLY: Authorizer = {
  authorize: (a) => (a.user?.groups.includes("system:masters") === true ? { decision: "allow", reason: "" } : { decision: "noOpinion", reason: "" }),
};

/** dispatcher_test.go's defaulter: Deployment spec.strategy.type = RollingUpdate when empty. */
function fakeDeploymentDefaulter(o: Obj, kind: GroupVersionKind): Obj {
  if (kind.group !== "apps" || kind.kind !== "Deployment") return o;
  const spec = isJsonObject(o.spec) ? { ...o.spec } : {};
  const strategy = isJsonObject(spec.strategy) ? { ...spec.strategy } : {};
  if (strategy.type === undefined || strategy.type === "") strategy.type = "RollingUpdate";
  spec.strategy = strategy;
  return { ...o, spec };
}

function nsName(o: Obj | undefined): string | undefined {
  const md = o?.metadata;
  return isJsonObject(md) && typeof md.name === "string" ? md.name : undefined;
}

/** What a mutation case gives the engine: documents to `load`, how, and the request to `admit`. */
export interface MapCaseInputs {
  readonly documents: readonly EngineDocument[];
  readonly load: LoadOptions;
  /**
   * The request. `apiserver` cases are an object as a client sends it (the engine builds the
   * request, fills the namespace and defaults, as the apiserver does); the other harnesses replay
   * upstream unit tests that call the plugin with a request they built (`review`: used as it is).
   */
  readonly request: AdmitRequest;
  readonly admit: AdmitOptions;
  readonly server: boolean;
}

/** The engine inputs of a mutation case (`harness: ...`), or the harness error. */
export function mapCaseInputs(c: MapCase): MapCaseInputs | { readonly error: string } {
  const harness = c.harness ?? "compile";
  const server = harness === "apiserver";
  const documents: EngineDocument[] = [];
  const doc = (value: Obj, what: string): void => {
    documents.push({ value, source: { file: `case ${c.name} (${what})`, docIndex: documents.length } });
  };
  if (c.crd !== undefined) doc(c.crd, "crd");
  const rawPolicies = c.policies ?? (c.policy !== undefined ? [c.policy] : []);
  const fallbackName = (c.bindings?.[0]?.policyName as string | undefined) ?? "policy";
  const policyDocs = rawPolicies.map((p) => policyDocument(p, fallbackName));
  for (const p of policyDocs) doc(p, "policy");
  const paramObjects: Obj[] = [...(c.paramObjects ?? [])];
  if (c.bindings !== undefined) for (const b of c.bindings) doc(bindingDocument(b, documents.length), "binding");
  else {
    policyDocs.forEach((p, i) => {
      const name = String((p.metadata as Obj).name);
      const spec: Obj = { policyName: name };
      if (c.params !== undefined && i === 0) spec.paramRef = { name: "params", namespace: "default", parameterNotFoundAction: "Deny" };
      doc(bindingDocument({ name, ...spec }, i), "binding");
    });
    if (c.params !== undefined) {
      const md = isJsonObject(c.params.metadata) ? c.params.metadata : {};
      paramObjects.push({ ...c.params, metadata: { ...md, name: "params", namespace: "default" } });
    }
  }
  for (const o of paramObjects) doc(o, "param");
  if (c.namespaceObject !== undefined) doc(c.namespaceObject, "namespace");

  const reqOverrides = c.request ?? {};
  type User = { username?: string; uid?: string; groups?: string[] };
  const user: User | undefined = isJsonObject(reqOverrides.userInfo)
    ? (reqOverrides.userInfo as User)
    : c.source_test?.startsWith("oracle:") === true
      ? ORACLE_USER
      : undefined;
  const namespace = harness === "patcher" || harness === "compile" ? (nsName(c.namespaceObject) ?? "") : undefined;
  const input: RequestInput = {
    operation: c.operation ?? "CREATE",
    object: c.object ?? null,
    oldObject: c.oldObject ?? c.initialObject ?? null,
    ...(isJsonObject(reqOverrides.kind) ? { kind: reqOverrides.kind as unknown as GroupVersionKind } : {}),
    ...(c.resource !== undefined ? { resource: c.resource } : isJsonObject(reqOverrides.resource) ? { resource: reqOverrides.resource as unknown as GroupVersionResource } : {}),
    ...(c.subresource !== undefined ? { subResource: c.subresource } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(user !== undefined ? { userInfo: user } : {}),
    dryRun: server || reqOverrides.dryRun === true,
  };
  let request: AdmitRequest;
  if (server) request = input;
  else {
    // The catalog the request is built with: the built-ins plus the case's CRD.
    const catalog = ResourceCatalog.builtin();
    if (c.crd !== undefined) {
      const err = catalog.addCustomResourceDefinition(c.crd as never);
      if (err !== undefined) return { error: `harness: ${err}` };
    }
    const built = newAdmissionRequest(input, catalog);
    if (!built.ok) return { error: `harness: ${built.error}` };
    request = { review: built.request };
  }
  return {
    documents,
    // Replayed unit tests store policies without API validation; the apiserver validates them.
    load: { replay: !server },
    request,
    admit: {
      reinvocation: server,
      ...(c.authorizer === "allow-all" ? { authorizer: ALLOW_ALL } : server ? { authorizer: MASTERS_ONLY } : {}),
      // A real apiserver defaults built-ins and custom resources (the engine's defaulter, src/validation)
      // and validates the admitted object before storing it; the dispatcher test has its fake
      // defaulter; the other unit tests neither.
      ...(server ? { validate: true } : harness === "dispatcher" ? { defaulter: fakeDeploymentDefaulter } : { defaulting: false }),
    },
    server,
  };
}

/** Loads a case's policy set: the set, or the outcome when loading decides the case (a policy rejected). */
export function loadMapCase(c: MapCase, inputs: MapCaseInputs): { readonly policySet: PolicySet } | { readonly outcome: Outcome } {
  const r = load(inputs.documents, inputs.load);
  const failures = r.errors.filter((e) => e.apiserverMessage !== undefined || e.kind === "internal");
  const other = r.errors.find((e) => e.apiserverMessage === undefined);
  if (other !== undefined) return { outcome: { ok: false, message: `harness: ${errorText(other)}` } };
  const policyFailure = failures.find((e) => e.source?.file.endsWith("(policy)") === true);
  if (policyFailure !== undefined) {
    const message = policyFailure.apiserverMessage!;
    if (c.expect.errorClass === "policyCreation" && c.expect.error !== undefined) {
      return { outcome: message.includes(c.expect.error) ? { ok: true, note: message } : { ok: false, message: `policy rejected with ${message}; want ${c.expect.error}` } };
    }
    return { outcome: { ok: false, message: `policy rejected: ${message}` } };
  }
  if (c.expect.errorClass === "policyCreation") return { outcome: { ok: false, message: `policy accepted; want rejection with ${c.expect.error}` } };
  if (failures.length > 0) return { outcome: { ok: false, message: `binding rejected: ${failures[0]!.apiserverMessage!}` } };
  return { policySet: r.policySet };
}

function runMutationCase(c: MapCase): Outcome {
  const inputs = mapCaseInputs(c);
  if ("error" in inputs) return { ok: false, message: inputs.error };
  const loaded = loadMapCase(c, inputs);
  if ("outcome" in loaded) return loaded.outcome;
  const a = admit(loaded.policySet, inputs.request, inputs.admit);
  if (!a.ok) return { ok: false, message: `harness: ${a.error.message}` };
  if (a.stage === "validation" && a.validation !== undefined && !a.validation.ok) return checkValidationRejection(c, a.validation.status);
  return checkMapResult(c, a.result, inputs.server);
}

/** An `apiserver` case whose admitted object the apiserver's validation rejects (422 Invalid, before storage). */
function checkValidationRejection(c: MapCase, status: { readonly code: number; readonly message: string; readonly details: { readonly causes: readonly { readonly message: string }[] } }): Outcome {
  const e = c.expect;
  const got = `admitted, then rejected by validation: ${status.code} ${status.message}`;
  if (e.error === undefined) return { ok: false, message: `${got}; want an object` };
  if (e.errorClass !== undefined && e.errorClass !== "status422") return { ok: false, message: `${got}; want ${e.errorClass}: ${e.error}` };
  const texts = [status.message, ...status.details.causes.map((x) => x.message)];
  if (!texts.some((t) => t.includes(e.error!))) return { ok: false, message: `${got}; want message containing ${e.error}` };
  return { ok: true };
}

/** Whether an admission result is what the case expects. */
export function checkMapResult(c: MapCase, result: EvaluateResult, server: boolean): Outcome {
  const e = c.expect;
  if (e.error !== undefined) {
    if (result.allowed) return { ok: false, message: `admitted; want error ${e.error}` };
    const status = result.status!;
    const texts = [status.message, ...(status.causes ?? []).map((x) => x.message)];
    const wantCode = e.errorClass === "status500" ? 500 : e.errorClass === "status422" ? 422 : e.errorClass === "policy" ? 403 : undefined;
    if (wantCode !== undefined && status.code !== wantCode) return { ok: false, message: `${describeResult(result)}; want ${e.errorClass}: ${e.error}` };
    if (!texts.some((t) => t.includes(e.error!))) return { ok: false, message: `${describeResult(result)}; want message containing ${e.error}` };
    return { ok: true };
  }
  if (e.object !== undefined) {
    if (!result.allowed) return { ok: false, message: `${describeResult(result)}; want an object` };
    return compareObject(result.object, e.object, server);
  }
  return { ok: false, message: "harness: case expects neither object nor error" };
}

// ---------------------------------------------------------------------------------------------
// kind: expression

function expressionValue(v: CelValue): JsonValue {
  if (v instanceof ObjectValue) return applyConfigurationJson(v) as JsonValue;
  if (v instanceof JsonPatchValue) return jsonPatchOperations([v])[0] as unknown as JsonValue;
  return toJson(v) as JsonValue;
}

function runExpressionCase(c: MapCase): Outcome {
  const env = kubernetesEnv({ kind: "mutation" });
  let program;
  try {
    program = env.program(env.compile(c.expression ?? ""));
  } catch (e) {
    if (!(e instanceof CelCompileError)) throw e;
    if (c.expect.compileError !== undefined && e.message.includes(c.expect.compileError)) return { ok: true };
    return { ok: false, message: `compile error: ${e.message}` };
  }
  if (c.expect.compileError !== undefined) return { ok: false, message: `compiled; want compile error ${c.expect.compileError}` };
  const got = expressionValue(program.eval({}));
  const want = c.expect.value ?? null;
  return deepEqual(got, want) ? { ok: true } : { ok: false, message: `got ${show(got)}, want ${show(want)}` };
}
void JSON_PATCH_LIST_TYPE;

// ---------------------------------------------------------------------------------------------
// kind: match

function splitGV(gv: string): [string, string] {
  const i = gv.indexOf("/");
  return i < 0 ? ["", gv] : [gv.slice(0, i), gv.slice(i + 1)];
}
function gvkOf(s: string): GroupVersionKind {
  const [gv, kind] = s.split(" ") as [string, string];
  const [group, version] = splitGV(gv);
  return { group, version, kind };
}
function gvrOf(s: string): GroupVersionResource {
  const [gv, resource] = s.split(" ") as [string, string];
  const [group, version] = splitGV(gv);
  return { group, version, resource };
}

/** The fake REST mapper of matching_test.go. */
function testMatcherCatalog(): ResourceCatalog {
  const cat = ResourceCatalog.empty();
  for (const [gv, scale] of [
    ["extensions/v1beta1", "extensions/v1beta1 Scale"],
    ["apps/v1", "autoscaling/v1 Scale"],
    ["apps/v1beta1", "apps/v1beta1 Scale"],
    ["apps/v1alpha1", "apps/v1alpha1 Scale"],
  ] as const) {
    const [group, version] = splitGV(gv);
    cat.add({
      gvr: { group, version, resource: "deployments" },
      kind: { group, version, kind: "Deployment" },
      scope: "Namespaced",
      subresources: new Map([["scale", gvkOf(scale)]]),
      equivalenceKey: "/deployments",
      builtin: true,
      served: true,
    });
  }
  return cat;
}

function runMatchCase(c: MapCase): Outcome {
  const r = c.request as { kind: string; resource: string; name?: string; operation: Operation; subResource?: string };
  const kind = gvkOf(r.kind);
  const resource = gvrOf(r.resource);
  const req: AdmissionRequest = {
    uid: "",
    kind,
    resource,
    subResource: r.subResource ?? "",
    requestKind: kind,
    requestResource: resource,
    requestSubResource: r.subResource ?? "",
    name: r.name ?? "name",
    namespace: "ns",
    operation: r.operation,
    userInfo: { username: "", uid: "", groups: [], extra: {} },
    object: null,
    oldObject: null,
    dryRun: false,
    options: null,
  };
  const m = matchResources(req, c.criteria!, { catalog: testMatcherCatalog() });
  if (m.error !== undefined) return { ok: false, message: `match error: ${m.error.message}` };
  if (m.matches !== c.expect.matches) return { ok: false, message: `matches ${m.matches}: ${m.reason}` };
  if (c.expect.matchKind !== undefined && !deepEqual(m.matchedKind as never, gvkOf(c.expect.matchKind) as never)) {
    return { ok: false, message: `matched kind ${show(m.matchedKind)}` };
  }
  if (c.expect.matchResource !== undefined && !deepEqual(m.matchedResource as never, gvrOf(c.expect.matchResource) as never)) {
    return { ok: false, message: `matched resource ${show(m.matchedResource)}` };
  }
  return { ok: true };
}

// ---------------------------------------------------------------------------------------------
// Suites

function runMapCase(c: MapCase): Outcome {
  switch (c.kind ?? "mutation") {
    case "expression":
      return runExpressionCase(c);
    case "match":
      return runMatchCase(c);
    default:
      return runMutationCase(c);
  }
}

/**
 * A suite over one MAP case file (`path`), with its ledger. Paths are `<section>/<case name>`,
 * sections the case kind (`expression`, `match`) or harness.
 */
export function mapCaseFileSuite(name: string, path: string, ledger: readonly KnownFailure[], requiredPassRate?: number): Suite {
  let cached: MapCase[] | undefined;
  return {
    name,
    ledger,
    ...(requiredPassRate !== undefined ? { requiredPassRate } : {}),
    *cases(): Iterable<SuiteCase> {
      cached ??= loadMapCases(path);
      for (const c of cached) {
        const section = c.kind === "expression" || c.kind === "match" ? c.kind : (c.harness ?? "compile");
        yield { path: `${section}/${c.name}`, section, run: () => runMapCase(c) };
      }
    },
  };
}

