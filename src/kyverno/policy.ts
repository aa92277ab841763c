/**
 * Kyverno's MutatingPolicy / NamespacedMutatingPolicy (`policies.kyverno.io` v1, v1beta1,
 * v1alpha1) and PolicyException models (kyverno.md §1.2, §1.5, §1.6): zod shapes, defaults and
 * validation with field paths (`spec.matchConstraints.resourceRules: Required value: …`).
 *
 *     const r = decodeKyvernoPolicy(doc);   // { ok: true, policy } | { ok: false, errors: ["spec.x: …"] }
 *
 * All versions share one schema (the v1 Go types alias v1beta1); NMPOL has no v1alpha1.
 */
import { z } from "zod";

export const KYVERNO_POLICY_GROUP = "policies.kyverno.io";
export const MPOL_VERSIONS = ["v1", "v1beta1", "v1alpha1"] as const;
export const NMPOL_VERSIONS = ["v1", "v1beta1"] as const;

const named = z.object({ name: z.string().optional(), expression: z.string().optional() }).loose();
const selector = z.object({}).loose();
const rule = z
  .object({
    apiGroups: z.array(z.string()).optional(),
    apiVersions: z.array(z.string()).optional(),
    resources: z.array(z.string()).optional(),
    operations: z.array(z.string()).optional(),
    resourceNames: z.array(z.string()).optional(),
    scope: z.string().optional(),
  })
  .loose();
const matchResources = z
  .object({
    resourceRules: z.array(rule).optional(),
    excludeResourceRules: z.array(rule).optional(),
    namespaceSelector: selector.optional(),
    objectSelector: selector.optional(),
    matchPolicy: z.enum(["Exact", "Equivalent"]).optional(),
  })
  .loose();
const mutation = z
  .object({
    patchType: z.enum(["ApplyConfiguration", "JSONPatch"]),
    applyConfiguration: z.object({ expression: z.string().optional() }).loose().optional(),
    jsonPatch: z.object({ expression: z.string().optional() }).loose().optional(),
  })
  .loose();
const flag = z.object({ enabled: z.boolean().optional() }).loose();

export const mutatingPolicySpecSchema = z
  .object({
    matchConstraints: matchResources.optional(),
    matchConditions: z.array(named).optional(),
    variables: z.array(named).optional(),
    mutations: z.array(mutation).optional(),
    failurePolicy: z.enum(["Ignore", "Fail"]).optional(),
    reinvocationPolicy: z.enum(["Never", "IfNeeded"]).optional(),
    auditAnnotations: z.array(z.object({ key: z.string(), valueExpression: z.string() }).loose()).optional(),
    evaluation: z
      .object({
        mode: z.enum(["Kubernetes", "JSON"]).optional(),
        admission: flag.optional(),
        background: flag.optional(),
        mutateExisting: flag.optional(),
        skipBackgroundRequests: z.boolean().optional(),
        useServerSideApply: z.boolean().optional(),
      })
      .loose()
      .optional(),
    autogen: z.object({}).loose().optional(),
    targetMatchConstraints: matchResources.extend({ expression: z.string().optional() }).optional(),
    targetMatchConditions: z.array(named).optional(),
    webhookConfiguration: z.object({ timeoutSeconds: z.union([z.number().int(), z.bigint()]).optional() }).loose().optional(),
  })
  .loose();

const metadata = z.object({ name: z.string().min(1), namespace: z.string().optional(), labels: z.record(z.string(), z.string()).optional() }).loose();

export const mutatingPolicySchema = z
  .object({
    apiVersion: z.string(),
    kind: z.enum(["MutatingPolicy", "NamespacedMutatingPolicy"]),
    metadata,
    spec: mutatingPolicySpecSchema,
  })
  .loose();

export const policyExceptionSchema = z
  .object({
    apiVersion: z.string(),
    kind: z.literal("PolicyException"),
    metadata,
    spec: z
      .object({
        policyRefs: z.array(z.object({ name: z.string(), kind: z.string() }).loose()).min(1),
        matchConditions: z.array(named).optional(),
        images: z.array(z.string()).optional(),
        allowedValues: z.array(z.string()).optional(),
        reportResult: z.enum(["skip", "pass"]).optional(),
        expiresAt: z.string().optional(),
        properties: z.record(z.string(), z.unknown()).optional(),
      })
      .loose(),
  })
  .loose();

export type MutatingPolicy = z.infer<typeof mutatingPolicySchema>;
export type PolicyException = z.infer<typeof policyExceptionSchema>;

export type DecodeResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly string[] };

function zodErrors(e: z.ZodError): string[] {
  return e.issues.map((i) => `${i.path.map((p, n) => (typeof p === "number" ? `[${p}]` : `${n === 0 ? "" : "."}${String(p)}`)).join("") || "<root>"}: Invalid value: ${i.message}`);
}

/** Whether a document is a Kyverno mutating policy (any served version). */
export function isKyvernoMutatingPolicy(doc: unknown): boolean {
  if (typeof doc !== "object" || doc === null) return false;
  const d = doc as Record<string, unknown>;
  if (d.kind === "MutatingPolicy") return MPOL_VERSIONS.some((v) => d.apiVersion === `${KYVERNO_POLICY_GROUP}/${v}`);
  if (d.kind === "NamespacedMutatingPolicy") return NMPOL_VERSIONS.some((v) => d.apiVersion === `${KYVERNO_POLICY_GROUP}/${v}`);
  return false;
}

/** Whether a document is a CEL PolicyException (`policies.kyverno.io`). */
export function isKyvernoPolicyException(doc: unknown): boolean {
  if (typeof doc !== "object" || doc === null) return false;
  const d = doc as Record<string, unknown>;
  return d.kind === "PolicyException" && MPOL_VERSIONS.some((v) => d.apiVersion === `${KYVERNO_POLICY_GROUP}/${v}`);
}

/** Kyverno's defaults: failurePolicy Fail, reinvocationPolicy Never, admission enabled, mutateExisting disabled, selectors `{}`, matchPolicy Equivalent. */
export function defaultMutatingPolicy(p: MutatingPolicy): MutatingPolicy {
  const spec = { ...p.spec };
  spec.failurePolicy ??= "Fail";
  spec.reinvocationPolicy ??= "Never";
  const ev = { ...(spec.evaluation ?? {}) };
  ev.admission = { enabled: ev.admission?.enabled ?? true };
  ev.mutateExisting = { enabled: ev.mutateExisting?.enabled ?? false };
  spec.evaluation = ev;
  if (spec.matchConstraints !== undefined) {
    spec.matchConstraints = {
      ...spec.matchConstraints,
      namespaceSelector: spec.matchConstraints.namespaceSelector ?? {},
      objectSelector: spec.matchConstraints.objectSelector ?? {},
      matchPolicy: spec.matchConstraints.matchPolicy ?? "Equivalent",
    };
  }
  return { ...p, spec };
}

/** Admission validation (kyverno.md §1.3): shape, resourceRules, evaluation modes, mutation members. */
export function decodeMutatingPolicy(doc: unknown): DecodeResult<MutatingPolicy> {
  if (!isKyvernoMutatingPolicy(doc)) {
    const d = (doc ?? {}) as Record<string, unknown>;
    return { ok: false, errors: [`apiVersion: Unsupported value: ${JSON.stringify(d.apiVersion)}: not a served version of ${String(d.kind)}`] };
  }
  const r = mutatingPolicySchema.safeParse(doc);
  if (!r.success) return { ok: false, errors: zodErrors(r.error) };
  const p = defaultMutatingPolicy(r.data);
  const errors: string[] = [];
  if ((p.spec.matchConstraints?.resourceRules ?? []).length === 0) errors.push("spec.matchConstraints.resourceRules: Required value: at least one resourceRule is required");
  if (p.spec.evaluation?.admission?.enabled === false && p.spec.evaluation?.mutateExisting?.enabled === false) {
    errors.push("spec.evaluation: Invalid value: admission and mutateExisting cannot both be disabled");
  }
  (p.spec.mutations ?? []).forEach((m, i) => {
    const member = m.patchType === "JSONPatch" ? m.jsonPatch : m.applyConfiguration;
    const field = m.patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration";
    if (member === undefined || (member.expression ?? "") === "") errors.push(`spec.mutations[${i}].${field}.expression: Required value`);
  });
  (p.spec.matchConditions ?? []).forEach((c, i) => {
    if ((c.name ?? "") === "") errors.push(`spec.matchConditions[${i}].name: Required value`);
    if ((c.expression ?? "") === "") errors.push(`spec.matchConditions[${i}].expression: Required value`);
  });
  (p.spec.variables ?? []).forEach((c, i) => {
    if ((c.name ?? "") === "") errors.push(`spec.variables[${i}].name: Required value`);
    if ((c.expression ?? "") === "") errors.push(`spec.variables[${i}].expression: Required value`);
  });
  if (errors.length > 0) return { ok: false, errors };
  if (p.kind === "NamespacedMutatingPolicy" && (p.metadata.namespace ?? "") === "") {
    // Offline, a namespaced policy without a namespace is placed in "default" (as kubectl would).
    return { ok: true, value: { ...p, metadata: { ...p.metadata, namespace: "default" } } };
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: p };
}

export function decodePolicyException(doc: unknown): DecodeResult<PolicyException> {
  const r = policyExceptionSchema.safeParse(doc);
  if (!r.success) return { ok: false, errors: zodErrors(r.error) };
  const errors: string[] = [];
  r.data.spec.policyRefs.forEach((ref, i) => {
    if (ref.kind !== "MutatingPolicy" && ref.kind !== "NamespacedMutatingPolicy" && !/Policy$/.test(ref.kind)) errors.push(`spec.policyRefs[${i}].kind: Invalid value: ${JSON.stringify(ref.kind)}`);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: r.data };
}
