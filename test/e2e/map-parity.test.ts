/**
 * The same MutatingAdmissionPolicies three ways, against the real kube-apiserver:
 * 1. served by `celmap webhook -f` behind the chart's MutatingWebhookConfiguration;
 * 2. installed natively (MutatingAdmissionPolicy + binding, the apiserver's own plugin);
 * 3. `celmap eval` on the apiserver's defaulted object (a dry-run with no policy bound).
 * Each case asserts: stored object (or HTTP status and warnings) via the webhook == via native
 * admission, and eval's prediction == the natively stored object.
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { message, objectPath, strip, waitFor, type Kube, type Obj } from "../../e2e/kube.js";
import { parityCases, type ParityCase, type Request } from "./parity-cases.js";
import {
  ac,
  annotations,
  cliMain,
  cluster,
  configMap,
  mapPolicy,
  rule,
  startWebhook,
  tempDir,
  webhookConfiguration,
  writeYaml,
  type WebhookProcess,
} from "./support.js";

const kube = cluster();

interface Outcome {
  status: number;
  reason?: string;
  message?: string;
  warnings: string[];
  stored?: Obj;
  /** For UPDATE: the stored object before the update (eval's --old). */
  old?: Obj;
  /** For DELETE: whether the object is gone afterwards. */
  gone?: boolean;
}

/**
 * Cases whose policy must leave the object as it was. A failed JSONPatch `test` op is not an error:
 * the patch is not applied (AS plugin/policy/mutating/patch/json_patch.go, jsonpatch.ErrTestFailed).
 */
const NO_OP = new Set(["match-condition-false-no-op", "cel-error-ignore", "jp-test-op-fails"]);

const whNs = (i: number): string => `pw-${i}`;
const natNs = (i: number): string => `pn-${i}`;
const plainNs = "p-plain";

function policyDocs(token: string): Obj[] {
  const docs: Obj[] = [];
  parityCases.forEach((c, i) => docs.push(...mapPolicy(`parity-${c.name}`, c.policy, [whNs(i), natNs(i)], c.binding ?? {})));
  docs.push(
    ...mapPolicy(
      "parity-probe",
      {
        resources: [rule([""], ["v1"], ["configmaps"])],
        matchConditions: [{ name: "probe", expression: "object.metadata.name == 'probe'" }],
        mutations: [ac(`Object{metadata: Object.metadata{annotations: {"probe": "${token}"}}}`)],
      },
      ["pw-probe", "pn-probe"],
    ),
  );
  return docs;
}

function paramDocs(): Obj[] {
  const out: Obj[] = [];
  parityCases.forEach((c, i) => {
    for (const p of c.params ?? []) for (const ns of [whNs(i), natNs(i)]) out.push({ ...p, metadata: { ...(p.metadata as Obj), namespace: ns } });
  });
  return out;
}

async function probeActive(k: Kube, ns: string, token: string): Promise<void> {
  await waitFor(`policy probe in ${ns}`, async () => {
    const r = await k.request("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("probe", ns), { dryRun: true });
    return r.status === 201 && annotations(r.body).probe === token;
  });
}

async function run(k: Kube, req: Request): Promise<Outcome> {
  const fail = (r: { status: number; body: Obj; warnings: string[] }): Outcome => ({
    status: r.status,
    reason: String(r.body.reason ?? ""),
    message: message(r as never),
    warnings: r.warnings,
  });
  switch (req.op) {
    case "CREATE": {
      const r = await k.request("POST", objectPath(req.object).replace(/\/[^/]+$/, ""), req.object);
      if (r.status >= 300) return fail(r);
      return { status: r.status, warnings: r.warnings, stored: (await k.get(req.object)).body };
    }
    case "UPDATE": {
      const old = await k.create(req.initial);
      const r = await k.request("PUT", objectPath(req.initial), req.update(old));
      if (r.status >= 300) return { ...fail(r), old };
      return { status: r.status, warnings: r.warnings, stored: (await k.get(req.initial)).body, old };
    }
    case "STATUS": {
      const created = await k.create(req.initial);
      const r = await k.request("PUT", `${objectPath(req.initial)}/status`, { ...created, status: req.status });
      if (r.status >= 300) return fail(r);
      return { status: r.status, warnings: r.warnings, stored: (await k.get(req.initial)).body };
    }
    case "DELETE": {
      await k.create(req.initial);
      const r = await k.request("DELETE", objectPath(req.initial), { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0 });
      const gone = (await k.get(req.initial)).status === 404;
      return { ...(r.status >= 300 ? fail(r) : { status: r.status, warnings: r.warnings }), gone };
    }
  }
}

/** The stored object as compared: server-set metadata, namespace and (unless STATUS) status dropped. */
function comparable(o: Obj | undefined, c: ParityCase): Obj | undefined {
  if (o === undefined) return undefined;
  const keepStatus = c.request("x").op === "STATUS";
  const s = strip(o, { keepStatus });
  const m = s.metadata as Obj;
  // Pod status set by the apiserver's own strategy on create.
  if (keepStatus) delete (s.status as Obj).qosClass;
  delete m.namespace;
  return s;
}

const d = kube === undefined ? describe.skip : describe;

d("MAP parity: celmap webhook vs native MutatingAdmissionPolicy vs celmap eval", () => {
  const k = kube!;
  // Made in beforeAll: a skipped suite (no Go) leaves nothing behind.
  let dir = "";
  const viaWebhook = new Map<string, Outcome>();
  const viaNative = new Map<string, Outcome>();
  const defaulted = new Map<string, Obj>();
  const evalOut = new Map<string, { allowed: boolean; object: Obj | null; error?: string }>();
  let webhook: WebhookProcess | undefined;
  const mwc = "celmap-e2e-parity";

  beforeAll(async () => {
    dir = tempDir("parity");
    for (const [i] of parityCases.entries()) {
      await k.namespace(whNs(i), { "e2e.celmap.io/webhook": "parity" });
      await k.namespace(natNs(i));
    }
    await k.namespace("pw-probe", { "e2e.celmap.io/webhook": "parity" });
    await k.namespace("pn-probe");
    await k.namespace(plainNs);
    const params = paramDocs();
    for (const p of params) await k.apply(p);

    // 1. celmap as the webhook (no native policy exists yet).
    writeYaml(dir, "policies.yaml", policyDocs("webhook"));
    writeYaml(dir, "params.yaml", params);
    webhook = await startWebhook(["-f", dir]);
    await k.create(
      webhookConfiguration({
        name: mwc,
        webhook,
        selectorValue: "parity",
        rules: [rule([""], ["v1"], ["pods", "pods/status", "configmaps"], ["CREATE", "UPDATE", "DELETE"]), rule(["apps"], ["v1"], ["deployments"])],
      }),
    );
    await probeActive(k, "pw-probe", "webhook");
    for (const [i, c] of parityCases.entries()) viaWebhook.set(c.name, await run(k, c.request(whNs(i))));
    await k.remove({ apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration", metadata: { name: mwc } });
    await webhook.stop();
    webhook = undefined;

    // 2. The same policies natively; the probe policy is created last, so once it acts the others do.
    const docs = policyDocs("native");
    for (const doc of docs) await k.apply(doc);
    await probeActive(k, "pn-probe", "native");
    // A binding's param informer starts when the binding appears and may not have listed yet when the
    // probe acts: wait while the apiserver answers "no params found" (a dry-run of the case itself).
    for (const [i, c] of parityCases.entries()) {
      const req = c.request(natNs(i));
      if (c.params === undefined || req.op !== "CREATE") continue;
      await waitFor(`param informer for ${c.name}`, async () => {
        const r = await k.request("POST", objectPath(req.object).replace(/\/[^/]+$/, ""), req.object, { dryRun: true });
        return !message(r).includes("no params found");
      });
    }
    for (const [i, c] of parityCases.entries()) viaNative.set(c.name, await run(k, c.request(natNs(i))));

    // 3. celmap eval on the apiserver's defaulted objects (dry-run in a namespace no binding selects).
    const creates: { c: ParityCase; obj: Obj }[] = [];
    for (const [i, c] of parityCases.entries()) {
      const req = c.request(plainNs);
      if (req.op === "CREATE") {
        const r = await k.request("POST", objectPath(req.object).replace(/\/[^/]+$/, ""), req.object, { dryRun: true });
        const obj = strip(r.body);
        (obj.metadata as Obj).namespace = natNs(i);
        creates.push({ c, obj });
        defaulted.set(c.name, obj);
      } else if (req.op === "UPDATE") {
        const old = viaNative.get(c.name)?.old;
        const initial = await k.create(req.initial);
        const r = await k.request("PUT", objectPath(req.initial), req.update(initial), { dryRun: true });
        const obj = strip(r.body);
        (obj.metadata as Obj).namespace = natNs(i);
        const oldFile = writeYaml(dir, `old-${c.name}.yaml`, [strip(old!, { keepNamespace: true })]);
        const resFile = writeYaml(dir, `res-${c.name}.yaml`, [obj]);
        const out = JSON.parse(execFileSync(process.execPath, [cliMain, "eval", "-f", join(dir, "policies.yaml"), "-f", join(dir, "params.yaml"), "-r", resFile, "--old", oldFile, "-o", "json"], { encoding: "utf8" })) as { allowed: boolean; object: Obj | null }[];
        evalOut.set(c.name, out[0]!);
      }
    }
    const resFile = writeYaml(dir, "resources.yaml", creates.map((x) => x.obj));
    let stdout: string;
    try {
      stdout = execFileSync(process.execPath, [cliMain, "eval", "-f", join(dir, "policies.yaml"), "-f", join(dir, "params.yaml"), "-r", resFile, "-o", "json"], { encoding: "utf8" });
    } catch (e) {
      stdout = String((e as { stdout?: string }).stdout ?? "[]");
    }
    const results = JSON.parse(stdout) as { allowed: boolean; object: Obj | null }[];
    creates.forEach((x, j) => evalOut.set(x.c.name, results[j] ?? { allowed: false, object: null, error: "no eval result" }));
  }, 600_000);

  afterAll(async () => {
    await webhook?.stop();
    await k.remove({ apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration", metadata: { name: mwc } }).catch(() => {});
    for (const doc of policyDocs("x")) await k.remove(doc).catch(() => {});
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
    k.close();
  });

  for (const c of parityCases) {
    it(`celmap webhook == native MAP: ${c.name}`, () => {
      const w = viaWebhook.get(c.name)!;
      const n = viaNative.get(c.name)!;
      expect(w, "webhook run").toBeDefined();
      expect({ status: w.status, warnings: w.warnings, gone: w.gone }).toEqual({ status: n.status, warnings: n.warnings, gone: n.gone });
      expect(comparable(w.stored, c)).toEqual(comparable(n.stored, c));
      // Not vacuous: where a policy is meant to act, the stored object differs from the unmutated one.
      const plain = defaulted.get(c.name);
      if (plain !== undefined && n.stored !== undefined) {
        if (NO_OP.has(c.name)) expect(comparable(n.stored, c)).toEqual(comparable(plain, c));
        else expect(comparable(n.stored, c)).not.toEqual(comparable(plain, c));
      }
    });
    const op = c.request("x").op;
    if (op === "CREATE" || op === "UPDATE") {
      it(`celmap eval predicts the stored object: ${c.name}`, () => {
        const n = viaNative.get(c.name)!;
        const e = evalOut.get(c.name)!;
        expect(e, "eval result").toBeDefined();
        expect(e.allowed).toBe(n.status < 300);
        if (n.stored !== undefined) expect(comparable(e.object ?? undefined, c)).toEqual(comparable(n.stored, c));
      });
    }
  }
});
