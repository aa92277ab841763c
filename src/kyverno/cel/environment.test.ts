import { describe, expect, it } from "vitest";
import { LazyVariables } from "../../admission/environment.js";
import { OBJECT_TYPE } from "../../cel/k8s/object.js";
import { ANY, BOOL, DYN, STRING, mapType } from "../../cel/types.js";
import type { CelValue } from "../../cel/values.js";
import { ExceptionsValue, compileKyvernoVariables, kyvernoEnv } from "./environment.js";
import { OfflineImageDataProvider, OfflineResourceProvider } from "./providers.js";
import { err, m, run, v, type Outcome } from "./test-harness.js";

const pod = new Map<string, CelValue>([
  ["apiVersion", "v1"],
  ["kind", "Pod"],
  ["metadata", m({ name: "p", namespace: "default", labels: m({ app: "web" }) })],
  ["spec", m({ containers: [m({ name: "c", image: "docker.io/nginx:1.21" })] })],
]);
const request = m({ operation: "CREATE", namespace: "default", object: pod, oldObject: null, userInfo: m({ username: "system:serviceaccount:ns:sa" }) });

describe("kyvernoEnv: variables and types", () => {
  it.each<[string, Outcome]>([
    [`object.metadata.name`, v("p")],
    [`request.object.metadata.labels.app`, v("web")], // Kyverno adds request.object/oldObject
    [`request.oldObject == null`, v(true)],
    [`request.operation`, v("CREATE")],
    [`namespaceObject == null`, v(true)],
    [`exceptions.allowedImages`, v([])],
    [`mylib_version`, v("")],
    [`jsonpatch.escapeKey("a/b~c")`, v("a~1b~0c")],
    [`type(Object{}) == Object`, v(true)],
    [`JSONPatch{op: "add", path: "/x", value: 1}.op`, v("add")],
    [`cel.bind(x, object.metadata.name, x + x)`, v("pp")],
    [`base64.encode(b"hi")`, v("aGk=")],
    [`math.least([3, 1, 2])`, v(1n)],
    [`"a,b".split(",")`, v(["a", "b"])],
    [`sets.contains([1, 2], [1])`, v(true)],
    [`[3, 1].sortBy(x, x)`, v([1n, 3n])],
    [`"abc".reverse()`, { compileError: "found no matching overload for 'reverse' applied to 'string.()'" }], // strings v2 (lists v3 has reverse)
    [`url("https://x/y").getHost()`, v("x")],
    [`quantity("1Gi").isGreaterThan(quantity("1Mi"))`, v(true)],
    [`ip("10.0.0.1").family()`, v(4n)],
    [`semver("1.2.3").major()`, v(1n)],
    [`object.?spec.?replicas.orValue(1)`, v(1n)],
    // Kyverno's orValue compatibility (cel-go 0.27): a non-optional receiver is returned as is
    [`object.metadata.name.orValue("x")`, v("p")],
    [`optional.none().orValue(3)`, v(3n)],
    [`__orValueCompat__(optional.of(1), 2)`, v(1n)],
    [`object.metadata.missing.orValue("x")`, { evalError: "no such key: missing" }],
    [`[1, "a"]`, { compileError: "expected type 'int' but found 'string'" }], // homogeneous aggregate literals
    [`1 < 2.0`, v(true)], // cross-type numeric comparisons
    [`duration("x")`, { compileError: expect.stringContaining("duration") as unknown as string }], // literal validation
    [`params`, { compileError: "undeclared reference to 'params' (in container '')" }],
    [`authorizer`, { compileError: "undeclared reference to 'authorizer' (in container '')" }],
    [`variables.missing`, { compileError: "undefined field 'missing'" }],
    [`request.nope`, { compileError: "undefined field 'nope'" }],
  ])("%s", (expr, want) => {
    expect(run(expr, {}, { object: pod, oldObject: null, request, namespaceObject: null })).toEqual(want);
  });

  it("binds exceptions and the library globals", () => {
    const k = kyvernoEnv();
    expect(Object.keys(k.globals).sort()).toEqual(["globalContext", "http", "image", "json", "mylib_version", "resource", "yaml"]);
    const program = k.env.program(k.env.compile(`object.spec.containers.all(c, string(c.image) in exceptions.allowedImages)`));
    expect(program.eval(k.activation({ object: pod, exceptions: new ExceptionsValue(["docker.io/nginx:1.21"]) }))).toBe(true);
    expect(program.eval(k.activation({ object: pod }))).toBe(false);
    expect(k.env.compile(`exceptions.allowedValues`).type.toString()).toBe("list(string)");
  });

  it("types outputs as Kyverno's compiler checks them", () => {
    const { env } = kyvernoEnv();
    expect(env.compile(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`).type).toEqual(OBJECT_TYPE);
    expect(env.compile(`resource.Get("v1", "configmaps", "", "x")`).type).toEqual(mapType(STRING, ANY));
    expect(env.compile(`http.Get("x")`).type.kind).toBe("any");
    expect(env.compile(`globalContext.Get("x")`).type).toEqual(DYN);
    expect(env.compile(`isImage("x")`).type).toEqual(BOOL);
    // every orValue is __orValueCompat__(x, y): dyn, even on a typed optional
    expect(env.compile(`optional.of(1).orValue(2)`).type).toEqual(DYN);
  });
});

describe("kyvernoEnv: variables (compiler.CompileVariables)", () => {
  it("declares earlier variables with their types, lazily evaluated", () => {
    const resource = new OfflineResourceProvider({
      objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "env-config", namespace: "default" }, data: { env: "production" } }],
    });
    // kyverno-tests test/cli/test-context-configmap-mpol
    const vars = compileKyvernoVariables(
      [
        { name: "envConfig", expression: `resource.get("v1", "configmaps", object.metadata.namespace, "env-config")` },
        { name: "envValue", expression: `has(variables.envConfig.data) && 'env' in variables.envConfig.data ? variables.envConfig.data['env'] : 'unknown'` },
        { name: "later", expression: `variables.notYet` },
      ],
      { resource },
    );
    expect(vars.map((x) => [x.name, x.ok, x.type.toString()])).toEqual([
      ["envConfig", true, "map(string, google.protobuf.Any)"],
      ["envValue", true, "dyn"],
      ["later", false, "dyn"],
    ]);
    const k = kyvernoEnv({ resource, variables: vars });
    const lazy = new LazyVariables(vars, k.activation({ object: pod }));
    const program = k.env.program(k.env.compile(`variables.envValue`));
    expect(program.eval(lazy.bindings)).toBe("production");
  });
});

describe("kyvernoEnv: Kyverno's own policies (kyverno-tests)", () => {
  const imageData = new OfflineImageDataProvider({ images: [{ image: "nginx:1.21", config: { architecture: "amd64" } }] });
  const resource = new OfflineResourceProvider({
    objects: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "default", labels: { "karpenter.sh/nodepool": "general" } } }],
  });
  const nginx = m({ ...Object.fromEntries(pod), spec: m({ containers: [m({ name: "c", image: "nginx:1.21" })] }) });
  it.each<[string, Outcome]>([
    // test/cli/test-mutating-policy/image-metadata
    [`image.GetMetadata(object.spec.containers[0].image).config.architecture`, v("amd64")],
    // policies/karpenter-mpol/add-karpenter-nodeselector
    [`resource.Get('v1', 'namespaces', '', object.metadata.namespace).metadata.labels`, v(m({ "karpenter.sh/nodepool": "general" }))],
    // test/cli/test-mutating-policy/cel-regex-replace
    [`object.spec.containers.map(c, regex.replace(c.image, "^docker\\\\.io/(.*)", r'myregistry.io/\\1'))`, v(["nginx:1.21"])],
    // image() registry checks as in best-practices policies
    [`object.spec.containers.all(c, image(c.image).registry() == "index.docker.io")`, v(true)],
    [`image.GetMetadata("busybox")`, err("failed to get image data: image data for busybox not found in the context")],
  ])("%s", (expr, want) => {
    expect(run(expr, { imageData, resource }, { object: nginx })).toEqual(want);
  });
});
