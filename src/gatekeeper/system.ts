/**
 * Gatekeeper's mutation System (`pkg/mutation/system.go`, v3.23.0): mutators kept sorted by
 * ID (group, kind, namespace, name — byte order, so effectively kind then name), repeated
 * full passes until one changes nothing (at most one pass more than there are mutators,
 * else `mutation not converging`), all-or-nothing on errors, schema-conflicting mutators
 * skipped, and the optional `gatekeeper.sh/mutation-id` / `gatekeeper.sh/mutations`
 * annotations.
 */
import { applyMutator, hasSchema, idString, type Mutator, type MutatorID } from "./mutators/index.js";
import { appliesTo, matches, metaString, objectGVK, type Matchable, type Operation, type Source } from "./match.js";
import { conflictMessage, SchemaDB } from "./schema.js";
import {
  byteCompare,
  deepCopy,
  deepEqual,
  ExternalDataPlaceholder,
  fromJSON,
  goTypeName,
  isMap,
  setKey,
  toJSON,
  type GoMap,
  type GoValue,
} from "./value.js";

export interface MutateOptions {
  /** The Namespace object of a namespaced request (the webhook fetches it). */
  readonly namespace?: unknown;
  /** `Original` (the admission webhook; default), `Generated` (expansion) or `All`. */
  readonly source?: Source;
  /** `CREATE` (default) or `UPDATE`; `""` = unknown (only entries covering every operation match). */
  readonly operation?: Operation | "";
  /** The requesting user (external data `dataSource: Username`). */
  readonly username?: string;
  /** `--mutation-annotations`. */
  readonly mutationAnnotations?: boolean;
  /** The run's UUID (default `crypto.randomUUID()`). */
  readonly uuid?: () => string;
  /**
   * Answers external-data requests (one call per provider with the de-duplicated keys).
   * Absent: there is no way to reach a provider offline, and any placeholder left after the
   * passes fails the request with an explicit error. Throwing = the request failed (then
   * each placeholder's failurePolicy applies, as in Gatekeeper).
   */
  readonly externalData?: (provider: string, keys: readonly string[]) => ExternalDataResponse;
}

/** A provider's answer (`externaldata.ProviderResponse.Response`). */
export interface ExternalDataResponse {
  readonly idempotent: boolean;
  readonly systemError?: string;
  readonly items: readonly { readonly key: string; readonly value?: unknown; readonly error?: string }[];
}

export interface MutateResult {
  /** The mutated object, or the input unchanged when nothing applied or on error. */
  readonly object: unknown;
  readonly changed: boolean;
  /** Passes run (0 when the first pass changed nothing). */
  readonly iterations: number;
  /** `Kind/namespace/name:generation` of every mutator that reported a mutation before the final pass, sorted, unique. */
  readonly applied: readonly string[];
  /** Gatekeeper's error for the whole request (nothing is applied then). */
  readonly error?: string;
  /** Mutators skipped because of schema conflicts. */
  readonly conflicts: readonly MutatorID[];
}

function compareIDs(a: MutatorID, b: MutatorID): number {
  return byteCompare(a.group, b.group) || byteCompare(a.kind, b.kind) || byteCompare(a.namespace, b.namespace) || byteCompare(a.name, b.name);
}

function newUUID(): string {
  return globalThis.crypto.randomUUID();
}

/** A set of mutators, as Gatekeeper's System holds them. */
export class System {
  private readonly byId = new Map<string, Mutator>();
  private ordered: Mutator[] = [];
  private schema = new SchemaDB();
  private schemaDirty = false;

  /**
   * `System.Upsert`: adds or replaces (same kind and name) a mutator. Returns Gatekeeper's
   * `ErrConflictingSchema` text when the mutator is now in schema conflict (it stays in the
   * system but is skipped).
   */
  upsert(m: Mutator): string | undefined {
    const key = idString(m.id);
    const replacing = this.byId.has(key);
    this.byId.set(key, m);
    this.ordered = [...this.byId.values()].sort((a, b) => compareIDs(a.id, b.id));
    if (replacing) {
      this.schemaDirty = true;
      this.rebuildSchema();
      const mine = this.schema.hasConflicts(m.id);
      return mine ? conflictMessage(this.schema.conflicts()) : undefined;
    }
    if (!hasSchema(m)) return undefined;
    const found = this.schema.add(m);
    return found.length > 0 ? conflictMessage(found) : undefined;
  }

  /** `System.Remove`. */
  remove(id: MutatorID): void {
    if (this.byId.delete(idString(id))) {
      this.ordered = this.ordered.filter((m) => idString(m.id) !== idString(id));
      this.schemaDirty = true;
      this.rebuildSchema();
    }
  }

  private rebuildSchema(): void {
    if (!this.schemaDirty) return;
    this.schema = new SchemaDB();
    for (const m of this.ordered) if (hasSchema(m)) this.schema.add(m);
    this.schemaDirty = false;
  }

  /** The mutators in the System's order. */
  mutators(): readonly Mutator[] {
    return this.ordered;
  }

  /** Mutators currently skipped for schema conflicts. */
  conflicts(): MutatorID[] {
    return this.schema.conflicts();
  }

  /** `System.Mutate` on a plain JSON object (not modified). */
  mutate(object: unknown, opts: MutateOptions = {}): MutateResult {
    const conflicts = this.conflicts();
    const input = fromJSON(object);
    if (!isMap(input)) {
      return { object, changed: false, iterations: 0, applied: [], error: "attempting to mutate a nil object", conflicts };
    }
    const obj = input;
    const nsVal = opts.namespace === undefined || opts.namespace === null ? undefined : fromJSON(opts.namespace);
    const target: Matchable = { object: obj, namespace: isMap(nsVal) ? nsVal : undefined, source: opts.source ?? "Original" };
    const operation = opts.operation ?? "CREATE";
    const ctx = { username: opts.username ?? "" };
    const uuid = (opts.uuid ?? newUUID)();
    const maxIterations = this.ordered.length + 1;
    const all: string[][] = [];
    const describe = () => {
      const g = objectGVK(obj);
      const name = metaString(obj, "name") || metaString(obj, "generateName");
      return `${g.group} ${g.kind} ${metaString(obj, "namespace")} ${name}`;
    };
    const fail = (iterations: number, error: string): MutateResult => ({
      object,
      changed: false,
      iterations,
      applied: [],
      error,
      conflicts,
    });

    for (let iteration = 1; iteration <= maxIterations; iteration++) {
      const applied: string[] = [];
      const old = deepCopy(obj);
      for (const m of this.ordered) {
        if (this.schema.hasConflicts(m.id)) continue;
        let ok: boolean;
        try {
          ok = (m.kind === "AssignMetadata" || appliesTo(m.applyTo, objectGVK(obj), operation)) && matches(m.match, target);
        } catch (e) {
          return fail(iteration, `matching for mutator ${idString(m.id)} failed for ${describe()}: ${(e as Error).message}`);
        }
        if (!ok) continue;
        try {
          if (applyMutator(m, obj, ctx)) applied.push(m.display);
        } catch (e) {
          return fail(iteration, `mutation ${uuid} for mutator ${idString(m.id)} failed for ${describe()}: ${(e as Error).message}`);
        }
      }
      if (applied.length === 0 || deepEqual(old, obj)) {
        if (iteration === 1) return { object, changed: false, iterations: 0, applied: [], conflicts };
        const pending = placeholders(obj);
        if (pending.length > 0) {
          const err =
            opts.externalData === undefined
              ? `external data provider ${JSON.stringify(pending[0]!.provider)} cannot be called offline; ` +
                `externalData mutations need an externalData resolver`
              : resolvePlaceholders(obj, pending, opts.externalData);
          if (err !== undefined) return fail(iteration, `failed to resolve external data placeholders: ${err}`);
        }
        const appliedAll = [...new Set(all.flat())].sort(byteCompare);
        if (opts.mutationAnnotations === true) setAnnotations(obj, appliedAll.join(", "), uuid);
        return { object: toJSON(obj), changed: true, iterations: iteration, applied: appliedAll, conflicts };
      }
      all.push(applied);
    }
    const g = objectGVK(obj);
    return fail(
      maxIterations,
      `mutation not converging: mutation ${uuid} not converging for ${g.group} ${g.kind} ${metaString(obj, "namespace")} ${
        metaString(obj, "name") || metaString(obj, "generateName")
      }`,
    );
  }
}

function placeholders(v: GoValue, out: ExternalDataPlaceholder[] = []): ExternalDataPlaceholder[] {
  if (v instanceof ExternalDataPlaceholder) out.push(v);
  else if (Array.isArray(v)) for (const x of v) placeholders(x, out);
  else if (isMap(v)) for (const x of Object.values(v)) placeholders(x, out);
  return out;
}

/** `resolvePlaceholders` + `mutateWithExternalData`: replaces every placeholder; the aggregated error, if any. */
function resolvePlaceholders(
  obj: GoMap,
  pending: readonly ExternalDataPlaceholder[],
  ask: (provider: string, keys: readonly string[]) => ExternalDataResponse,
): string | undefined {
  const keys = new Map<string, Set<string>>();
  for (const p of pending) {
    if (!keys.has(p.provider)) keys.set(p.provider, new Set());
    keys.get(p.provider)!.add(p.valueAtLocation);
  }
  const responses = new Map<string, Map<string, { value?: unknown; error?: string }>>();
  const errors = new Map<string, string>();
  for (const [provider, ks] of keys) {
    let resp: ExternalDataResponse;
    try {
      resp = ask(provider, [...ks]);
    } catch (e) {
      errors.set(provider, `failed to send external data request to provider ${provider}: ${(e as Error).message}`);
      continue;
    }
    const sys = (resp.systemError ?? "").trim();
    if (sys !== "") {
      errors.set(provider, `failed to validate external data response from provider ${provider}: non-empty system error: ${sys}`);
      continue;
    }
    if (!resp.idempotent) {
      errors.set(provider, `failed to validate external data response from provider ${provider}: non-idempotent response`);
      continue;
    }
    responses.set(provider, new Map(resp.items.map((i) => [i.key, i])));
  }
  const all: string[] = [];
  const walk = (v: GoValue): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (isMap(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (!(x instanceof ExternalDataPlaceholder)) {
          walk(x);
          continue;
        }
        let err = errors.get(x.provider);
        let value = "";
        if (err === undefined) {
          const r = responses.get(x.provider);
          const item = r?.get(x.valueAtLocation);
          if (r === undefined) err = `failed to find external data provider ${x.provider} in responses`;
          else if (item === undefined) err = `failed to find external data item in response for provider ${x.provider}`;
          else if (item.error !== undefined && item.error !== "") {
            err = `failed to retrieve external data item from provider ${x.provider}: ${item.error}`;
          } else if (typeof item.value !== "string") {
            err = `failed to convert external data item value from provider ${x.provider} to string, got type ${goTypeName(fromJSON(item.value))}`;
          } else value = item.value;
        }
        if (err !== undefined) {
          if (x.failurePolicy === "Ignore") value = x.valueAtLocation;
          else if (x.failurePolicy === "UseDefault") value = x.defaultValue;
          else {
            all.push(err);
            continue;
          }
        }
        setKey(v, k, value);
      }
    }
  };
  walk(obj);
  // errorsutil.NewAggregate(...).Error(): duplicates dropped, brackets only for several messages
  const unique = [...new Set(all)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : "[" + unique.join(", ") + "]";
}

/** `mutationAnnotations`: `GetAnnotations` (nil unless a map of strings), set both keys, `SetAnnotations`. */
function setAnnotations(obj: GoMap, mutations: string, uuid: string): void {
  let md = obj["metadata"];
  if (!isMap(md)) {
    md = {};
    obj["metadata"] = md;
  }
  const cur = md["annotations"];
  const ann: GoMap = {};
  if (isMap(cur) && Object.values(cur).every((v) => typeof v === "string")) Object.assign(ann, cur);
  ann["gatekeeper.sh/mutations"] = mutations;
  ann["gatekeeper.sh/mutation-id"] = uuid;
  md["annotations"] = ann;
}

/** Builds a System from mutators (later ones with the same kind and name replace earlier ones) and runs it once. */
export function mutate(object: unknown, mutators: readonly Mutator[], opts: MutateOptions = {}): MutateResult {
  const s = new System();
  for (const m of mutators) s.upsert(m);
  return s.mutate(object, opts);
}
