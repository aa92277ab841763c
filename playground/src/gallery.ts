/**
 * The sample gallery. `quick-start` is the README's quick start, read from the repository's
 * `examples/` (the same files `celmap eval -f examples/policies/ -r examples/resources/` reads, in
 * the same order); the others are the playground's own files under `playground/samples/`.
 */
import type { State } from "./state.js";

const examples = import.meta.glob<string>("../../examples/{policies,resources,gatekeeper}/*.yaml", { query: "?raw", import: "default", eager: true });
const gatekeeperPod = import.meta.glob<string>("../../examples/gatekeeper-pod.yaml", { query: "?raw", import: "default", eager: true });
const own = import.meta.glob<string>("../samples/*/*.yaml", { query: "?raw", import: "default", eager: true });

/** The files of one examples/ directory, in byte order (as `celmap eval` lists a directory). */
function dir(name: string, except: readonly string[] = []): string[] {
  return Object.keys(examples)
    .filter((k) => k.startsWith(`../../examples/${name}/`) && !except.some((e) => k.endsWith(`/${e}`)))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((k) => examples[k]!);
}

/** Joins files into one multi-document text, as the editors hold them. */
function join(files: readonly string[]): string {
  return files.map((f) => f.replace(/\n*$/, "\n")).join("---\n");
}

function sample(name: string, file: string): string {
  return own[`../samples/${name}/${file}.yaml`] ?? "";
}

export interface Sample {
  readonly name: string;
  readonly title: string;
  readonly about: string;
  readonly state: Partial<State>;
}

export const SAMPLES: readonly Sample[] = [
  {
    name: "quick-start",
    title: "Quick start (README)",
    about: "examples/policies and examples/resources: a log-shipper sidecar, team labels from a ConfigMap param, two replicas.",
    state: { policies: join(dir("policies", ["namespaces.yaml"])), namespaces: examples["../../examples/policies/namespaces.yaml"] ?? "", resources: join(dir("resources")) },
  },
  {
    name: "k8s-docs-sidecar",
    title: "Kubernetes docs: sidecar (ApplyConfiguration)",
    about: "The MutatingAdmissionPolicy example of the Kubernetes documentation: a mesh-proxy init container.",
    state: { policies: sample("k8s-docs-sidecar", "policies"), resources: sample("k8s-docs-sidecar", "resources") },
  },
  {
    name: "k8s-docs-jsonpatch",
    title: "Kubernetes docs: sidecar (JSONPatch)",
    about: "The same sidecar with JSONPatch mutations.",
    state: { policies: sample("k8s-docs-jsonpatch", "policies"), resources: sample("k8s-docs-jsonpatch", "resources") },
  },
  {
    name: "gatekeeper",
    title: "Gatekeeper mutators",
    about: "Gatekeeper's documented mutators (examples/gatekeeper), evaluated through their translation to MAPs; the Gatekeeper → MAP tab shows it.",
    state: { policies: join(dir("gatekeeper")), resources: Object.values(gatekeeperPod)[0] ?? "", gatekeeper: join(dir("gatekeeper")) },
  },
  {
    name: "kyverno",
    title: "Kyverno MutatingPolicy",
    about: "A Kyverno MutatingPolicy adding labels and a securityContext; its autogen variant mutates the Deployment's pod template.",
    state: { policies: sample("kyverno-labels", "policies"), resources: sample("kyverno-labels", "resources") },
  },
  {
    name: "cost-bomb",
    title: "Cost bomb",
    about: "An expression whose run-time cost passes the apiserver's per-call limit: denied with the cost error.",
    state: { policies: sample("cost-bomb", "policies"), resources: sample("cost-bomb", "resources") },
  },
];

export function findSample(name: string): Sample | undefined {
  return SAMPLES.find((s) => s.name === name);
}
