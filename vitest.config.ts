import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "conformance/**/*.test.ts"],
    // Two cores: keep workers to what the machine has so timings stay honest.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
  },
});
