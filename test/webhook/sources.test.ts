/**
 * Policy kinds beyond MAPs, through the real server over TLS: Kyverno MutatingPolicies (run as
 * Kyverno's webhook after the MAP plugin), Gatekeeper mutators (translated into MAPs at load),
 * and a bad Kyverno policy or mutator rejecting the update (the last good set stays).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  call,
  gatekeeperAssignYaml,
  kyvernoPolicyYaml,
  labelPolicy,
  makePki,
  metricValue,
  metricsText,
  patchOf,
  removeDir,
  responseOf,
  review,
  startServer,
  waitFor,
  type Pki,
  type Started,
} from "./support.js";

let pki: Pki;
let s: Started;
let dir: string;

beforeAll(async () => {
  pki = makePki();
  dir = join(pki.dir, "policies");
  mkdirSync(dir);
  writeFileSync(join(dir, "map.yaml"), labelPolicy("map-label", "map", '"yes"'));
  writeFileSync(join(dir, "kyverno.yaml"), kyvernoPolicyYaml("kyverno-label", "kyverno", '"yes"'));
  writeFileSync(join(dir, "gatekeeper.yaml"), gatekeeperAssignYaml("pull-always"));
  s = await startServer(pki, [dir]);
});

afterAll(async () => {
  await s?.server.shutdown("test over");
  if (pki !== undefined) removeDir(pki.dir);
});

it("a MAP, a Kyverno MutatingPolicy and a Gatekeeper Assign all apply to one request", async () => {
  const snap = s.server.store.current!;
  expect(snap.kyvernoPolicies.map((p) => p.metadata.name)).toEqual(["kyverno-label"]);
  expect(snap.policies.map((p) => p.metadata.name).sort()).toEqual(["gatekeeper-assign-pull-always", "map-label"].sort());
  const res = responseOf(await call(pki, s.port, review().body));
  expect(res.allowed).toBe(true);
  const ops = patchOf(res);
  const labels = ops.find((o) => o.path === "/metadata/labels")?.value as Record<string, string> | undefined;
  const flat = JSON.stringify(ops);
  expect(labels?.map ?? (flat.includes('"/metadata/labels/map"') ? "yes" : undefined)).toBe("yes");
  expect(flat).toContain("kyverno");
  expect(flat).toContain("/spec/containers/0/imagePullPolicy");
  expect(flat).toContain("Always");
  const m = await metricsText(pki, s.port);
  expect(metricValue(m, "celmap_webhook_policies", { kind: "MutatingPolicy" })).toBe(1);
  expect(metricValue(m, "celmap_webhook_policy_invocations_total", { policy: "kyverno-label", outcome: "mutated" })).toBeGreaterThanOrEqual(1);
  expect(metricValue(m, "celmap_webhook_policy_invocations_total", { policy: "gatekeeper-assign-pull-always", outcome: "mutated" })).toBeGreaterThanOrEqual(1);
});

it("a Kyverno policy that does not compile, or a mutator Gatekeeper rejects, keeps the last good set", async () => {
  const generation = s.server.store.current!.generation;
  writeFileSync(join(dir, "kyverno-bad.yaml"), kyvernoPolicyYaml("bad", "x", "nope("));
  await waitFor(() => s.log.lines.some((l) => l.event === "policies_rejected" && JSON.stringify(l.errors).includes("kyverno-bad.yaml")), 5_000, "kyverno rejection");
  writeFileSync(join(dir, "kyverno-bad.yaml"), "");
  writeFileSync(join(dir, "gatekeeper-bad.yaml"), gatekeeperAssignYaml("bad-location").replace("spec.containers[name:*].imagePullPolicy", "metadata.name"));
  await waitFor(() => s.log.lines.some((l) => l.event === "policies_rejected" && JSON.stringify(l.errors).includes("gatekeeper-bad.yaml")), 5_000, "gatekeeper rejection");
  expect(s.server.store.current!.generation).toBe(generation);
  expect(responseOf(await call(pki, s.port, review().body)).allowed).toBe(true);
});
