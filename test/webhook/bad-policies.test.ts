/**
 * Policies that would take a webhook down (issue 16, findings 1 and 2), against a real server on
 * loopback: a string that ten variables quadruple (262 million characters from a 250-character
 * name, for a CEL cost of a few hundred) fails with a cost error instead of exhausting memory;
 * a policy that would evaluate for many seconds is interrupted at the deadline, answered before
 * it, while /healthz keeps answering.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, makePki, removeDir, responseOf, startServer, type Pki } from "./support.js";

let pki: Pki;
beforeAll(() => {
  pki = makePki();
});
afterAll(() => {
  if (pki !== undefined) removeDir(pki.dir);
});

function policy(name: string, variables: readonly { name: string; expression: string }[], mutations: readonly string[], failurePolicy = "Fail"): string {
  const p = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name },
    spec: {
      failurePolicy,
      reinvocationPolicy: "Never",
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] },
      variables,
      mutations: mutations.map((expression) => ({ patchType: "ApplyConfiguration", applyConfiguration: { expression } })),
    },
  };
  const b = { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingAdmissionPolicyBinding", metadata: { name }, spec: { policyName: name } };
  return `${JSON.stringify(p)}\n---\n${JSON.stringify(b)}\n`;
}

/** v0 = the name; v1..v10 each `v + v + v + v` of the one before (250 × 4^10 = 262,144,000 characters). */
export function quadruplingPolicy(name = "quadruple"): string {
  const variables = [{ name: "v0", expression: "object.metadata.name" }];
  for (let i = 1; i <= 10; i++) {
    const v = `variables.v${i - 1}`;
    variables.push({ name: `v${i}`, expression: `${v} + ${v} + ${v} + ${v}` });
  }
  return policy(name, variables, [`Object{metadata: Object.metadata{annotations: {"long": variables.v10}}}`]);
}

const TEN = "[0,1,2,3,4,5,6,7,8,9]";
/**
 * 30 variables of 100,000 comprehension iterations each (well under the per-call limit), read by
 * each of 150 mutations (each with its own budget and variables): about 75 ms of CPU per mutation,
 * over 10 s in all, every evaluation within the apiserver's cost rules.
 */
function slowPolicy(name = "slow"): string {
  const inner = `${TEN}.all(a, ${TEN}.all(b, ${TEN}.all(c, ${TEN}.all(d, ${TEN}.all(e, true)))))`;
  const variables = Array.from({ length: 30 }, (_, i) => ({ name: `v${i}`, expression: inner }));
  const all = variables.map((v) => `variables.${v.name}`).join(" && ");
  return policy(name, variables, Array.from({ length: 150 }, (_, j) => `Object{metadata: Object.metadata{labels: {"m${j}": string(${all})}}}`));
}

function podReview(name: string): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `uid-${name.length}-${Date.now()}`,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      name,
      namespace: "default",
      operation: "CREATE",
      userInfo: { username: "alice" },
      object: { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default" }, spec: { containers: [{ name: "app", image: "nginx" }] } },
      oldObject: null,
      dryRun: false,
    },
  });
}

describe("a policy whose variables build a huge string", () => {
  it("fails with the cost-limit error (failurePolicy Fail), four at once, and the server keeps serving", async () => {
    const dir = join(pki.dir, "quad");
    mkdirSync(dir);
    writeFileSync(join(dir, "p.yaml"), quadruplingPolicy());
    const { server, port } = await startServer(pki, [dir]);
    try {
      const name = "a".repeat(250);
      const replies = await Promise.all(Array.from({ length: 4 }, () => call(pki, port, podReview(name))));
      for (const r of replies) {
        expect(r.status).toBe(200);
        const res = responseOf(r);
        expect(res.allowed).toBe(false);
        expect(res.status?.message).toContain('composited variable "v10" fails to evaluate');
        expect(res.status?.message).toContain("operation cancelled: actual cost limit exceeded");
      }
      // The heap is intact: the same server answers the next request.
      expect((await call(pki, port, undefined, { path: "/healthz" })).status).toBe(200);
    } finally {
      await server.shutdown();
    }
  }, 60_000);
});

describe("a policy that would run past the deadline", () => {
  it("--timeout 2s: answered by 2.2 s with the failure policy's answer; /healthz answered meanwhile", async () => {
    const dir = join(pki.dir, "slow");
    mkdirSync(dir);
    writeFileSync(join(dir, "p.yaml"), slowPolicy());
    const { server, port } = await startServer(pki, [dir], { timeoutMs: 2_000, failurePolicy: "Fail" });
    try {
      const started = performance.now();
      const pending = call(pki, port, podReview("slow-pod"));
      // Probes sent while the policy runs are answered (at the latest when it is interrupted).
      const probe = (async () => {
        await new Promise((r) => setTimeout(r, 300));
        const t = performance.now();
        const h = await call(pki, port, undefined, { path: "/healthz" });
        return { status: h.status, at: performance.now() - started, sent: t - started };
      })();
      const r = await pending;
      const elapsed = performance.now() - started;
      expect(elapsed).toBeLessThan(2_200);
      const res = responseOf(r);
      expect(res.allowed).toBe(false);
      expect(res.status?.code).toBe(504);
      const h = await probe;
      expect(h.status).toBe(200);
      expect(h.at).toBeLessThan(2_500);
    } finally {
      await server.shutdown();
    }
  }, 60_000);
});
