/** Prints `apiserver e2e: N passed, N failed` (and the expected failures, each naming its blocker). */
import type { Reporter, TestModule } from "vitest/node";

export default class E2eSummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped = process.env.CELMAP_E2E_SKIPPED;
    if (skipped !== undefined) {
      console.log(`apiserver e2e: skipped: ${skipped}`);
      return;
    }
    let passed = 0;
    let failed = 0;
    let notRun = 0;
    const expectedFail: string[] = [];
    for (const m of modules) {
      // A failed hook (beforeAll) leaves its tests not run: in a failed module they count as failed.
      const moduleFailed = m.state() === "failed";
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === "passed") {
          passed++;
          if (t.options.fails) expectedFail.push(t.name);
        } else if (s === "failed" || moduleFailed) failed++;
        else notRun++;
      }
      if (moduleFailed && [...m.children.allTests()].length === 0) failed++;
    }
    const extra = [notRun > 0 ? `${notRun} not run` : "", expectedFail.length > 0 ? `${expectedFail.length} of the passed are known failures (it.fails)` : ""].filter((x) => x !== "");
    console.log(`apiserver e2e: ${passed} passed, ${failed} failed${extra.length > 0 ? ` (${extra.join("; ")})` : ""}`);
    for (const n of expectedFail) console.log(`  known failure: ${n}`);
  }
}
