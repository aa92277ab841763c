/**
 * End-to-end support for the webhook tests: a CA, server and client certificates made with
 * `openssl` in a temporary directory, policy files, a real WebhookServer on loopback with its log
 * captured, and a real HTTPS client (Node `https` trusting the test CA).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest, Agent } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { FilePolicySource } from "../../src/webhook/policies.js";
import { WebhookServer, type WebhookServerOptions } from "../../src/webhook/server.js";

export interface Pki {
  readonly dir: string;
  readonly caCert: string;
  readonly caKey: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly ca: Buffer;
}

function openssl(dir: string, args: readonly string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
}

/** A leaf certificate for `cn` signed by the CA (server: SAN 127.0.0.1 and localhost). */
export function issue(pki: Pick<Pki, "dir" | "caCert" | "caKey">, name: string, cn: string, server: boolean): { cert: string; key: string } {
  const d = pki.dir;
  const ext = join(d, `${name}.ext`);
  writeFileSync(
    ext,
    server
      ? "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n"
      : "extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n",
  );
  openssl(d, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`]);
  openssl(d, ["req", "-new", "-key", `${name}.key`, "-subj", `/CN=${cn}`, "-out", `${name}.csr`]);
  openssl(d, ["x509", "-req", "-in", `${name}.csr`, "-CA", pki.caCert, "-CAkey", pki.caKey, "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", `${name}.crt`]);
  return { cert: join(d, `${name}.crt`), key: join(d, `${name}.key`) };
}

export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), "celmap-webhook-"));
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"]);
  openssl(dir, ["req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=celmap test CA", "-days", "2", "-out", "ca.crt"]);
  const base = { dir, caCert: join(dir, "ca.crt"), caKey: join(dir, "ca.key") };
  const server = issue(base, "server", "celmap-webhook.test", true);
  const client = issue(base, "client", "kube-apiserver", false);
  return { ...base, serverCert: server.cert, serverKey: server.key, clientCert: client.cert, clientKey: client.key, ca: readCa(join(dir, "ca.crt")) };
}

function readCa(f: string): Buffer {
  return execFileSync("cat", [f]);
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// Policies

export interface PolicyOptions {
  readonly name: string;
  readonly failurePolicy?: "Fail" | "Ignore";
  readonly operations?: readonly string[];
  readonly matchCondition?: string;
  readonly mutation: string;
}

export function policyYaml(p: PolicyOptions): string {
  const ops = (p.operations ?? ["CREATE", "UPDATE"]).map((o) => JSON.stringify(o)).join(", ");
  const mc =
    p.matchCondition === undefined
      ? ""
      : `  matchConditions:
  - name: selected
    expression: ${JSON.stringify(p.matchCondition)}
`;
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ${p.name}
spec:
  failurePolicy: ${p.failurePolicy ?? "Fail"}
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: [${ops}]
      resources: ["pods"]
${mc}  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: ${JSON.stringify(p.mutation)}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ${p.name}
spec:
  policyName: ${p.name}
`;
}

/** Adds `label: value` to every pod (value a CEL string expression). */
export function labelPolicy(name: string, label: string, valueExpr: string, extra: Partial<PolicyOptions> = {}): string {
  return policyYaml({ name, mutation: `Object{metadata: Object.metadata{labels: {${JSON.stringify(label)}: ${valueExpr}}}}`, ...extra });
}

/** A Kyverno MutatingPolicy (policies.kyverno.io/v1) adding `label: value` (a CEL string expression) to every pod. */
export function kyvernoPolicyYaml(name: string, label: string, valueExpr: string): string {
  return `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["pods"]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: ${JSON.stringify(`Object{metadata: Object.metadata{labels: {${JSON.stringify(label)}: ${valueExpr}}}}`)}
`;
}

/** A Gatekeeper Assign setting every container's imagePullPolicy to `Always` (Gatekeeper's docs example). */
export function gatekeeperAssignYaml(name: string): string {
  return `apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: ${name}
spec:
  applyTo:
  - groups: [""]
    kinds: ["Pod"]
    versions: ["v1"]
  match:
    scope: Namespaced
    kinds:
    - apiGroups: ["*"]
      kinds: ["Pod"]
  location: "spec.containers[name:*].imagePullPolicy"
  parameters:
    assign:
      value: Always
`;
}

const TEN = "[0,1,2,3,4,5,6,7,8,9]";
/** A mutation that runs past the per-call cost limit. */
export const COST_BOMB = `Object{metadata: Object.metadata{labels: {"n": string(${TEN}.all(a, ${TEN}.all(b, ${TEN}.all(c, ${TEN}.all(d, ${TEN}.all(e, ${TEN}.all(f, true)))))))}}}`;

export function labelIs(label: string, value: string): string {
  return `has(object.metadata.labels) && ${JSON.stringify(label)} in object.metadata.labels && object.metadata.labels[${JSON.stringify(label)}] == ${JSON.stringify(value)}`;
}

// ---------------------------------------------------------------------------------------------
// Server and log capture

export interface LogCapture {
  readonly lines: Record<string, unknown>[];
  find(pred: (l: Record<string, unknown>) => boolean): Record<string, unknown> | undefined;
}

export interface Started {
  readonly server: WebhookServer;
  readonly port: number;
  readonly log: LogCapture;
}

export async function startServer(
  pki: Pki,
  paths: readonly string[],
  options: Partial<Omit<WebhookServerOptions, "tls" | "logger">> & { tls?: WebhookServerOptions["tls"] } = {},
): Promise<Started> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString("utf8").split("\n")) if (l.trim() !== "") lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  const logger = pino({ level: "debug" }, sink);
  const server = new WebhookServer({
    port: 0,
    address: "127.0.0.1",
    tls: options.tls ?? { certFile: pki.serverCert, keyFile: pki.serverKey },
    source: options.source ?? new FilePolicySource(paths, { debounceMs: 50, pollIntervalMs: 0 }),
    logger,
    headersTimeoutMs: 1_000,
    connectionsCheckingIntervalMs: 200,
    drainIdleGraceMs: 300,
    ...options,
  });
  const addr = await server.start();
  return { server, port: addr.port, log: { lines, find: (pred) => lines.find(pred) } };
}

// ---------------------------------------------------------------------------------------------
// Client

export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  json<T = Record<string, unknown>>(): T;
}

export interface ClientOptions {
  readonly agent?: Agent;
  readonly method?: string;
  readonly path?: string;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly headers?: Record<string, string>;
}

export function call(pki: Pki, port: number, body: string | Buffer | undefined, o: ClientOptions = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: "127.0.0.1",
        port,
        method: o.method ?? (body === undefined ? "GET" : "POST"),
        path: o.path ?? "/mutate",
        ca: pki.ca,
        ...(o.agent !== undefined ? { agent: o.agent } : { agent: false }),
        ...(o.cert !== undefined ? { cert: o.cert, key: o.key } : {}),
        headers: { ...(body !== undefined ? { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) } : {}), ...o.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

let uidSeq = 0;

export interface ReviewOptions {
  readonly operation?: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly oldLabels?: Record<string, string>;
  readonly dryRun?: boolean;
  readonly name?: string;
}

/**
 * A Pod as the apiserver sends it to a mutating webhook: decoded, hence defaulted by the scheme
 * (k8s.io/kubernetes pkg/apis/core/v1 SetDefaults_Pod / PodSpec / Container: restartPolicy,
 * dnsPolicy, schedulerName, terminationGracePeriodSeconds, securityContext, enableServiceLinks;
 * imagePullPolicy IfNotPresent for a tagged image, terminationMessagePath/Policy, resources).
 * The engine runs the defaulter after each mutation, as the MAP plugin does: on an undefaulted
 * object that would add every default to the webhook's patch.
 */
export function pod(name: string, namespace: string, labels: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: {
      containers: [{ name: "app", image: "nginx:1.27", imagePullPolicy: "IfNotPresent", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", resources: {} }],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      securityContext: {},
      schedulerName: "default-scheduler",
      enableServiceLinks: true,
    },
  };
}

export function review(o: ReviewOptions = {}): { uid: string; body: string } {
  const uid = `uid-${process.pid}-${++uidSeq}`;
  const namespace = o.namespace ?? "default";
  const name = o.name ?? `pod-${uidSeq}`;
  const operation = o.operation ?? "CREATE";
  const object = operation === "DELETE" ? null : pod(name, namespace, o.labels);
  const oldObject = operation === "UPDATE" || operation === "DELETE" ? pod(name, namespace, o.oldLabels ?? {}) : null;
  const request = {
    uid,
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    requestKind: { group: "", version: "v1", kind: "Pod" },
    requestResource: { group: "", version: "v1", resource: "pods" },
    name,
    namespace,
    operation,
    userInfo: { username: "alice", uid: "1", groups: ["system:authenticated"] },
    object,
    oldObject,
    dryRun: o.dryRun ?? false,
    options: { apiVersion: "meta.k8s.io/v1", kind: operation === "CREATE" ? "CreateOptions" : "UpdateOptions" },
  };
  return { uid, body: JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request }) };
}

export interface ReviewResponse {
  uid: string;
  allowed: boolean;
  patchType?: string;
  patch?: string;
  status?: { code: number; message: string; reason?: string };
  warnings?: string[];
}

export function responseOf(r: HttpResult): ReviewResponse {
  const j = r.json<{ apiVersion: string; kind: string; response: ReviewResponse }>();
  return j.response;
}

export function patchOf(r: ReviewResponse): { op: string; path: string; value?: unknown }[] {
  if (r.patch === undefined) return [];
  return JSON.parse(Buffer.from(r.patch, "base64").toString("utf8")) as { op: string; path: string; value?: unknown }[];
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function waitFor(pred: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await pred()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function metricsText(pki: Pki, port: number): Promise<string> {
  return (await call(pki, port, undefined, { path: "/metrics" })).text;
}

/** The value of a metric sample line `name{labels} value` whose labels include all of `labels`. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const ls = m[2] ?? "";
    if (Object.entries(labels).every(([k, v]) => ls.includes(`${k}="${v}"`))) {
      total += Number(m[3]);
      found = true;
    }
  }
  return found ? total : 0;
}
