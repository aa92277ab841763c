/**
 * `celmap webhook --kubeconfig`: policies, bindings, params, namespaces and CRD schemas come from
 * the real kube-apiserver (informers, /openapi/v3), and edits and deletions there change what the
 * webhook serves. The apiserver would apply the same MutatingAdmissionPolicies natively, so
 * celmap's answers are read by sending it AdmissionReviews built from the apiserver's own
 * (dry-run, defaulted) objects, exactly as the apiserver would send them; and celmap -f with a
 * CRD file is registered as a webhook for a custom resource.
 */
import { randomUUID } from "node:crypto";
import { request } from "node:https";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectionPath, message, waitFor, type Kube, type Obj } from "../../e2e/kube.js";
import { ac, cluster, configMap, mapPolicy, pod, rule, startWebhook, tempDir, webhookConfiguration, writeYaml, type WebhookProcess } from "./support.js";

const kube = cluster();
const d = kube === undefined ? describe.skip : describe;

const NS = "cm-main";
const WIDGETS: Obj = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.e2e.celmap.io" },
  spec: {
    group: "e2e.celmap.io",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  mode: { type: "string", default: "auto" },
                  tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
                  ports: {
                    type: "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

function widget(name: string, ns: string): Obj {
  return { apiVersion: "e2e.celmap.io/v1", kind: "Widget", metadata: { name, namespace: ns }, spec: { mode: "manual", tags: ["a"], ports: [{ name: "http", port: 80 }, { name: "admin", port: 9000 }] } };
}

const widgetPolicy = (namespaces: string[]): Obj[] =>
  mapPolicy(
    "widget-ports",
    {
      resources: [rule(["e2e.celmap.io"], ["v1"], ["widgets"])],
      mutations: [ac('Object{spec: Object.spec{tags: ["b"], ports: [Object.spec.ports{name: "admin", port: 9443}, Object.spec.ports{name: "metrics", port: 9090}]}}')],
    },
    namespaces,
  );

/** The merge the apiserver's structured-merge-diff makes for widgetPolicy on widget(): keyed ports, set tags. */
const widgetExpectedSpec = { mode: "manual", tags: ["a", "b"], ports: [{ name: "http", port: 80 }, { name: "admin", port: 9443 }, { name: "metrics", port: 9090 }] };

interface ReviewAnswer {
  allowed: boolean;
  patched: Obj;
  status?: { code?: number; message?: string };
}

/** POSTs an AdmissionReview for `obj` (CREATE) to the webhook and applies its JSONPatch. */
async function review(wh: WebhookProcess, obj: Obj, resource: { group: string; version: string; resource: string }): Promise<ReviewAnswer> {
  const m = obj.metadata as Obj;
  const [group, version] = String(obj.apiVersion).includes("/") ? String(obj.apiVersion).split("/") : ["", String(obj.apiVersion)];
  const body = JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: randomUUID(),
      kind: { group, version, kind: obj.kind },
      resource,
      requestKind: { group, version, kind: obj.kind },
      requestResource: resource,
      name: m.name,
      namespace: m.namespace,
      operation: "CREATE",
      userInfo: { username: "admin", groups: ["system:masters", "system:authenticated"] },
      object: obj,
      oldObject: null,
      dryRun: false,
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    },
  });
  const text = await new Promise<string>((res, rej) => {
    const req = request({ host: "127.0.0.1", port: wh.port, path: "/mutate", method: "POST", ca: wh.pki.ca, headers: { "content-type": "application/json" } }, (r) => {
      let t = "";
      r.setEncoding("utf8");
      r.on("data", (x: string) => (t += x));
      r.on("end", () => res(t));
    });
    req.on("error", rej);
    req.end(body);
  });
  const resp = (JSON.parse(text) as { response: { allowed: boolean; patch?: string; status?: { code?: number; message?: string } } }).response;
  const patched = structuredClone(obj);
  if (resp.patch !== undefined) applyPatch(patched, JSON.parse(Buffer.from(resp.patch, "base64").toString("utf8")) as { op: string; path: string; value?: unknown }[]);
  return { allowed: resp.allowed, patched, ...(resp.status === undefined ? {} : { status: resp.status }) };
}

/** RFC 6902 add/replace/remove (what celmap's patches use). */
function applyPatch(doc: Obj, ops: { op: string; path: string; value?: unknown }[]): void {
  for (const o of ops) {
    const parts = o.path.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = parts.pop()!;
    let cur: unknown = doc;
    for (const p of parts) cur = Array.isArray(cur) ? cur[Number(p)] : (cur as Obj)[p];
    if (Array.isArray(cur)) {
      const i = last === "-" ? cur.length : Number(last);
      if (o.op === "add") cur.splice(i, 0, o.value);
      else if (o.op === "replace") cur[i] = o.value;
      else if (o.op === "remove") cur.splice(i, 1);
      else throw new Error(`unsupported op ${o.op}`);
    } else {
      const c = cur as Obj;
      if (o.op === "add" || o.op === "replace") c[last] = o.value;
      else if (o.op === "remove") delete c[last];
      else throw new Error(`unsupported op ${o.op}`);
    }
  }
}

const podResource = { group: "", version: "v1", resource: "pods" };

d("celmap webhook --kubeconfig against the real kube-apiserver", () => {
  const k = kube!;
  let wh: WebhookProcess;
  const cleanup: Obj[] = [];
  // Made in beforeAll: a skipped suite (no Go) leaves nothing behind.
  let dir = "";

  /** The apiserver's defaulted Pod for `ns` (dry-run; no policy binds the plain namespace). */
  const defaultedPod = async (name: string, ns: string): Promise<Obj> => {
    const p = pod(name, "cm-plain");
    const r = await k.request("POST", collectionPath(p), p, { dryRun: true });
    const o = r.body;
    (o.metadata as Obj).namespace = ns;
    return o;
  };
  const label = async (name: string, ns: string, key: string): Promise<string | undefined> =>
    (((await review(wh, await defaultedPod(name, ns), podResource)).patched.metadata as Obj).labels as Record<string, string> | undefined)?.[key];

  beforeAll(async () => {
    dir = tempDir("cluster-mode");
    await k.namespace(NS);
    await k.namespace("cm-plain");
    await k.namespace("cm-selected");
    wh = await startWebhook(["--kubeconfig", k.info.kubeconfig, "--param-resource", "v1/configmaps=ConfigMap"]);
  });

  afterAll(async () => {
    for (const o of cleanup.reverse()) await k.remove(o).catch(() => {});
    await wh?.stop();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
    k.close();
  });

  const policy = (value: string): Obj[] => mapPolicy("cm-team", { mutations: [ac(`Object{metadata: Object.metadata{labels: {"team": "${value}"}}}`)] }, [NS]);

  it("starts from the apiserver (informers listed) and is ready; nothing is mutated yet", async () => {
    expect(await wh.ready()).toBe(true);
    expect(await label("a", NS, "team")).toBeUndefined();
  });

  it("a MutatingAdmissionPolicy and binding created in the apiserver are served", async () => {
    for (const o of policy("blue")) cleanup.push(await k.create(o));
    await waitFor("policy served", async () => (await label("a", NS, "team")) === "blue");
  });

  it("an edit of the policy in the apiserver is followed", async () => {
    await k.apply(policy("green")[0]!);
    await waitFor("edited policy served", async () => (await label("a", NS, "team")) === "green");
  });

  it("a deleted binding stops the policy", async () => {
    await k.remove(policy("green")[1]!);
    await waitFor("binding deletion followed", async () => (await label("a", NS, "team")) === undefined);
  });

  it("a binding on a namespace label follows the namespace's labels (added, then removed)", async () => {
    const b = policy("green")[1]!;
    const sel = structuredClone(b);
    (sel.spec as Obj).matchResources = { namespaceSelector: { matchLabels: { "e2e.celmap.io/team": "on" } } };
    await k.create(sel);
    await waitFor("binding re-created, namespace not labelled: not served", async () => (await label("a", "cm-selected", "team")) === undefined, 5_000).catch(() => {});
    expect(await label("a", "cm-selected", "team")).toBeUndefined();
    await k.namespace("cm-selected", { "e2e.celmap.io/team": "on" });
    await waitFor("namespace label followed", async () => (await label("a", "cm-selected", "team")) === "green");
    await k.namespace("cm-selected", {});
    await waitFor("namespace label removal followed", async () => (await label("a", "cm-selected", "team")) === undefined);
  });

  it("a deleted policy is no longer served", async () => {
    await k.namespace("cm-selected", { "e2e.celmap.io/team": "on" });
    await waitFor("served again", async () => (await label("a", "cm-selected", "team")) === "green");
    await k.remove(policy("green")[0]!);
    await waitFor("policy deletion followed", async () => (await label("a", "cm-selected", "team")) === undefined);
    await k.remove(policy("green")[1]!);
  });

  it("params (--param-resource v1/configmaps=ConfigMap): a ConfigMap param created and edited in the apiserver is served", async () => {
    const docs = mapPolicy(
      "cm-param",
      { paramKind: { apiVersion: "v1", kind: "ConfigMap" }, mutations: [ac('Object{metadata: Object.metadata{labels: {"tier": params.data.tier}}}')] },
      [NS],
      { paramRef: { name: "tier", parameterNotFoundAction: "Deny" } },
    );
    for (const o of docs) cleanup.push(await k.create(o));
    cleanup.push(await k.create(configMap("tier", NS, { tier: "gold" })));
    await waitFor("param served", async () => (await label("a", NS, "tier")) === "gold", 15_000);
    await k.apply(configMap("tier", NS, { tier: "silver" }));
    await waitFor("param edit followed", async () => (await label("a", NS, "tier")) === "silver", 15_000);
  });

  /** The Widget CRD applied and Established: each scenario that needs it says so (none relies on an earlier one). */
  async function widgetsEstablished(): Promise<void> {
    const applied = await k.apply(WIDGETS);
    if (!cleanup.some((o) => o.kind === "CustomResourceDefinition" && (o.metadata as Obj | undefined)?.name === "widgets.e2e.celmap.io")) cleanup.push(applied);
    await waitFor("CRD established", async () => {
      const r = await k.request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.e2e.celmap.io");
      return ((r.body.status as Obj | undefined)?.conditions as Obj[] | undefined)?.some((c) => c.type === "Established" && c.status === "True") === true;
    });
  }

  it("a CRD created in the apiserver: its schema (list-map, set) comes from /openapi/v3 and the MAP merges by it", async () => {
    await widgetsEstablished();
    for (const o of widgetPolicy([NS])) cleanup.push(await k.create(o));
    const w = widget("w1", "cm-plain");
    const r = await k.request("POST", collectionPath(w), w, { dryRun: true });
    expect(r.status, message(r)).toBe(201);
    const obj = r.body;
    (obj.metadata as Obj).namespace = NS;
    await waitFor("widget policy served with the CRD's schema", async () => {
      const a = await review(wh, obj, { group: "e2e.celmap.io", version: "v1", resource: "widgets" });
      return a.allowed && JSON.stringify((a.patched.spec as Obj).ports) === JSON.stringify(widgetExpectedSpec.ports);
    }, 60_000);
    const a = await review(wh, obj, { group: "e2e.celmap.io", version: "v1", resource: "widgets" });
    expect(a.patched.spec).toEqual(widgetExpectedSpec);
  });

  it("the same Widget policy natively: the apiserver stores exactly the spec celmap's cluster mode returned", async () => {
    await widgetsEstablished();
    await k.namespace("cm-native");
    const docs = widgetPolicy([NS, "cm-native"]);
    for (const o of docs) await k.apply(o);
    const w = widget("w1", "cm-native");
    await waitFor("native widget policy active", async () => {
      const r = await k.request("POST", collectionPath(w), w, { dryRun: true });
      return r.status === 201 && JSON.stringify((r.body.spec as Obj).ports) === JSON.stringify(widgetExpectedSpec.ports);
    });
    const stored = await k.create(w);
    cleanup.push(stored);
    expect(stored.spec).toEqual(widgetExpectedSpec);
  });

  it("celmap webhook -f with the CRD file, registered: a Widget CREATE is mutated by the schema", async () => {
    // The apiserver must serve widgets for the request to reach the webhook; the webhook itself knows the schema only from the file.
    await widgetsEstablished();
    await k.namespace("cm-crd-wh", { "e2e.celmap.io/webhook": "crd" });
    writeYaml(dir, "widgets.yaml", [WIDGETS, ...widgetPolicy(["cm-crd-wh"])]);
    const fileWh = await startWebhook(["-f", dir]);
    try {
      const name = "celmap-e2e-crd";
      await k.create(webhookConfiguration({ name, webhook: fileWh, selectorValue: "crd", rules: [rule(["e2e.celmap.io"], ["v1"], ["widgets"])] }));
      cleanup.push({ apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration", metadata: { name } });
      const w = widget("w1", "cm-crd-wh");
      let last = "";
      let spec: unknown;
      // The apiserver serializes a custom resource's fields in key order (ports before tags): compare by value, not by text.
      await waitFor(
        "webhook mutates the Widget",
        async () => {
          const r = await k.request("POST", collectionPath(w), w, { dryRun: true });
          last = r.status === 201 ? `201, spec ${JSON.stringify(r.body.spec)}` : `${r.status} ${message(r)}`;
          spec = r.body.spec;
          return r.status === 201 && JSON.stringify((r.body.spec as Obj).ports) === JSON.stringify(widgetExpectedSpec.ports);
        },
        20_000,
      ).catch((e: unknown) => {
        throw new Error(`${String(e)}; last answer: ${last}\nwebhook log (tail):\n${fileWh.logs().slice(-4000)}`);
      });
      expect(spec).toEqual(widgetExpectedSpec);
    } finally {
      await fileWh.stop();
    }
  });
});
