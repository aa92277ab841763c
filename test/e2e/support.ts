/**
 * e2e support: the cluster from global setup (a Kube client), `celmap webhook` as a real child
 * process on 127.0.0.1 with its own certificate, the MutatingWebhookConfiguration taken from the
 * Helm chart's rendering (deploy/manifests/celmap.yaml), and YAML/JSON helpers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { request as plainRequest } from "node:http";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { inject } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { Kube, type Obj } from "../../e2e/kube.js";
import { makePki, type Pki } from "../webhook/support.js";

export const root = resolve(import.meta.dirname, "../..");
export const cliMain = join(root, "dist/src/cli/main.js");

/** The shared cluster, or undefined when the suite is skipped (no Go). */
export function cluster(): Kube | undefined {
  const info = inject("cluster");
  return info === null ? undefined : new Kube(info);
}

export function skipReason(): string {
  return inject("skipReason");
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });
}

export function yamlDocs(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((d): d is Obj => d !== null);
}

export function toYaml(docs: readonly Obj[]): string {
  // YAML 1.1 quoting: kubectl (and celmap) read `n`, `y`, `on`, `off` unquoted as booleans.
  return docs.map((d) => stringify(d, { version: "1.1" })).join("---\n");
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `celmap-e2e-${prefix}-`));
}

// ---------------------------------------------------------------------------------------------
// celmap webhook as a child process

export interface WebhookProcess {
  readonly port: number;
  readonly url: string;
  readonly pki: Pki;
  /** Base64 PEM of the CA that signed the serving certificate (the caBundle). */
  readonly caBundle: string;
  readonly proc: ChildProcess;
  logs(): string;
  /** SIGSTOP / SIGCONT: the process stops answering without closing its port. */
  pause(): void;
  resume(): void;
  /** SIGTERM and wait (SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** The webhook's /readyz over HTTPS. */
  ready(): Promise<boolean>;
  /** The sum of celmap_webhook_requests_total over its labels (from /metrics). */
  requests(): Promise<number>;
}

/** Starts `celmap webhook <args>` on 127.0.0.1 with a fresh certificate; resolves once /readyz is 200. */
export async function startWebhook(args: readonly string[], opts: { pki?: Pki } = {}): Promise<WebhookProcess> {
  const pki = opts.pki ?? makePki();
  const port = await freePort();
  // Health and metrics have ports of their own (plain HTTP); loopback, free ports, so webhooks started side by side never collide.
  const metricsPort = await freePort();
  const proc = spawn(
    process.execPath,
    [cliMain, "webhook", ...args, "--address", "127.0.0.1", "--port", String(port), "--health-addr", "127.0.0.1:0", "--metrics-addr", `127.0.0.1:${metricsPort}`, "--tls-cert", pki.serverCert, "--tls-key", pki.serverKey, "--namespace", "celmap", "--log-level", process.env.CELMAP_E2E_WEBHOOK_LOG ?? "info"],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  let out = "";
  proc.stdout!.setEncoding("utf8").on("data", (d: string) => (out = (out + d).slice(-400_000)));
  proc.stderr!.setEncoding("utf8").on("data", (d: string) => (out = (out + d).slice(-400_000)));
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  const agent = new Agent({ ca: pki.ca, keepAlive: false });
  const ready = (): Promise<boolean> =>
    new Promise((res) => {
      const req = request({ host: "127.0.0.1", port, path: "/readyz", method: "GET", agent, timeout: 2000 }, (r) => {
        r.resume();
        res(r.statusCode === 200);
      });
      req.on("error", () => res(false));
      req.on("timeout", () => req.destroy());
      req.end();
    });
  const wh: WebhookProcess = {
    port,
    url: `https://127.0.0.1:${port}/mutate`,
    pki,
    caBundle: pki.ca.toString("base64"),
    proc,
    logs: () => out,
    pause: () => void proc.kill("SIGSTOP"),
    resume: () => void proc.kill("SIGCONT"),
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGCONT");
      proc.kill("SIGTERM");
      const t = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(t);
      if (opts.pki === undefined) rmSync(pki.dir, { recursive: true, force: true });
    },
    ready,
    requests: () =>
      new Promise((res, rej) => {
        const req = plainRequest({ host: "127.0.0.1", port: metricsPort, path: "/metrics", method: "GET", timeout: 5000 }, (r) => {
          let t = "";
          r.setEncoding("utf8");
          r.on("data", (x: string) => (t += x));
          r.on("end", () => res(t.split("\n").filter((l) => l.startsWith("celmap_webhook_requests_total")).reduce((a, l) => a + Number(l.split(" ").pop()), 0)));
        });
        req.on("error", rej);
        req.end();
      }),
  };
  const deadline = Date.now() + 60_000;
  while (!(await ready())) {
    if (proc.exitCode !== null) throw new Error(`celmap webhook exited (${proc.exitCode}):\n${out.slice(-3000)}`);
    if (Date.now() > deadline) {
      await wh.stop();
      throw new Error(`celmap webhook not ready in 60 s:\n${out.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return wh;
}

// ---------------------------------------------------------------------------------------------
// The MutatingWebhookConfiguration: the Helm chart's

/**
 * The chart's MutatingWebhookConfiguration as rendered into deploy/manifests/celmap.yaml
 * (test/deploy.test.ts renders deploy/helm/celmap and fails when the two differ, so this IS the
 * chart's template with its default values).
 */
export function chartWebhookConfiguration(): Obj {
  const docs = yamlDocs(readFileSync(join(root, "deploy/manifests/celmap.yaml"), "utf8"));
  const mwc = docs.find((d) => d.kind === "MutatingWebhookConfiguration");
  if (mwc === undefined) throw new Error("deploy/manifests/celmap.yaml has no MutatingWebhookConfiguration");
  return mwc;
}

export interface WebhookRegistration {
  readonly name: string;
  readonly webhook: Pick<WebhookProcess, "url" | "caBundle">;
  /** Namespaces sent to the webhook must carry this label (e2e.celmap.io/webhook=<value>). */
  readonly selectorValue: string;
  /** The chart's values: webhook.rules, webhook.failurePolicy, webhook.timeoutSeconds. */
  readonly rules?: readonly Obj[];
  readonly failurePolicy?: "Fail" | "Ignore";
  readonly timeoutSeconds?: number;
  /** Not a chart value (the chart sets IfNeeded). */
  readonly reinvocationPolicy?: "Never" | "IfNeeded";
}

/**
 * The chart's configuration with what a loopback test must change: `clientConfig.url` (the
 * chart's `service` path, on 127.0.0.1) instead of the in-cluster Service, the caBundle, the name,
 * and one more namespaceSelector expression (the chart's own expressions are kept) so only the
 * test's namespaces are sent. Rules, failurePolicy and timeoutSeconds are the chart's values knobs.
 */
export function webhookConfiguration(r: WebhookRegistration): Obj {
  const mwc = structuredClone(chartWebhookConfiguration());
  (mwc.metadata as Obj).name = r.name;
  const hooks = mwc.webhooks as Obj[];
  if (hooks.length !== 1) throw new Error(`the chart's MutatingWebhookConfiguration has ${hooks.length} webhooks, expected 1`);
  const h = hooks[0]!;
  const cc = h.clientConfig as { service?: { path?: string } };
  const path = cc.service?.path ?? "/mutate";
  h.clientConfig = { url: r.webhook.url.replace(/\/mutate$/, path), caBundle: r.webhook.caBundle };
  const ns = h.namespaceSelector as { matchExpressions: Obj[] };
  ns.matchExpressions = [...ns.matchExpressions, { key: "e2e.celmap.io/webhook", operator: "In", values: [r.selectorValue] }];
  if (r.rules !== undefined) h.rules = r.rules;
  if (r.failurePolicy !== undefined) h.failurePolicy = r.failurePolicy;
  if (r.timeoutSeconds !== undefined) h.timeoutSeconds = r.timeoutSeconds;
  if (r.reinvocationPolicy !== undefined) h.reinvocationPolicy = r.reinvocationPolicy;
  return mwc;
}

export function rule(groups: string[], versions: string[], resources: string[], operations: string[] = ["CREATE", "UPDATE"]): Obj {
  return { apiGroups: groups, apiVersions: versions, operations, resources, scope: "*" };
}

// ---------------------------------------------------------------------------------------------
// Objects

export function pod(name: string, namespace: string, extra: { labels?: Record<string, string>; containers?: Obj[] } = {}): Obj {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels: extra.labels ?? { app: name } },
    spec: { containers: extra.containers ?? [{ name: "app", image: "nginx:1.25", env: [{ name: "A", value: "1" }] }] },
  };
}

export function deployment(name: string, namespace: string): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: "nginx:1.25" }] } },
    },
  };
}

export function configMap(name: string, namespace: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): Obj {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data };
}

/** A MAP and its binding; the binding selects the given namespaces by name. */
export function mapPolicy(
  name: string,
  spec: { resources?: Obj[]; mutations: Obj[]; failurePolicy?: string; reinvocationPolicy?: string; matchConditions?: Obj[]; variables?: Obj[]; paramKind?: Obj },
  namespaces: readonly string[],
  binding: Obj = {},
): Obj[] {
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name },
      spec: {
        matchConstraints: { resourceRules: spec.resources ?? [rule([""], ["v1"], ["pods"])] },
        ...(spec.paramKind === undefined ? {} : { paramKind: spec.paramKind }),
        ...(spec.matchConditions === undefined ? {} : { matchConditions: spec.matchConditions }),
        ...(spec.variables === undefined ? {} : { variables: spec.variables }),
        failurePolicy: spec.failurePolicy ?? "Fail",
        reinvocationPolicy: spec.reinvocationPolicy ?? "Never",
        mutations: spec.mutations,
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name },
      spec: {
        policyName: name,
        matchResources: { namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: [...namespaces] }] } },
        ...binding,
      },
    },
  ];
}

export function ac(expression: string): Obj {
  return { patchType: "ApplyConfiguration", applyConfiguration: { expression } };
}

export function jp(expression: string): Obj {
  return { patchType: "JSONPatch", jsonPatch: { expression } };
}

export function writeYaml(dir: string, file: string, docs: readonly Obj[]): string {
  const p = join(dir, file);
  writeFileSync(p, toYaml(docs));
  return p;
}

export function labels(o: Obj): Record<string, string> {
  return ((o.metadata as Obj | undefined)?.labels ?? {}) as Record<string, string>;
}

export function annotations(o: Obj): Record<string, string> {
  return ((o.metadata as Obj | undefined)?.annotations ?? {}) as Record<string, string>;
}
