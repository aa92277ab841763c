/**
 * Runs the generated validation cases (validation-cases.ts) through a real kube-apiserver and
 * records its answers; turns each into a MAP conformance case (the `apiserver` harness of
 * src/conformance/map.ts) that celmap replays without Go. Used by `npm run test:e2e`
 * (test/e2e/apiserver-validation.test.ts, which compares celmap with the answers) and by
 * `npm run gen:validation-cases` (writes conformance/cases/map/apiserver-validation.yaml).
 *
 * Per batch (one per kind) ONE MutatingAdmissionPolicy holds every case's mutation (each acting only
 * on the object carrying its marker label) plus a probe mutation, bound by an objectSelector on the
 * marker label; the batch is active once its probe object, dry-run created, carries the probe's
 * annotation. Then:
 *   - CREATE: the case's object is dry-run created in namespace `apival`;
 *   - UPDATE: the old object (no marker: no policy acts) is created for real in a namespace of its
 *     own, read back, and the stored object plus the marker is dry-run replaced.
 * The answer kept: HTTP status; for an error the Status's reason, message and causes; for a success
 * the returned object. Policies, bindings and the stored old objects are deleted afterwards; the
 * CRDs stay (other suites do not use their group).
 */
import { batchesOf, batchOf, MARKER, probeMutation, type ApivalBatch, type ApivalCase, type ApivalMutation, type Obj } from "./validation-cases.js";
import { collectionPath, message, objectPath, waitFor, type Kube, type KubeResponse } from "./kube.js";

export const NAMESPACE = "apival";

export interface StatusCause {
  readonly reason: string;
  readonly message: string;
  readonly field: string;
}

export interface ApiAnswer {
  readonly code: number;
  readonly reason?: string;
  readonly message?: string;
  readonly causes?: StatusCause[];
  readonly object?: Obj;
  readonly warnings: string[];
}

export interface ApivalResult {
  readonly c: ApivalCase;
  /** The request body sent. */
  readonly object: Obj;
  /** UPDATE: the stored old object (as read back, minus managedFields). */
  readonly oldObject?: Obj;
  /** The namespace object of a namespaced request, as the apiserver stores it. */
  readonly namespaceObject?: Obj;
  readonly answer: ApiAnswer;
}

export const policyName = (batch: string): string => `apival-${batch.toLowerCase()}`;

export const USER = { username: "admin", uid: "admin-uid", groups: ["system:masters", "system:authenticated"] };

/** The binding of a batch: objects that carry one of its markers. */
export function bindingSpec(batch: ApivalBatch): Obj {
  return { policyName: policyName(batch.name), matchResources: { objectSelector: batch.selector } };
}

export function policySpec(batch: ApivalBatch, mutations: readonly ApivalMutation[]): Obj {
  return {
    matchConstraints: batch.matchConstraints,
    failurePolicy: "Fail",
    reinvocationPolicy: "Never",
    mutations: mutations.map((m) =>
      m.patchType === "JSONPatch" ? { patchType: "JSONPatch", jsonPatch: { expression: m.expression } } : { patchType: "ApplyConfiguration", applyConfiguration: { expression: m.expression } },
    ),
  };
}

const CLUSTER_SCOPED = new Set(["Namespace"]);

function answerOf(r: KubeResponse): ApiAnswer {
  if (r.status < 300) return { code: r.status, object: r.body, warnings: r.warnings };
  const details = (r.body.details ?? {}) as Obj;
  const causes = ((details.causes ?? []) as Obj[]).map((c) => ({ reason: String(c.reason ?? ""), message: String(c.message ?? ""), field: String(c.field ?? "") }));
  return { code: r.status, reason: String(r.body.reason ?? ""), message: message(r), causes, warnings: r.warnings };
}

async function pool<T, R>(items: readonly T[], n: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (i < items.length) {
        const j = i++;
        out[j] = await f(items[j]!);
      }
    }),
  );
  return out;
}

const withNs = (o: Obj, ns: string | undefined): Obj => (ns === undefined ? o : { ...o, metadata: { ...(o.metadata as Obj), namespace: ns } });

function updateNamespace(c: ApivalCase): string | undefined {
  return CLUSTER_SCOPED.has(String(c.object.kind)) ? undefined : `apival-${c.marker}`;
}

/** Runs the cases; returns one result per case, in order. */
export async function runApival(k: Kube, cases: readonly ApivalCase[], log: (line: string) => void = () => {}): Promise<ApivalResult[]> {
  const batches = batchesOf(cases);
  // CRDs, established.
  const crds = new Map<string, Obj>();
  for (const b of batches) if (b.crd) crds.set(String((b.crd.metadata as Obj).name), b.crd);
  for (const c of cases) if (c.crd) crds.set(String((c.crd.metadata as Obj).name), c.crd);
  for (const crd of crds.values()) {
    await k.apply(crd);
    const spec = crd.spec as Obj;
    const names = spec.names as Obj;
    for (const v of spec.versions as Obj[]) {
      const path = `/apis/${String(spec.group)}/${String(v.name)}/namespaces/${NAMESPACE}/${String(names.plural)}`;
      await waitFor(`CRD ${String((crd.metadata as Obj).name)} ${String(v.name)} served`, async () => (await k.request("GET", path)).status === 200, 60_000);
    }
  }
  await k.namespace(NAMESPACE);
  const nsObjects = new Map<string, Obj>();
  const nsObject = async (ns: string): Promise<Obj> => {
    if (!nsObjects.has(ns)) nsObjects.set(ns, (await k.request("GET", `/api/v1/namespaces/${ns}`)).body);
    return nsObjects.get(ns)!;
  };
  for (const c of cases) {
    const ns = c.operation === "UPDATE" ? updateNamespace(c) : undefined;
    if (ns !== undefined) await k.namespace(ns);
  }
  // One policy and binding per batch, then the probes.
  const created: Obj[] = [];
  try {
    for (const b of batches) {
      const mine = cases.filter((c) => c.batch === b.name).map((c) => c.mutation);
      const policy = { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingAdmissionPolicy", metadata: { name: policyName(b.name) }, spec: policySpec(b, [...mine, probeMutation(b.name)]) };
      const binding = { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingAdmissionPolicyBinding", metadata: { name: policyName(b.name) }, spec: bindingSpec(b) };
      await k.apply(policy);
      created.push(policy);
      await k.apply(binding);
      created.push(binding);
    }
    for (const b of batches) {
      const probe = withNs(b.probe, NAMESPACE);
      let last = "";
      await waitFor(`policy ${policyName(b.name)} active`, async () => {
        const r = await k.request("POST", collectionPath(probe), probe, { dryRun: true });
        last = r.status >= 300 ? `HTTP ${r.status} ${message(r)}` : JSON.stringify(r.body.metadata);
        return ((r.body.metadata as Obj | undefined)?.annotations as Obj | undefined)?.["apival-probe"] === b.name;
      }, 120_000).catch((e: unknown) => {
        throw new Error(`${String(e)}; last probe answer: ${last}`);
      });
    }
    log(`apival: ${batches.length} policies active; ${cases.length} cases`);
    // CREATE cases (dry-run, so names may repeat), then UPDATE cases.
    const results: (ApivalResult | undefined)[] = new Array(cases.length);
    const creates = cases.map((c, i) => [c, i] as const).filter(([c]) => c.operation === "CREATE");
    await pool(creates, 4, async ([c, i]) => {
      const namespaced = !CLUSTER_SCOPED.has(String(c.object.kind));
      const object = withNs(c.object, namespaced ? NAMESPACE : undefined);
      const r = await k.request("POST", collectionPath(object), object, { dryRun: true });
      results[i] = { c, object, ...(namespaced ? { namespaceObject: await nsObject(NAMESPACE) } : {}), answer: answerOf(r) };
    });
    const updates = cases.map((c, i) => [c, i] as const).filter(([c]) => c.operation === "UPDATE");
    await pool(updates, 4, async ([c, i]) => {
      const ns = updateNamespace(c);
      let old = withNs(c.oldObject!, ns);
      if (ns === undefined) old = { ...old, metadata: { ...(old.metadata as Obj), name: `apival-${c.marker}` } };
      const stored = await k.apply(old); // a Namespace of an earlier run stays (Terminating never ends here)
      created.push(stored);
      const md = { ...(stored.metadata as Obj) };
      delete md.managedFields;
      const oldObject = { ...stored, metadata: md };
      const object = { ...oldObject, metadata: { ...md, labels: { ...((md.labels as Obj | undefined) ?? {}), [MARKER]: c.marker } } };
      const r = await k.request("PUT", objectPath(object), object, { dryRun: true });
      results[i] = { c, object, oldObject, ...(ns !== undefined ? { namespaceObject: await nsObject(ns) } : {}), answer: answerOf(r) };
    });
    return results.map((r, i) => r ?? (() => { throw new Error(`case ${cases[i]!.id}: no result`); })());
  } finally {
    for (const o of created.reverse()) {
      if (CLUSTER_SCOPED.has(String(o.kind))) continue; // a deleted namespace stays Terminating here (no controller)
      await k.remove(o).catch((e: unknown) => log(`apival cleanup: ${String(e)}`));
    }
  }
}

/** The server-set metadata a stored object differs in from one run to the next. */
export const SERVER_METADATA = ["uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink"];

export function withoutServerMetadata(o: Obj): Obj {
  const md = { ...((o.metadata ?? {}) as Obj) };
  for (const f of SERVER_METADATA) delete md[f];
  return { ...o, metadata: md };
}

/**
 * The stored object as both sides are compared (and recorded as `expect.object`): what is random,
 * allocated from cluster state, or set by the registry strategy's PrepareForCreate is removed —
 * a built-in kind's `status` (a Pod's phase Pending and QoS class, `{}` or zero counts for
 * workloads), a Namespace's `spec.finalizers: [kubernetes]`, a DaemonSet's
 * `deprecated.daemonset.template.generation` annotation, a NodePort the allocator assigned, a Job's
 * selector and pod labels generated from its uid. celmap does not model these (docs/validation.md).
 */
export function normaliseObject(o: Obj, request: Obj, builtin: boolean): Obj {
  const c = JSON.parse(JSON.stringify(o, (_k, x: unknown) => (typeof x === "bigint" ? Number(x) : x))) as Obj;
  const kind = String(c.kind);
  const spec = c.spec as Obj | undefined;
  // The registry strategies' PrepareForCreate: status reset (a Pod's phase Pending and QoS class,
  // `{}` or zero counts for workloads), a Namespace's spec.finalizers [kubernetes], a DaemonSet's
  // template-generation annotation. Not modelled
  // (docs/validation.md, "Not modelled").
  if (builtin) delete c.status;
  const md = c.metadata as Obj;
  const ann = md.annotations as Obj | undefined;
  if (kind === "DaemonSet" && ann !== undefined && ((request.metadata as Obj).annotations as Obj | undefined)?.["deprecated.daemonset.template.generation"] === undefined) {
    delete ann["deprecated.daemonset.template.generation"];
    if (Object.keys(ann).length === 0) delete md.annotations;
  }
  if (kind === "Namespace" && spec !== undefined && (request.spec as Obj | undefined)?.finalizers === undefined) {
    delete spec.finalizers;
    if (Object.keys(spec).length === 0) delete c.spec;
  }
  if (kind === "Service" && spec !== undefined && Array.isArray(spec.ports)) {
    const sent = (((request.spec as Obj | undefined)?.ports ?? []) as Obj[]);
    spec.ports = (spec.ports as Obj[]).map((p, i) => {
      if (sent[i]?.nodePort !== undefined) return p;
      const { nodePort: _n, ...rest } = p;
      return rest;
    });
  }
  if (kind === "Job" && spec !== undefined && (spec.manualSelector as unknown) !== true) {
    delete spec.selector;
    const md = ((spec.template as Obj | undefined)?.metadata ?? {}) as Obj;
    const labels = md.labels as Obj | undefined;
    if (labels !== undefined) for (const k of ["controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name"]) delete labels[k];
  }
  return c;
}

/** The MAP conformance case (src/conformance/map.ts format, harness apiserver) of a result. */
export function conformanceCase(r: ApivalResult, version: string): Obj {
  const c = r.c;
  const batch = batchOf(c.batch, [c]);
  const a = r.answer;
  const policy = {
    name: policyName(c.batch),
    matchConstraints: batch.matchConstraints,
    failurePolicy: "Fail",
    reinvocationPolicy: "Never",
    mutations: [{ patchType: c.mutation.patchType, expression: c.mutation.expression }],
  };
  // A generated name's 5 random characters make the message vary: the first cause (generateName's) is the expectation.
  const random = a.code === 422 && /metadata\.generateName: Invalid value/.test(a.message ?? "") && /metadata\.name: Invalid value/.test(a.message ?? "");
  const expect: Obj =
    a.code < 300
      ? { object: normaliseObject(withoutServerMetadata(a.object!), r.object, c.crd === undefined) }
      : { error: random ? a.causes![0]!.message : a.message, errorClass: a.code === 422 ? "status422" : a.code === 403 ? "policy" : a.code === 500 ? "status500" : `status${a.code}` };
  return {
    name: `apival/${c.id}`,
    source_test: `generated: kube-apiserver ${version} dry-run (e2e/validation-run.ts)`,
    harness: "apiserver",
    operation: c.operation,
    ...(r.namespaceObject !== undefined ? { namespaceObject: withoutServerMetadata(r.namespaceObject) } : {}),
    request: { dryRun: true, userInfo: USER },
    ...(c.crd !== undefined ? { crd: c.crd } : {}),
    object: r.object,
    ...(r.oldObject !== undefined ? { oldObject: r.oldObject } : {}),
    policy,
    bindings: [{ name: policyName(c.batch), ...bindingSpec(batch) }],
    expect,
    ...(a.code >= 300 ? { notes: `HTTP ${a.code} ${a.reason ?? ""}; causes: ${JSON.stringify(a.causes ?? [])}` } : {}),
  };
}
