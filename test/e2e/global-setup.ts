/**
 * Starts one kube-apiserver (celmap-testcluster, e2e/cluster/) for the whole e2e run and always
 * stops it: the teardown SIGTERMs it (SIGKILL after 25 s), and if vitest itself dies the launcher
 * sees its stdin close and shuts down. Without Go the suite is skipped with one line.
 */
import type { TestProject } from "vitest/node";
import { Kube } from "../../e2e/kube.js";
import { buildLauncher, goVersion, startCluster, type ClusterInfo, type RunningCluster } from "../../e2e/launch.js";

/**
 * kube-apiserver's MAP plugin stops its ConfigMap param informer for good when, for one policy
 * refresh tick (1 s), no binding uses paramKind v1/ConfigMap (kubernetes/kubernetes#130887; every
 * later ConfigMap paramRef answers "no params found"). A keeper binding with that paramKind stays
 * for the whole run, bound to a namespace that never exists, so suites may delete theirs.
 */
async function keepConfigMapParamInformer(info: ClusterInfo): Promise<void> {
  const k = new Kube(info);
  try {
    await k.create({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name: "e2e-keeper-configmap-param" },
      spec: {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] },
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }],
        failurePolicy: "Ignore",
        reinvocationPolicy: "Never",
      },
    });
    await k.create({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name: "e2e-keeper-configmap-param" },
      spec: {
        policyName: "e2e-keeper-configmap-param",
        paramRef: { name: "keeper", parameterNotFoundAction: "Allow" },
        matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "e2e-keeper-never-created" } } },
      },
    });
  } finally {
    k.close();
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    cluster: ClusterInfo | null;
    skipReason: string;
  }
}

let running: RunningCluster | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const go = goVersion();
  if (go === undefined) {
    const reason = "go not found on PATH (the e2e suite builds kube-apiserver from k8s.io/kubernetes)";
    // The reporter (same process) prints the one line: `apiserver e2e: skipped: <reason>`.
    process.env.CELMAP_E2E_SKIPPED = reason;
    project.provide("cluster", null);
    project.provide("skipReason", reason);
    return async () => {};
  }
  const build = buildLauncher((l) => console.log(`[e2e] ${l}`));
  console.log(`[e2e] ${go}; celmap-testcluster ${build.cached ? "cached" : "built"} in ${(build.ms / 1000).toFixed(1)} s`);
  running = await startCluster(build.binary);
  console.log(`[e2e] kube-apiserver ${running.info.version} ready at ${running.info.server} in ${(running.info.startupMs / 1000).toFixed(1)} s`);
  await keepConfigMapParamInformer(running.info);
  project.provide("cluster", running.info);
  project.provide("skipReason", "");
  const onExit = (): void => {
    void running?.stop(1000);
  };
  process.once("SIGINT", onExit);
  process.once("SIGTERM", onExit);
  return async () => {
    const t = Date.now();
    await running?.stop();
    console.log(`[e2e] cluster stopped in ${Date.now() - t} ms`);
  };
}
