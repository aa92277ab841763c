import { describe, expect, it } from "vitest";
import { DataPendingError, ProviderError } from "./common.js";
import { OfflineImageDataProvider } from "./providers.js";
import { err, m, run, v, type Outcome } from "./test-harness.js";

// kyverno-tests test/cli/test-mutating-policy/image-metadata/context.yaml, and the fields the live loader returns.
const imageData = new OfflineImageDataProvider({
  images: [
    { image: "nginx:1.21", config: { architecture: "amd64" } },
    {
      image: "ghcr.io/kyverno/kyverno:latest",
      resolvedImage: "ghcr.io/kyverno/kyverno:latest@sha256:859d41e4316c182cb559f9ae3c5ffcac8602ee1179794a1707c06cd092a008d3",
      registry: "ghcr.io",
      repository: "kyverno/kyverno",
      identifier: "latest",
      tag: "latest",
      digest: "sha256:859d41e4316c182cb559f9ae3c5ffcac8602ee1179794a1707c06cd092a008d3",
      manifest: { schemaVersion: 2, layers: [{ size: 10 }] },
      config: { architecture: "arm64", os: "linux", config: { Labels: { "org.opencontainers.image.base.name": "alpine" } } },
    },
  ],
});

describe("imagedata library (image.GetMetadata)", () => {
  it.each<[string, Outcome]>([
    [`image.GetMetadata("nginx:1.21").config.architecture`, v("amd64")],
    [`image.getMetadata("ghcr.io/kyverno/kyverno:latest").resolvedImage`, v("ghcr.io/kyverno/kyverno:latest@sha256:859d41e4316c182cb559f9ae3c5ffcac8602ee1179794a1707c06cd092a008d3")],
    [`image.GetMetadata("ghcr.io/kyverno/kyverno:latest").manifest.schemaVersion`, v(2)], // JSON numbers are doubles
    [`image.GetMetadata("ghcr.io/kyverno/kyverno:latest").manifest.layers[0].size == 10`, v(true)],
    [`image.GetMetadata("ghcr.io/kyverno/kyverno:latest").config.config.Labels["org.opencontainers.image.base.name"]`, v("alpine")],
    [`image.GetMetadata("ghcr.io/kyverno/kyverno:latest").tag`, v("latest")],
    [`has(image.GetMetadata("nginx:1.21").manifest)`, v(false)],
    // lookups are by the exact string
    [`image.GetMetadata("nginx")`, err("failed to get image data: image data for nginx not found in the context")],
    [`image.GetMetadata("docker.io/nginx:1.21")`, err("failed to get image data: image data for docker.io/nginx:1.21 not found in the context")],
    // the function image() and the variable image coexist
    [`image("nginx:1.21").tag() + "/" + image.GetMetadata("nginx:1.21").config.os`, { evalError: "no such key: os" }],
    [`[image("nginx:1.21")].map(i, image.GetMetadata(string(i.repository()) == "library/nginx" ? "nginx:1.21" : "x").config.architecture)`, v(["amd64"])],
  ])("%s", (expr, want) => {
    expect(run(expr, { imageData })).toEqual(want);
  });

  it.each([`image.GetMetadata(1)`, `image.GetMetadata()`, `image.Get("x")`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });

  it("words provider failures and supports pending data", () => {
    const failing = { getImageData: () => { throw new ProviderError("GET https://r/v2/: UNAUTHORIZED"); } };
    expect(run(`image.GetMetadata("r/x")`, { imageData: failing })).toEqual(err("failed to get image data: GET https://r/v2/: UNAUTHORIZED"));
    const pending = new OfflineImageDataProvider({ missing: "pending" });
    expect(() => run(`image.GetMetadata("r/x")`, { imageData: pending })).toThrow(DataPendingError);
    pending.setImage({ image: "r/x", digest: "d" });
    expect(run(`image.GetMetadata("r/x")`, { imageData: pending })).toEqual(v(m({ image: "r/x", digest: "d" })));
  });
});
