import { describe, expect, it } from "vitest";
import { err, run, v, type Outcome } from "./test-harness.js";

const D = "sha256:6aefddb645ee6963afd681b1845c661d0ea4c3b20ab9db86d9e753b203d385f2";

// Expected values from kyverno/sdk extensions/cel/libs/image/lib_test.go and types_test.go, then go-containerregistry behaviour.
describe("image library (kyverno/sdk lib_test.go)", () => {
  it.each<[string, Outcome]>([
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64:latest") == parseImageReference("registry.k8s.io/kube-apiserver-arm64:latest")`, v(true)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64:@")`, err("could not parse reference: registry.k8s.io/kube-apiserver-arm64:@")],
    [`isImage("registry.k8s.io/kube-apiserver-arm64:latest")`, v(true)],
    [`isImage("registry.k8s.io/kube-apiserver-arm64:@")`, v(false)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64").containsDigest()`, v(false)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64:latest").containsDigest()`, v(false)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64@${D}").containsDigest()`, v(true)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64:latest@${D}").containsDigest()`, v(true)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64").registry() == "registry.k8s.io"`, v(true)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64").registry().matches("(registry.k8s.io|ghcr.io)")`, v(true)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64").repository() == "kube-apiserver-arm64"`, v(true)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64:testtag").identifier()`, v("testtag")],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64").identifier()`, v("latest")],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64@${D}").identifier()`, v(D)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64:latest@${D}").identifier()`, v(D)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64:testtag").tag()`, v("testtag")],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64").tag()`, v("latest")],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64@${D}").tag()`, v("")],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64").digest()`, v("")],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64:testtag").digest()`, v("")],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64@${D}").digest()`, v(D)],
    [`parseImageReference("registry.k8s.io/kube-apiserver-arm64:not-latest") == parseImageReference("registry.k8s.io/kube-apiserver-arm64:latest")`, v(false)],
  ])("%s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });
});

describe("image library (go-containerregistry name.ParseReference)", () => {
  it.each<[string, Outcome]>([
    [`image("nginx").registry()`, v("index.docker.io")],
    [`image("nginx").repository()`, v("library/nginx")],
    [`image("docker.io/nginx:1.25").registry()`, v("index.docker.io")],
    [`image("docker.io/bitnami/nginx").repository()`, v("bitnami/nginx")],
    [`image("localhost:5000/app:v1").registry()`, v("localhost:5000")],
    [`image("localhost/app").registry()`, v("index.docker.io")], // no '.' or ':' in the first segment: all repository
    [`image("localhost/app").repository()`, v("localhost/app")],
    [`image("ghcr.io/kyverno/test-busybox:1.28").repository()`, v("kyverno/test-busybox")],
    [`image("[::1]:5000/app").registry()`, v("[::1]:5000")],
    [`image("nginx:1.2@${D}").tag()`, v("")],
    [`image("nginx") == image("nginx:latest")`, v(false)], // DeepEqual includes the original string
    [`image("nginx") == image("nginx")`, v(true)],
    [`[image("docker.io/nginx"), image("ghcr.io/x/y")].map(i, i.registry())`, v(["index.docker.io", "ghcr.io"])],
    [`isImage("Nginx")`, v(false)], // repositories are lowercase
    [`isImage("a")`, v(false)], // at least two characters
    [`isImage("nginx@sha256:abc")`, v(false)],
    [`isImage("nginx:")`, v(false)],
    [`isImage("ghcr.io/kyverno/kyverno@${D}")`, v(true)],
    [`image("nginx@md5:abc")`, err("could not parse reference: nginx@md5:abc")],
    [`image("")`, err("could not parse reference: ")],
    [`type(image("nginx")) == kyverno.image`, v(true)],
    [`image("nginx").registry() + "/" + image("nginx").repository() + ":" + image("nginx").identifier()`, v("index.docker.io/library/nginx:latest")],
  ])("%s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it.each([`isImage(0)`, `image(1)`, `"nginx".registry()`, `image("x").tag(1)`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
