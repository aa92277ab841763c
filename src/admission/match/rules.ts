/**
 * One `RuleWithOperations` against a request, as the webhook rules predicate does
 * (apiserver `pkg/admission/plugin/webhook/predicates/rules/rules.go`): scope, operation, group,
 * version and resource must all match, checked in that order. Instead of a boolean the checks
 * return why they fail, for the trace.
 *
 * - scope: absent or `*` matches; `Namespaced` matches requests with a namespace that are not for
 *   the `v1 namespaces` resource; `Cluster` matches requests without a namespace or for
 *   `v1 namespaces`; any other value never matches.
 * - operations: `*` or the request's operation.
 * - apiGroups / apiVersions: `*` or equal.
 * - resources: each entry split at the first `/` into resource and subresource; `*` matches any
 *   resource, a `*` subresource any subresource (also none); an entry without `/` matches only
 *   requests without subresource (`pods` does not match `pods/status`; `*` matches only main
 *   resources; `*\/*` everything).
 * - resourceNames (NamedRuleWithOperations, checked by the caller after the rule): empty matches
 *   any name, else the request's name must be listed (a CREATE relying on generateName has name
 *   `""`, which matches nothing).
 */
import type { NamedRuleWithOperations } from "../../policy/schemas/common.js";
import { isNamespaceResource, type Operation } from "../request.js";
import type { GroupVersionResource } from "./catalog.js";

/** What of a request the rules look at; `resource` may be an equivalent resource. */
export interface RuleAttributes {
  readonly resource: GroupVersionResource;
  readonly subResource: string;
  readonly operation: Operation;
  readonly namespace: string;
}

/** `[a, b]`, with the empty string shown as `""` (the core group). */
export function listDisplay(items: readonly string[] | undefined): string {
  return `[${(items ?? []).map((i) => (i === "" ? '""' : i)).join(", ")}]`;
}

const exactOrWildcard = (items: readonly string[] | undefined, requested: string): boolean =>
  (items ?? []).some((i) => i === "*" || i === requested);

function splitResource(entry: string): [string, string] {
  const i = entry.indexOf("/");
  return i < 0 ? [entry, ""] : [entry.slice(0, i), entry.slice(i + 1)];
}

/** Why the rule (without resourceNames) does not match, or undefined when it matches. */
export function ruleMismatch(rule: NamedRuleWithOperations, a: RuleAttributes): string | undefined {
  const scope = rule.scope;
  if (scope !== undefined && scope !== "*") {
    const nsResource = isNamespaceResource(a.resource);
    if (scope === "Namespaced") {
      if (nsResource) return "scope 'Namespaced' does not match the cluster-scoped 'namespaces' resource";
      if (a.namespace === "") return "scope 'Namespaced' does not match a cluster-scoped request (no namespace)";
    } else if (scope === "Cluster") {
      if (!nsResource && a.namespace !== "") return `scope 'Cluster' does not match a namespaced request (namespace '${a.namespace}')`;
    } else {
      return `scope '${scope}' is not one of Cluster, Namespaced, *`;
    }
  }
  const ops = rule.operations ?? [];
  if (!ops.some((o) => o === "*" || o === a.operation)) return `operation '${a.operation}' not in ${listDisplay(ops)}`;
  if (!exactOrWildcard(rule.apiGroups, a.resource.group)) {
    return `group '${a.resource.group}' not in apiGroups ${listDisplay(rule.apiGroups)}`;
  }
  if (!exactOrWildcard(rule.apiVersions, a.resource.version)) {
    return `version '${a.resource.version}' not in apiVersions ${listDisplay(rule.apiVersions)}`;
  }
  const resources = rule.resources ?? [];
  const hit = resources.some((entry) => {
    const [res, sub] = splitResource(entry);
    return (res === "*" || res === a.resource.resource) && (sub === "*" || sub === a.subResource);
  });
  if (!hit) {
    const shown = a.subResource === "" ? a.resource.resource : `${a.resource.resource}/${a.subResource}`;
    return `resource '${shown}' not in ${listDisplay(resources)}`;
  }
  return undefined;
}

/** Why the request name is not in `resourceNames`, or undefined when it is (or the list is empty). */
export function resourceNameMismatch(rule: NamedRuleWithOperations, name: string): string | undefined {
  const names = rule.resourceNames ?? [];
  if (names.length === 0 || names.includes(name)) return undefined;
  return name === ""
    ? `the request has no name (generateName) and resourceNames is ${listDisplay(names)}`
    : `name '${name}' not in resourceNames ${listDisplay(names)}`;
}
