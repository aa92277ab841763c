/**
 * Copy-on-write defaulting: the input is never modified, what defaulting does not touch is shared,
 * and a request's defaulter that remembers what it returned gives the same objects as one that
 * does not, across versions of an object the way the pipeline produces them (new objects only
 * along the changed paths).
 */
import { describe, expect, it } from "vitest";
import type { JsonObject, JsonValue } from "../admission/json.js";
import { defaultObject, requestDefaulter, validationContext } from "./index.js";

function deepFreeze<T extends JsonValue | JsonObject>(v: T): T {
  if (typeof v === "object" && v !== null) {
    for (const e of Object.values(v)) deepFreeze(e as JsonValue);
    Object.freeze(v);
  }
  return v;
}

const ctx = validationContext();

const pod = (): JsonObject =>
  deepFreeze<JsonObject>({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", labels: { app: "a" } },
    spec: {
      containers: [
        { name: "a", image: "nginx:1.27", ports: [{ containerPort: 80 }], resources: { limits: { cpu: "1" } } },
        { name: "b", image: "busybox", env: [{ name: "X", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] },
      ],
      volumes: [{ name: "v" }, { name: "s", secret: { secretName: "s" } }],
      tolerations: [{ key: "k", operator: "Exists" }],
    },
  });

describe("copy-on-write defaulting", () => {
  it("never modifies its (frozen) input and shares what it does not change", () => {
    const input = pod();
    const out = defaultObject(input, ctx);
    const spec = out.spec as JsonObject;
    const containers = spec.containers as JsonObject[];
    expect(containers[0]!.imagePullPolicy).toBe("IfNotPresent");
    expect(containers[1]!.imagePullPolicy).toBe("Always");
    expect((containers[0]!.resources as JsonObject).requests).toEqual({ cpu: "1" });
    expect(((containers[1]!.env as JsonObject[])[0]!.valueFrom as JsonObject).fieldRef).toEqual({ fieldPath: "metadata.name", apiVersion: "v1" });
    expect((spec.volumes as JsonObject[])[0]).toEqual({ name: "v", emptyDir: {} });
    expect(((spec.volumes as JsonObject[])[1]!.secret as JsonObject).defaultMode).toBe(420);
    // Untouched subtrees are the input's own objects.
    expect(out.metadata).toBe(input.metadata);
    expect(spec.tolerations).toBe((input.spec as JsonObject).tolerations);
    expect(containers[0]!.ports).not.toBe(((input.spec as JsonObject).containers as JsonObject[])[0]!.ports); // protocol: TCP added
    expect(((containers[0]!.resources as JsonObject).limits as JsonObject)).toBe((((input.spec as JsonObject).containers as JsonObject[])[0]!.resources as JsonObject).limits);
    // Already defaulted: the very object.
    expect(defaultObject(deepFreeze(out), ctx)).toBe(out);
  });

  it("a request's defaulter that remembers what it returned gives the same objects as one that does not", () => {
    const remembering = requestDefaulter(ctx);
    const first = remembering(pod());
    expect(first).toEqual(defaultObject(pod(), ctx));
    deepFreeze(first);
    const spec = first.spec as JsonObject;
    const containers = spec.containers as JsonObject[];
    // Versions as the patchers build them: new objects along the changed path only.
    const versions: JsonObject[] = [
      { ...first, metadata: { ...(first.metadata as JsonObject), labels: { app: "b" } } },
      // A sidecar: the old containers are the same objects, the new one needs its defaults.
      { ...first, spec: { ...spec, containers: [...containers, { name: "sidecar", image: "envoy:latest", resources: { limits: { memory: "1Gi" } } }] } },
      // hostNetwork turned on: containers the defaulter saw with pod networking get host ports now.
      { ...first, spec: { ...spec, hostNetwork: true } },
      // A container's defaulted field removed by a mutation: defaulted again.
      { ...first, spec: { ...spec, containers: [{ ...containers[0]!, imagePullPolicy: "" }, containers[1]!] } },
      // A volume replaced: defaulted; the others shared.
      { ...first, spec: { ...spec, volumes: [(spec.volumes as JsonObject[])[0]!, { name: "c", configMap: { name: "c" } }] } },
    ];
    for (const v of versions) {
      deepFreeze(v);
      const got = remembering(v);
      expect(got).toEqual(defaultObject(v, ctx));
    }
    const host = remembering(versions[2]!);
    expect((((host.spec as JsonObject).containers as JsonObject[])[0]!.ports as JsonObject[])[0]).toEqual({ containerPort: 80, protocol: "TCP", hostPort: 80 });
    const sidecar = remembering(versions[1]!);
    const sc = ((sidecar.spec as JsonObject).containers as JsonObject[])[2]!;
    expect(sc.imagePullPolicy).toBe("Always");
    expect((sc.resources as JsonObject).requests).toEqual({ memory: "1Gi" });
    expect(((sidecar.spec as JsonObject).containers as JsonObject[])[0]).toBe(containers[0]);
  });

  it("a template's pod spec is not a Pod's: the memo keeps them apart", () => {
    const remembering = requestDefaulter(ctx);
    const podSpec = deepFreeze({ containers: [{ name: "a", image: "nginx", resources: { limits: { cpu: "1" } } }] });
    const asPod = remembering(deepFreeze({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: podSpec }));
    const deployment = deepFreeze({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { template: { spec: asPod.spec as JsonObject } } });
    const got = remembering(deployment);
    expect(got).toEqual(defaultObject(deployment, ctx));
    // A template's containers do not get requests from limits (SetDefaults_Pod is for Pods only): the Pod's did.
    expect((((got.spec as JsonObject).template as JsonObject).spec as JsonObject).enableServiceLinks).toBe(true);
  });
});
