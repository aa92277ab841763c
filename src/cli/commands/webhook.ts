/**
 * `celmap webhook -f <files/dirs>... --tls-cert <file> --tls-key <file> [...]`: serve the
 * MutatingAdmissionPolicy pipeline as a mutating admission webhook (src/webhook).
 */
import { DEFAULT_CLIENT_CN, DEFAULT_HEALTH_ADDR, DEFAULT_MAX_BODY_BYTES, DEFAULT_METRICS_ADDR, DEFAULT_PORT, DEFAULT_TIMEOUT_MS } from "../../webhook/defaults.js";
import { DEFAULT_CIPHER_SUITES } from "../../webhook/tls-suites.js";
import { ExitCode, type CliIo, type Command } from "../command.js";
import { HELP_OPTION, UsageError, type OptionSpec, type ParsedArgs } from "../options.js";

const OPTIONS: readonly OptionSpec[] = [
  {
    name: "filename",
    short: "f",
    type: "string",
    multiple: true,
    placeholder: "<file|dir>",
    description:
      "Policies: MutatingAdmissionPolicies and bindings, their param objects and Namespace objects, Kyverno MutatingPolicies and PolicyExceptions, Gatekeeper mutators (translated into MAPs), in YAML or JSON files; directories are read recursively. Watched: changes are reloaded atomically, and a bad edit keeps the last good set.",
  },
  {
    name: "kubeconfig",
    type: "string",
    placeholder: "<file>",
    description: "Read MutatingAdmissionPolicies, bindings and namespaces, and Kyverno MutatingPolicies and Gatekeeper mutators where their CRDs are installed, from the cluster of this kubeconfig (informers: list + watch) instead of -f; custom resource schemas from its OpenAPI v3 (/openapi/v3, polled every 5 s).",
  },
  { name: "in-cluster", type: "boolean", description: "Like --kubeconfig, with the pod's service account (in-cluster configuration)." },
  { name: "no-kyverno", type: "boolean", description: "With --kubeconfig/--in-cluster: do not watch Kyverno MutatingPolicies even where they are served (e.g. no RBAC for them)." },
  { name: "no-gatekeeper", type: "boolean", description: "With --kubeconfig/--in-cluster: do not watch Gatekeeper mutators even where they are served." },
  {
    name: "param-resource",
    type: "string",
    multiple: true,
    placeholder: "<[group/]version/resource=Kind>",
    description:
      "With --kubeconfig/--in-cluster: watch this param kind (list + watch, cluster-wide) for bindings' paramRef, e.g. v1/configmaps=ConfigMap or example.com/v1/settings=Setting; without it a binding's params are not found. Repeatable.",
  },
  { name: "tls-cert", type: "string", placeholder: "<file>", description: "Serving certificate (PEM, with its chain). Reloaded on change." },
  { name: "tls-key", type: "string", placeholder: "<file>", description: "Serving key (PEM). Reloaded on change." },
  { name: "client-ca", type: "string", placeholder: "<file>", description: "Require client certificates signed by this CA (PEM), with a common name from --client-cn." },
  {
    name: "client-cn",
    type: "string",
    placeholder: "<names>",
    description: `With --client-ca: the common names allowed, comma-separated (default ${DEFAULT_CLIENT_CN}, as Gatekeeper's --client-cn-name); "" allows any certificate the CA signed.`,
  },
  {
    name: "tls-min-version",
    type: "string",
    placeholder: "1.2|1.3",
    description: "Lowest TLS version (default 1.2; TLS 1.3 is always offered).",
  },
  {
    name: "tls-cipher-suites",
    type: "string",
    placeholder: "<suites>",
    description: `TLS 1.2 cipher suites, comma-separated, IANA names as in Go and Kubernetes (or OpenSSL names). Default: forward-secret AEAD only (${DEFAULT_CIPHER_SUITES.join(", ")}).`,
  },
  {
    name: "health-addr",
    type: "string",
    placeholder: "<[host]:port>",
    description: `Plain-HTTP address of /healthz and /readyz (default ${DEFAULT_HEALTH_ADDR}; with --workers the primary serves it); "" serves them on the webhook port only.`,
  },
  {
    name: "metrics-addr",
    type: "string",
    placeholder: "<[host]:port>",
    description: `Plain-HTTP address of /metrics (default ${DEFAULT_METRICS_ADDR}); "" serves it on the webhook port.`,
  },
  {
    name: "allow-empty",
    type: "boolean",
    description: "Start, and reload, with an empty or missing policy source. Without it the webhook exits 1 at start-up without a usable policy set, and an empty source never replaces one.",
  },
  { name: "log-sample", type: "string", placeholder: "<n>", description: "Log one in n successful admissions at info (default 1: every one; failures and denials always)." },
  { name: "port", type: "string", placeholder: "<port>", description: `Port to listen on (default ${DEFAULT_PORT}).` },
  { name: "address", type: "string", placeholder: "<ip>", description: "Address to listen on (default: all interfaces)." },
  { name: "workers", type: "string", placeholder: "<n>", description: "Worker processes sharing the port (default 1; use the replica's core count)." },
  {
    name: "timeout",
    type: "string",
    placeholder: "<duration>",
    description: `Per-request deadline, below the webhook's timeoutSeconds (default ${DEFAULT_TIMEOUT_MS / 1000}s): 9s, 500ms, 1m.`,
  },
  {
    name: "failure-policy",
    type: "string",
    placeholder: "Fail|Ignore",
    description: "What a request answers when the webhook itself fails (deadline, internal error, no policies loaded): Fail denies (default), Ignore admits unchanged with a warning.",
  },
  {
    name: "namespace",
    type: "string",
    placeholder: "<ns>",
    description: "The webhook's own namespace, never mutated (default: $POD_NAMESPACE).",
  },
  { name: "max-body", type: "string", placeholder: "<bytes>", description: `Largest request body (default ${DEFAULT_MAX_BODY_BYTES}, kube-apiserver's limit).` },
  { name: "log-level", type: "string", placeholder: "<level>", description: "fatal, error, warn, info (default), debug (every request), trace." },
  HELP_OPTION,
];

/** `9s`, `500ms`, `1m`, `1.5s`, or a bare number of seconds → milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (m === null) throw new UsageError(`invalid duration ${JSON.stringify(text)}: use 9s, 500ms or 1m`);
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  const ms = unit === "ms" ? n : unit === "s" ? n * 1000 : n * 60_000;
  if (ms <= 0) throw new UsageError(`duration ${JSON.stringify(text)} must be positive`);
  return ms;
}

/** `v1/configmaps=ConfigMap`, `example.com/v1/settings=Setting` → the param resource the cluster source watches. */
export function parseParamResource(text: string): { group: string; version: string; resource: string; kind: string; role: "param" } {
  const m = /^(?:([a-z0-9.-]+)\/)?([a-z0-9]+)\/([a-z0-9-]+)=([A-Za-z0-9]+)$/.exec(text.trim());
  if (m === null) throw new UsageError(`--param-resource ${JSON.stringify(text)}: use [group/]version/resource=Kind, e.g. v1/configmaps=ConfigMap`);
  return { group: m[1] ?? "", version: m[2]!, resource: m[3]!, kind: m[4]!, role: "param" };
}

function positiveInt(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return Number(text);
}

function stringOpt(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === "string" ? v : undefined;
}

export const webhookCommand: Command = {
  name: "webhook",
  summary: "Serve the policies as a mutating admission webhook (HTTPS, AdmissionReview v1).",
  usage: "celmap webhook -f <files/dirs>... --tls-cert <file> --tls-key <file> [--port 8443] [--address <ip>] [options]",
  description:
    "Runs an HTTPS server that answers kube-apiserver's AdmissionReview (admission.k8s.io/v1) requests on /mutate with the " +
    "MutatingAdmissionPolicy pipeline celmap evaluates offline: the same matching, CEL, patches, failure policies and " +
    "reinvocation, returned as a base64 JSONPatch. /healthz and /readyz (ready once the policies are loaded) are served on " +
    "--health-addr and /metrics (Prometheus) on --metrics-addr, plain HTTP; logs are JSON lines on stdout, one per admission. SIGTERM drains in-flight requests and exits. " +
    "Namespaces not given as Namespace objects are seen with only their kubernetes.io/metadata.name label.",
  options: OPTIONS,
  examples: [
    {
      command: "celmap webhook -f policies/ --tls-cert tls.crt --tls-key tls.key",
      explanation: "Serve the policies under policies/ on :8443; edits are reloaded.",
    },
    {
      command: "celmap webhook -f policies/ --tls-cert tls.crt --tls-key tls.key --workers 2 --timeout 2s --failure-policy Ignore",
      explanation: "Two worker processes; a request not answered within 2 s is admitted unchanged.",
    },
  ],
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const paths = [...((args.values["filename"] as readonly string[] | undefined) ?? []), ...args.positionals];
    const kubeconfig = stringOpt(args, "kubeconfig");
    const inCluster = args.values["in-cluster"] === true;
    const fromCluster = kubeconfig !== undefined || inCluster;
    if (fromCluster && paths.length > 0) throw new UsageError("use either -f or --kubeconfig/--in-cluster, not both");
    if (kubeconfig !== undefined && inCluster) throw new UsageError("use either --kubeconfig or --in-cluster, not both");
    const paramResources = ((args.values["param-resource"] as readonly string[] | undefined) ?? []).map(parseParamResource);
    if (!fromCluster && paramResources.length > 0) throw new UsageError("--param-resource needs --kubeconfig or --in-cluster (with -f, put param objects in the files)");
    if (!fromCluster && paths.length === 0) throw new UsageError("at least one -f <file|dir> with policies (or --kubeconfig/--in-cluster) is required");
    const cert = stringOpt(args, "tls-cert");
    const key = stringOpt(args, "tls-key");
    if (cert === undefined || key === undefined) throw new UsageError("--tls-cert and --tls-key are required");
    const clientCa = stringOpt(args, "client-ca");
    const failurePolicy = stringOpt(args, "failure-policy") ?? "Fail";
    if (failurePolicy !== "Fail" && failurePolicy !== "Ignore") throw new UsageError(`--failure-policy must be Fail or Ignore, got ${JSON.stringify(failurePolicy)}`);
    const timeout = stringOpt(args, "timeout");
    const port = positiveInt("port", stringOpt(args, "port"), 0, 65535);
    const workers = positiveInt("workers", stringOpt(args, "workers"), 1, 256);
    const maxBody = positiveInt("max-body", stringOpt(args, "max-body"), 1024, 1 << 30);
    const address = stringOpt(args, "address");
    const namespace = stringOpt(args, "namespace") ?? process.env["POD_NAMESPACE"];
    const logLevel = stringOpt(args, "log-level");
    const clientCn = stringOpt(args, "client-cn");
    if (clientCn !== undefined && clientCa === undefined) throw new UsageError("--client-cn needs --client-ca");
    const minVersion = stringOpt(args, "tls-min-version");
    if (minVersion !== undefined && minVersion !== "1.2" && minVersion !== "1.3") throw new UsageError(`--tls-min-version must be 1.2 or 1.3, got ${JSON.stringify(minVersion)}`);
    const suites = stringOpt(args, "tls-cipher-suites")?.split(",").map((x) => x.trim()).filter((x) => x !== "");
    if (suites !== undefined) {
      const { cipherList } = await import("../../webhook/tls-suites.js");
      try {
        cipherList(suites);
      } catch (e) {
        throw new UsageError(`--tls-cipher-suites: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const addr = (name: string, dflt: string): string | undefined => {
      const v = stringOpt(args, name) ?? dflt;
      if (v === "") return undefined;
      if (!/^(\[[^\]]+\]|[^:]*):\d{1,5}$/.test(v)) throw new UsageError(`--${name} must be [host]:port (e.g. :9090 or 127.0.0.1:9090), got ${JSON.stringify(v)}`);
      return v;
    };
    const healthAddress = addr("health-addr", DEFAULT_HEALTH_ADDR);
    const metricsAddress = addr("metrics-addr", DEFAULT_METRICS_ADDR);
    const logSample = positiveInt("log-sample", stringOpt(args, "log-sample"), 1, 1_000_000);
    if (logLevel !== undefined && !["fatal", "error", "warn", "info", "debug", "trace", "silent"].includes(logLevel)) {
      throw new UsageError(`--log-level must be fatal, error, warn, info, debug or trace, got ${JSON.stringify(logLevel)}`);
    }
    // Loaded when the command runs (`--help` does not need it); run.ts loads the server only where it serves.
    const { runWebhook } = await import("../../webhook/run.js");
    const code = await runWebhook({
      paths,
      ...(fromCluster
        ? {
            cluster: {
              ...(kubeconfig !== undefined ? { kubeconfig } : { inCluster: true }),
              ...(args.values["no-kyverno"] === true ? { kyverno: false } : {}),
              ...(args.values["no-gatekeeper"] === true ? { gatekeeper: false } : {}),
              ...(paramResources.length > 0 ? { paramResources } : {}),
            },
          }
        : {}),
      tls: {
        certFile: cert,
        keyFile: key,
        ...(clientCa !== undefined ? { clientCaFile: clientCa } : {}),
        ...(minVersion !== undefined ? { minVersion } : {}),
        ...(suites !== undefined ? { cipherSuites: suites } : {}),
      },
      ...(clientCn !== undefined ? { clientCommonNames: clientCn.split(",").map((x) => x.trim()).filter((x) => x !== "") } : {}),
      ...(healthAddress !== undefined ? { healthAddress } : {}),
      ...(metricsAddress !== undefined ? { metricsAddress } : {}),
      ...(logSample !== undefined ? { logSample } : {}),
      ...(args.values["allow-empty"] === true ? { allowEmpty: true } : {}),
      failurePolicy,
      ...(timeout !== undefined ? { timeoutMs: parseDuration(timeout) } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(workers !== undefined ? { workers } : {}),
      ...(maxBody !== undefined ? { maxBodyBytes: maxBody } : {}),
      ...(address !== undefined ? { address } : {}),
      ...(namespace !== undefined && namespace !== "" ? { ownNamespace: namespace } : {}),
      ...(logLevel !== undefined ? { logLevel } : {}),
    });
    if (code !== 0) io.stderr(`celmap webhook: exited with code ${code} (see the log above)\n`);
    return code === 0 ? ExitCode.ok : ExitCode.usage;
  },
};
