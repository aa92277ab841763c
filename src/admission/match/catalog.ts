/**
 * What the apiserver knows about resources, for admission matching: GVK ⇄ GVR, scope,
 * subresource kinds and equivalent resources (`EquivalentResourceMapper`).
 *
 * Built-ins come from {@link BUILTIN_RESOURCES} (the 1.36 OpenAPI). CRDs are added with
 * {@link ResourceCatalog.addCustomResourceDefinition}, which uses the CRD's own plural.
 *
 * Equivalence, as kube-apiserver 1.36 registers it:
 * - built-ins: resources are equivalent when they share a storage prefix. The prefix is the
 *   lowercase resource name unless special (`replicationcontrollers` → `controllers`, ...), so
 *   every served version of a resource is equivalent, and so are core `v1 events` and
 *   `events.k8s.io/v1 events` (cohabiting resources). Evidence: apiserver `pkg/server/config.go`
 *   (`NewEquivalentResourceRegistryWithIdentity` keyed by `ResourcePrefix`),
 *   `pkg/server/storage/storage_factory.go` (`ResourcePrefix`).
 * - CRDs: the served versions of one CRD (apiextensions registers each with key group/resource),
 *   with the `status` and `scale` subresources where enabled.
 * - order: the order resources are registered — core first, then groups, each group's versions
 *   by Kubernetes version priority (GA > beta > alpha, newer first); CRD versions in spec order.
 *
 * Which built-in versions are served: by default only GA ones. Every alpha/beta group-version in
 * the 1.36 OpenAPI was introduced after 1.24 and is off unless enabled with `--runtime-config`.
 * So with default serving, `matchPolicy: Equivalent` differs from `Exact` for built-ins only for
 * `horizontalpodautoscalers` (autoscaling/v1 ⇄ autoscaling/v2, also `/status`) and `events`
 * (v1 ⇄ events.k8s.io/v1). `apps/v1 deployments` has no served equivalent any more (extensions and
 * apps/v1beta* were removed in 1.16/1.22); pass `enable` to model a cluster with betas on.
 */
import { BUILTIN_RESOURCES } from "./builtin-resources.js";

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export type ResourceScope = "Namespaced" | "Cluster";

export interface ResourceInfo {
  readonly gvr: GroupVersionResource;
  readonly kind: GroupVersionKind;
  readonly scope: ResourceScope;
  /** Subresource name → the kind it accepts (`scale` → autoscaling/v1 Scale, `status` → own kind). */
  readonly subresources: ReadonlyMap<string, GroupVersionKind>;
  /** Resources with the same key are equivalent. */
  readonly equivalenceKey: string;
  readonly builtin: boolean;
  /** Served: built-in GA versions, enabled group-versions, served CRD versions. */
  readonly served: boolean;
}

/** `apps/v1`, or `v1` for the core group. */
export function groupVersionString(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

/** `schema.ParseGroupVersion`: `""` → empty, `v1` → core, `g/v`; more than one `/` is an error. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } | { error: string } {
  if (apiVersion === "" || apiVersion === "/") return { group: "", version: "" };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { error: `unexpected GroupVersion string: ${apiVersion}` };
}

/** `GroupVersionResource.String()`: `apps/v1, Resource=deployments`. */
export function gvrString(r: GroupVersionResource): string {
  return `${r.group}/${r.version}, Resource=${r.resource}`;
}

/** `GroupVersionKind.String()`: `apps/v1, Kind=Deployment` (core: `/v1, Kind=Pod`). */
export function gvkString(k: GroupVersionKind): string {
  return `${k.group}/${k.version}, Kind=${k.kind}`;
}

/** Short display form for traces: `apps/v1 deployments`, `v1 pods/status`. */
export function gvrDisplay(r: GroupVersionResource, subResource = ""): string {
  return `${groupVersionString(r.group, r.version)} ${r.resource}${subResource === "" ? "" : `/${subResource}`}`;
}

export function sameGVR(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

/**
 * A resource name for a kind the catalog does not know: the lowercase kind, pluralised. Based on
 * `meta.UnsafeGuessKindToResource` (`-s` → `-ses`, `-y` → `-ies`, else `+s`; kinds ending in
 * `endpoints` are already plural), which gives every built-in plural of 1.36 (checked by the
 * tests), with two English corrections where Go's guess is known to be wrong and CRD authors (and
 * kubebuilder's pluralizer) write the English plural: a vowel before `y` takes `+s`
 * (`Gateway` → `gateways`, Go: `gatewaies`) and `-ch`/`-sh`/`-x`/`-z` take `+es`
 * (`Patch` → `patches`). Only a fallback: register CRDs to use their declared plural.
 */
export function guessResourceForKind(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular === "") return "";
  if (singular.endsWith("endpoints")) return singular;
  if (/(s|ch|sh|x|z)$/.test(singular)) return `${singular}es`;
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/** Storage prefixes that are not the resource name (kube-apiserver `SpecialDefaultResourcePrefixes`). */
const SPECIAL_PREFIXES: Readonly<Record<string, string>> = {
  "/replicationcontrollers": "controllers",
  "/endpoints": "services/endpoints",
  "/nodes": "minions",
  "/services": "services/specs",
  "extensions/ingresses": "ingress",
  "networking.k8s.io/ingresses": "ingress",
};

/** Version priority as `version.CompareKubeAwareVersionStrings`: GA > beta > alpha, higher numbers first. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return undefined;
    const rank = m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0;
    return [rank, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa === undefined || pb === undefined) {
    if (pa !== undefined) return -1;
    if (pb !== undefined) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (pa[0] !== pb[0]) return pb[0] - pa[0];
  if (pa[1] !== pb[1]) return pb[1] - pa[1];
  return pb[2] - pa[2];
}

const isGA = (version: string): boolean => /^v\d+$/.test(version);

export interface BuiltinCatalogOptions {
  /**
   * Group-versions served in addition to the GA ones (`--runtime-config`), e.g.
   * `["resource.k8s.io/v1beta2"]`; `"all"` serves every group-version of the OpenAPI document.
   */
  readonly enable?: readonly string[] | "all";
}

/** A CustomResourceDefinition, as much of it as the catalog reads (apiextensions.k8s.io/v1). */
export interface CustomResourceDefinitionLike {
  readonly spec?: {
    readonly group?: string;
    readonly scope?: string;
    readonly names?: { readonly plural?: string; readonly kind?: string };
    readonly versions?: readonly {
      readonly name?: string;
      readonly served?: boolean;
      readonly subresources?: { readonly status?: unknown; readonly scale?: unknown };
    }[];
  };
}

const SCALE: GroupVersionKind = { group: "autoscaling", version: "v1", kind: "Scale" };

export class ResourceCatalog {
  private readonly byGVR = new Map<string, ResourceInfo>();
  private readonly byGVK = new Map<string, ResourceInfo>();
  private readonly byKey = new Map<string, ResourceInfo[]>();

  /** The built-in resources of kube-apiserver 1.36. */
  static builtin(opts: BuiltinCatalogOptions = {}): ResourceCatalog {
    const c = new ResourceCatalog();
    const enabled = opts.enable === "all" ? "all" : new Set(opts.enable ?? []);
    const gvs = Object.keys(BUILTIN_RESOURCES).map((gv) => {
      const p = parseGroupVersion(gv) as { group: string; version: string };
      return { gv, ...p };
    });
    // Registration order: core first, then groups in table order, versions by priority.
    const groups = [...new Set(gvs.map((g) => g.group))];
    for (const group of groups) {
      const versions = gvs.filter((g) => g.group === group).sort((a, b) => compareKubeVersions(a.version, b.version));
      for (const { gv, version } of versions) {
        const served = isGA(version) || enabled === "all" || enabled.has(gv);
        for (const entry of BUILTIN_RESOURCES[gv]!.split(" ")) {
          const [resource, kind, scope, subs] = entry.split(":") as [string, string, string, string | undefined];
          const subresources = new Map<string, GroupVersionKind>();
          for (const s of subs === undefined ? [] : subs.split(",")) {
            const eq = s.indexOf("=");
            if (eq < 0) {
              subresources.set(s, { group, version, kind });
              continue;
            }
            const target = s.slice(eq + 1).split("/");
            const subKind =
              target.length === 1
                ? { group, version, kind: target[0]! }
                : target.length === 2
                  ? { group: "", version: target[0]!, kind: target[1]! }
                  : { group: target[0]!, version: target[1]!, kind: target[2]! };
            subresources.set(s.slice(0, eq), subKind);
          }
          c.add({
            gvr: { group, version, resource },
            kind: { group, version, kind },
            scope: scope === "N" ? "Namespaced" : "Cluster",
            subresources,
            equivalenceKey: `builtin:${SPECIAL_PREFIXES[`${group}/${resource}`] ?? resource}`,
            builtin: true,
            served,
          });
        }
      }
    }
    return c;
  }

  /** An empty catalog (tests, or callers that register everything themselves). */
  static empty(): ResourceCatalog {
    return new ResourceCatalog();
  }

  /** Incremented by every change, so that results derived from the catalog can be cached. */
  generation = 0;

  /** Registers (or replaces) one resource. */
  add(info: ResourceInfo): void {
    this.generation++;
    const k = gvrKey(info.gvr);
    const old = this.byGVR.get(k);
    if (old !== undefined) {
      const list = this.byKey.get(old.equivalenceKey);
      if (list !== undefined) list.splice(list.indexOf(old), 1);
    }
    this.byGVR.set(k, info);
    const kk = gvkKey(info.kind);
    // A kind served by several resources (v1 Binding: `bindings` and `pods/binding`) keeps the first.
    if (!this.byGVK.has(kk) || this.byGVK.get(kk) === old) this.byGVK.set(kk, info);
    const list = this.byKey.get(info.equivalenceKey) ?? [];
    list.push(info);
    this.byKey.set(info.equivalenceKey, list);
  }

  /**
   * Registers the versions of a CRD (all of them; unserved ones are marked so). Returns an error
   * message when the CRD lacks group, plural, kind or versions.
   */
  addCustomResourceDefinition(crd: CustomResourceDefinitionLike): string | undefined {
    const spec = crd.spec;
    const group = spec?.group ?? "";
    const plural = spec?.names?.plural ?? "";
    const kind = spec?.names?.kind ?? "";
    const versions = spec?.versions ?? [];
    if (group === "" || plural === "" || kind === "" || versions.length === 0) {
      return "CustomResourceDefinition needs spec.group, spec.names.plural, spec.names.kind and spec.versions";
    }
    const scope: ResourceScope = spec?.scope === "Cluster" ? "Cluster" : "Namespaced";
    for (const v of versions) {
      const version = v.name ?? "";
      const subresources = new Map<string, GroupVersionKind>();
      if (v.subresources?.status !== undefined && v.subresources.status !== null) subresources.set("status", { group, version, kind });
      if (v.subresources?.scale !== undefined && v.subresources.scale !== null) subresources.set("scale", SCALE);
      this.add({
        gvr: { group, version, resource: plural },
        kind: { group, version, kind },
        scope,
        subresources,
        equivalenceKey: `crd:${group}/${plural}`,
        builtin: false,
        served: v.served !== false,
      });
    }
    return undefined;
  }

  /** The resource of a GVR, served or not. */
  lookup(gvr: GroupVersionResource): ResourceInfo | undefined {
    return this.byGVR.get(gvrKey(gvr));
  }

  /** The (top-level) resource that serves a kind. */
  resourceForKind(gvk: GroupVersionKind): ResourceInfo | undefined {
    return this.byGVK.get(gvkKey(gvk));
  }

  /** `EquivalentResourceMapper.KindFor`: the kind a resource (or subresource) accepts. */
  kindFor(gvr: GroupVersionResource, subResource: string): GroupVersionKind | undefined {
    const info = this.lookup(gvr);
    if (info === undefined || !info.served) return undefined;
    const kind = subResource === "" ? info.kind : info.subresources.get(subResource);
    // An empty kind is no kind (`GroupVersionKind.Empty()`).
    return kind === undefined || (kind.group === "" && kind.version === "" && kind.kind === "") ? undefined : kind;
  }

  /**
   * `EquivalentResourceMapper.EquivalentResourcesFor`: the served resources equivalent to `gvr`
   * (itself included) that have `subResource`, in registration order. Unknown → `[]`.
   */
  equivalentResourcesFor(gvr: GroupVersionResource, subResource: string): GroupVersionResource[] {
    const info = this.lookup(gvr);
    if (info === undefined) return [];
    return (this.byKey.get(info.equivalenceKey) ?? [])
      .filter((r) => r.served && (subResource === "" || r.subresources.has(subResource)))
      .map((r) => r.gvr);
  }

  /** Every registered resource, in registration order per equivalence class. */
  all(): ResourceInfo[] {
    return [...this.byGVR.values()];
  }
}

function gvrKey(r: GroupVersionResource): string {
  return `${r.group}/${r.version}/${r.resource}`;
}

function gvkKey(k: GroupVersionKind): string {
  return `${k.group}/${k.version}/${k.kind}`;
}
