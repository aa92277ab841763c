/**
 * MutatingAdmissionPolicy cases run three ways by map-parity.test.ts: through `celmap webhook`
 * registered with the apiserver, natively by the apiserver's MutatingAdmissionPolicy plugin, and by
 * `celmap eval` on the apiserver's defaulted object. Policies never depend on the namespace's name
 * (the three runs use different namespaces); bindings are made per run.
 */
import { ac, configMap, deployment, jp, pod, rule } from "./support.js";
import type { Obj } from "../../e2e/kube.js";

export type Request =
  | { readonly op: "CREATE"; readonly object: Obj }
  | { readonly op: "UPDATE"; readonly initial: Obj; readonly update: (stored: Obj) => Obj }
  | { readonly op: "STATUS"; readonly initial: Obj; readonly status: Obj }
  | { readonly op: "DELETE"; readonly initial: Obj };

export interface ParityCase {
  readonly name: string;
  readonly policy: {
    resources?: Obj[];
    mutations: Obj[];
    failurePolicy?: string;
    reinvocationPolicy?: string;
    matchConditions?: Obj[];
    variables?: Obj[];
    paramKind?: Obj;
  };
  /** Extra binding fields (paramRef). */
  readonly binding?: Obj;
  /** Param objects to create in each namespace (namespace set per run). */
  readonly params?: Obj[];
  /** Builds the request for a namespace. */
  readonly request: (ns: string) => Request;
  /** Why the stored results may legitimately differ (none so far). */
  readonly note?: string;
}

const podRules = [rule([""], ["v1"], ["pods"])];

export const parityCases: ParityCase[] = [
  {
    name: "ac-labels-merge",
    policy: { mutations: [ac('Object{metadata: Object.metadata{labels: {"team": "payments", "app": "web-v2"}}}')] },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns, { labels: { app: "web", keep: "yes" } }) }),
  },
  {
    name: "ac-sidecar-defaulted",
    policy: {
      mutations: [ac('Object{spec: Object.spec{containers: [Object.spec.containers{name: "sidecar", image: "busybox:1.36", args: ["sleep", "3600"]}]}}')],
    },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
    note: "the added container is defaulted by the apiserver after admission (imagePullPolicy, terminationMessagePath)",
  },
  {
    name: "ac-env-keyed-merge",
    policy: { mutations: [ac('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", env: [Object.spec.containers.env{name: "B", value: "2"}, Object.spec.containers.env{name: "A", value: "one"}]}]}}')] },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
  },
  {
    name: "jp-add-annotations",
    policy: { mutations: [jp('[JSONPatch{op: "add", path: "/metadata/annotations", value: {"owner": "team-a", "e2e/x": "1"}}]')] },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
  },
  {
    name: "jp-replace-image-escaped-label",
    policy: {
      mutations: [
        jp('[JSONPatch{op: "replace", path: "/spec/containers/0/image", value: "nginx:1.27"}, JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/tier"), value: "web"}]'),
      ],
    },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
  },
  {
    name: "deployment-ac-template",
    policy: {
      resources: [rule(["apps"], ["v1"], ["deployments"])],
      mutations: [ac('Object{spec: Object.spec{replicas: 3, template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"injected": "true"}}}}}')],
    },
    request: (ns) => ({ op: "CREATE", object: deployment("api", ns) }),
  },
  {
    name: "deployment-jp-env",
    policy: {
      resources: [rule(["apps"], ["v1"], ["deployments"])],
      mutations: [jp('[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/env", value: [{"name": "LOG", "value": "debug"}]}]')],
    },
    request: (ns) => ({ op: "CREATE", object: deployment("api", ns) }),
  },
  {
    name: "configmap-ac-data",
    policy: { resources: [rule([""], ["v1"], ["configmaps"])], mutations: [ac('Object{data: {"b": "2", "a": "overridden"}}')] },
    request: (ns) => ({ op: "CREATE", object: configMap("settings", ns, { a: "1", c: "3" }) }),
  },
  {
    name: "variables-and-match-conditions",
    policy: {
      matchConditions: [{ name: "has-app", expression: "has(object.metadata.labels) && 'app' in object.metadata.labels" }],
      variables: [{ name: "team", expression: "object.metadata.labels.?team.orValue('none')" }, { name: "n", expression: "size(object.spec.containers)" }],
      mutations: [ac('Object{metadata: Object.metadata{annotations: {"team": variables.team}, labels: {"containers": string(variables.n)}}}')],
    },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns, { labels: { app: "web", team: "blue" } }) }),
  },
  {
    name: "match-condition-false-no-op",
    policy: {
      matchConditions: [{ name: "opted-in", expression: "has(object.metadata.labels) && object.metadata.labels.?inject.orValue('') == 'yes'" }],
      mutations: [ac('Object{metadata: Object.metadata{labels: {"injected": "true"}}}')],
    },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
  },
  {
    name: "params-configmap",
    policy: {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      mutations: [ac('Object{metadata: Object.metadata{labels: {"tier": params.data.tier}}}')],
    },
    binding: { paramRef: { name: "e2e-params", parameterNotFoundAction: "Deny" } },
    params: [configMap("e2e-params", "", { tier: "gold" })],
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
  },
  {
    name: "update-restore-label-from-old",
    policy: {
      resources: [rule([""], ["v1"], ["configmaps"], ["UPDATE"])],
      matchConditions: [{ name: "team-dropped", expression: "has(oldObject.metadata.labels) && 'team' in oldObject.metadata.labels && !(has(object.metadata.labels) && 'team' in object.metadata.labels)" }],
      mutations: [ac('Object{metadata: Object.metadata{labels: {"team": oldObject.metadata.labels["team"]}}}')],
    },
    request: (ns) => ({
      op: "UPDATE",
      initial: configMap("cm", ns, { a: "1" }, { team: "blue" }),
      update: (stored) => ({ ...stored, metadata: { ...(stored.metadata as Obj), labels: {} }, data: { a: "2" } }),
    }),
  },
  {
    name: "reinvoke-single-ifneeded-counter",
    policy: {
      reinvocationPolicy: "IfNeeded",
      mutations: [ac('Object{metadata: Object.metadata{annotations: {"count": string(int(object.metadata.?annotations["count"].orValue("0")) + 1)}}}')],
    },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
  },
  {
    name: "cel-error-ignore",
    policy: { failurePolicy: "Ignore", mutations: [ac('Object{metadata: Object.metadata{labels: {"x": object.metadata.labels["missing"]}}}')] },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
  },
  {
    name: "cel-error-fail",
    policy: { failurePolicy: "Fail", mutations: [ac('Object{metadata: Object.metadata{labels: {"x": object.metadata.labels["missing"]}}}')] },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
  },
  {
    name: "jp-test-op-fails",
    note: "a failed test op: the patch is not applied, no error",
    policy: { mutations: [jp('[JSONPatch{op: "test", path: "/spec/containers/0/image", value: "not-this"}, JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]')] },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
  },
  {
    name: "ac-atomic-field-rejected",
    policy: { mutations: [ac('Object{spec: Object.spec{imagePullSecrets: [Object.spec.imagePullSecrets{name: "regcred"}]}}')] },
    request: (ns) => ({ op: "CREATE", object: pod("web", ns) }),
  },
  {
    name: "status-subresource",
    policy: {
      resources: [rule([""], ["v1"], ["pods/status"], ["UPDATE"])],
      mutations: [ac('Object{status: Object.status{message: "seen by policy"}}')],
    },
    request: (ns) => ({ op: "STATUS", initial: pod("web", ns), status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] } }),
  },
  {
    // MAP resourceRules do not accept DELETE (API validation); "*" does, and on DELETE there is no
    // object to patch (the dispatcher skips the patchers): the Pod is deleted. The webhook is sent
    // the DELETE (its rules include it) and must answer the same.
    name: "delete-with-star-operations",
    policy: {
      resources: [rule([""], ["v1"], ["pods"], ["*"])],
      matchConditions: [{ name: "protected", expression: "(object != null ? object : oldObject).metadata.?labels.?protect.orValue('') == 'yes'" }],
      mutations: [ac('Object{metadata: Object.metadata{labels: {"seen-by": request.operation}}}')],
    },
    request: (ns) => ({ op: "DELETE", initial: pod("web", ns, { labels: { app: "web", protect: "yes" } }) }),
  },
];

export { podRules };
