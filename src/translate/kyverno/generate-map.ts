/**
 * MutatingPolicy → MutatingAdmissionPolicy + binding, where Kyverno v1.19 would
 * generate them (`pkg/controllers/admissionpolicygenerator`,
 * `pkg/admissionpolicy/builder.go`; kyverno.md §3.2), with the same names,
 * labels, owner reference and spec mapping, plus what Kyverno does not do: a
 * statement per field that does not carry over (Kyverno drops selectors,
 * exclusions, partial exceptions and the rest without a word).
 */
import type { Expr } from "../../cel/ast.js";
import { parse } from "../../cel/parser.js";
import { autogen, PARSE_OPTIONS, type Json } from "../../kyverno/index.js";

export interface Dropped {
  /** Field path in the MutatingPolicy (or the exception). */
  readonly field: string;
  readonly message: string;
}

export interface GenerateMapResult {
  /** Whether Kyverno would generate (and we emit) a MAP. */
  readonly generated: boolean;
  /** Why not: Kyverno's `status.message` (generate-map.go mapGenerationSkipReason) where it has one. */
  readonly reason?: string;
  readonly policy?: Json;
  readonly binding?: Json;
  /** What does not carry over into the MAP. */
  readonly dropped: Dropped[];
}

export interface GenerateMapOptions {
  /** PolicyExceptions (plain objects); those whose policyRefs name this policy become negated matchConditions. */
  readonly exceptions?: readonly Json[];
  /** Default `admissionregistration.k8s.io/v1` (Kyverno prefers v1, then v1beta1, then v1alpha1). */
  readonly apiVersion?: string;
}

const MANAGED_BY = { "app.kubernetes.io/managed-by": "kyverno" };

/** Identifiers and functions of Kyverno's CEL libraries, which the API server does not have. */
const KYVERNO_IDENTS = new Set(["resource", "http", "globalContext", "imagedata", "json", "yaml", "x509", "random", "hash", "gctx", "generator"]);
const KYVERNO_FUNCTIONS = new Set(["image", "parseServiceAccount", "random", "x509", "sha1", "sha256", "md5", "parseImageReference"]);

export function generateMap(mpol: Json, options: GenerateMapOptions = {}): GenerateMapResult {
  const dropped: Dropped[] = [];
  const name: string = mpol?.metadata?.name ?? "";
  const spec = mpol?.spec ?? {};
  if (mpol?.kind !== "MutatingPolicy") {
    return { generated: false, reason: `${String(mpol?.kind)} is never converted to a MutatingAdmissionPolicy (only cluster-wide MutatingPolicy)`, dropped };
  }
  if (spec.autogen?.mutatingAdmissionPolicy?.enabled !== true) {
    return { generated: false, reason: "skip generating MutatingAdmissionPolicy: not enabled.", dropped };
  }
  if (spec.evaluation?.useServerSideApply === true) {
    return { generated: false, reason: "skip generating MutatingAdmissionPolicy: useServerSideApply is enabled, which mutates atomic fields that a native MutatingAdmissionPolicy rejects.", dropped };
  }
  if (Object.keys(autogen(mpol).configs).length > 0) {
    return {
      generated: false,
      reason: "skip generating MutatingAdmissionPolicy: pod controllers autogen is enabled." /* set spec.autogen.podControllers.controllers: [] to get one */,
      dropped,
    };
  }
  for (const [i, mc] of (spec.matchConditions ?? []).entries()) {
    if (typeof mc?.expression === "string" && mentions(mc.expression, (e) => e.kind === "ident" && e.name === "variables")) {
      return { generated: false, reason: `matchConditions[${i}] (${mc.name}) references variables, which MAP evaluates after match conditions: Kyverno rejects the policy`, dropped };
    }
  }

  const mapName = `mpol-${name}`;
  // builder.go mutatingPolicyOwnerRef: the apiVersion is policiesv1beta1.GroupVersion whatever the policy's version.
  const ownerRef: Json = { apiVersion: "policies.kyverno.io/v1beta1", kind: "MutatingPolicy", name };
  if (mpol.metadata?.uid !== undefined) ownerRef.uid = mpol.metadata.uid;
  // The MAP gets `reports.kyverno.io/disabled: "true"` when the policy has that label (any value); the binding only managed-by.
  const mapLabels: Json = { ...MANAGED_BY };
  if (mpol.metadata?.labels?.["reports.kyverno.io/disabled"] !== undefined) mapLabels["reports.kyverno.io/disabled"] = "true";
  const metadata = (n: string, labels: Json): Json => ({ name: n, labels: { ...labels }, ownerReferences: [{ ...ownerRef }] });

  // matchConstraints: resourceRules only.
  const mc = spec.matchConstraints ?? {};
  for (const f of ["namespaceSelector", "objectSelector"] as const) {
    const sel = mc[f];
    if (sel != null && (Object.keys(sel.matchLabels ?? {}).length > 0 || (sel.matchExpressions ?? []).length > 0)) {
      dropped.push({ field: `spec.matchConstraints.${f}`, message: "not carried over: the MAP matches regardless of it, so its scope widens" });
    }
  }
  if ((mc.excludeResourceRules ?? []).length > 0) dropped.push({ field: "spec.matchConstraints.excludeResourceRules", message: "not carried over: excluded resources are mutated by the MAP" });
  if (mc.matchPolicy !== undefined && mc.matchPolicy !== "Equivalent") dropped.push({ field: "spec.matchConstraints.matchPolicy", message: `not carried over: the MAP gets the default Equivalent instead of ${mc.matchPolicy}` });

  // Exceptions: their matchConditions, negated, before the policy's own.
  const conditions: Json[] = [];
  for (const [i, ex] of (options.exceptions ?? []).entries()) {
    const refs: Json[] = ex?.spec?.policyRefs ?? [];
    if (!refs.some((r) => r?.name === name && r?.kind === "MutatingPolicy")) continue;
    const exName = ex?.metadata?.name ?? `exceptions[${i}]`;
    for (const c of ex.spec.matchConditions ?? []) conditions.push({ name: c.name, expression: `!(${c.expression})` });
    if ((ex.spec.matchConditions ?? []).length > 1) {
      dropped.push({
        field: `PolicyException ${exName}: spec.matchConditions`,
        message: "each condition is negated on its own (as Kyverno generates it): the MAP skips a resource when any of them holds, the exception only when all hold",
      });
    }
    for (const f of ["images", "allowedValues"] as const) {
      if (ex.spec[f] !== undefined) dropped.push({ field: `PolicyException ${exName}: spec.${f}`, message: "partial exceptions do not carry over: the MAP mutates those resources fully" });
    }
  }
  for (const c of spec.matchConditions ?? []) conditions.push({ name: c.name, expression: c.expression });

  // failurePolicy: Kyverno leaves it unset when the policy does; the API server then defaults Fail, which we write.
  const mapSpec: Json = {
    failurePolicy: spec.failurePolicy ?? "Fail",
    matchConstraints: {
      matchPolicy: "Equivalent",
      resourceRules: structuredClone(mc.resourceRules ?? []),
    },
    mutations: structuredClone(spec.mutations ?? []),
    reinvocationPolicy: spec.reinvocationPolicy ?? "Never",
  };
  if (conditions.length > 0) mapSpec.matchConditions = conditions;
  if (spec.variables !== undefined) mapSpec.variables = structuredClone(spec.variables);

  // Fields with no MAP counterpart.
  const other: [string, unknown, string][] = [
    ["spec.auditAnnotations", spec.auditAnnotations, "MAP has no audit annotations"],
    ["spec.targetMatchConstraints", spec.targetMatchConstraints, "mutateExisting targets do not exist in MAP"],
    ["spec.evaluation.mutateExisting", spec.evaluation?.mutateExisting?.enabled, "MAP only mutates the admitted object"],
    ["spec.evaluation.admission", spec.evaluation?.admission?.enabled === false ? false : undefined, "admission: false (background only) is lost: the MAP mutates at admission"],
    ["spec.webhookConfiguration.timeoutSeconds", spec.webhookConfiguration?.timeoutSeconds, "MAP runs in the API server, without a webhook timeout"],
  ];
  for (const [field, v, message] of other) if (v !== undefined && v !== null) dropped.push({ field, message: `not carried over: ${message}` });

  // Kyverno CEL libraries: not checked by Kyverno, the API server rejects the MAP.
  const exprs: [string, string][] = [
    ...(spec.variables ?? []).map((v: Json, i: number) => [`spec.variables[${i}]`, v?.expression] as [string, string]),
    ...conditions.map((c, i) => [`matchConditions[${i}]`, c.expression] as [string, string]),
    ...(spec.mutations ?? []).map((m: Json, i: number) => [`spec.mutations[${i}]`, m?.applyConfiguration?.expression ?? m?.jsonPatch?.expression] as [string, string]),
  ];
  for (const [field, text] of exprs) {
    if (typeof text !== "string") continue;
    if (mentions(text, (e) => (e.kind === "ident" && KYVERNO_IDENTS.has(e.name)) || (e.kind === "call" && e.target === undefined && KYVERNO_FUNCTIONS.has(e.fn)))) {
      dropped.push({ field, message: "uses a Kyverno CEL library the API server does not have: the generated MAP will not compile there" });
    }
  }

  const apiVersion = options.apiVersion ?? "admissionregistration.k8s.io/v1";
  return {
    generated: true,
    policy: { apiVersion, kind: "MutatingAdmissionPolicy", metadata: metadata(mapName, mapLabels), spec: mapSpec },
    binding: { apiVersion, kind: "MutatingAdmissionPolicyBinding", metadata: metadata(`${mapName}-binding`, MANAGED_BY), spec: { policyName: mapName } },
    dropped,
  };
}

/** Whether any node of the (expanded) tree satisfies `p`; false when the text does not parse. */
function mentions(text: string, p: (e: Expr) => boolean): boolean {
  let parsed;
  try {
    parsed = parse(text, PARSE_OPTIONS);
  } catch {
    return false;
  }
  const walk = (e: Expr): boolean => {
    if (p(e)) return true;
    switch (e.kind) {
      case "const":
      case "ident":
        return false;
      case "select":
        return walk(e.operand);
      case "call":
        return (e.target !== undefined && walk(e.target)) || e.args.some(walk);
      case "list":
        return e.elements.some(walk);
      case "map":
        return e.entries.some((x) => walk(x.key) || walk(x.value));
      case "struct":
        return e.fields.some((f) => walk(f.value));
      case "comprehension":
        return [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result].some(walk);
    }
  };
  return walk(parsed.expr);
}
