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
    // The page is waited on, not timed: a loaded machine may take seconds for what usually takes 100 ms.
    expect: { poll: { timeout: 60_000, interval: 100 } },
  },
});
