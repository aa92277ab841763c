import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { SchemaRegistry, type SchemaNode } from "../../kube/schema.js";
import { deepClone, type JsonObject, type JsonValue } from "../json.js";
import { applyJsonPatch } from "../patch/json-patch.js";
import { oracleCase } from "../testdata/cases.js";
import { applyConfiguration, type ApplyConfigurationResult } from "./apply.js";

const registry = SchemaRegistry.builtin();

function apply(live: JsonObject, patch: JsonObject, reg: SchemaRegistry = registry): ApplyConfigurationResult {
  const schema = reg.forKind(live.apiVersion as string, live.kind as string);
  return applyConfiguration(live, patch, schema, reg);
}

function merged(r: ApplyConfigurationResult): JsonObject {
  if (!r.ok) throw new Error(`expected an object, got ${r.error.message}`);
  return r.object;
}

function failure(r: ApplyConfigurationResult): string {
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.object)}`);
  return r.error.message;
}

const container = (fields: JsonObject): JsonObject => ({ spec: { containers: [{ name: "app", ...fields }] } });

describe("ApplyConfiguration: real kube-apiserver results (map-oracle-cases)", () => {
  // [case, the apply configuration its CEL Object{...} expression evaluates to]
  const objects: Array<[string, JsonObject]> = [
    ["oracle-ac-labels-merge", { metadata: { labels: { team: "payments", app: "web-v2" } } }],
    ["oracle-ac-annotations-create-map", { metadata: { annotations: { "example.com/owner": "team-a", note: "x" } } }],
    ["oracle-ac-annotations-merge-existing", { metadata: { annotations: { over: "new", added: "yes" } } }],
    // {?"absent": optional.none(), ?"present": optional.of("yes")}, ?annotations: optional.none()
    ["oracle-ac-optional-entries", { metadata: { labels: { present: "yes" } } }],
    ["oracle-ac-finalizers-set-append", { metadata: { finalizers: ["example.com/a", "example.com/c"] } }],
    [
      "oracle-ac-container-add-before-existing",
      {
        spec: {
          containers: [
            {
              name: "logger",
              image: "fluent/fluent-bit:3.0",
              imagePullPolicy: "IfNotPresent",
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
              resources: {},
            },
            { name: "app", image: "nginx:1.26" },
          ],
        },
      },
    ],
    ["oracle-ac-ports-merge-same-key", container({ ports: [{ containerPort: 80, protocol: "TCP", name: "web" }] })],
    ["oracle-ac-ports-key-protocol-omitted", container({ ports: [{ containerPort: 80, name: "web" }] })],
    ["oracle-ac-ports-add-udp", container({ ports: [{ containerPort: 80, protocol: "UDP", name: "http-udp" }] })],
    [
      "oracle-ac-volumemounts-by-mountpath",
      {
        spec: {
          volumes: [{ name: "cache", emptyDir: {} }],
          containers: [
            {
              name: "app",
              volumeMounts: [
                { mountPath: "/data", name: "data", readOnly: true },
                { mountPath: "/cache", name: "cache" },
              ],
            },
          ],
        },
      },
    ],
    ["oracle-ac-securitycontext-granular", container({ securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false } })],
    ["oracle-ac-resources-limits-requests", container({ resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { memory: "64Mi" } } })],
    ["oracle-ac-topologyspread-two-keys", { spec: { topologySpreadConstraints: [{ topologyKey: "zone", whenUnsatisfiable: "ScheduleAnyway", maxSkew: 1 }] } }],
    ["oracle-ac-service-ports-add", { spec: { ports: [{ name: "metrics", port: 9090, protocol: "TCP", targetPort: 9090 }] } }],
    ["oracle-ac-service-ports-modify", { spec: { ports: [{ port: 80, protocol: "TCP", targetPort: "http-alt" }] } }],
    // object.data.transformMap(k, v, v + "-copy") on data {a: "1", b: "2"}
    ["oracle-ac-configmap-data-from-object", { data: { a: "1-copy", b: "2-copy" } }],
    [
      "oracle-ac-job-spec-and-template",
      {
        spec: {
          backoffLimit: 2,
          ttlSecondsAfterFinished: 600,
          template: {
            metadata: { annotations: { "sidecar.istio.io/inject": "false" } },
            spec: { containers: [{ name: "main", env: [{ name: "RUN_ID", value: "42" }] }] },
          },
        },
      },
    ],
    ["oracle-ac-namespace-labels", { metadata: { labels: { env: "dev" } } }],
    [
      "oracle-ac-env-order-new-first",
      container({
        env: [
          { name: "NEW", value: "n" },
          { name: "A", value: "1a" },
        ],
      }),
    ],
    // apiVersion and kind set in the result are ignored
    ["oracle-ac-labels-merge", { apiVersion: "v2", kind: "Other", metadata: { labels: { team: "payments", app: "web-v2" } } }],
  ];
  test.each(objects)("%s", (name, patch) => {
    const c = oracleCase(name);
    expect(merged(apply(c.input, patch))).toEqual(c.expected);
  });

  const errors: Array<[string, JsonObject]> = [
    [
      "oracle-ac-container-duplicate-key",
      {
        spec: {
          containers: [
            { name: "app", image: "a:1" },
            { name: "app", image: "b:1" },
          ],
        },
      },
    ],
    [
      "oracle-ac-env-valuefrom-fieldref-atomic",
      container({ env: [{ name: "POD_NAME", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } }] }),
    ],
    ["oracle-ac-capabilities-drop-atomic", container({ securityContext: { capabilities: { drop: ["ALL"] } } })],
    ["oracle-ac-nodeselector-atomic-map", { spec: { nodeSelector: { disktype: "ssd" } } }],
    ["oracle-ac-tolerations-atomic", { spec: { tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }] } }],
    ["oracle-ac-args-atomic", container({ args: ["--verbose"] })],
    ["oracle-ac-imagepullsecrets-atomic-element", { spec: { imagePullSecrets: [{ name: "regcred" }] } }],
    ["oracle-ac-unknown-field", container({ imagee: "x:1" })],
    ["oracle-ac-wrong-scalar-type", { spec: { terminationGracePeriodSeconds: "30" } }],
    // CEL null arrives as a protobuf NullValue: a JSON null in the patch stands for it.
    ["oracle-ac-null-value", { metadata: { labels: null } }],
    [
      "oracle-ac-ownerreferences-atomic-element",
      { metadata: { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "6b7a7d7e-0000-4000-8000-000000000001" }] } },
    ],
    [
      "oracle-ac-job-podfailurepolicy-atomic",
      { spec: { podFailurePolicy: { rules: [{ action: "Ignore", onPodConditions: [{ type: "DisruptionTarget" }] }] } } },
    ],
  ];
  test.each(errors)("%s", (name, patch) => {
    const c = oracleCase(name);
    expect(failure(apply(c.input, patch))).toBe(c.error);
  });

  test("oracle-ac-two-atomic-paths: both paths, in the patch's walk order", () => {
    const c = oracleCase("oracle-ac-two-atomic-paths");
    const msg = failure(apply(c.input, { spec: { nodeSelector: { a: "b" }, containers: [{ name: "app", args: ["x"] }] } }));
    expect(msg.startsWith(c.error as string)).toBe(true);
    // The full message recorded in the case's notes:
    expect(msg).toBe("error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.nodeSelector, .spec.containers[0].args");
  });

  test("oracle-ac-unknown-field-ignore: an error (ignored by the failure policy); the object stays as it was", () => {
    const c = oracleCase("oracle-ac-unknown-field-ignore");
    const r = apply(c.input, container({ imagee: "x:1" }));
    expect(r.ok).toBe(false);
    expect(c.input).toEqual(c.expected);
  });

  test("oracle-ac-container-missing-key: the nameless container is keyed name=\"\" and appended (Pod validation rejects it later)", () => {
    const c = oracleCase("oracle-ac-container-missing-key");
    const out = merged(apply(c.input, { spec: { containers: [{ image: "nginx:1.26" }] } }));
    const containers = (out.spec as JsonObject).containers as JsonObject[];
    expect(containers.map((x) => x.name)).toEqual(["app", "sidecar", undefined]);
    expect(containers[2]).toEqual({ image: "nginx:1.26" });
    expect(c.error).toBe('Pod "web" is invalid: spec.containers[2].name: Required value');
  });

  test("oracle-ac-resources-quantity-normalized / int-quantity: quantities are untyped scalars, kept as given (the apiserver normalises and defaults afterwards)", () => {
    const c = oracleCase("oracle-ac-resources-quantity-normalized");
    const out = merged(apply(c.input, { spec: { containers: [{ name: "sidecar", resources: { limits: { cpu: "0.5", memory: "1000Mi" } } }] } }));
    const sidecar = ((out.spec as JsonObject).containers as JsonObject[])[1] as JsonObject;
    expect(sidecar.resources).toEqual({ limits: { cpu: "0.5", memory: "1000Mi" } });
    const want = ((c.expected?.spec as JsonObject).containers as JsonObject[])[1] as JsonObject;
    expect(want.resources).toEqual({ limits: { cpu: "500m", memory: "1000Mi" }, requests: { cpu: "500m", memory: "1000Mi" } });

    const i = oracleCase("oracle-ac-resources-int-quantity");
    const out2 = merged(apply(i.input, { spec: { containers: [{ name: "sidecar", resources: { limits: { cpu: 2 } } }] } }));
    expect((((out2.spec as JsonObject).containers as JsonObject[])[1] as JsonObject).resources).toEqual({ limits: { cpu: 2 } });
  });

  test("oracle-mixed-ac-then-jp: the JSON patch sees the labels the apply configuration added", () => {
    const c = oracleCase("oracle-mixed-ac-then-jp");
    const step1 = merged(apply(c.input, { metadata: { labels: { stage: "one" } } }));
    const step2 = applyJsonPatch(step1, [
      { op: "test", path: "/metadata/labels/stage", value: "one" },
      { op: "add", path: "/metadata/labels/stage2", value: "one-two" },
    ]);
    expect(step2).toEqual({ ok: true, doc: c.expected });
  });
});

describe("ApplyConfiguration: Kubernetes unit tests (map-cases)", () => {
  const objects: Array<[string, JsonObject]> = [
    ["applyconfig-listmap-add-item", { spec: { template: { spec: { volumes: [{ name: "y" }] } } } }],
    ["applyconfig-listmap-merge-item", { spec: { template: { spec: { volumes: [{ name: "y", hostPath: { path: "a" } }] } } } }],
    // object.spec.replicas % 2 == 0 ? object.spec.replicas + 1 : object.spec.replicas, with replicas 2
    ["applyconfig-conditional-expression", { spec: { replicas: 3 } }],
    [
      "applyconfig-complex-initialization",
      {
        spec: {
          replicas: 1,
          template: {
            metadata: { labels: { app: "nginx" } },
            spec: { containers: [{ name: "nginx", image: "nginx:1.14.2", ports: [{ containerPort: 80 }], resources: { limits: { cpu: "128M" } } }] },
          },
        },
      },
    ],
    ["applyconfig-live-duplicates-collapsed-when-touched", { spec: { template: { spec: { containers: [{ name: "nginx", env: [{ name: "test", value: "c" }] }] } } } }],
    [
      "applyconfig-listmap-initcontainers-append",
      { metadata: { annotations: { foo: "bar" } }, spec: { initContainers: [{ name: "injected-init-container", image: "injected-image" }] } },
    ],
    ["policy-applyconfig-with-params", { spec: { replicas: 100 } }],
  ];
  test.each(objects)("%s", (name, patch) => {
    const c = oracleCase(name);
    expect(merged(apply(c.input, patch))).toEqual(c.expected);
  });

  test.each<[string, JsonObject]>([
    ["applyconfig-atomic-struct-rejected", { spec: { selector: { matchLabels: { l: "v" } } } }],
    ["applyconfig-unknown-field", { spec: { replicasx: 1 } }],
  ])("%s", (name, patch) => {
    const c = oracleCase(name);
    expect(failure(apply(c.input, patch))).toBe(c.error);
  });

  test("policy-applyconfig-then-jsonpatch-sequential", () => {
    const c = oracleCase("policy-applyconfig-then-jsonpatch-sequential");
    const step1 = merged(apply(c.input, { spec: { replicas: 101 } }));
    expect(applyJsonPatch(step1, [{ op: "replace", path: "/spec/replicas", value: 111 }])).toEqual({ ok: true, doc: c.expected });
  });

  test("it-mutate-status-subresource: Namespace status.conditions merge by type", () => {
    const c = oracleCase("it-mutate-status-subresource");
    const out = merged(apply(c.input, { status: { conditions: [{ type: "NamespaceDeletionContentFailure", message: "mutated" }] } }));
    expect((out.status as JsonObject).conditions).toEqual((c.expected?.status as JsonObject).conditions);
  });
});

describe("ApplyConfiguration: structured-merge-diff behaviour on built-in kinds", () => {
  const pod = (): JsonObject => oracleCase("oracle-ac-labels-merge").input;
  const deployment: JsonObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", labels: { a: "1" } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "d" } },
      template: {
        metadata: { labels: { app: "d" } },
        spec: {
          containers: [
            {
              name: "c",
              env: [
                { name: "A", value: "1" },
                { name: "B", value: "2" },
                { name: "B", value: "dup" },
              ],
            },
          ],
        },
      },
    },
  };
  const envOf = (o: JsonObject): JsonValue => (((((o.spec as JsonObject).template as JsonObject).spec as JsonObject).containers as JsonObject[])[0] as JsonObject).env as JsonValue;
  const envPatch = (env: JsonValue): JsonObject => ({ spec: { template: { spec: { containers: [{ name: "c", env }] } } } });

  test("keyed list order follows the patch for shared items (patch [B, A] on [A, B] gives [B, A]; findings ac-env-order-reversed)", () => {
    const live = oracleCase("oracle-ac-env-order-new-first").input;
    const out = merged(apply(live, container({ env: [{ name: "B" }, { name: "A" }] })));
    expect((((out.spec as JsonObject).containers as JsonObject[])[0] as JsonObject).env).toEqual([
      { name: "B", value: "2" },
      { name: "A", value: "1" },
    ]);
  });

  test("live duplicates survive when the patch does not touch their key", () => {
    const out = merged(apply(deployment, envPatch([{ name: "C", value: "3" }])));
    expect(envOf(out)).toEqual([
      { name: "A", value: "1" },
      { name: "B", value: "2" },
      { name: "B", value: "dup" },
      { name: "C", value: "3" },
    ]);
  });

  test("smd_test.go 'apply configuration with duplicate env vars in original object': an untouched duplicated list converts and survives", () => {
    const live: JsonObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      spec: { replicas: 1, template: { spec: { containers: [{ name: "nginx", env: [{ name: "test", value: "a" }, { name: "test", value: "b" }] }] } } },
    };
    const out = merged(apply(live, { spec: { replicas: 3 } }));
    expect(out).toEqual({ ...live, spec: { ...(live.spec as JsonObject), replicas: 3 } });
  });

  test("live duplicates collapse into the patch item alone when the patch touches their key", () => {
    const out = merged(apply(deployment, envPatch([{ name: "B" }])));
    expect(envOf(out)).toEqual([{ name: "A", value: "1" }, { name: "B" }]);
  });

  test("an empty patch list leaves the live list alone; both empty keeps the patch's []", () => {
    expect(merged(apply(deployment, envPatch([])))).toEqual(deployment);
    const out = merged(apply(pod(), { spec: { initContainers: [] } }));
    expect((out.spec as JsonObject).initContainers).toEqual([]);
  });

  test("an empty map in the patch leaves live keys; {} on an absent field creates it", () => {
    expect(merged(apply(pod(), { metadata: { labels: {} } }))).toEqual(pod());
    expect((merged(apply(pod(), { metadata: { annotations: {} } })).metadata as JsonObject).annotations).toEqual({});
  });

  test("an empty apply configuration is the identity", () => {
    expect(merged(apply(deployment, {}))).toEqual(deployment);
    expect(merged(apply(pod(), {}))).toEqual(pod());
  });

  test("set (finalizers): new values after live ones, shared ones in patch order", () => {
    const live: JsonObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", finalizers: ["a"] } };
    expect((merged(apply(live, { metadata: { finalizers: ["b", "a"] } })).metadata as JsonObject).finalizers).toEqual(["b", "a"]);
    expect((merged(apply(live, { metadata: { finalizers: ["a", "b"] } })).metadata as JsonObject).finalizers).toEqual(["a", "b"]);
  });

  test("Service ports without protocol key on TCP (key default) and keep live fields", () => {
    const c = oracleCase("oracle-ac-service-ports-modify");
    const out = merged(apply(c.input, { spec: { ports: [{ port: 80, targetPort: 8081 }] } }));
    expect((out.spec as JsonObject).ports).toEqual([{ name: "http", protocol: "TCP", port: 80, targetPort: 8081 }]);
  });

  test("hostAliases keyed by ip: hostnames is atomic (findings ac-hostaliases-keyed-by-ip)", () => {
    expect(failure(apply(pod(), { spec: { hostAliases: [{ ip: "10.0.0.1", hostnames: ["a"] }] } }))).toBe(
      "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.hostAliases[0].hostnames",
    );
  });

  test("RawExtension is untyped-atomic (ControllerRevision data)", () => {
    const live: JsonObject = { apiVersion: "apps/v1", kind: "ControllerRevision", metadata: { name: "r" }, revision: 1 };
    expect(failure(apply(live, { data: { a: 1 } }))).toBe("error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .data");
  });

  test("atomic paths inside an atomic list element and a granular keyed list", () => {
    // LabelSelector is atomic; its matchExpressions list is atomic too and reported after it.
    expect(failure(apply(deployment, { spec: { selector: { matchExpressions: [{ key: "k", operator: "Exists" }] } } }))).toBe(
      "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector, .spec.selector.matchExpressions",
    );
  });

  const conversions: Array<[string, JsonObject, JsonObject, string]> = [
    ["string for an integer", deployment, { spec: { replicas: "3" } }, ".spec.replicas: expected numeric (int or float), got string"],
    ["bool for an integer", deployment, { spec: { replicas: true } }, ".spec.replicas: expected numeric (int or float), got bool"],
    ["map for an integer", deployment, { spec: { replicas: { a: 1 } } }, ".spec.replicas: expected numeric (int or float), got map[string]interface {}"],
    ["int for a string", deployment, { metadata: { labels: { b: 1 } } }, ".metadata.labels.b: expected string, got &value.valueUnstructured{Value:1}"],
    ["float for a string", deployment, { metadata: { labels: { b: 1.5 } } }, ".metadata.labels.b: expected string, got &value.valueUnstructured{Value:1.5}"],
    ["list for a string", deployment, { metadata: { name: ["a", 1] } }, '.metadata.name: expected string, got &value.valueUnstructured{Value:[]interface {}{"a", 1}}'],
    ["string for a bool", deployment, { spec: { paused: "yes" } }, ".spec.paused: expected boolean, got &{yes}"],
    ["string for a map", deployment, { metadata: { labels: "x" } }, ".metadata.labels: expected map, got &{x}"],
    ["list for a struct", deployment, { spec: { template: [1, "a"] } }, ".spec.template: expected map, got &{[1 a]}"],
    ["string for a list", deployment, { metadata: { finalizers: "x" } }, ".metadata.finalizers: expected list, got &{x}"],
    ["CEL null for a string", deployment, { metadata: { name: null } }, ".metadata.name: expected string, got &value.valueUnstructured{Value:0}"],
    ["CEL null for an integer", deployment, { spec: { replicas: null } }, ".spec.replicas: expected numeric (int or float), got structpb.NullValue"],
    ["CEL null for a bool", deployment, { spec: { paused: null } }, ".spec.paused: expected boolean, got &{NULL_VALUE}"],
    ["CEL null for a list", deployment, { metadata: { finalizers: null } }, ".metadata.finalizers: expected list, got &{NULL_VALUE}"],
    ["map for a quantity", pod(), container({ resources: { limits: { cpu: { a: 1 } } } }), '.spec.containers[name="app"].resources.limits.cpu: expected any scalar, got &{map[a:1]}'],
    ["map in a set", deployment, { metadata: { finalizers: [{ a: 1 }] } }, ".metadata.finalizers: element 0: associative list without keys has an element that's a map type"],
    ["list in a set", deployment, { metadata: { finalizers: [["a"]] } }, ".metadata.finalizers: element 0: not supported: associative list with lists as elements"],
    ["CEL null in a set", deployment, { metadata: { finalizers: [null] } }, ".metadata.finalizers[={{undefined}}]: expected string, got &value.valueUnstructured{Value:0}"],
    ["string in a keyed list", pod(), { spec: { containers: ["x"] } }, ".spec.containers: element 0: associative list with keys may not have non-map elements"],
    ["two-key duplicate (Service ports)", oracleCase("oracle-ac-service-ports-add").input, { spec: { ports: [{ port: 80 }, { port: 80, protocol: "TCP", name: "x" }] } }, '.spec.ports: duplicate entries for key [port=80,protocol="TCP"]'],
    ["unknown field below a keyed item with two keys", pod(), container({ ports: [{ containerPort: 81, bogus: 1 }] }), '.spec.containers[name="app"].ports[containerPort=81,protocol="TCP"].bogus: field not declared in schema'],
    ["unknown field in an atomic list item", pod(), { spec: { tolerations: [{ bogus: 1 }] } }, ".spec.tolerations[0].bogus: field not declared in schema"],
    ["several errors", deployment, { spec: { bogus: 1, replicas: "x" }, metadata: { labels: { a: 2 } } }, "errors:\n  .spec.bogus: field not declared in schema\n  .metadata.labels.a: expected string, got &value.valueUnstructured{Value:2}"],
  ];
  test.each(conversions)("conversion error: %s", (_name, live, patch, want) => {
    expect(failure(apply(live, patch))).toBe(`error applying patch: failed to convert patch object to typed object: ${want}`);
  });

  test("patchNull \"json\": a null is valid for every type; it replaces scalars and empty maps but not a non-empty granular map", () => {
    const live = { ...deployment, metadata: { name: "d", labels: { a: "1" }, annotations: {} } };
    const r = applyConfiguration(live, { metadata: { labels: null, annotations: null }, spec: { replicas: null } }, registry.forKind("apps/v1", "Deployment"), registry, { patchNull: "json" });
    expect(r.ok && r.object.metadata).toEqual({ name: "d", labels: { a: "1" }, annotations: null });
    expect(r.ok && (r.object.spec as JsonObject).replicas).toBe(null);
  });

  test("bigint integers are accepted and kept exact", () => {
    const out = merged(apply(deployment, { spec: { revisionHistoryLimit: 9007199254740993n } }));
    expect((out.spec as JsonObject).revisionHistoryLimit).toBe(9007199254740993n);
    expect(failure(apply(deployment, { metadata: { name: 5n } }))).toBe(
      "error applying patch: failed to convert patch object to typed object: .metadata.name: expected string, got &value.valueUnstructured{Value:5}",
    );
  });

  test("int-or-string is typeless in the OpenAPI v3: a map passes conversion, a list is an atomic value", () => {
    const svc = oracleCase("oracle-ac-service-ports-modify").input;
    const out = merged(apply(svc, { spec: { ports: [{ port: 80, targetPort: { a: 1 } }] } }));
    expect(((out.spec as JsonObject).ports as JsonObject[])[0]).toEqual({ name: "http", protocol: "TCP", port: 80, targetPort: { a: 1 } });
    expect(failure(apply(svc, { spec: { ports: [{ port: 80, targetPort: [1] }] } }))).toBe(
      "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.ports[0].targetPort",
    );
    expect(failure(apply(svc, { spec: { ports: [{ port: 80, targetPort: null }] } }))).toBe(
      'error applying patch: failed to convert patch object to typed object: .spec.ports[port=80,protocol="TCP"].targetPort: expected map, got &{NULL_VALUE}',
    );
  });

  test("conversion errors come before the atomic check", () => {
    expect(failure(apply(deployment, { spec: { selector: { bogus: 1 } } }))).toBe(
      "error applying patch: failed to convert patch object to typed object: .spec.selector.bogus: field not declared in schema",
    );
  });

  test("a live object that does not fit the schema fails after the patch checks", () => {
    const live = { ...deployment, spec: { ...(deployment.spec as JsonObject), bogus: 1 } };
    expect(apply(live, { metadata: { labels: { x: "1" } } })).toEqual({
      ok: false,
      error: {
        kind: "live-conversion",
        errors: [{ path: ".spec.bogus", message: "field not declared in schema" }],
        message: "error applying patch: failed to convert original object to typed object: .spec.bogus: field not declared in schema",
      },
    });
  });

  test("a kind without a schema is the apiserver's 503", () => {
    const live: JsonObject = { apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "g" } };
    expect(applyConfiguration(live, {}, undefined, registry)).toEqual({
      ok: false,
      error: {
        kind: "no-schema",
        status: 503,
        message: "Resource kind example.com/v1, Kind=Gadget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.",
      },
    });
    expect(failure(applyConfiguration({ apiVersion: "v1", kind: "Nope" }, {}, undefined, registry))).toMatch(/^Resource kind \/v1, Kind=Nope not found\./);
  });
});

describe("ApplyConfiguration: CRDs (the oracle's Widget)", () => {
  const string: SchemaNode = { t: "scalar", s: "string" };
  const integer: SchemaNode = { t: "scalar", s: "integer" };
  // The Widget CRD of map-oracle-cases, as the apiserver's OpenAPI publishes it (apiVersion, kind and
  // metadata added), written in the conventions typed.ts documents.
  const widget: SchemaNode = {
    t: "struct",
    f: {
      apiVersion: string,
      kind: string,
      metadata: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
      spec: {
        t: "struct",
        f: {
          size: integer,
          mode: string,
          ports: { t: "list", lt: "map", keys: ["name"], e: { t: "struct", f: { name: string, port: integer, protocol: string }, required: ["name"] } },
          tags: { t: "list", lt: "set", e: string },
          args: { t: "list", lt: "atomic", e: string },
          plain: { t: "list", lt: "atomic", e: string },
          selector: { t: "map", atomic: true, v: string },
          settings: { t: "map", v: string },
          extra: { t: "map", v: { t: "untyped", preserveUnknown: true } },
          open: { t: "struct", preserveUnknown: true, f: { known: integer, list: { t: "list", lt: "atomic", e: string } } },
          any: { t: "untyped", preserveUnknown: true },
        },
      },
    },
  };
  const reg = SchemaRegistry.builtin();
  reg.addKind("oracle.example.com/v1", "Widget", widget);
  const w = (): JsonObject => oracleCase("oracle-crd-ac-preserve-unknown-list").input;
  const spec = (o: JsonObject): JsonObject => o.spec as JsonObject;

  test.each<[string, JsonObject]>([
    ["oracle-crd-ac-preserve-unknown-nested-map", { spec: { extra: { b: { c: "d" } } } }],
    ["oracle-crd-ac-preserve-unknown-list", { spec: { extra: { items: ["x"] } } }],
  ])("%s", (name, patch) => {
    const c = oracleCase(name);
    expect(merged(apply(c.input, patch, reg))).toEqual(c.expected);
  });

  test.each<[string, JsonObject]>([
    ["oracle-crd-ac-untyped-list-atomic", { spec: { plain: ["p2"] } }],
    ["oracle-crd-ac-unknown-field", { spec: { bogus: "x" } }],
  ])("%s", (name, patch) => {
    const c = oracleCase(name);
    expect(failure(apply(c.input, patch, reg))).toBe(c.error);
  });

  test("map list merged by key, set unioned, granular map merged", () => {
    const out = merged(apply(w(), { spec: { ports: [{ name: "grpc", port: 9000 }, { name: "http", protocol: "TCP" }], tags: ["c", "a"], settings: { k2: "v2" } } }, reg));
    expect(spec(out).ports).toEqual([
      { name: "grpc", port: 9000 },
      { name: "http", port: 80, protocol: "TCP" },
    ]);
    expect(spec(out).tags).toEqual(["c", "a", "b"]);
    expect(spec(out).settings).toEqual({ k1: "v1", k2: "v2" });
  });

  test("atomic list and atomic map cannot be set", () => {
    expect(failure(apply(w(), { spec: { args: ["--y"], selector: { app: "v" } } }, reg))).toBe(
      "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.args, .spec.selector",
    );
  });

  test("a CRD key field has no zero default: an element without it cannot be converted", () => {
    expect(failure(apply(w(), { spec: { ports: [{ port: 1 }] } }, reg))).toBe(
      'error applying patch: failed to convert patch object to typed object: .spec.ports: element 0: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)',
    );
  });

  test("a key default from the CRD schema keys the element", () => {
    const r2 = SchemaRegistry.builtin();
    const port: SchemaNode = { t: "struct", f: { name: string, port: integer }, required: ["name"] };
    r2.addKind("oracle.example.com/v1", "Widget", {
      t: "struct",
      f: { apiVersion: string, kind: string, spec: { t: "struct", f: { ports: { t: "list", lt: "map", keys: ["name"], keyDefaults: { name: "http" }, e: port } } } },
    });
    const live: JsonObject = { apiVersion: "oracle.example.com/v1", kind: "Widget", spec: { ports: [{ name: "http", port: 80 }] } };
    expect(spec(merged(apply(live, { spec: { ports: [{ port: 81 }] } }, r2))).ports).toEqual([{ name: "http", port: 81 }]);
  });

  test("preserve-unknown struct: unknown fields accepted and merged, their lists settable, declared atomic lists still checked", () => {
    const live: JsonObject = { ...w(), spec: { ...spec(w()), open: { known: 1, x: { y: 1 } } } };
    const out = merged(apply(live, { spec: { open: { x: { z: 2 }, l: [1, "a"] } } }, reg));
    expect(spec(out).open).toEqual({ known: 1, x: { y: 1, z: 2 }, l: [1, "a"] });
    expect(failure(apply(live, { spec: { open: { list: ["a"] } } }, reg))).toBe(
      "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.open.list",
    );
  });

  test("untyped values: a list directly at an untyped field is atomic; a list nested in its map is not checked", () => {
    expect(failure(apply(w(), { spec: { any: [{ a: 1 }] } }, reg))).toBe(
      "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.any, .spec.any[0]",
    );
    const out = merged(apply({ ...w(), spec: { ...spec(w()), any: { a: { b: 1 }, l: [1] } } }, { spec: { any: { a: { c: 2 }, l: [2, 3], s: "x" } } }, reg));
    expect(spec(out).any).toEqual({ a: { b: 1, c: 2 }, l: [2, 3], s: "x" });
  });

  test("untyped values: a differently shaped patch value replaces the live one", () => {
    const live = { ...w(), spec: { ...spec(w()), extra: { a: 1, m: { x: 1 }, s: "str" } } };
    const out = merged(apply(live, { spec: { extra: { a: { n: 1 }, m: "now-a-string", s: [1] } } }, reg));
    expect(spec(out).extra).toEqual({ a: { n: 1 }, m: "now-a-string", s: [1] });
  });

  test("`type: object` preserve-unknown (a map) rejects a list", () => {
    expect(failure(apply(w(), { spec: { extra: ["x"] } }, reg))).toBe(
      "error applying patch: failed to convert patch object to typed object: .spec.extra: expected map, got &{[x]}",
    );
  });
});

describe("ApplyConfiguration: properties", () => {
  const name = fc.constantFrom("A", "B", "C", "D", "E");
  const envList = fc.uniqueArray(fc.record({ name, value: fc.constantFrom("1", "2", "3") }, { requiredKeys: ["name"] }), { selector: (e) => e.name, maxLength: 5 });
  const labels = fc.dictionary(fc.constantFrom("a", "b", "c", "app"), fc.constantFrom("x", "y"), { maxKeys: 3 });
  const ports = fc.uniqueArray(
    fc.record({ containerPort: fc.constantFrom(80, 443, 8080), protocol: fc.constantFrom("TCP", "UDP"), name: fc.constantFrom("p", "q") }, { requiredKeys: ["containerPort"] }),
    { selector: (p) => `${p.containerPort}/${p.protocol ?? "TCP"}`, maxLength: 3 },
  );
  const containerArb = fc.record({ name: fc.constantFrom("app", "side", "init"), image: fc.constantFrom("a:1", "b:2"), env: envList, ports }, { requiredKeys: ["name"] });
  const containers = fc.uniqueArray(containerArb, { selector: (c) => c.name, maxLength: 3 });
  const podOf = (l: JsonObject, cs: JsonObject[]): JsonObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: l }, spec: { containers: cs } });
  const live = fc.tuple(labels, containers).map(([l, cs]) => podOf(l as JsonObject, cs as JsonObject[]));
  const patch = fc.tuple(labels, containers).map(([l, cs]) => ({ metadata: { labels: l }, spec: { containers: cs } }) as JsonObject);

  test("merging the same patch twice gives the result of merging it once", () => {
    fc.assert(
      fc.property(live, patch, (l, p) => {
        const once = merged(apply(l, p));
        expect(merged(apply(once, p))).toEqual(once);
      }),
    );
  });

  test("an empty patch is the identity", () => {
    fc.assert(
      fc.property(live, (l) => {
        expect(merged(apply(l, {}))).toEqual(l);
      }),
    );
  });

  test("inputs are never modified", () => {
    fc.assert(
      fc.property(live, patch, (l, p) => {
        const l0 = deepClone(l);
        const p0 = deepClone(p);
        apply(l, p);
        expect(l).toEqual(l0);
        expect(p).toEqual(p0);
      }),
    );
  });

  test("nothing is removed: every live container and env name survives, every patch one appears, in patch order", () => {
    fc.assert(
      fc.property(live, patch, (l, p) => {
        const out = merged(apply(l, p));
        const names = (o: JsonObject): string[] => ((o.spec as JsonObject).containers as JsonObject[]).map((c) => c.name as string);
        const got = names(out);
        expect(new Set(got)).toEqual(new Set([...names(l), ...names(p)]));
        const shared = names(p).filter((n) => names(l).includes(n));
        expect(got.filter((n) => shared.includes(n))).toEqual(shared);
      }),
    );
  });
});
