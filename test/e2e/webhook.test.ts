/**
 * `celmap webhook -f` registered with the real kube-apiserver through the Helm chart's
 * MutatingWebhookConfiguration: MAPs, a Kyverno MutatingPolicy and a Gatekeeper Assign; Pods,
 * Deployments, real and dry-run, CREATE/UPDATE/DELETE, subresources, the webhook's
 * reinvocationPolicy, failurePolicy with the webhook stopped or unresponsive past timeoutSeconds,
 * a policy file edit, and a custom resource.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectionPath, message, objectPath, strip, waitFor, type Kube, type Obj } from "../../e2e/kube.js";
import {
  ac,
  annotations,
  chartWebhookConfiguration,
  cluster,
  configMap,
  deployment,
  labels,
  mapPolicy,
  pod,
  rule,
  startWebhook,
  tempDir,
  webhookConfiguration,
  writeYaml,
  type WebhookProcess,
} from "./support.js";

const kube = cluster();
const d = kube === undefined ? describe.skip : describe;

const NS = "wh-main";
const MWC = "celmap-e2e-main";
const mwcRef = (name: string): Obj => ({ apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration", metadata: { name } });

function kyvernoPolicy(name: string, ns: string): Obj {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: "MutatingPolicy",
    metadata: { name },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }],
        namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: [ns] }] },
      },
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"kyverno": "yes"}}}' } }],
    },
  };
}

function gatekeeperAssign(name: string, ns: string): Obj {
  return {
    apiVersion: "mutations.gatekeeper.sh/v1",
    kind: "Assign",
    metadata: { name },
    spec: {
      applyTo: [{ groups: [""], kinds: ["Pod"], versions: ["v1"] }],
      match: { scope: "Namespaced", kinds: [{ apiGroups: ["*"], kinds: ["Pod"] }], namespaces: [ns] },
      location: "spec.containers[name:*].imagePullPolicy",
      parameters: { assign: { value: "Always" } },
    },
  };
}

function probePolicy(token: string, namespaces: string[]): Obj[] {
  return mapPolicy(
    "probe",
    {
      resources: [rule([""], ["v1"], ["configmaps"])],
      matchConditions: [{ name: "probe", expression: "object.metadata.name == 'probe'" }],
      mutations: [ac(`Object{metadata: Object.metadata{annotations: {"probe": "${token}"}}}`)],
    },
    namespaces,
  );
}

async function probe(k: Kube, ns: string, token: string): Promise<void> {
  await waitFor(`webhook probe in ${ns} (token ${token})`, async () => {
    const r = await k.request("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("probe", ns), { dryRun: true });
    return r.status === 201 && annotations(r.body).probe === token;
  });
}

const NAMESPACES = [NS, "wh-reinv-ifneeded", "wh-reinv-never", "wh-down-fail", "wh-down-ignore", "wh-slow-fail", "wh-slow-ignore"];

d("celmap webhook behind a real kube-apiserver", () => {
  const k = kube!;
  // Made in beforeAll: a skipped suite (no Go) leaves nothing behind.
  let dir = "";
  let wh: WebhookProcess;
  const created: Obj[] = [];
  const policies = (token: string): Obj[] => [
    ...mapPolicy("team-label", { resources: [rule([""], ["v1"], ["pods"])], mutations: [ac('Object{metadata: Object.metadata{labels: {"team": "payments"}}}')] }, [NS]),
    ...mapPolicy(
      "deploy-template",
      { resources: [rule(["apps"], ["v1"], ["deployments"])], mutations: [ac('Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{annotations: {"celmap.io/injected": "true"}}}}}')] },
      [NS],
    ),
    ...mapPolicy(
      "status-message",
      { resources: [rule([""], ["v1"], ["pods/status"], ["UPDATE"])], mutations: [ac('Object{status: Object.status{message: "seen by celmap"}}')] },
      [NS],
    ),
    ...mapPolicy(
      "debug-container",
      {
        resources: [rule([""], ["v1"], ["pods/ephemeralcontainers"], ["UPDATE"])],
        mutations: [ac('Object{spec: Object.spec{ephemeralContainers: [Object.spec.ephemeralContainers{name: "debug", terminationMessagePolicy: "FallbackToLogsOnError"}]}}')],
      },
      [NS],
    ),
    ...mapPolicy(
      "reinv",
      {
        mutations: [
          ac(
            'Object{metadata: Object.metadata{labels: {"celmap": "1"}, annotations: {"saw-native": has(object.metadata.labels) && "native" in object.metadata.labels ? object.metadata.labels["native"] : "none"}}}',
          ),
        ],
      },
      ["wh-reinv-ifneeded", "wh-reinv-never"],
    ),
    ...mapPolicy("down", { mutations: [ac('Object{metadata: Object.metadata{labels: {"celmap": "1"}}}')] }, ["wh-down-fail", "wh-down-ignore", "wh-slow-fail", "wh-slow-ignore"]),
    kyvernoPolicy("kyverno-label", NS),
    gatekeeperAssign("always-pull", NS),
    ...probePolicy(token, NAMESPACES),
  ];

  beforeAll(async () => {
    dir = tempDir("webhook");
    for (const ns of NAMESPACES) await k.namespace(ns, { "e2e.celmap.io/webhook": ns === NS ? "main" : ns });
    writeYaml(dir, "policies.yaml", policies("v1"));
    wh = await startWebhook(["-f", dir, "--timeout", "4s"]);
  });

  afterAll(async () => {
    for (const o of created) await k.remove(o).catch(() => {});
    await wh?.stop();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
    k.close();
  });

  const mainRules = [
    rule([""], ["v1"], ["pods", "pods/status", "pods/ephemeralcontainers", "configmaps"], ["CREATE", "UPDATE", "DELETE"]),
    rule(["apps"], ["v1"], ["deployments"]),
  ];

  it("the chart's MutatingWebhookConfiguration (url + caBundle on 127.0.0.1) is accepted and becomes active", async () => {
    const chart = chartWebhookConfiguration();
    const obj = webhookConfiguration({ name: MWC, webhook: wh, selectorValue: "main", rules: mainRules });
    const stored = await k.create(obj);
    created.push(mwcRef(MWC));
    const h = (stored.webhooks as Obj[])[0]!;
    const ch = (chart.webhooks as Obj[])[0]!;
    for (const f of ["name", "admissionReviewVersions", "sideEffects", "reinvocationPolicy", "matchPolicy", "timeoutSeconds", "failurePolicy"]) expect(h[f], f).toEqual(ch[f]);
    expect((h.clientConfig as Obj).url).toBe(wh.url);
    await probe(k, NS, "v1");
  });

  let storedPod: Obj = {};
  it("Pod CREATE: the MAP's label is stored", async () => {
    storedPod = await k.create(pod("web", NS));
    expect(labels(storedPod)).toEqual({ app: "web", team: "payments", kyverno: "yes" });
  });

  it("Pod CREATE: the Kyverno MutatingPolicy's label is stored", () => {
    expect(labels(storedPod).kyverno).toBe("yes");
  });

  it("Pod CREATE: the Gatekeeper Assign's imagePullPolicy is stored (not the apiserver's IfNotPresent default)", () => {
    const c = ((storedPod.spec as Obj).containers as Obj[])[0]!;
    expect(c.imagePullPolicy).toBe("Always");
  });

  it("Pod CREATE dry-run: the answer is mutated and nothing is stored", async () => {
    const p = pod("dry", NS);
    const r = await k.request("POST", collectionPath(p), p, { dryRun: true });
    expect(r.status).toBe(201);
    expect(labels(r.body).team).toBe("payments");
    expect((await k.get(p)).status).toBe(404);
  });

  it("Pod UPDATE: a removed label is put back by the policy", async () => {
    const cur = (await k.get(pod("web", NS))).body;
    const next = { ...cur, metadata: { ...(cur.metadata as Obj), labels: { app: "web" } } };
    const r = await k.request("PUT", objectPath(cur), next);
    expect(r.status, message(r)).toBe(200);
    expect(labels(r.body)).toEqual({ app: "web", team: "payments", kyverno: "yes" });
  });

  it("Pod UPDATE dry-run: mutated answer, stored object unchanged", async () => {
    const cur = (await k.get(pod("web", NS))).body;
    const next = { ...cur, metadata: { ...(cur.metadata as Obj), labels: { app: "web", extra: "1" } } };
    const r = await k.request("PUT", objectPath(cur), next, { dryRun: true });
    expect(r.status, message(r)).toBe(200);
    expect(labels(r.body)).toEqual({ app: "web", extra: "1", team: "payments", kyverno: "yes" });
    expect(labels((await k.get(cur)).body).extra).toBeUndefined();
  });

  it("Deployment CREATE: the template annotation is stored", async () => {
    const dep = await k.create(deployment("api", NS));
    const tmpl = ((dep.spec as Obj).template as Obj).metadata as Obj;
    expect(tmpl.annotations).toEqual({ "celmap.io/injected": "true" });
  });

  it("Deployment UPDATE (scale by PUT): the annotation the client dropped is restored", async () => {
    const cur = (await k.get(deployment("api", NS))).body;
    const spec = structuredClone(cur.spec as Obj);
    spec.replicas = 5;
    ((spec.template as Obj).metadata as Obj).annotations = {};
    const r = await k.request("PUT", objectPath(cur), { ...cur, spec });
    expect(r.status, message(r)).toBe(200);
    expect((r.body.spec as Obj).replicas).toBe(5);
    expect((((r.body.spec as Obj).template as Obj).metadata as Obj).annotations).toEqual({ "celmap.io/injected": "true" });
  });

  it("Deployment CREATE dry-run: mutated answer, nothing stored", async () => {
    const dep = deployment("api-dry", NS);
    const r = await k.request("POST", collectionPath(dep), dep, { dryRun: true });
    expect(r.status, message(r)).toBe(201);
    expect((((r.body.spec as Obj).template as Obj).metadata as Obj).annotations).toEqual({ "celmap.io/injected": "true" });
    expect((await k.get(dep)).status).toBe(404);
  });

  it("pods/status subresource: the policy on pods/status sets status.message", async () => {
    const cur = (await k.get(pod("web", NS))).body;
    const r = await k.request("PUT", `${objectPath(cur)}/status`, { ...cur, status: { phase: "Pending" } });
    expect(r.status, message(r)).toBe(200);
    expect((r.body.status as Obj).message).toBe("seen by celmap");
  });

  it("pods/ephemeralcontainers subresource: the added debug container gets the policy's terminationMessagePolicy", async () => {
    const cur = (await k.get(pod("web", NS))).body;
    const spec = { ...(cur.spec as Obj), ephemeralContainers: [{ name: "debug", image: "busybox:1.36", targetContainerName: "app" }] };
    const r = await k.request("PUT", `${objectPath(cur)}/ephemeralcontainers`, { ...cur, spec });
    expect(r.status, message(r)).toBe(200);
    const ec = ((r.body.spec as Obj).ephemeralContainers as Obj[])[0]!;
    expect(ec.terminationMessagePolicy).toBe("FallbackToLogsOnError");
  });

  it("DELETE goes through the webhook (rules include DELETE; two reviews answered) and the Pod is deleted", async () => {
    const before = await wh.requests();
    const r = await k.request("DELETE", objectPath(pod("web", NS)), { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0 });
    expect(r.status, message(r)).toBe(200);
    await waitFor("pod gone", async () => (await k.get(pod("web", NS))).status === 404);
    // The DELETE reached the webhook and was answered: the apiserver admits a DELETE through
    // rest.AdmissionToValidateObjectDeleteFunc (registry/rest/delete.go: mutating Admit with the old
    // object), which the Pod's graceful-delete path (grace 0: update, then delete) may run more than
    // once (two reviews usually, three seen once): how many is the apiserver's, so only "at least
    // one, each logged as an answered DELETE admission" is asserted.
    expect(await wh.requests()).toBeGreaterThanOrEqual(before + 1);
    const deletes = wh.logs().split("\n").filter((l) => l.includes('"event":"admission"') && l.includes('"operation":"DELETE"') && l.includes('"name":"web"'));
    expect(deletes.length).toBeGreaterThanOrEqual(1);
    for (const l of deletes) expect(JSON.parse(l).httpStatus).toBe(200);
  });

  it("a policy file edit is picked up and served (probe token v1 -> v2)", async () => {
    writeYaml(dir, "policies.yaml", policies("v2"));
    await probe(k, NS, "v2");
  });

  // Reinvocation: a native MAP (IfNeeded; the MAP plugin runs before the webhook plugin) labels
  // `native` "before-celmap" or "after-celmap"; celmap's policy labels `celmap` and records the
  // `native` label it saw. celmap's change makes the apiserver reinvoke the native policy
  // (native=after-celmap); only a webhook with reinvocationPolicy IfNeeded is then called again.
  for (const policy of ["IfNeeded", "Never"] as const) {
    const ns = `wh-reinv-${policy.toLowerCase()}`;
    it(`webhook reinvocationPolicy ${policy}: celmap ${policy === "IfNeeded" ? "is called again and sees" : "is not called again and does not see"} the reinvoked native policy's change`, async () => {
      const name = `celmap-e2e-reinv-${policy.toLowerCase()}`;
      await k.create(webhookConfiguration({ name, webhook: wh, selectorValue: ns, rules: [rule([""], ["v1"], ["pods", "configmaps"])], reinvocationPolicy: policy }));
      created.push(mwcRef(name));
      const native = mapPolicy(
        `native-around-celmap-${policy.toLowerCase()}`,
        {
          reinvocationPolicy: "IfNeeded",
          mutations: [ac('Object{metadata: Object.metadata{labels: {"native": has(object.metadata.labels) && "celmap" in object.metadata.labels ? "after-celmap" : "before-celmap"}}}')],
        },
        [ns],
      );
      for (const o of native) {
        await k.create(o);
        created.push(o);
      }
      await probe(k, ns, "v2");
      await waitFor(`native policy active in ${ns}`, async () => {
        const r = await k.request("POST", collectionPath(pod("p", ns)), pod("p", ns), { dryRun: true });
        return r.status === 201 && labels(r.body).native !== undefined;
      });
      const stored = await k.create(pod("p", ns));
      expect(labels(stored)).toMatchObject({ celmap: "1", native: "after-celmap" });
      expect(annotations(stored)["saw-native"]).toBe(policy === "IfNeeded" ? "after-celmap" : "before-celmap");
    });
  }

  // failurePolicy with the webhook stopped (a second celmap process, registered, proven active, then stopped).
  for (const fp of ["Fail", "Ignore"] as const) {
    it(`failurePolicy ${fp} with the webhook stopped: ${fp === "Fail" ? "the request is refused with the call's error" : "admitted unchanged"}`, async () => {
      const ns = `wh-down-${fp.toLowerCase()}`;
      const other = await startWebhook(["-f", dir]);
      const name = `celmap-e2e-down-${fp.toLowerCase()}`;
      try {
        await k.create(webhookConfiguration({ name, webhook: other, selectorValue: ns, rules: [rule([""], ["v1"], ["pods", "configmaps"])], failurePolicy: fp }));
        created.push(mwcRef(name));
        await probe(k, ns, "v2");
      } finally {
        await other.stop();
      }
      const p = pod("p", ns);
      const r = await k.request("POST", collectionPath(p), p);
      if (fp === "Fail") {
        expect(r.status).toBe(500);
        expect(message(r)).toMatch(/failed calling webhook "mutate\.celmap\.io".*connection refused/);
        expect((await k.get(p)).status).toBe(404);
      } else {
        expect(r.status, message(r)).toBe(201);
        expect(labels(r.body)).toEqual({ app: "p" });
      }
    });
  }

  // A webhook that does not answer within the configuration's timeoutSeconds (celmap SIGSTOPped).
  for (const fp of ["Fail", "Ignore"] as const) {
    it(`timeoutSeconds 1 passed (webhook unresponsive), failurePolicy ${fp}: ${fp === "Fail" ? "refused with a timeout" : "admitted unchanged"}`, async () => {
      const ns = `wh-slow-${fp.toLowerCase()}`;
      const name = `celmap-e2e-slow-${fp.toLowerCase()}`;
      await k.create(webhookConfiguration({ name, webhook: wh, selectorValue: ns, rules: [rule([""], ["v1"], ["pods", "configmaps"])], failurePolicy: fp, timeoutSeconds: 1 }));
      created.push(mwcRef(name));
      await probe(k, ns, "v2");
      const p = pod("p", ns);
      wh.pause();
      let r;
      try {
        r = await k.request("POST", collectionPath(p), p);
      } finally {
        wh.resume();
      }
      if (fp === "Fail") {
        expect(r.status).toBe(500);
        expect(message(r)).toMatch(/failed calling webhook "mutate\.celmap\.io".*(context deadline exceeded|Client\.Timeout|timeout)/);
      } else {
        expect(r.status, message(r)).toBe(201);
        expect(labels(r.body)).toEqual({ app: "p" });
      }
      expect(await wh.ready()).toBe(true);
    });
  }

  it("a Deployment's stored object through the webhook keeps every field the apiserver defaulted", async () => {
    const dep = (await k.get(deployment("api", NS))).body;
    const s = strip(dep);
    expect((s.spec as Obj).strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } });
    expect((s.spec as Obj).revisionHistoryLimit).toBe(10);
  });
});
