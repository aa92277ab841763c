/**
 * The built playground (dist/playground) in a real browser: Debian's chromium driven by
 * playwright-core, headless. `npm run test:browser` builds first. Skips with one line when
 * /usr/bin/chromium is missing (CI installs it: .ci/run).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { chromium, type Browser, type Page } from "playwright-core";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain JS module without types
import { startServer } from "../serve.mjs";

const REPO = join(import.meta.dirname, "..", "..");
const DIST = join(REPO, "dist", "playground");
const CHROMIUM = "/usr/bin/chromium";
const SHOTS = process.env["PLAYGROUND_SCREENSHOTS"] === "1" ? join(REPO, "docs", "playground") : undefined;
const run = promisify(execFile);

const ready = existsSync(CHROMIUM) && existsSync(join(DIST, "index.html"));
if (!ready) console.log(`playground browser tests skipped: ${existsSync(CHROMIUM) ? "dist/playground is not built (npm run build:playground)" : `${CHROMIUM} is missing (apt-get install -y chromium)`}`);

let browser: Browser;
let server: { close(): void };
let base: string;

beforeAll(async () => {
  if (!ready) return;
  const s = (await startServer(DIST, 0)) as { server: { close(): void }; url: string };
  server = s.server;
  base = s.url;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
});

afterAll(async () => {
  await browser?.close();
  server?.close();
});

async function open(fragment: string, query = ""): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  (page as Page & { errors: string[] }).errors = errors;
  await page.goto(`${base}${query}${fragment}`);
  // The editors are there (the first result can be shown before them).
  await page.locator("body[data-ready=true]").waitFor({ timeout: 60_000 });
  return page;
}

/** Waits for an evaluation summary (a result or input errors) that contains `text`. */
async function summary(page: Page, text: string | RegExp): Promise<string> {
  const loc = page.getByTestId("summary");
  await expect.poll(async () => (await loc.textContent()) ?? "", { timeout: 60_000 }).toMatch(text);
  return (await loc.textContent()) ?? "";
}

async function admitted(page: Page): Promise<string> {
  return (await page.getByTestId("admitted").textContent()) ?? "";
}

/**
 * Replaces an editor's whole text as a person would: click into it, select all (Ctrl+A), paste.
 * The paste is a ClipboardEvent carrying the text (what the browser fires on Ctrl+V), which the
 * editor handles as a paste; typing large texts key by key would take minutes.
 */
async function typeInto(page: Page, editor: string, text: string): Promise<void> {
  const content = page.locator(`#ed-${editor} .cm-content`);
  await content.click();
  await page.keyboard.press("Control+a");
  await content.evaluate((el, t) => {
    const data = new DataTransfer();
    data.setData("text/plain", t);
    el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

async function state(page: Page): Promise<Record<string, unknown>> {
  return (await page.evaluate(() => window.celmapState!())) as unknown as Record<string, unknown>;
}

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS === undefined) return;
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

describe.skipIf(!ready)("playground in chromium", () => {
  it("shows for #example=quick-start the admitted objects `celmap eval` prints for the README quick start", async () => {
    const cli = ["dist/src/cli/main.js", "eval", "-f", "examples/policies/", "-r", "examples/resources/"];
    const [json, yamlOut] = await Promise.all([run("node", [...cli, "-o", "json"], { cwd: REPO }), run("node", [...cli, "-o", "yaml"], { cwd: REPO })]);
    const expected = (JSON.parse(json.stdout) as { allowed: boolean; object: unknown }[]).filter((r) => r.allowed).map((r) => r.object);
    expect(expected.length).toBe(3);

    const page = await open("#example=quick-start");
    await summary(page, /3 resources: 2 mutated, 1 unchanged, 0 denied/);
    const text = await admitted(page);
    const shown = parseAllDocuments(text).map((d) => d.toJS() as unknown);
    expect(shown).toEqual(expected);
    expect(text).toBe(yamlOut.stdout); // byte for byte what -o yaml prints
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await shot(page, "quick-start");
    await page.getByTestId("out-diff").click();
    await expect.poll(() => page.getByTestId("diff").textContent()).toMatch(/^\+ +- name: log-shipper$/m);
    await shot(page, "diff");
    await page.getByTestId("out-trace").click();
    await expect.poll(() => page.getByTestId("trace").textContent()).toMatch(/min-replicas/);
    await shot(page, "trace");
    await page.close();
  });

  it("opens a gallery sample picked from the list", async () => {
    const page = await open("#example=quick-start");
    await summary(page, /3 resources/);
    await page.getByTestId("gallery").selectOption("kyverno");
    await summary(page, /2 resources: 2 mutated/);
    const text = await admitted(page);
    expect(text).toContain("managed-by: kyverno");
    // The MutatingPolicy's pod-controller autogen variant reached the Deployment's pod template.
    const deploy = parseAllDocuments(text).map((d) => d.toJS() as { kind: string; spec: { template?: { metadata: { labels: Record<string, string> } } } }).find((o) => o.kind === "Deployment");
    expect(deploy?.spec.template?.metadata.labels).toMatchObject({ app: "api", foo: "bar" });
    expect(page.url()).toContain("#example=kyverno");

    await page.getByTestId("gallery").selectOption("gatekeeper");
    await summary(page, /1 resource: 1 mutated/);
    expect(await admitted(page)).toContain("imagePullPolicy: Always");
    await page.getByTestId("view-translate").click();
    await expect.poll(() => page.getByTestId("translate-verdicts").textContent()).toContain("Assign/set-image-pull-policy: exact");
    expect(await page.getByTestId("translate-yaml").textContent()).toContain("kind: MutatingAdmissionPolicy");
    await shot(page, "gatekeeper-translate");
    await page.close();
  });

  it("re-evaluates when a policy is edited, and a shared link reproduces the edited case", async () => {
    const page = await open("#example=quick-start");
    await summary(page, /3 resources/);
    const before = (await state(page))["policies"] as string;
    expect(before).toContain("Object{spec: Object.spec{replicas: 2}}");
    await typeInto(page, "policies", before.replace("Object{spec: Object.spec{replicas: 2}}", "Object{spec: Object.spec{replicas: 5}}"));
    await expect.poll(() => admitted(page), { timeout: 30_000 }).toContain("replicas: 5");
    await expect.poll(() => page.url()).toMatch(/#s=[\w-]+$/);
    const link = page.url();
    const edited = await state(page);
    const shownBefore = await admitted(page);

    const other = await open(new URL(link).hash);
    await summary(other, /3 resources/);
    expect(await state(other)).toEqual(edited);
    expect(await admitted(other)).toBe(shownBefore);
    await page.close();
    await other.close();
  });

  it("shows a CEL compile error at its line in the policy editor", async () => {
    const page = await open("#example=quick-start");
    await summary(page, /3 resources/);
    const text = ((await state(page))["policies"] as string).replace('expression: "object.spec.replicas < 2"', 'expression: "object.spec.replicas < nope"');
    const line = text.split("\n").findIndex((l) => l.includes("< nope")) + 1;
    expect(line).toBeGreaterThan(1);
    await typeInto(page, "policies", text);
    await summary(page, /1 input error; nothing evaluated/);
    const problem = page.locator(`[data-testid=problems] li[data-editor=policies][data-line="${line}"]`);
    await expect.poll(() => problem.count()).toBe(1);
    expect(await problem.textContent()).toMatch(/undeclared reference to 'nope'/);
    // The editor marks that line.
    const marked = page.locator("#ed-policies .cm-line", { hasText: "< nope" }).locator(".cm-lintRange-error");
    await expect.poll(() => marked.count()).toBeGreaterThan(0);
    // Clicking the message puts the cursor on that line.
    await problem.click();
    const cursorLine = await page.evaluate(() => document.querySelector("#ed-policies .cm-activeLine")?.textContent ?? "");
    expect(cursorLine).toContain("< nope");
    await shot(page, "cel-error");
    await page.close();
  });

  it("evaluates an UPDATE with an old object and a user from the request tab", async () => {
    const page = await open("#example=quick-start");
    await summary(page, /3 resources/);
    await page.getByTestId("tab-request").click();
    await page.getByTestId("operation").selectOption("UPDATE");
    // Every resource needs its old object: the first one missing is reported at its document.
    await summary(page, /input errors?; nothing evaluated/);
    expect(await page.getByTestId("problems").textContent()).toContain("resources#0: no old object for apps/v1 Deployment shop/payments-api");
    const resources = (await state(page))["resources"] as string;
    await typeInto(page, "oldObject", resources);
    await page.getByTestId("username").fill("alice");
    // The sidecar policy matches CREATE only: now just the Deployment changes. The checkout Pod mounts
    // `app-logs`, the volume the sidecar policy adds on CREATE; as an UPDATE without it the apiserver
    // (and celmap eval, which validates as it does) rejects the object: 422, volumeMount not found.
    const text = await summary(page, /3 resources: 1 mutated, 1 unchanged, 1 denied/);
    expect(text).toContain('Pod "checkout" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "app-logs"');
    const json = JSON.parse((await page.getByTestId("json").textContent()) ?? "[]") as { operation: string; object: { spec?: { replicas?: number } } }[];
    expect(json.map((r) => r.operation)).toEqual(["UPDATE", "UPDATE", "UPDATE"]);
    expect(json[0]!.object.spec?.replicas).toBe(2);
    await page.getByTestId("out-trace").click();
    expect(await page.getByTestId("trace").textContent()).toMatch(/\(UPDATE/);
    await page.close();
  });

  it("denies the cost bomb with the apiserver's cost error", async () => {
    const page = await open("#example=cost-bomb");
    await summary(page, /1 resource: 0 mutated, 0 unchanged, 1 denied/);
    expect(await page.getByTestId("denied").textContent()).toContain("operation cancelled: actual cost limit exceeded");
    expect(await admitted(page)).toBe("");
    await shot(page, "cost-bomb");
    await page.close();
  });

  it("stays responsive while the worker is busy, and stops and replaces a worker that runs too long", async () => {
    const page = await open("#example=cost-bomb", "?worker-timeout=5");
    await summary(page, /1 denied/);
    // Each mutation under the per-call cost limit, but thousands of them: three copies of the
    // mutation over 1,500 Pods is several times the 5 s limit even on an idle machine, so the
    // worker is always stopped (the test does not depend on how fast this machine is).
    const sample = ((await state(page))["policies"] as string).replace(/lists\.range\(1000\)/g, "lists.range(400)");
    const mutation = /\n(    - patchType: ApplyConfiguration\n[\s\S]*?)\n---/.exec(sample)![1]!;
    const policies = sample.replace(mutation, [mutation, mutation, mutation].join("\n"));
    expect(policies.split("patchType: ApplyConfiguration").length - 1).toBe(3);
    const pods = Array.from({ length: 1500 }, (_, i) => `apiVersion: v1\nkind: Pod\nmetadata: {name: p${i}, namespace: default}\nspec: {containers: [{name: c, image: busybox}]}\n`).join("---\n");
    await page.getByTestId("tab-resources").click();
    await typeInto(page, "resources", pods);
    await page.getByTestId("tab-policies").click();
    await typeInto(page, "policies", policies);
    await expect.poll(() => page.getByTestId("busy").isVisible()).toBe(true);
    // The page answers while the worker works: tabs switch, the editor takes input.
    await page.getByTestId("out-trace").click();
    expect(await page.getByTestId("out-trace").getAttribute("aria-selected")).toBe("true");
    expect(await page.getByTestId("busy").isVisible()).toBe(true);
    await summary(page, /evaluation stopped after 5 s \(the worker was terminated and restarted\)/);
    // A fresh worker takes the next case.
    await page.getByTestId("gallery").selectOption("k8s-docs-sidecar");
    await summary(page, /1 resource: 1 mutated/);
    expect(await admitted(page)).toContain("name: mesh-proxy");
    await page.close();
  });

  it("evaluates CEL in the scratchpad with the Kubernetes environment", async () => {
    const page = await open("#example=quick-start");
    await page.getByTestId("view-cel").click();
    await expect.poll(() => page.getByTestId("cel-result").textContent(), { timeout: 30_000 }).toContain('"nginx:1.27"');
    expect(await page.getByTestId("cel-summary").textContent()).toMatch(/^ok, cost \d+/);
    // Regular expressions run on @bufbuild/re2 in the browser too.
    await typeInto(page, "celExpression", "object.spec.containers.filter(c, c.image.matches('^envoy[a-z]*/')).map(c, c.name) + [object.metadata.name.find('w.b')]");
    await expect.poll(() => page.getByTestId("cel-result").textContent()).toMatch(/\[\s*"proxy",\s*"web"\s*\]/);
    await typeInto(page, "celExpression", "lists.range(1000).map(i, lists.range(1000).map(j, i * j)).size()");
    await expect.poll(() => page.getByTestId("cel-result").textContent()).toContain("operation cancelled: actual cost limit exceeded");
    await typeInto(page, "celExpression", "object.metadata.labels.app +\n  nope");
    await expect.poll(() => page.getByTestId("cel-result").textContent()).toContain("undeclared reference to 'nope'");
    const marked = page.locator("#ed-celExpression .cm-line", { hasText: "nope" }).locator(".cm-lintRange-error");
    await expect.poll(() => marked.count()).toBeGreaterThan(0);
    await typeInto(page, "celExpression", "object.spec.containers.map(c, c.image)");
    await expect.poll(() => page.getByTestId("cel-result").textContent()).toContain('"nginx:1.27"');
    await shot(page, "cel-scratchpad");
    await page.close();
  });

  it("works offline once loaded (its service worker serves every file)", async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}#example=quick-start`);
    await page.locator("body[data-ready=true]").waitFor({ timeout: 60_000 });
    await summary(page, /3 resources/);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await context.setOffline(true);
    await page.reload();
    await page.locator("body[data-ready=true]").waitFor({ timeout: 60_000 });
    await summary(page, /3 resources: 2 mutated/);
    await page.getByTestId("gallery").selectOption("kyverno");
    await summary(page, /2 resources: 2 mutated/);
    const failed: string[] = [];
    page.on("requestfailed", (r) => failed.push(r.url()));
    await page.getByTestId("view-cel").click();
    await expect.poll(() => page.getByTestId("cel-result").textContent()).toContain('"nginx:1.27"');
    expect(failed).toEqual([]);
    await context.close();
  });
});
