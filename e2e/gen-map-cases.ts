/**
 * `npm run gen:apiserver-cases`: runs the MutatingAdmissionPolicy cases of map-case-catalog.ts
 * against a real kube-apiserver (celmap-testcluster, e2e/cluster/) and writes what it answered to
 * conformance/cases/map/apiserver-generated.yaml, in the format of the oracle cases
 * (../shared/conformance/map-oracle-cases.yaml; header there and in the output):
 *   1. per case a namespace `ag-<case>`; the input is dry-run created (UPDATE: created for real,
 *      then dry-run replaced) with no policy bound: `object` is the defaulted answer;
 *   2. every policy and its binding (scoped to the case's namespace) is created, then a probe
 *      policy; once a dry-run shows the probe's mutation, the earlier policies are active;
 *   3. each request is repeated (dry-run); the answer is `expect.object`, or `expect.error` and
 *      `errorClass` with the full message in `notes`. A policy the API rejects is `policyCreation`.
 * Options: --out <file> (default conformance/cases/map/apiserver-generated.yaml).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { stringify } from "yaml";
import { catalog, type CatalogCase } from "./map-case-catalog.js";
import { Kube, collectionPath, message, objectPath, strip, waitFor, type KubeResponse, type Obj } from "./kube.js";
import { buildLauncher, startCluster } from "./launch.js";

/** Run from dist/e2e/. */
const repoRoot = resolve(import.meta.dirname, "../..");

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

const nsOf = (c: CatalogCase): string => `ag-${c.name}`.slice(0, 63);
const policyName = (c: CatalogCase): string => `ag-${c.name}`;

function binding(c: CatalogCase): Obj {
  return {
    name: policyName(c),
    policyName: policyName(c),
    ...(c.binding ?? {}),
    matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": nsOf(c) } } },
  };
}

function errorOf(r: KubeResponse, creation: boolean): { error: string; errorClass: string; full: string } {
  const full = message(r);
  if (creation) {
    const cause = ((r.body.details as Obj | undefined)?.causes as Obj[] | undefined)?.[0];
    return { error: String(cause?.message ?? full), errorClass: "policyCreation", full };
  }
  const cut = (marker: string): string => (full.includes(marker) ? full.slice(full.indexOf(marker) + marker.length) : full);
  if (r.status === 403) return { error: cut("denied request: "), errorClass: "policy", full };
  if (r.status === 500) return { error: cut("Internal error occurred: "), errorClass: "status500", full };
  return { error: full, errorClass: `status${r.status}`, full };
}

/** The case format writes a mutation as {patchType, expression} (map-cases.yaml header). */
function caseFormatPolicy(spec: Obj): Obj {
  const mutations = (spec.mutations as Obj[]).map((m) => ({
    patchType: m.patchType,
    expression: ((m.applyConfiguration ?? m.jsonPatch) as Obj).expression,
  }));
  return { ...spec, mutations };
}

async function main(): Promise<void> {
  const out = resolve(arg("--out") ?? join(repoRoot, "conformance/cases/map/apiserver-generated.yaml"));
  const build = buildLauncher((l) => console.error(l));
  const started = Date.now();
  const running = await startCluster(build.binary);
  const k = new Kube(running.info);
  try {
    const version = String((await k.request("GET", "/version")).body.gitVersion);
    console.error(`kube-apiserver ${version} at ${running.info.server}; ${catalog.length} cases`);
    interface Prepared {
      c: CatalogCase;
      namespaceObject: Obj;
      object: Obj;
      oldObject?: Obj;
      storedOld?: Obj;
      params: Obj[];
      created?: { error: string; errorClass: string; full: string };
    }
    const prepared: Prepared[] = [];
    // 1. Inputs, with no policy in the cluster.
    for (const c of catalog) {
      const ns = nsOf(c);
      await k.namespace(ns);
      const params = (c.params ?? []).map((p) => ({ ...p, metadata: { ...(p.metadata as Obj), namespace: ns } }));
      for (const p of params) await k.create(p);
      const obj = c.object(ns);
      let object: Obj;
      let oldObject: Obj | undefined;
      let storedOld: Obj | undefined;
      if (c.update !== undefined) {
        storedOld = await k.create(obj);
        oldObject = strip(storedOld, { keepNamespace: true });
        const r = await k.request("PUT", objectPath(obj), c.update(storedOld), { dryRun: true });
        if (r.status >= 300) throw new Error(`${c.name}: dry-run update without policy: ${message(r)}`);
        object = strip(r.body, { keepNamespace: true });
      } else {
        const r = await k.request("POST", collectionPath(obj), obj, { dryRun: true });
        if (r.status >= 300) throw new Error(`${c.name}: dry-run create without policy: ${message(r)}`);
        object = strip(r.body, { keepNamespace: true });
      }
      const nsObj = (await k.request("GET", `/api/v1/namespaces/${ns}`)).body;
      prepared.push({ c, namespaceObject: strip(nsObj, { keepStatus: true, keepNamespace: true }), object, ...(oldObject ? { oldObject, storedOld } : {}), params });
    }
    // 2. Policies and bindings, then the probe.
    for (const p of prepared) {
      const r = await k.request("POST", "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies", {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingAdmissionPolicy",
        metadata: { name: policyName(p.c) },
        spec: p.c.policy,
      });
      if (r.status >= 300) {
        p.created = errorOf(r, true);
        continue;
      }
      const b = binding(p.c);
      const { name, ...spec } = b;
      const rb = await k.request("POST", "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings", {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingAdmissionPolicyBinding",
        metadata: { name },
        spec,
      });
      if (rb.status >= 300) throw new Error(`${p.c.name}: binding: ${message(rb)}`);
    }
    await k.namespace("ag-probe");
    await k.create({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name: "ag-probe" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] },
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: 'Object{metadata: Object.metadata{annotations: {"probe": "active"}}}' } }],
        failurePolicy: "Fail",
        reinvocationPolicy: "Never",
      },
    });
    await k.create({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name: "ag-probe" },
      spec: { policyName: "ag-probe", matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ag-probe" } } } },
    });
    const probe = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "probe", namespace: "ag-probe" } };
    await waitFor("probe policy active", async () => {
      const r = await k.request("POST", collectionPath(probe), probe, { dryRun: true });
      return ((r.body.metadata as Obj | undefined)?.annotations as Obj | undefined)?.probe === "active";
    }, 60_000);
    // A binding's param informer starts when the binding appears and may not have listed yet when
    // the probe acts: for cases whose params exist, wait while the answer is "no params found".
    for (const p of prepared) {
      if (p.params.length === 0 || p.created !== undefined || p.c.update !== undefined) continue;
      const obj = p.c.object(nsOf(p.c));
      await waitFor(`param informer for ${p.c.name}`, async () => !message(await k.request("POST", collectionPath(obj), obj, { dryRun: true })).includes("no params found"));
    }
    // 3. The requests again.
    const cases: Obj[] = [];
    for (const p of prepared) {
      const c = p.c;
      let expect: Obj;
      let notes = c.notes;
      if (p.created !== undefined) {
        expect = { error: p.created.error, errorClass: p.created.errorClass };
        notes += ` | HTTP 422 at policy creation; full message: ${p.created.full}`;
      } else {
        const obj = c.object(nsOf(c));
        const r =
          c.update !== undefined
            ? await k.request("PUT", objectPath(obj), c.update(p.storedOld!), { dryRun: true })
            : await k.request("POST", collectionPath(obj), obj, { dryRun: true });
        if (r.status < 300) expect = { object: strip(r.body, { keepNamespace: true }) };
        else {
          const e = errorOf(r, false);
          expect = { error: e.error, errorClass: e.errorClass };
          notes += ` | HTTP ${r.status} ${String(r.body.reason ?? "")}; full message: ${e.full}`;
        }
        if (r.warnings.length > 0) notes += ` | warnings: ${r.warnings.join("; ")}`;
      }
      cases.push({
        name: `ag-${c.name}`,
        source_test: `generated: kube-apiserver ${version} dry-run (e2e/gen-map-cases.ts)`,
        harness: "apiserver",
        operation: c.update !== undefined ? "UPDATE" : "CREATE",
        namespaceObject: p.namespaceObject,
        request: { dryRun: true, userInfo: { username: "admin", uid: "admin-uid", groups: ["system:masters", "system:authenticated"] } },
        ...(p.params.length > 0 ? { paramObjects: p.params } : {}),
        object: p.object,
        ...(p.oldObject !== undefined ? { oldObject: p.oldObject } : {}),
        policy: caseFormatPolicy(c.policy),
        ...(p.created !== undefined ? {} : { bindings: [binding(c)] }),
        expect,
        notes,
      });
      process.stderr.write(".");
    }
    process.stderr.write("\n");
    const header = [
      `# MutatingAdmissionPolicy cases whose expected results were produced by a REAL kube-apiserver`,
      `# ${version} (k8s.io/kubernetes module, run in-process by e2e/cluster's celmap-testcluster with`,
      `# embedded etcd go.etcd.io/etcd/server/v3 v3.6.8), admission chain "minimal" (mutating:`,
      `# NamespaceLifecycle, MutatingAdmissionPolicy, MutatingAdmissionWebhook), user admin`,
      `# (uid admin-uid, groups system:masters, system:authenticated).`,
      `# Generated ${new Date().toISOString().slice(0, 10)} by \`npm run gen:apiserver-cases\` (e2e/gen-map-cases.ts, cases in`,
      `# e2e/map-case-catalog.ts); do not edit by hand, regenerate.`,
      `# Format and method: those of ../shared/conformance/map-oracle-cases.yaml (see its header):`,
      `# * object: the input dry-run created (UPDATE: created for real = oldObject, then dry-run replaced)`,
      `#   with NO policy bound, minus metadata.{uid,resourceVersion,creationTimestamp,managedFields,`,
      `#   generation,selfLink} and status: already defaulted.`,
      `# * The policy and its binding (namespaceSelector on the case's own namespace) were then created,`,
      `#   and a probe policy after all of them; once the probe acted, the request was repeated (dry-run).`,
      `#   Its answer (same stripping) is expect.object, or expect.error (the status message after`,
      `#   "denied request: " / "Internal error occurred: ", or the first cause for a rejected policy) with`,
      `#   errorClass policy (403), status500, status422 or policyCreation; the full message is in notes.`,
      `# * Expectations are the apiserver's answers, never celmap's output.`,
      "",
    ].join("\n");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, header + stringify({ cases }, { lineWidth: 120 }));
    console.error(`wrote ${cases.length} cases to ${out} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    k.close();
    await running.stop();
  }
}

main().catch((e: unknown) => {
  console.error(`gen-map-cases: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
