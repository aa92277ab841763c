import { defineConfig } from "vitest/config";

/** `npm run test:browser`: the playground in Debian's chromium (playwright-core), against dist/playground. */
export default defineConfig({
  test: {
    include: ["playground/test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
