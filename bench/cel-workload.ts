/**
 * The workload of `npm run bench` (bench/cel.ts) and `npm run bench:reference` (bench/reference.ts):
 * six Kubernetes-style expressions (E1–E6, shared/spec/cel-engines.md §4) on a Deployment-like object
 * with 50 containers and a 200-int `items` list.
 */
export interface Expression {
  readonly id: string;
  readonly label: string;
  readonly source: string;
  /** The value every engine must produce, in the normalised JSON form of `normalise`. */
  readonly expected: string;
}

/**
 * E1–E6 reconstructed from the descriptions in cel-engines.md §4 and its
 * "result sanity" table (E1 false, E2 true, E3 {"tier":"large","replicas":"3"},
 * E4 "c0:registry.example.com/team/app-0:v0@prod", ..., E5 67, E6 true).
 */
export const EXPRESSIONS: readonly Expression[] = [
  { id: "E1", label: "label lookup", source: "object.metadata.labels['app'] == 'x'", expected: "false" },
  {
    id: "E2",
    label: "map+exists (50 containers)",
    source: "object.spec.containers.map(c, c.image).exists(i, i.startsWith('nginx'))",
    expected: "true",
  },
  {
    id: "E3",
    label: "ternary -> map literal",
    source:
      "object.spec.replicas > 2 ? {'tier': 'large', 'replicas': string(object.spec.replicas)} : {'tier': 'small', 'replicas': string(object.spec.replicas)}",
    expected: '{"tier":"large","replicas":"3"}',
  },
  {
    id: "E4",
    label: "string concat in map (50)",
    source: "object.spec.containers.map(c, c.name + ':' + c.image + '@' + object.metadata.labels['env'])",
    expected: JSON.stringify(
      Array.from({ length: 50 }, (_, i) => `c${i}:${image(i)}@prod`),
    ),
  },
  { id: "E5", label: "filter 200-element list", source: "size(object.items.filter(x, x % 3 == 0))", expected: "67" },
  {
    id: "E6",
    label: "has() chain",
    source:
      "has(object.spec.template) && has(object.spec.template.metadata) && has(object.spec.template.metadata.labels)",
    expected: "true",
  },
];

/** Container i's image; the last one is nginx, so E2's `exists` scans the whole list. */
function image(i: number): string {
  return i === 49 ? "nginx:1.25" : `registry.example.com/team/app-${i}:v${i}`;
}

/** The Deployment-like object, as plain JSON (numbers are JS numbers here). */
export function benchObject(): unknown {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "default",
      labels: { app: "nginx", tier: "frontend", env: "prod" },
      annotations: { "example.com/owner": "team-a" },
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "nginx" } },
      template: { metadata: { labels: { app: "nginx" } } },
      containers: Array.from({ length: 50 }, (_, i) => ({
        name: `c${i}`,
        image: image(i),
        ports: [{ containerPort: 8000 + i, protocol: "TCP" }],
        resources: { limits: { cpu: "100m", memory: "128Mi" } },
      })),
    },
    items: Array.from({ length: 200 }, (_, i) => i),
  };
}
