/**
 * deploy/: the Helm chart and the plain manifests, checked against the Kubernetes OpenAPI schema
 * (`../shared/k8s-openapi/swagger.json`).
 *
 * There is no `helm` binary here, so the chart is rendered by OUR renderer below, which implements
 * only the Go-template subset the chart uses (`{{ .Values.x }}`, `.Release`/`.Chart` fields,
 * `define`/`include` of simple names, `if`/`else`/`end`, `range` over lists, `toYaml`, `nindent`,
 * `quote`, `default`, `{{-`/`-}}` trimming). It is not helm: keep the chart to this subset.
 *
 * Every rendered document (and every plain manifest) is validated: a known kind (cert-manager's
 * Certificate/Issuer are CRDs absent from the schema and checked for shape only), required fields,
 * no unknown fields, scalar types (int-or-string, quantities), enums where the schema has them.
 *
 * `WRITE_MANIFESTS=1 npx vitest run test/deploy.test.ts` regenerates deploy/manifests/celmap.yaml
 * from the chart (release `celmap`, namespace `celmap`); the test checks that they agree.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { documents, parseTemplate, renderChart } from "./support/helm.js";
import { upstreamPath } from "./support/upstream.js";

const root = resolve(import.meta.dirname, "..");
const manifestsFile = join(root, "deploy/manifests/celmap.yaml");
const swaggerFile = upstreamPath("k8s-openapi/swagger.json", "the Helm chart validation tests (one per rendered chart)");


// ---------------------------------------------------------------------------------------------
// Validation against swagger.json

interface SchemaObj {
  type?: string;
  format?: string;
  $ref?: string;
  properties?: Record<string, SchemaObj>;
  additionalProperties?: SchemaObj | boolean;
  items?: SchemaObj;
  required?: string[];
  enum?: unknown[];
  "x-kubernetes-group-version-kind"?: { group: string; version: string; kind: string }[];
}

const swagger = swaggerFile !== undefined ? (JSON.parse(readFileSync(swaggerFile, "utf8")) as { definitions: Record<string, SchemaObj> }) : undefined;
const defs = swagger?.definitions ?? {};
const byGvk = new Map<string, string>();
for (const [name, d] of Object.entries(defs)) {
  for (const g of d["x-kubernetes-group-version-kind"] ?? []) byGvk.set(`${g.group === "" ? "" : `${g.group}/`}${g.version}/${g.kind}`, name);
}

/**
 * This swagger.json carries no `enum` on these fields (the allowed values are in the descriptions):
 * the enums of the fields the chart sets, copied from those descriptions, keyed definition.property.
 * Schema enums, where present, are checked as well.
 */
const DESCRIBED_ENUMS: Record<string, readonly string[]> = {
  "io.k8s.api.admissionregistration.v1.MutatingWebhook.failurePolicy": ["Ignore", "Fail"],
  "io.k8s.api.admissionregistration.v1.MutatingWebhook.sideEffects": ["Unknown", "None", "Some", "NoneOnDryRun"],
  "io.k8s.api.admissionregistration.v1.MutatingWebhook.reinvocationPolicy": ["Never", "IfNeeded"],
  "io.k8s.api.admissionregistration.v1.MutatingWebhook.matchPolicy": ["Exact", "Equivalent"],
  "io.k8s.api.admissionregistration.v1.RuleWithOperations.scope": ["Cluster", "Namespaced", "*"],
  "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement.operator": ["In", "NotIn", "Exists", "DoesNotExist"],
  "io.k8s.api.core.v1.ServiceSpec.type": ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"],
  "io.k8s.api.core.v1.Container.imagePullPolicy": ["Always", "IfNotPresent", "Never"],
  "io.k8s.api.core.v1.ContainerPort.protocol": ["TCP", "UDP", "SCTP"],
  "io.k8s.api.core.v1.ServicePort.protocol": ["TCP", "UDP", "SCTP"],
  "io.k8s.api.core.v1.HTTPGetAction.scheme": ["HTTP", "HTTPS"],
  "io.k8s.api.core.v1.SeccompProfile.type": ["Localhost", "RuntimeDefault", "Unconfined"],
  "io.k8s.api.apps.v1.DeploymentStrategy.type": ["Recreate", "RollingUpdate"],
};

/** CRDs (not in the built-in schema): the fields checked by shape. */
const CRD_KINDS = new Set(["cert-manager.io/v1/Issuer", "cert-manager.io/v1/Certificate"]);

function validate(value: unknown, schema: SchemaObj, path: string, errors: string[], defName?: string): void {
  if (schema.$ref !== undefined) {
    const name = schema.$ref.replace("#/definitions/", "");
    const d = defs[name];
    if (d === undefined) return void errors.push(`${path}: unknown definition ${name}`);
    if (name === "io.k8s.apimachinery.pkg.util.intstr.IntOrString") {
      if (typeof value !== "string" && !Number.isInteger(value)) errors.push(`${path}: want int or string, got ${JSON.stringify(value)}`);
      return;
    }
    if (name === "io.k8s.apimachinery.pkg.api.resource.Quantity") {
      if (!(typeof value === "number" || (typeof value === "string" && /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|[KMGTPE]i|[numkMGTPE])?$/.test(value)))) {
        errors.push(`${path}: not a quantity ${JSON.stringify(value)}`);
      }
      return;
    }
    if (name === "io.k8s.apimachinery.pkg.apis.meta.v1.Time") {
      if (typeof value !== "string") errors.push(`${path}: want a time string`);
      return;
    }
    return validate(value, d, path, errors, name);
  }
  if (value === null) return; // null = unset
  if (schema.enum !== undefined && !schema.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not one of ${JSON.stringify(schema.enum)}`);
  switch (schema.type) {
    case "string":
      if (typeof value !== "string") errors.push(`${path}: want string, got ${JSON.stringify(value)}`);
      else if (schema.format === "byte" && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) errors.push(`${path}: not base64`);
      return;
    case "integer":
      if (!Number.isInteger(value)) errors.push(`${path}: want integer, got ${JSON.stringify(value)}`);
      return;
    case "number":
      if (typeof value !== "number") errors.push(`${path}: want number, got ${JSON.stringify(value)}`);
      return;
    case "boolean":
      if (typeof value !== "boolean") errors.push(`${path}: want boolean, got ${JSON.stringify(value)}`);
      return;
    case "array":
      if (!Array.isArray(value)) return void errors.push(`${path}: want list, got ${JSON.stringify(value)}`);
      value.forEach((v, i) => schema.items !== undefined && validate(v, schema.items, `${path}[${i}]`, errors));
      return;
    case "object":
    case undefined: {
      if (schema.properties === undefined && schema.additionalProperties === undefined && schema.type === undefined) return; // untyped
      if (typeof value !== "object" || Array.isArray(value)) return void errors.push(`${path}: want object, got ${JSON.stringify(value)}`);
      const obj = value as Record<string, unknown>;
      for (const r of schema.required ?? []) if (!(r in obj)) errors.push(`${path}.${r}: required`);
      for (const [k, v] of Object.entries(obj)) {
        const p = schema.properties?.[k];
        const described = defName !== undefined ? DESCRIBED_ENUMS[`${defName}.${k}`] : undefined;
        if (described !== undefined && !described.includes(v as string)) errors.push(`${path}.${k}: ${JSON.stringify(v)} not one of ${JSON.stringify(described)}`);
        if (p !== undefined) validate(v, p, `${path}.${k}`, errors);
        else if (typeof schema.additionalProperties === "object") validate(v, schema.additionalProperties, `${path}.${k}`, errors);
        else if (schema.additionalProperties !== true) errors.push(`${path}.${k}: unknown field`);
      }
      return;
    }
    default:
      return;
  }
}

function validateDocument(doc: Record<string, unknown>): string[] {
  const apiVersion = String(doc["apiVersion"]);
  const kind = String(doc["kind"]);
  const key = `${apiVersion}/${kind}`;
  const meta = doc["metadata"] as Record<string, unknown> | undefined;
  const where = `${kind}/${String(meta?.["name"])}`;
  if (CRD_KINDS.has(key)) {
    const errors: string[] = [];
    validate(meta, { $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" }, `${where}.metadata`, errors);
    if (typeof doc["spec"] !== "object") errors.push(`${where}.spec: required`);
    return errors;
  }
  const def = byGvk.get(key);
  if (def === undefined) return [`${where}: unknown kind ${key}`];
  const errors: string[] = [];
  validate(doc, { $ref: `#/definitions/${def}` }, where, errors);
  if (typeof meta?.["name"] !== "string" || meta["name"] === "") errors.push(`${where}.metadata.name: required`);
  return errors;
}

// ---------------------------------------------------------------------------------------------

const variants: Record<string, Record<string, unknown>> = {
  defaults: {},
  "cert-manager": { certManager: { enabled: true } },
  "cluster source, Ignore, caBundle": {
    clusterSource: { enabled: true, paramResources: [{ apiGroups: [""], resources: ["configmaps"] }, { apiGroups: ["example.com"], resources: ["settings"] }] },
    webhook: { failurePolicy: "Ignore", caBundle: Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64"), excludeNamespaces: ["monitoring", "cert-manager"] },
  },
  "audit Job (3 shards, a report volume, extra args)": {
    audit: { enabled: true, shards: 3, parallelism: 3, reportVolume: { claimName: "audit-reports" }, extraArgs: ["-n", "team-a", "-l", "app=web"] },
  },
  "client certificates, TLS 1.3, suites, allow-empty": {
    clientAuth: { enabled: true, caSecretName: "apiserver-client-ca", commonNames: "kube-apiserver,kube-apiserver-2" },
    tls: { minVersion: "1.3", cipherSuites: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" },
    allowEmpty: true,
  },
};

describe.skipIf(swagger === undefined)("deploy: Helm chart (rendered by our Go-template subset, not helm)", () => {
  for (const [name, overrides] of Object.entries(variants)) {
    it(`${name}: every rendered document is valid against swagger.json`, () => {
      const docs = documents(renderChart("celmap", "celmap-system", overrides), "rendered.yaml");
      expect(docs.length).toBeGreaterThanOrEqual(6);
      const errors = docs.flatMap(validateDocument);
      expect(errors).toEqual([]);
    });
  }

  it("has the webhook's required shape", () => {
    const docs = documents(renderChart("celmap", "celmap-system", variants["cert-manager"]!), "rendered.yaml");
    const kinds = docs.map((d) => d["kind"]);
    for (const k of ["Deployment", "PodDisruptionBudget", "Service", "ServiceAccount", "ConfigMap", "MutatingWebhookConfiguration", "Certificate", "Issuer"]) expect(kinds).toContain(k);
    const dep = docs.find((d) => d["kind"] === "Deployment") as any;
    expect(dep.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(dep.spec.template.spec.affinity.podAntiAffinity).toBeDefined();
    const c = dep.spec.template.spec.containers[0];
    expect(c.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "health", scheme: "HTTP" });
    expect(c.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "health", scheme: "HTTP" });
    expect(c.ports.map((p: { name: string; containerPort: number }) => [p.name, p.containerPort])).toEqual([["https", 8443], ["health", 9090], ["metrics", 8888]]);
    expect(c.args).toEqual(expect.arrayContaining(["--health-addr", ":9090", "--metrics-addr", ":8888", "--tls-min-version", "1.2"]));
    expect(c.args).not.toContain("--client-ca");
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(dep.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(c.resources.requests.cpu).toBeDefined();
    expect(c.resources.limits.memory).toBeDefined();
    const mwc = docs.find((d) => d["kind"] === "MutatingWebhookConfiguration") as any;
    expect(mwc.metadata.annotations["cert-manager.io/inject-ca-from"]).toBe("celmap-system/celmap-webhook");
    const w = mwc.webhooks[0];
    expect(w.sideEffects).toBe("None");
    expect(w.reinvocationPolicy).toBe("IfNeeded");
    expect(w.admissionReviewVersions).toEqual(["v1"]);
    expect(w.timeoutSeconds).toBe(5);
    expect(w.clientConfig.caBundle).toBeUndefined();
    expect(w.namespaceSelector.matchExpressions).toEqual([{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system", "celmap-system"] }]);
    const cert = docs.find((d) => d["kind"] === "Certificate") as any;
    expect(cert.spec.dnsNames).toContain("celmap-webhook.celmap-system.svc");
    expect(kinds).not.toContain("ClusterRole");
  });

  it("RBAC: read-only, only what the informers need", () => {
    const docs = documents(renderChart("celmap", "celmap-system", variants["cluster source, Ignore, caBundle"]!), "rendered.yaml");
    const role = docs.find((d) => d["kind"] === "ClusterRole") as any;
    for (const r of role.rules) expect(r.verbs.every((v: string) => ["get", "list", "watch"].includes(v))).toBe(true);
    const resources = role.rules.flatMap((r: any) => r.resources ?? []);
    expect(resources).toEqual(expect.arrayContaining(["mutatingadmissionpolicies", "mutatingadmissionpolicybindings", "namespaces", "configmaps", "settings", "mutatingpolicies", "assign"]));
    expect(resources).not.toContain("secrets");
    const dep = docs.find((d) => d["kind"] === "Deployment") as any;
    expect(dep.spec.template.spec.containers[0].args).toContain("--in-cluster");
    expect(dep.spec.template.spec.containers[0].args).not.toContain("-f");
    const mwc = docs.find((d) => d["kind"] === "MutatingWebhookConfiguration") as any;
    expect(mwc.webhooks[0].failurePolicy).toBe("Ignore");
    expect(mwc.webhooks[0].namespaceSelector.matchExpressions[0].values).toEqual(["kube-system", "celmap-system", "monitoring", "cert-manager"]);
    expect(mwc.webhooks[0].clientConfig.caBundle).toBeDefined();
  });

  it("audit: an Indexed Job (completions = shards, JOB_COMPLETION_INDEX -> --shard), read-only RBAC (list, and get on /openapi/v3)", () => {
    const docs = documents(renderChart("celmap", "celmap-system", variants["audit Job (3 shards, a report volume, extra args)"]!), "rendered.yaml") as any[];
    const job = docs.find((d) => d.kind === "Job");
    expect(job.metadata.name).toBe("celmap-audit");
    expect(job.spec.completionMode).toBe("Indexed");
    expect(job.spec.completions).toBe(3);
    expect(job.spec.parallelism).toBe(3);
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe("Never");
    expect(pod.serviceAccountName).toBe("celmap-audit");
    const c = pod.containers[0];
    expect(c.args).toEqual(["audit", "--shard", "$(JOB_COMPLETION_INDEX)/3", "--operation", "UPDATE", "-o", "json", "--report", "/reports/shard-$(JOB_COMPLETION_INDEX).json", "-n", "team-a", "-l", "app=web"]);
    expect(c.volumeMounts).toEqual([{ name: "reports", mountPath: "/reports" }]);
    expect(pod.volumes).toEqual([{ name: "reports", persistentVolumeClaim: { claimName: "audit-reports" } }]);
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    const role = docs.find((d) => d.kind === "ClusterRole" && d.metadata.name === "celmap-audit");
    for (const r of role.rules) {
      if (r.nonResourceURLs !== undefined) expect(r.verbs).toEqual(["get"]);
      else expect(r.verbs).toEqual(["list"]);
    }
    const binding = docs.find((d) => d.kind === "ClusterRoleBinding" && d.metadata.name === "celmap-audit");
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "celmap-audit", namespace: "celmap-system" }]);
    expect(binding.roleRef.name).toBe("celmap-audit");
    // Off by default: the plain manifests carry no Job.
    expect(documents(renderChart("celmap", "celmap"), "rendered.yaml").some((d) => d["kind"] === "Job")).toBe(false);
    // Without a report volume: no --report, no volume.
    const plain = (documents(renderChart("celmap", "x", { audit: { enabled: true } }), "rendered.yaml") as any[]).find((d) => d.kind === "Job");
    expect(plain.spec.template.spec.containers[0].args).toEqual(["audit", "--shard", "$(JOB_COMPLETION_INDEX)/4", "--operation", "UPDATE", "-o", "json"]);
    expect(plain.spec.template.spec.volumes).toBeUndefined();
  });

  it("rejects a failurePolicy outside the enum (the validator checks enums)", () => {
    const docs = documents(renderChart("celmap", "x", { webhook: { failurePolicy: "Sometimes" } }), "rendered.yaml");
    expect(docs.flatMap(validateDocument).join("\n")).toMatch(/failurePolicy: "Sometimes" not one of/);
  });

  it("client certificates: the CA Secret mounted, --client-ca and --client-cn passed; TLS and --allow-empty flags", () => {
    const docs = documents(renderChart("celmap", "celmap-system", variants["client certificates, TLS 1.3, suites, allow-empty"]!), "rendered.yaml");
    const dep = docs.find((d) => d["kind"] === "Deployment") as any;
    const c = dep.spec.template.spec.containers[0];
    const arg = (name: string): string | undefined => c.args[c.args.indexOf(name) + 1];
    expect(arg("--client-ca")).toBe("/etc/celmap/client-ca/ca.crt");
    expect(arg("--client-cn")).toBe("kube-apiserver,kube-apiserver-2");
    expect(arg("--tls-min-version")).toBe("1.3");
    expect(arg("--tls-cipher-suites")).toBe("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
    expect(c.args).toContain("--allow-empty");
    expect(c.volumeMounts).toContainEqual({ name: "client-ca", mountPath: "/etc/celmap/client-ca", readOnly: true });
    expect(dep.spec.template.spec.volumes).toContainEqual({ name: "client-ca", secret: { secretName: "apiserver-client-ca" } });
  });

  it("the renderer refuses templates outside its subset", () => {
    expect(() => parseTemplate("{{ with .Values.x }}{{ end }}")).toThrow(/subset/);
  });

  it("plain manifests (deploy/manifests/celmap.yaml) are the chart rendered for namespace celmap, and valid", () => {
    const header = "# Generated from deploy/helm/celmap (release celmap, namespace celmap, default values) by\n# WRITE_MANIFESTS=1 npx vitest run test/deploy.test.ts. Apply after deploy/namespace.yaml and deploy/gen-certs.sh.\n";
    const rendered = header + renderChart("celmap", "celmap");
    if (process.env["WRITE_MANIFESTS"] === "1") writeFileSync(manifestsFile, rendered);
    expect(readFileSync(manifestsFile, "utf8")).toBe(rendered);
    const docs = documents(readFileSync(manifestsFile, "utf8"), manifestsFile);
    docs.push(...documents(readFileSync(join(root, "deploy/namespace.yaml"), "utf8"), "namespace.yaml"));
    expect(docs.flatMap(validateDocument)).toEqual([]);
  });

  it("deploy/gen-certs.sh makes a valid kubernetes.io/tls Secret and a caBundle", () => {
    const dir = mkdtempSync(join(tmpdir(), "celmap-gen-certs-"));
    try {
      const caBundle = execFileSync("sh", [join(root, "deploy/gen-certs.sh"), "celmap", "celmap-webhook"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] }).toString().trim();
      expect(Buffer.from(caBundle, "base64").toString()).toContain("BEGIN CERTIFICATE");
      const docs = documents(readFileSync(join(dir, "celmap-webhook-tls.yaml"), "utf8"), "secret.yaml");
      expect(docs.flatMap(validateDocument)).toEqual([]);
      const rendered = documents(renderChart("celmap", "celmap", { webhook: { caBundle } }), "rendered.yaml");
      expect(rendered.flatMap(validateDocument)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
