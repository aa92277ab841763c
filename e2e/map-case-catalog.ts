/**
 * The MutatingAdmissionPolicy cases e2e/gen-map-cases.ts runs against the real apiserver to
 * produce conformance/cases/map/apiserver-generated.yaml. Each is an input object (defaulted by
 * the apiserver before the policy exists), a policy, optional params, and a request (CREATE, or
 * UPDATE of an object created first). Expected results are never written here: they are what the
 * apiserver answers.
 */
import type { Obj } from "./kube.js";

export interface CatalogCase {
  readonly name: string;
  readonly object: (ns: string) => Obj;
  /** UPDATE: the object is created first (oldObject), then replaced with `update(stored)`. */
  readonly update?: (stored: Obj) => Obj;
  readonly policy: Obj;
  readonly binding?: Obj;
  /** Param objects (created in the case's namespace). */
  readonly params?: Obj[];
  readonly notes: string;
}

const rr = (group: string, version: string, resource: string, ops: string[] = ["CREATE", "UPDATE"]): Obj => ({
  apiGroups: [group],
  apiVersions: [version],
  operations: ops,
  resources: [resource],
});

const pods = [rr("", "v1", "pods")];
const cms = [rr("", "v1", "configmaps")];
const deps = [rr("apps", "v1", "deployments")];
const svcs = [rr("", "v1", "services")];

function pod(ns: string, extra: Obj = {}): Obj {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: ns, labels: { app: "web" } },
    spec: {
      containers: [
        {
          name: "app",
          image: "nginx:1.25",
          ports: [{ name: "http", containerPort: 80 }],
          env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
          volumeMounts: [{ name: "data", mountPath: "/data" }],
        },
        { name: "sidecar", image: "busybox:1.36", command: ["sh", "-c", "sleep 3600"] },
      ],
      volumes: [{ name: "data", emptyDir: {} }],
      ...extra,
    },
  };
}

const cm = (ns: string): Obj => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: ns, labels: { app: "web" } }, data: { a: "1", b: "2" } });

const dep = (ns: string): Obj => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "api", namespace: ns, labels: { app: "api" } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "api" } },
    template: { metadata: { labels: { app: "api" } }, spec: { containers: [{ name: "app", image: "nginx:1.25", env: [{ name: "MODE", value: "prod" }] }] } },
  },
});

const svc = (ns: string): Obj => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "web", namespace: ns },
  spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
});

function policy(resourceRules: Obj[], mutations: Obj[], extra: Obj = {}): Obj {
  return { matchConstraints: { resourceRules }, mutations, failurePolicy: "Fail", reinvocationPolicy: "Never", ...extra };
}
const AC = (expression: string): Obj => ({ patchType: "ApplyConfiguration", applyConfiguration: { expression } });
const JP = (expression: string): Obj => ({ patchType: "JSONPatch", jsonPatch: { expression } });

const c = (name: string, object: (ns: string) => Obj, p: Obj, notes: string, more: Partial<CatalogCase> = {}): CatalogCase => ({ name, object, policy: p, notes, ...more });

export const catalog: CatalogCase[] = [
  // ApplyConfiguration on Pods
  c("ac-label-add", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"team": "payments"}}}')]), "AC adds a label; existing labels kept"),
  c("ac-label-overwrite", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"app": "web-v2"}}}')]), "AC overwrites an existing label"),
  c("ac-annotations-add", pod, policy(pods, [AC('Object{metadata: Object.metadata{annotations: {"owner": "team-a", "example.com/x": "1"}}}')]), "AC adds annotations to an object without any"),
  c("ac-finalizers-set", pod, policy(pods, [AC('Object{metadata: Object.metadata{finalizers: ["example.com/b", "example.com/a"]}}')]), "AC finalizers (a set) on an object without finalizers"),
  c("ac-container-image", pod, policy(pods, [AC('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", image: "nginx:1.27"}]}}')]), "AC containers keyed by name: only app's image changes"),
  c(
    "ac-container-add",
    pod,
    policy(pods, [AC('Object{spec: Object.spec{containers: [Object.spec.containers{name: "proxy", image: "envoy:1.30", imagePullPolicy: "IfNotPresent", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File"}]}}')]),
    "AC adds a third container (fields defaulting would fill given explicitly)",
  ),
  c("ac-env-add", pod, policy(pods, [AC('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", env: [Object.spec.containers.env{name: "C", value: "3"}]}]}}')]), "AC env keyed by name: appended"),
  c("ac-env-modify", pod, policy(pods, [AC('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", env: [Object.spec.containers.env{name: "B", value: "two"}]}]}}')]), "AC env keyed by name: B's value replaced in place"),
  c("ac-env-reorder", pod, policy(pods, [AC('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", env: [Object.spec.containers.env{name: "B", value: "2"}, Object.spec.containers.env{name: "A", value: "1"}]}]}}')]), "AC env [B, A] on [A, B]: order follows the patch"),
  c("ac-port-add", pod, policy(pods, [AC('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", ports: [Object.spec.containers.ports{name: "metrics", containerPort: 9090, protocol: "TCP"}]}]}}')]), "AC ports keyed by containerPort+protocol: appended"),
  c(
    "ac-volume-and-mount",
    pod,
    policy(pods, [AC('Object{spec: Object.spec{volumes: [Object.spec.volumes{name: "cache", emptyDir: Object.spec.volumes.emptyDir{}}], containers: [Object.spec.containers{name: "app", volumeMounts: [Object.spec.containers.volumeMounts{name: "cache", mountPath: "/cache"}]}]}}')]),
    "AC adds a volume and a volumeMount (keyed lists)",
  ),
  c("ac-container-security-context", pod, policy(pods, [AC('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", securityContext: Object.spec.containers.securityContext{runAsNonRoot: true, readOnlyRootFilesystem: true}}]}}')]), "AC sets a container securityContext"),
  c("ac-resources-limits", pod, policy(pods, [AC('Object{spec: Object.spec{containers: [Object.spec.containers{name: "sidecar", resources: Object.spec.containers.resources{requests: {"cpu": "50m", "memory": "32Mi"}, limits: {"cpu": "100m", "memory": "64Mi"}}}]}}')]), "AC resources requests and limits on the sidecar"),
  c(
    "ac-init-container",
    pod,
    policy(pods, [AC('Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: "init", image: "busybox:1.36", command: ["true"], imagePullPolicy: "IfNotPresent", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File"}]}}')]),
    "AC adds an initContainer (defaulted fields given)",
  ),
  c("ac-node-selector", pod, policy(pods, [AC('Object{spec: Object.spec{nodeSelector: {"disk": "ssd"}}}')]), "AC nodeSelector (a map)"),
  c("ac-tolerations-atomic", (ns) => pod(ns, { tolerations: [{ key: "a", operator: "Exists", effect: "NoSchedule" }] }), policy(pods, [AC('Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: "b", operator: "Exists"}]}}')]), "AC on tolerations (an atomic list): replaced or rejected"),
  c("ac-image-pull-secrets-atomic", pod, policy(pods, [AC('Object{spec: Object.spec{imagePullSecrets: [Object.spec.imagePullSecrets{name: "regcred"}]}}')]), "AC imagePullSecrets: LocalObjectReference is atomic"),
  c("ac-host-aliases", pod, policy(pods, [AC('Object{spec: Object.spec{hostAliases: [Object.spec.hostAliases{ip: "10.0.0.1", hostnames: ["db"]}]}}')]), "AC hostAliases keyed by ip"),
  c(
    "ac-topology-spread",
    pod,
    policy(pods, [AC('Object{spec: Object.spec{topologySpreadConstraints: [Object.spec.topologySpreadConstraints{maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "ScheduleAnyway", labelSelector: Object.spec.topologySpreadConstraints.labelSelector{matchLabels: {"app": "web"}}}]}}')]),
    "AC topologySpreadConstraints keyed by topologyKey+whenUnsatisfiable",
  ),
  c("ac-dns-config", pod, policy(pods, [AC('Object{spec: Object.spec{dnsConfig: Object.spec.dnsConfig{options: [Object.spec.dnsConfig.options{name: "ndots", value: "2"}]}}}')]), "AC dnsConfig options"),
  c("ac-label-int-value", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"n": 1}}}')]), "AC a label with an int value: type error"),
  c("ac-unknown-field", pod, policy(pods, [AC('Object{spec: Object.spec{bogus: "x"}}')]), "AC a field the schema does not have"),
  c("ac-wrong-scalar", pod, policy(pods, [AC('Object{spec: Object.spec{terminationGracePeriodSeconds: "thirty"}}')]), "AC a string where an integer is expected"),
  c("ac-two-mutations", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"a": "1"}}}'), AC('Object{metadata: Object.metadata{labels: {"b": object.metadata.labels["a"]}}}')]), "two AC mutations: the second sees the first's result"),
  // JSONPatch on Pods
  c("jp-add-label-escaped", pod, policy(pods, [JP('[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/tier"), value: "web"}]')]), "JSONPatch add with jsonpatch.escapeKey"),
  c("jp-replace-image", pod, policy(pods, [JP('[JSONPatch{op: "replace", path: "/spec/containers/0/image", value: "nginx:1.27"}]')]), "JSONPatch replace"),
  c("jp-remove-label", pod, policy(pods, [JP('[JSONPatch{op: "remove", path: "/metadata/labels/app"}]')]), "JSONPatch remove the only label"),
  c("jp-add-env-index-0", pod, policy(pods, [JP('[JSONPatch{op: "add", path: "/spec/containers/0/env/0", value: {"name": "FIRST", "value": "0"}}]')]), "JSONPatch add at index 0"),
  c("jp-add-env-append", pod, policy(pods, [JP('[JSONPatch{op: "add", path: "/spec/containers/0/env/-", value: {"name": "LAST", "value": "9"}}]')]), "JSONPatch add at -"),
  c("jp-test-pass", pod, policy(pods, [JP('[JSONPatch{op: "test", path: "/spec/containers/0/image", value: "nginx:1.25"}, JSONPatch{op: "add", path: "/metadata/labels/tested", value: "yes"}]')]), "JSONPatch test that passes, then add"),
  c("jp-test-fail", pod, policy(pods, [JP('[JSONPatch{op: "test", path: "/spec/containers/0/image", value: "other"}, JSONPatch{op: "add", path: "/metadata/labels/tested", value: "yes"}]')]), "JSONPatch test that fails"),
  c("jp-copy-label", pod, policy(pods, [JP('[JSONPatch{op: "copy", from: "/metadata/labels/app", path: "/metadata/labels/app-copy"}]')]), "JSONPatch copy"),
  c("jp-move-label", pod, policy(pods, [JP('[JSONPatch{op: "move", from: "/metadata/labels/app", path: "/metadata/labels/application"}]')]), "JSONPatch move"),
  c("jp-remove-missing", pod, policy(pods, [JP('[JSONPatch{op: "remove", path: "/metadata/annotations/missing"}]')]), "JSONPatch remove of a missing path"),
  c("jp-add-unknown-field", pod, policy(pods, [JP('[JSONPatch{op: "add", path: "/spec/bogus", value: "x"}]')]), "JSONPatch adds an unknown field on a typed object"),
  c("jp-add-container", pod, policy(pods, [JP('[JSONPatch{op: "add", path: "/spec/containers/-", value: {"name": "extra", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}}]')]), "JSONPatch appends a container"),
  c("jp-replace-out-of-range", pod, policy(pods, [JP('[JSONPatch{op: "replace", path: "/spec/containers/5/image", value: "x"}]')]), "JSONPatch replace at an index out of range"),
  // ConfigMaps
  c("cm-ac-data", cm, policy(cms, [AC('Object{data: {"b": "two", "c": "3"}}')]), "AC ConfigMap data merge"),
  c("cm-jp-replace-data", cm, policy(cms, [JP('[JSONPatch{op: "replace", path: "/data/a", value: "one"}]')]), "JSONPatch replace a data key"),
  c("cm-ac-data-int", cm, policy(cms, [AC('Object{data: {"n": 5}}')]), "AC an int in map[string]string data"),
  c("cm-jp-data-int", cm, policy(cms, [JP('[JSONPatch{op: "add", path: "/data/n", value: 5}]')]), "JSONPatch an int in map[string]string data"),
  // Deployments
  c("dep-ac-replicas", dep, policy(deps, [AC("Object{spec: Object.spec{replicas: 5}}")]), "AC Deployment replicas"),
  c("dep-ac-template-labels", dep, policy(deps, [AC('Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"version": "v2"}}}}}')]), "AC Deployment template labels"),
  c("dep-ac-strategy", dep, policy(deps, [AC('Object{spec: Object.spec{strategy: Object.spec.strategy{rollingUpdate: Object.spec.strategy.rollingUpdate{maxUnavailable: "0"}}}}')]), "AC Deployment strategy.rollingUpdate.maxUnavailable (int-or-string)"),
  c("dep-jp-env", dep, policy(deps, [JP('[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/env/-", value: {"name": "LOG", "value": "debug"}}]')]), "JSONPatch Deployment template env append"),
  c("dep-jp-remove-replicas", dep, policy(deps, [JP('[JSONPatch{op: "remove", path: "/spec/replicas"}]')]), "JSONPatch removes replicas | defaulting involved: re-defaulted to 1"),
  // Services
  c("svc-ac-port-add", svc, policy(svcs, [AC('Object{spec: Object.spec{ports: [Object.spec.ports{name: "metrics", port: 9090, protocol: "TCP", targetPort: 9090}]}}')]), "AC Service ports keyed by port+protocol"),
  c("svc-ac-selector", svc, policy(svcs, [AC('Object{spec: Object.spec{selector: {"tier": "frontend"}}}')]), "AC Service selector (an atomic map? merged or replaced)"),
  // Variables, matchConditions
  c("var-in-ac", pod, policy(pods, [AC('Object{metadata: Object.metadata{annotations: {"containers": string(variables.n)}}}')], { variables: [{ name: "n", expression: "size(object.spec.containers)" }] }), "a variable used in AC"),
  c("var-chain", pod, policy(pods, [AC('Object{metadata: Object.metadata{annotations: {"first": variables.b}}}')], { variables: [{ name: "a", expression: "object.spec.containers[0].name" }, { name: "b", expression: "variables.a + '-first'" }] }), "variables: the second uses the first"),
  c(
    "var-typed-in-map-literal",
    pod,
    policy(pods, [AC('Object{metadata: Object.metadata{annotations: {"team": variables.team, "containers": string(variables.n)}}}')], {
      variables: [{ name: "team", expression: "object.metadata.labels.?team.orValue('none')" }, { name: "n", expression: "size(object.spec.containers)" }],
    }),
    "a map literal mixing a string variable with a string() call: are variables typed (string) or dyn at compile time?",
  ),
  c("mc-true", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"matched": "yes"}}}')], { matchConditions: [{ name: "is-web", expression: "object.metadata.labels.app == 'web'" }] }), "matchCondition true"),
  c("mc-false", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"matched": "yes"}}}')], { matchConditions: [{ name: "is-api", expression: "object.metadata.labels.app == 'api'" }] }), "matchCondition false: no-op (twin of mc-true)"),
  c("mc-error-fail", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"matched": "yes"}}}')], { matchConditions: [{ name: "bad", expression: "object.metadata.labels.missing == 'x'" }] }), "matchCondition error, failurePolicy Fail"),
  c("mc-error-ignore", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"matched": "yes"}}}')], { failurePolicy: "Ignore", matchConditions: [{ name: "bad", expression: "object.metadata.labels.missing == 'x'" }] }), "matchCondition error, failurePolicy Ignore"),
  // Params
  c("param-by-name", cm, policy(cms, [AC('Object{metadata: Object.metadata{labels: {"tier": params.data.tier}}}')], { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }), "param ConfigMap by name in the request's namespace", {
    binding: { paramRef: { name: "tier-param", parameterNotFoundAction: "Deny" } },
    params: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "tier-param" }, data: { tier: "gold" } }],
  }),
  c("param-missing-deny", cm, policy(cms, [AC('Object{metadata: Object.metadata{labels: {"tier": params.data.tier}}}')], { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }), "paramRef to a missing ConfigMap, Deny", {
    binding: { paramRef: { name: "absent", parameterNotFoundAction: "Deny" } },
  }),
  c("param-missing-allow", cm, policy(cms, [AC('Object{metadata: Object.metadata{labels: {"tier": params.data.tier}}}')], { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }), "paramRef to a missing ConfigMap, Allow: no-op", {
    binding: { paramRef: { name: "absent", parameterNotFoundAction: "Allow" } },
  }),
  // Request and context
  c("request-operation", cm, policy(cms, [AC('Object{metadata: Object.metadata{annotations: {"op": request.operation, "user": request.userInfo.username, "ns": request.namespace}}}')]), "request.operation, userInfo.username, namespace"),
  c("namespace-object", cm, policy(cms, [AC('Object{metadata: Object.metadata{annotations: {"ns-name": namespaceObject.metadata.name, "ns-phase": namespaceObject.status.phase}}}')]), "namespaceObject fields"),
  c("old-object-null-on-create", cm, policy(cms, [AC('Object{metadata: Object.metadata{annotations: {"old": oldObject == null ? "null" : "set"}}}')]), "oldObject is null on CREATE"),
  // CEL errors
  c("cel-error-fail", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"x": object.metadata.labels["missing"]}}}')]), "CEL runtime error (no such key), Fail"),
  c("cel-error-ignore", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"x": object.metadata.labels["missing"]}}}')], { failurePolicy: "Ignore" }), "CEL runtime error (no such key), Ignore: admitted unchanged"),
  // Reinvocation
  c("reinvoke-ifneeded-counter", cm, policy(cms, [AC('Object{metadata: Object.metadata{annotations: {"count": string(int(object.metadata.?annotations["count"].orValue("0")) + 1)}}}')], { reinvocationPolicy: "IfNeeded" }), "a single IfNeeded policy incrementing a counter"),
  c("reinvoke-never-counter", cm, policy(cms, [AC('Object{metadata: Object.metadata{annotations: {"count": string(int(object.metadata.?annotations["count"].orValue("0")) + 1)}}}')]), "the same counter with reinvocationPolicy Never"),
  // UPDATE
  c("update-restore-label", cm, policy([rr("", "v1", "configmaps", ["UPDATE"])], [AC('Object{metadata: Object.metadata{labels: {"app": oldObject.metadata.labels["app"]}}}')], { matchConditions: [{ name: "dropped", expression: "!has(object.metadata.labels) || !('app' in object.metadata.labels)" }] }), "UPDATE: a label the update dropped is restored from oldObject", {
    update: (s) => ({ ...s, metadata: { ...(s.metadata as Obj), labels: {} }, data: { a: "9" } }),
  }),
  c("update-old-value-annotation", cm, policy([rr("", "v1", "configmaps", ["UPDATE"])], [AC('Object{metadata: Object.metadata{annotations: {"previous-a": oldObject.data["a"]}}}')]), "UPDATE: the old data value as an annotation", {
    update: (s) => ({ ...s, data: { a: "9", b: "2" } }),
  }),
  // Policy creation
  c("create-non-object-result", pod, policy(pods, [AC('"not an object"')]), "AC expression of type string: rejected at policy creation"),
  c("create-params-without-paramkind", pod, policy(pods, [AC('Object{metadata: Object.metadata{labels: {"x": params.data.x}}}')]), "params used without paramKind: rejected at policy creation"),
];
