/**
 * A small offline runner for Kyverno's chainsaw tests of mutating policies (kyverno v1.19.0
 * `test/conformance/chainsaw/...`, kyverno.md §6.2 classes A and B): it reads a case's
 * `chainsaw-test.yaml` and plays its steps against an in-memory cluster whose admission chain
 * is celmap's admission pipeline (`evaluate`) with Kyverno's webhook as its stage after the MAP plugin
 * (`kyvernoWebhookStage`: MutatingPolicies with pod-controller autogen and PolicyExceptions).
 *
 * What a step does here, as chainsaw does it against a cluster with Kyverno installed:
 * - `create` / `apply` (a file or an inline `resource`), and the step template `create-policy.yaml`
 *   (`apply` of its `file` binding): every document is created (`apply` of an existing object is
 *   an UPDATE with the stored object as oldObject). MutatingPolicy / NamespacedMutatingPolicy and
 *   PolicyException documents are validated and become part of the admission chain;
 *   `GlobalContextEntry` documents make their mocked data visible to `globalContext.Get`; every
 *   other object of a known kind goes through admission — namespace filled (a namespaced object
 *   without one is created in the test's ephemeral namespace, as chainsaw does), defaulted as the
 *   apiserver decodes it, then the Kyverno webhook (the policies in creation order, each seeing the
 *   previous one's output) — and is stored as admitted; a denial fails the operation.
 * - `assert` (file or inline): chainsaw's partial assertion ({@link assertSubset}) of every
 *   document against the stored object of the same apiVersion, kind, namespace and name.
 * - `error`: passes when no stored object matches the document.
 * - the step templates `*-ready.yaml`: the named policy was accepted (a rejected policy fails).
 * - `sleep`: nothing (admission is synchronous here).
 * - `script`: not run; the caller may supply an equivalent check (`scripts`).
 * - an `assert` that expects `status` on an object: not modelled (kubelet and controllers write
 *   status, admission does not); reported as such, neither passed nor failed.
 *
 * The cluster's resources (everything created by earlier steps) answer `resource.Get/List`;
 * `http.Get/Post`, `globalContext.Get` and `image.GetMetadata` are answered from a mock file.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { type KyvernoOutcome, decodeMutatingPolicy, decodePolicyException, isKyvernoMutatingPolicy, isKyvernoPolicyException, type MutatingPolicy, type PolicyException } from "../../src/kyverno/index.js";
import { gvkOfObject, type JsonObject } from "../../src/admission/index.js";
import {
  liveHttpResult,
  OfflineGlobalContextProvider,
  OfflineHttpProvider,
  OfflineImageDataProvider,
  OfflineResourceProvider,
  type KyvernoProviders,
} from "../../src/kyverno/index.js";
import { admit, load, type PolicySet } from "../../src/engine/index.js";
import { formatLoadError, loadPaths } from "../../src/io/load.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

// ---------------------------------------------------------------------------
// Chainsaw's partial assertion

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function scalarEqual(want: unknown, got: unknown): boolean {
  if ((typeof want === "number" || typeof want === "bigint") && (typeof got === "number" || typeof got === "bigint")) return Number(want) === Number(got);
  return want === got;
}

/** `(field[?key == 'value'])` and `(field[?key=='value'])`: the JMESPath filter projections the cases use. */
const FILTER = /^\(\s*([A-Za-z_][\w]*)\s*\[\?\s*([A-Za-z_][\w.]*)\s*==\s*'([^']*)'\s*\]\s*\)$/;

function getPath(o: unknown, path: string): unknown {
  let cur = o;
  for (const p of path.split(".")) cur = isMap(cur) ? cur[p] : undefined;
  return cur;
}

/**
 * Chainsaw's (kyverno-json) assertion of `expected` against `actual`: a map asserts each of its
 * keys (extra keys in `actual` are fine); a list asserts the same length and each element in
 * order; a scalar asserts equality (numbers by value). A key written `(expr)` is a JMESPath
 * expression evaluated on `actual`, whose result is asserted against the value; the filter
 * projection `(list[?field == 'v'])` is supported, which is what the cases use. Returns the
 * mismatches, one line each; empty when it holds.
 */
export function assertSubset(expected: unknown, actual: unknown, path = ""): string[] {
  if (isMap(expected)) {
    if (!isMap(actual)) return [`${path || "/"}: expected a map, got ${show(actual)}`];
    return Object.entries(expected).flatMap(([k, v]) => {
      if (k.startsWith("(")) {
        const m = FILTER.exec(k);
        if (m === null) return [`${path}/${k}: unsupported JMESPath expression in the assertion`];
        const list = actual[m[1]!];
        const projected = Array.isArray(list) ? list.filter((x) => getPath(x, m[2]!) === m[3]) : null;
        return assertSubset(v, projected, `${path}/${k}`);
      }
      if (!(k in actual)) return [`${path}/${k}: missing (expected ${show(v)})`];
      return assertSubset(v, actual[k], `${path}/${k}`);
    });
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path || "/"}: expected a list, got ${show(actual)}`];
    if (actual.length !== expected.length) return [`${path || "/"}: expected ${expected.length} items, got ${actual.length}: ${show(actual)}`];
    return expected.flatMap((e, i) => assertSubset(e, actual[i], `${path}/${i}`));
  }
  return scalarEqual(expected, actual) ? [] : [`${path || "/"}: expected ${show(expected)}, got ${show(actual)}`];
}

function show(v: unknown): string {
  const s = JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? Number(x) : x));
  return s === undefined ? "nothing" : s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

// ---------------------------------------------------------------------------
// Mocks

/**
 * What a class-B case needs from outside the cluster (`conformance/kyverno/chainsaw-mocks/*.yaml`):
 * - `http`: `{method?, url, statusCode?, body}`; `http.Get/Post` return the live library's value
 *   (an object body with `statusCode` added);
 * - `globalContextEntries`: `{name, data?, projections?}`, the cached data of a GlobalContextEntry,
 *   visible once the case creates an entry of that name;
 * - `images`: image descriptors for `image.GetMetadata` (`image` is the exact reference).
 */
export interface ChainsawMocks {
  readonly http?: readonly { method?: "GET" | "POST"; url: string; statusCode?: number; body: Json }[];
  readonly globalContextEntries?: readonly { name: string; data?: Json; projections?: Record<string, Json> }[];
  readonly images?: readonly Json[];
}

export function loadMocks(file: string): ChainsawMocks {
  return (parseYaml(readFileSync(file, "utf8")) ?? {}) as ChainsawMocks;
}

// ---------------------------------------------------------------------------
// The runner

export type OpStatus = "passed" | "failed" | "not-modelled";

export interface OpReport {
  readonly step: string;
  readonly op: string;
  readonly status: OpStatus;
  readonly detail?: string;
}

export interface CaseReport {
  readonly ops: readonly OpReport[];
  /** Every admission of an object: which policy did what (pass 1; outcomes without their objects). */
  readonly admissions: readonly { object: string; outcomes: readonly Omit<KyvernoOutcome, "object">[] }[];
  readonly passed: boolean;
  /** The cluster after the last step. */
  readonly cluster: Cluster;
}

export interface RunOptions {
  readonly mocks?: ChainsawMocks;
  /** The requesting user (default: kind's `kubernetes-admin` in `kubeadm:cluster-admins`). */
  readonly user?: { username: string; groups: string[] };
  /** Checks standing in for `script` operations, by step name (or `#<index>`): mismatches, empty when it holds. */
  readonly scripts?: Record<string, (cluster: Cluster) => string[]>;
  /** The ephemeral namespace chainsaw creates for the test (default `chainsaw-ephemeral`). */
  readonly namespace?: string;
}

export const KIND_ADMIN = { username: "kubernetes-admin", groups: ["kubeadm:cluster-admins", "system:authenticated"] };

export class Cluster {
  private readonly objects = new Map<string, JsonObject>();
  static key(apiVersion: string, kind: string, namespace: string, name: string): string {
    return `${apiVersion}|${kind}|${namespace}|${name}`;
  }
  get(apiVersion: string, kind: string, namespace: string, name: string): JsonObject | undefined {
    return this.objects.get(Cluster.key(apiVersion, kind, namespace, name));
  }
  put(o: JsonObject): void {
    this.objects.set(Cluster.key(String(o.apiVersion), String(o.kind), meta(o, "namespace"), meta(o, "name")), o);
  }
  list(apiVersion: string, kind: string): JsonObject[] {
    return [...this.objects.values()].filter((o) => o.apiVersion === apiVersion && o.kind === kind);
  }
}

function meta(o: JsonObject, f: string): string {
  const md = isMap(o.metadata) ? o.metadata : {};
  return typeof md[f] === "string" ? (md[f] as string) : "";
}

function withNamespace(o: JsonObject, ns: string): JsonObject {
  const md = isMap(o.metadata) ? o.metadata : {};
  return { ...o, metadata: { ...md, namespace: ns } } as JsonObject;
}

const TEMPLATE_CREATE = /(^|\/)create-policy\.yaml$/;
const TEMPLATE_READY = /(^|\/)(namespaced-)?mutating-policy(-v1)?-ready\.yaml$/;

/** Plays one chainsaw case directory. */
export function runChainsawCase(dir: string, options: RunOptions = {}): CaseReport {
  const test = parseYaml(readFileSync(join(dir, "chainsaw-test.yaml"), "utf8")) as Json;
  const ephemeral = options.namespace ?? "chainsaw-ephemeral";
  const user = options.user ?? KIND_ADMIN;
  const session = load([]).policySet;
  const cluster = new Cluster();
  const ops: OpReport[] = [];
  const admissions: { object: string; outcomes: readonly Omit<KyvernoOutcome, "object">[] }[] = [];
  const policies: MutatingPolicy[] = [];
  const exceptions: PolicyException[] = [];

  const resources = new OfflineResourceProvider({ hint: "not in the test's cluster" });
  const gctx = new OfflineGlobalContextProvider();
  const providers: KyvernoProviders = {
    resource: resources,
    http: new OfflineHttpProvider({
      mocks: (options.mocks?.http ?? []).map((m) => ({ ...(m.method !== undefined ? { method: m.method } : {}), url: m.url, response: liveHttpResult(m.body, m.statusCode ?? 200) })),
      hint: "no HTTP mock for the chainsaw case",
    }),
    globalContext: gctx,
    imageData: new OfflineImageDataProvider({ images: (options.mocks?.images ?? []) as never, hint: "no image mock for the chainsaw case" }),
  };
  const store = (o: JsonObject): void => {
    cluster.put(o);
    resources.addObject(o as never);
  };
  store({ apiVersion: "v1", kind: "Namespace", metadata: { name: ephemeral, labels: { "kubernetes.io/metadata.name": ephemeral } }, status: { phase: "Active" } });
  const docsOf = (op: Json): { docs: JsonObject[]; label: string; error?: string } => {
    if (isMap(op.resource)) return { docs: [op.resource as JsonObject], label: `${String(op.resource.kind)} ${String((op.resource.metadata as Json)?.name)}` };
    const file = resolve(dir, String(op.file));
    const r = loadPaths([file], { numbers: "cel" });
    const docs = r.documents.map((d) => d.value).filter(isMap) as JsonObject[];
    return { docs, label: String(op.file), ...(r.errors.length > 0 ? { error: r.errors.map(formatLoadError).join("; ") } : {}) };
  };

  /** The namespace an object lives in: its own, or the ephemeral one for namespaced kinds. */
  const placed = (o: JsonObject): JsonObject => {
    if (meta(o, "namespace") !== "") return o;
    if (o.kind === "PolicyException" || o.kind === "NamespacedMutatingPolicy") return withNamespace(o, ephemeral);
    const gvk = gvkOfObject(o);
    if ("error" in gvk) return o;
    const r = session.catalog.resourceForKind(gvk);
    return r !== undefined && r.scope === "Namespaced" ? withNamespace(o, ephemeral) : o;
  };

  const create = (o0: JsonObject, apply: boolean): string | undefined => {
    const o = placed(o0);
    if (isKyvernoMutatingPolicy(o)) {
      const r = decodeMutatingPolicy(o);
      if (!r.ok) return `${String(o.kind)} ${meta(o, "name")} rejected: ${r.errors.join("; ")}`;
      const i = policies.findIndex((p) => p.kind === r.value.kind && p.metadata.name === r.value.metadata.name && p.metadata.namespace === r.value.metadata.namespace);
      if (i >= 0) policies[i] = r.value;
      else policies.push(r.value);
      store(o);
      return undefined;
    }
    if (isKyvernoPolicyException(o)) {
      const r = decodePolicyException(o);
      if (!r.ok) return `PolicyException ${meta(o, "name")} rejected: ${r.errors.join("; ")}`;
      exceptions.push(r.value);
      store(o);
      return undefined;
    }
    if (o.kind === "GlobalContextEntry") {
      const mock = options.mocks?.globalContextEntries?.find((e) => e.name === meta(o, "name"));
      if (mock !== undefined) gctx.setEntry({ name: mock.name, data: mock.data ?? null, ...(mock.projections !== undefined ? { projections: mock.projections } : {}) });
      store(o);
      return undefined;
    }
    const gvk = gvkOfObject(o);
    if ("error" in gvk || session.catalog.resourceForKind(gvk) === undefined) {
      store(o);
      return undefined;
    }
    const old = cluster.get(String(o.apiVersion), String(o.kind), meta(o, "namespace"), meta(o, "name"));
    if (old !== undefined && !apply) return `${String(o.kind)} ${meta(o, "name")} already exists`;
    // The apiserver's admission chain through the engine (no MAPs here: Kyverno's webhook after the
    // MAP plugin), against the test cluster's policies, exceptions and namespaces as they stand now.
    const now: PolicySet = {
      ...session,
      namespaces: new Map(cluster.list("v1", "Namespace").map((n) => [meta(n, "name"), n])),
      kyverno: { ...session.kyverno, policies: [...policies], exceptions: [...exceptions] },
    };
    const a = admit(now, { operation: old !== undefined ? "UPDATE" : "CREATE", object: o, oldObject: old ?? null, userInfo: { username: user.username, groups: user.groups } }, { kyvernoProviders: providers });
    if (!a.ok) return a.error.message;
    const run = a.result;
    const input = a.input!;
    const outcomes = (run.trace.passes[0]?.webhooks?.[0]?.data ?? []) as Omit<KyvernoOutcome, "object">[];
    admissions.push({ object: `${String(o.kind)} ${meta(o, "namespace")}/${meta(o, "name")}`, outcomes });
    if (!run.allowed) return run.status?.message ?? "denied";
    store(run.object ?? input);
    return undefined;
  };

  const find = (want: JsonObject): JsonObject[] => {
    const w = placed(want);
    if (meta(w, "name") !== "") {
      const o = cluster.get(String(w.apiVersion), String(w.kind), meta(w, "namespace"), meta(w, "name"));
      return o === undefined ? [] : [o];
    }
    return cluster.list(String(w.apiVersion), String(w.kind)).filter((o) => meta(w, "namespace") === "" || meta(o, "namespace") === meta(w, "namespace"));
  };

  const steps: Json[] = Array.isArray(test?.spec?.steps) ? test.spec.steps : [];
  steps.forEach((step: Json, si: number) => {
    const stepName = typeof step.name === "string" ? step.name : `#${si}`;
    const report = (op: string, status: OpStatus, detail?: string): void => {
      ops.push({ step: stepName, op, status, ...(detail !== undefined ? { detail } : {}) });
    };
    if (isMap(step.use)) {
      const template = String(step.use.template);
      const bindings = new Map<string, string>(((step.use.with as Json)?.bindings ?? []).map((b: Json) => [String(b.name), String(b.value)]));
      if (TEMPLATE_CREATE.test(template)) {
        const { docs, label, error } = docsOf({ file: bindings.get("file") });
        const problems = error !== undefined ? [error] : docs.flatMap((d) => create(d, true) ?? []);
        report(`apply ${label}`, problems.length === 0 ? "passed" : "failed", problems.join("; ") || undefined);
      } else if (TEMPLATE_READY.test(template)) {
        const name = bindings.get("name") ?? "";
        const ok = policies.some((p) => p.metadata.name === name && (bindings.get("namespace") === undefined || p.metadata.namespace === bindings.get("namespace")));
        report(`policy ${name} ready`, ok ? "passed" : "failed", ok ? undefined : "the policy was not accepted");
      } else {
        report(`template ${template}`, "failed", "unknown step template");
      }
      return;
    }
    for (const op of Array.isArray(step.try) ? (step.try as Json[]) : []) {
      const kind = Object.keys(op).find((k) => ["apply", "create", "assert", "error", "sleep", "script", "delete", "patch", "update", "command", "wait"].includes(k)) ?? "?";
      const body = op[kind] as Json;
      if (kind === "sleep") continue;
      if (kind === "apply" || kind === "create") {
        const { docs, label, error } = docsOf(body);
        const problems = error !== undefined ? [error] : docs.flatMap((d) => create(d, kind === "apply") ?? []);
        report(`${kind} ${label}`, problems.length === 0 ? "passed" : "failed", problems.join("; ") || undefined);
      } else if (kind === "assert" || kind === "error") {
        const { docs, label, error } = docsOf(body);
        if (error !== undefined) {
          report(`${kind} ${label}`, "failed", error);
          continue;
        }
        if (kind === "assert" && docs.some((d) => "status" in d)) {
          report(`${kind} ${label}`, "not-modelled", "asserts status, which kubelet and controllers write, not admission");
          continue;
        }
        const problems: string[] = [];
        for (const d of docs) {
          const found = find(d);
          const id = `${String(d.kind)} ${meta(placed(d), "namespace")}/${meta(d, "name")}`;
          const mismatches = found.map((o) => assertSubset(d, o));
          const holds = mismatches.some((m) => m.length === 0);
          if (kind === "assert" && !holds) problems.push(found.length === 0 ? `${id}: not found` : `${id}: ${mismatches[0]!.join("; ")}`);
          if (kind === "error" && holds) problems.push(`${id}: matches, but the step expects it not to`);
        }
        report(`${kind} ${label}`, problems.length === 0 ? "passed" : "failed", problems.join("; ") || undefined);
      } else if (kind === "script") {
        const check = options.scripts?.[stepName];
        if (check === undefined) {
          report("script", "not-modelled", "a shell script (not run)");
          continue;
        }
        const problems = check(cluster);
        report("script (equivalent check)", problems.length === 0 ? "passed" : "failed", problems.join("; ") || undefined);
      } else {
        report(kind, "failed", `operation '${kind}' is not supported by the offline runner`);
      }
    }
  });
  return { ops, admissions, passed: ops.every((o) => o.status !== "failed"), cluster };
}
