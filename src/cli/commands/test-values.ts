/**
 * Pieces of `kyverno test`'s input that `celmap test` reads besides the suite itself: the Values
 * file's `subresources` (which request a resource of a subresource kind is, e.g. a Binding is a
 * CREATE on `pods/binding`) and the `--test-case-selector` filter.
 */
import type { GroupVersionResource, JsonObject } from "../../admission/index.js";
import { isObject } from "../render/session.js";

/** A request's resource and subresource for an object of a subresource kind. */
export interface SubresourceTarget {
  readonly resource: GroupVersionResource;
  readonly subResource: string;
}

interface Entry {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly target: SubresourceTarget;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/**
 * The Values file's `subresources` (`[{parentResource: APIResource, subresource: APIResource}]`,
 * Kyverno's shape): an object whose apiVersion and kind are a subresource's is admitted as a request
 * on the parent resource with that subresource (`pods/binding` → resource pods, subresource binding).
 * Entries that are not in that shape are reported in `problems`.
 */
export class SubresourceTable {
  readonly #entries: Entry[] = [];
  readonly problems: string[] = [];

  constructor(values: unknown) {
    const list = isObject(values) && Array.isArray(values.subresources) ? values.subresources : [];
    list.forEach((e, i) => {
      const parent = isObject(e) && isObject(e.parentResource) ? e.parentResource : undefined;
      const sub = isObject(e) && isObject(e.subresource) ? e.subresource : undefined;
      const name = str(sub?.name);
      const slash = name.indexOf("/");
      if (parent === undefined || sub === undefined || slash <= 0 || str(sub.kind) === "" || str(parent.name) === "") {
        this.problems.push(`subresources[${i}]: want {parentResource: {name, version, group}, subresource: {name: <resource>/<subresource>, kind, version}}`);
        return;
      }
      const group = str(parent.group);
      const version = str(parent.version);
      this.#entries.push({
        group: sub.group !== undefined ? str(sub.group) : group,
        version: sub.version !== undefined ? str(sub.version) : version,
        kind: str(sub.kind),
        target: { resource: { group, version, resource: str(parent.name) }, subResource: name.slice(slash + 1) },
      });
    });
  }

  /** The request resource and subresource for `object`, when its kind is a declared subresource kind. */
  lookup(object: JsonObject): SubresourceTarget | undefined {
    const apiVersion = str(object.apiVersion);
    const slash = apiVersion.indexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    return this.#entries.find((e) => e.kind === object.kind && e.group === group && e.version === version)?.target;
  }
}

/**
 * `--test-case-selector "policy=<name>, rule=<name>, resource=<name>"` (kyverno test's `-t`): any
 * combination of the three keys; values may use `*` and `?` wildcards. A result row runs when every
 * given key matches (the resource against its name, with or without `namespace/`).
 */
export interface TestCaseSelector {
  readonly policy?: RegExp;
  readonly rule?: RegExp;
  readonly resource?: RegExp;
}

function wildcard(p: string): RegExp {
  return new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`);
}

/** Parses a selector; throws a message naming the bad part. */
export function parseTestCaseSelector(text: string): TestCaseSelector {
  const out: { policy?: RegExp; rule?: RegExp; resource?: RegExp } = {};
  for (const part of text.split(",")) {
    const t = part.trim();
    if (t === "") continue;
    const eq = t.indexOf("=");
    const key = eq < 0 ? t : t.slice(0, eq).trim();
    if (eq < 0 || (key !== "policy" && key !== "rule" && key !== "resource")) {
      throw new Error(`--test-case-selector: "${t}" is not policy=<name>, rule=<name> or resource=<name>`);
    }
    out[key] = wildcard(t.slice(eq + 1).trim());
  }
  return out;
}

/** Whether a result row (policy name, its resource reference) is selected. Rules: MutatingPolicies have none, so `rule=` selects only `*`-like patterns. */
export function selects(s: TestCaseSelector, policy: string, resourceRef: string): boolean {
  if (s.policy !== undefined && !s.policy.test(policy) && !s.policy.test(policy.slice(policy.indexOf("/") + 1))) return false;
  if (s.rule !== undefined && !s.rule.test("")) return false;
  if (s.resource !== undefined && !s.resource.test(resourceRef) && !s.resource.test(resourceRef.slice(resourceRef.indexOf("/") + 1))) return false;
  return true;
}
