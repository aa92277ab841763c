import { defineConfig } from "vitest/config";

/**
 * `npm run test:e2e`: the real-apiserver suite (docs/e2e.md). One kube-apiserver + etcd for the
 * whole run, started by global-setup.ts and always stopped; test files run one after another in one
 * fork (they share the cluster and register webhooks), and reporter.ts prints the
 * `apiserver e2e: N passed, N failed` line.
 */
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/e2e/**/*.test.ts"],
    globalSetup: ["test/e2e/global-setup.ts"],
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
    reporters: ["default", "./test/e2e/reporter.ts"],
  },
});
