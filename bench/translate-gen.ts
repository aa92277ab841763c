/** Generators for bench/translate.ts: varied valid Gatekeeper mutators and Pods. */
const POD_APPLY = [{ groups: [""], kinds: ["Pod"], versions: ["v1"] }];
const NAMESPACES = ["default", "shop", "payments", "kube-system", "team-a", "team-b"];

function match(i: number): Record<string, unknown> {
  switch (i % 6) {
    case 0:
      return { scope: "Namespaced", kinds: [{ apiGroups: ["*"], kinds: ["Pod"] }] };
    case 1:
      return { excludedNamespaces: ["kube-*", "system"] };
    case 2:
      return { namespaces: ["shop", "payments", "team-*"] };
    case 3:
      return { labelSelector: { matchLabels: { [`tier`]: i % 12 < 6 ? "web" : "batch" } } };
    case 4:
      return { name: `web-*`, scope: "Namespaced" };
    default:
      return { labelSelector: { matchExpressions: [{ key: "app", operator: "Exists" }] }, kinds: [{ apiGroups: [""], kinds: ["Pod"] }] };
  }
}

/** `n` valid mutators, the four kinds in turn, varied locations, values and match criteria. */
export function generateMutators(n: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const name = `m-${String(i).padStart(4, "0")}`;
    const c = ["app", "sidecar", "*"][i % 3]!;
    switch (i % 4) {
      case 0: {
        const variants = [
          { location: `spec.containers[name:${c}].imagePullPolicy`, parameters: { assign: { value: ["Always", "IfNotPresent"][i % 2] } } },
          { location: `spec.containers[name:${c}].env[name:VAR_${i}].value`, parameters: { assign: { value: `v${i}` } } },
          {
            location: `spec.containers[name:${c}].securityContext.runAsNonRoot`,
            parameters: { assign: { value: true }, pathTests: [{ subPath: `spec.containers[name:${c}]`, condition: "MustExist" }] },
          },
          { location: `spec.priorityClassName`, parameters: { assign: { value: `prio-${i % 5}` }, pathTests: [{ subPath: "spec.priorityClassName", condition: "MustNotExist" }] } },
          { location: `spec.dnsConfig.options[name:ndots]`, parameters: { assign: { value: { name: "ndots", value: String(1 + (i % 4)) } } } },
        ];
        out.push({ apiVersion: "mutations.gatekeeper.sh/v1", kind: "Assign", metadata: { name }, spec: { applyTo: POD_APPLY, match: match(i), ...variants[(i >> 2) % variants.length] } });
        break;
      }
      case 1:
        out.push({
          apiVersion: "mutations.gatekeeper.sh/v1",
          kind: "AssignMetadata",
          metadata: { name },
          spec: {
            match: match(i),
            location: `metadata.${i % 8 < 4 ? "labels" : "annotations"}.gen-${i}`,
            parameters: { assign: i % 3 === 0 ? { fromMetadata: { field: ["namespace", "name"][i % 2] } } : { value: `val-${i}` } },
          },
        });
        break;
      case 2:
        out.push({
          apiVersion: "mutations.gatekeeper.sh/v1",
          kind: "ModifySet",
          metadata: { name },
          spec: {
            applyTo: POD_APPLY,
            match: match(i),
            location: `spec.containers[name:${c}].${i % 8 < 4 ? "args" : "command"}`,
            parameters: { operation: i % 3 === 0 ? "prune" : "merge", values: { fromList: [`--flag-${i % 7}`, `--opt=${i % 5}`] } },
          },
        });
        break;
      default:
        out.push({
          apiVersion: "mutations.gatekeeper.sh/v1alpha1",
          kind: "AssignImage",
          metadata: { name },
          spec: {
            applyTo: POD_APPLY,
            match: match(i),
            location: `spec.containers[name:${c}].image`,
            parameters: [{ assignDomain: `registry-${i % 3}.example.com` }, { assignTag: `:v${i % 9}` }, { assignPath: `mirror/app-${i % 4}`, assignTag: ":stable" }][i % 3],
          },
        });
    }
  }
  return out;
}

/** `n` varied Pods (namespaces, labels, names, 1–3 containers with and without args/env/image tags). */
export function generatePods(n: number): Record<string, unknown>[] {
  const pods: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const containers: Record<string, unknown>[] = [];
    const names = ["app", "sidecar", "init-helper"].slice(0, 1 + (i % 3));
    for (const [j, cn] of names.entries()) {
      containers.push({
        name: cn,
        image: [`nginx:1.${20 + (i % 7)}`, `registry.example.com/team/svc-${i % 11}@sha256:${"a".repeat(64)}`, `busybox`][(i + j) % 3],
        ...(i % 4 === 0 ? { args: ["--flag-1", `--opt=${i % 5}`] } : {}),
        ...(i % 5 === 0 ? { env: [{ name: "MODE", value: "prod" }] } : {}),
        ...(i % 6 === 0 ? { imagePullPolicy: "IfNotPresent" } : {}),
      });
    }
    pods.push({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `${["web", "api", "job"][i % 3]}-${i}`,
        namespace: NAMESPACES[i % NAMESPACES.length],
        labels: { ...(i % 2 === 0 ? { app: `a${i % 9}` } : {}), tier: ["web", "batch", "db"][i % 3] },
      },
      spec: { containers, ...(i % 7 === 0 ? { priorityClassName: "high" } : {}) },
    });
  }
  return pods;
}

