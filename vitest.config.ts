import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "conformance/**/*.test.ts"],
    // The real-apiserver suite has its own config and command (npm run test:e2e, docs/e2e.md).
    exclude: ["test/e2e/**", "**/node_modules/**", "**/dist/**"],
    // Two cores: keep workers to what the machine has so timings stay honest.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
  },
});
