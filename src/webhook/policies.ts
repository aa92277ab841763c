/**
 * Policy sources for the webhook, and the store that holds the active policy set.
 *
 * A {@link PolicySource} delivers complete policy contents (never deltas) to a listener: files and
 * directories here ({@link FilePolicySource}); the in-cluster source (`cluster.ts`: informers on
 * MutatingAdmissionPolicies, bindings, param kinds and namespaces through @kubernetes/client-node,
 * and the cluster's OpenAPI for custom resource schemas) through the same interface.
 *
 * The {@link PolicyStore} turns contents into an immutable {@link PolicySnapshot} and swaps it in
 * atomically: a request evaluates against the snapshot it picked up at its start, whatever reloads
 * happen meanwhile. A bad update (a YAML error, a policy the apiserver would reject with 400/409/422,
 * an unreadable path) never replaces the last good set: it is reported (listener → log, metrics) and
 * readiness is unaffected. Policies are compiled when the snapshot is built, so the first request
 * does not pay for it.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, watch, type Dirent, type FSWatcher } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { compilePolicy, ResourceCatalog, type JsonObject, type ParamSource } from "../admission/index.js";
import { SchemaRegistry } from "../kube/schema.js";
import { formatLoadError, listInputFiles, parseDocuments, type LoadedDocument } from "../io/load.js";
import { compileMutatingPolicy, type KyvernoProviders, type MutatingPolicy, type PolicyException } from "../kyverno/index.js";
import { errorText as engineErrorText, load, type PolicySet } from "../engine/index.js";
import type { ValidMutatingAdmissionPolicy, ValidMutatingAdmissionPolicyBinding } from "../policy/index.js";

/**
 * Providers for Kyverno's CEL libraries that read the live cluster, and how an evaluation runs
 * with them (`during` makes the request's deadline bound `http.*` calls). One object per source:
 * compiled programs are cached per providers object.
 */
export interface LiveProviders {
  readonly providers: KyvernoProviders;
  during<T>(deadline: number, now: () => number, f: () => T): T;
}

/** What a source delivers: everything the evaluator needs from the outside world. */
export interface PolicyContent {
  /** The engine's policy set (src/engine `load`): MAPs, bindings, params, namespaces, CRDs, Kyverno policies, translated Gatekeeper mutators. */
  readonly policySet: PolicySet;
  /** Live providers for Kyverno's libraries (the cluster source, `live.ts`); absent: the policy set's offline ones. */
  readonly kyvernoLive?: LiveProviders;
  /** Not errors, but worth a log line: Gatekeeper mutators left out (refused) or translated with a difference. */
  readonly notes?: readonly string[];
  /** Identifies the content (e.g. a digest of the files, and of the cluster's OpenAPI); an update with the same one is not a change. */
  readonly digest: string;
  /** Where it came from, for logs. */
  readonly origin: string;
}

export type SourceUpdate =
  | { readonly ok: true; readonly content: PolicyContent }
  | { readonly ok: false; readonly origin: string; readonly errors: readonly string[] };

/**
 * A provider of policy contents. `start` delivers the first update (successful or not) before it
 * resolves, then every later change; `close` stops watching. Implementations: files
 * ({@link FilePolicySource}); in-cluster informers (`ClusterPolicySource`).
 */
export interface PolicySource {
  readonly description: string;
  start(listener: (update: SourceUpdate) => void): Promise<void>;
  close(): void;
}

/** The active policy set: immutable; a reload builds a new one. The lists are the policy set's, for logs and tests. */
export interface PolicySnapshot {
  readonly generation: number;
  /** What requests are admitted against (src/engine `admit`). */
  readonly policySet: PolicySet;
  readonly policies: readonly ValidMutatingAdmissionPolicy[];
  readonly bindings: readonly ValidMutatingAdmissionPolicyBinding[];
  readonly params: ParamSource;
  /** Namespaces from the sources; unknown names are looked up as bare namespaces (src/engine/namespace.ts). */
  readonly namespaces: ReadonlyMap<string, JsonObject>;
  readonly kyvernoPolicies: readonly MutatingPolicy[];
  readonly kyvernoExceptions: readonly PolicyException[];
  /** See {@link PolicyContent.kyvernoLive}. */
  readonly kyvernoLive?: LiveProviders;
  /** Notes of the load (Gatekeeper mutators refused or translated with a difference). */
  readonly notes: readonly string[];
  /** What requests are evaluated with: the policy set's (built-ins, the cluster's custom resources, CRDs given as documents). */
  readonly catalog: ResourceCatalog;
  readonly schemas: SchemaRegistry;
  readonly digest: string;
  readonly origin: string;
  readonly loadedAt: Date;
}

export type StoreEvent =
  | { readonly type: "loaded"; readonly snapshot: PolicySnapshot; readonly previous: PolicySnapshot | undefined }
  | { readonly type: "unchanged"; readonly snapshot: PolicySnapshot }
  | { readonly type: "rejected"; readonly origin: string; readonly errors: readonly string[]; readonly kept: PolicySnapshot | undefined };

export interface PolicyStoreOptions {
  /** Kept for callers that still pass them; the catalog and schemas are the policy set's (src/engine `load`). */
  readonly catalog?: ResourceCatalog;
  readonly schemas?: SchemaRegistry;
}

/** Holds the current snapshot; `apply` is the listener to give a source. */
export class PolicyStore {
  #current: PolicySnapshot | undefined;
  #generation = 0;
  #lastOk = true;
  #lastErrors: readonly string[] = [];
  readonly #listeners: ((e: StoreEvent) => void)[] = [];

  constructor(_options: PolicyStoreOptions = {}) {}

  get current(): PolicySnapshot | undefined {
    return this.#current;
  }
  /** Whether a policy set has been loaded (readiness). */
  get loaded(): boolean {
    return this.#current !== undefined;
  }
  /** Whether the last update was accepted. */
  get lastUpdateOk(): boolean {
    return this.#lastOk;
  }
  get lastErrors(): readonly string[] {
    return this.#lastErrors;
  }

  onEvent(listener: (e: StoreEvent) => void): void {
    this.#listeners.push(listener);
  }

  readonly apply = (update: SourceUpdate): void => {
    if (!update.ok) {
      this.#lastOk = false;
      this.#lastErrors = update.errors;
      this.#emit({ type: "rejected", origin: update.origin, errors: update.errors, kept: this.#current });
      return;
    }
    this.#lastOk = true;
    this.#lastErrors = [];
    const c = update.content;
    if (this.#current !== undefined && this.#current.digest === c.digest) {
      this.#emit({ type: "unchanged", snapshot: this.#current });
      return;
    }
    const set = c.policySet;
    // Compile now (cached per policy object), so requests never wait for it.
    for (const p of set.policies) compilePolicy(p);
    // Kyverno policies with the live providers requests use (the programs bind them).
    if (c.kyvernoLive !== undefined) for (const p of set.kyverno.policies) compileMutatingPolicy(p, c.kyvernoLive.providers);
    const snapshot: PolicySnapshot = {
      generation: ++this.#generation,
      policySet: set,
      policies: set.policies,
      bindings: set.bindings,
      params: set.params,
      namespaces: set.namespaces,
      kyvernoPolicies: set.kyverno.policies,
      kyvernoExceptions: set.kyverno.exceptions,
      ...(c.kyvernoLive !== undefined ? { kyvernoLive: c.kyvernoLive } : {}),
      notes: c.notes ?? [],
      catalog: set.catalog,
      schemas: set.schemas,
      digest: c.digest,
      origin: c.origin,
      loadedAt: new Date(),
    };
    const previous = this.#current;
    this.#current = snapshot;
    this.#emit({ type: "loaded", snapshot, previous });
  };

  #emit(e: StoreEvent): void {
    for (const l of this.#listeners) l(e);
  }
}

// ---------------------------------------------------------------------------------------------
// Contents from documents

/**
 * Loaded documents to policy contents through the engine's `load` (src/engine), as `celmap eval`
 * sorts them: MAPs and bindings validated (CEL compiled) as the apiserver would on create; CRDs
 * (their kinds served, their schemas and defaults used); Kyverno MutatingPolicies and
 * PolicyExceptions validated as Kyverno does; Gatekeeper mutators validated and translated to MAPs
 * (refused ones left out and reported as notes); Namespaces; every other object a param.
 * `catalog`/`schemas`: what to start from (the cluster source: the cluster's custom resources).
 *
 * Any error makes the whole update an error (the store keeps the last good set).
 */
export function contentFromDocuments(
  docs: readonly LoadedDocument[],
  origin: string,
  digest: string,
  base: { readonly catalog?: ResourceCatalog; readonly schemas?: SchemaRegistry } = {},
): SourceUpdate {
  const r = load(docs, { ...(base.catalog !== undefined ? { catalog: base.catalog } : {}), ...(base.schemas !== undefined ? { schemas: base.schemas } : {}) });
  if (r.errors.length > 0) return { ok: false, origin, errors: r.errors.map(engineErrorText) };
  const notes: string[] = [];
  for (const v of r.policySet.gatekeeper.verdicts) {
    if (v.verdict === "exact") continue;
    const reasons = v.reasons.map((x) => `${x.path !== "" ? `${x.path}: ` : ""}${x.message}`).join("; ");
    notes.push(`${v.mutator}: ${v.verdict === "refused" ? "refused, not enforced" : "translated with a difference"}${reasons !== "" ? `: ${reasons}` : ""}`);
  }
  return { ok: true, content: { policySet: r.policySet, ...(notes.length > 0 ? { notes } : {}), digest, origin } };
}

// ---------------------------------------------------------------------------------------------
// Files and directories

export interface FileSourceOptions {
  /** Quiet time after the last file event before reloading. Default 200 ms. */
  readonly debounceMs?: number;
  /** Also re-read every so often (missed events, network file systems); 0 = never. Default 30 s. */
  readonly pollIntervalMs?: number;
  /**
   * Time between the two reads that must agree (same files, sizes, modification times and
   * contents) before a change is taken: a file caught mid-write, or a ConfigMap caught mid-swap,
   * is read again. Default 100 ms.
   */
  readonly settleMs?: number;
  /**
   * Accept a source with no policies at all (no file, an empty file, dangling ConfigMap links)
   * as an empty policy set. Default false: such an update is rejected like a broken one, so it
   * never replaces a set that has policies, and at start-up the webhook does not start.
   */
  readonly allowEmpty?: boolean;
}

/** What the files held at one moment: each file's identity and text, or the errors reading them. */
interface FileState {
  readonly files: readonly { readonly file: string; readonly text: string; readonly stamp: string }[];
  readonly errors: readonly string[];
}

function readFileState(paths: readonly string[]): FileState {
  const files: { file: string; text: string; stamp: string }[] = [];
  const errors: string[] = [];
  for (const p of paths) {
    let list: string[];
    try {
      list = listInputFiles(p);
    } catch (e) {
      errors.push(`${p}: ${errorText(e)}`);
      continue;
    }
    for (const f of list) {
      try {
        const before = statSync(f, { bigint: true });
        const text = readFileSync(f, "utf8");
        files.push({ file: f, text, stamp: `${before.ino}:${before.size}:${before.mtimeNs}:${before.ctimeNs}` });
      } catch (e) {
        errors.push(`${f}: ${errorText(e)}`);
      }
    }
  }
  return { files, errors };
}

function sameState(a: FileState, b: FileState): boolean {
  if (a.files.length !== b.files.length || a.errors.join("\n") !== b.errors.join("\n")) return false;
  for (let i = 0; i < a.files.length; i++) {
    const x = a.files[i]!;
    const y = b.files[i]!;
    if (x.file !== y.file || x.stamp !== y.stamp || x.text !== y.text) return false;
  }
  return true;
}

/** Parses what was read into one update (documents parsed as `celmap`'s loader does). */
function updateOf(state: FileState, origin: string): SourceUpdate {
  const hash = createHash("sha256");
  const docs: LoadedDocument[] = [];
  const errors: string[] = [...state.errors];
  for (const { file: f, text } of state.files) {
    hash.update(f).update("\0").update(text).update("\0");
    const r = parseDocuments(text, f, f.endsWith(".json") ? { yamlVersion: "1.2" } : {});
    docs.push(...r.documents);
    errors.push(...r.errors.map(formatLoadError));
  }
  if (errors.length > 0) return { ok: false, origin, errors };
  return contentFromDocuments(docs, origin, hash.digest("hex"));
}

/** Reads the paths now: one update (documents are parsed as `celmap`'s loader does). Never throws. */
export function readPaths(paths: readonly string[]): SourceUpdate {
  return updateOf(readFileState(paths), paths.join(", "));
}

/** Whether an update holds no policy of any kind (what an empty file or a dangling ConfigMap gives). */
export function isEmptyUpdate(u: SourceUpdate): boolean {
  if (!u.ok) return false;
  const p = u.content.policySet;
  return p.policies.length === 0 && p.bindings.length === 0 && p.kyverno.policies.length === 0 && p.gatekeeper.count === 0;
}

/**
 * Reads the paths until two reads `settleMs` apart agree (at most `attempts` reads), then parses.
 * Undefined when the files kept changing (a writer is still at work: its next event reloads).
 */
export async function readPathsSettled(paths: readonly string[], settleMs: number, attempts = 20): Promise<SourceUpdate | undefined> {
  let prev = readFileState(paths);
  for (let i = 1; i < attempts; i++) {
    await new Promise((r) => setTimeout(r, settleMs));
    const next = readFileState(paths);
    if (sameState(prev, next)) return updateOf(next, paths.join(", "));
    prev = next;
  }
  return undefined;
}

function errorText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES") return "permission denied";
  return e instanceof Error ? e.message : String(e);
}

/**
 * Files and directories, watched: any change under a directory (and its subdirectories; Kubernetes ConfigMap
 * volumes swap a `..data` symlink, which is seen as a change of the directory) or of a file
 * (watched through its directory, so editors that replace the file by renaming are seen) triggers
 * a debounced reload of everything. A periodic re-read catches missed events; unchanged content
 * (same digest) is not a change.
 */
export class FilePolicySource implements PolicySource {
  readonly description: string;
  readonly #paths: readonly string[];
  readonly #debounceMs: number;
  readonly #pollMs: number;
  readonly #settleMs: number;
  readonly #allowEmpty: boolean;
  /** Whether a set with policies was delivered (an empty update never replaces it). */
  #delivered = false;
  /** A read in progress (one at a time); `#again`: another change came during it. */
  #reading: Promise<void> | undefined;
  #again = false;
  #watchers: FSWatcher[] = [];
  #timer: NodeJS.Timeout | undefined;
  #poll: NodeJS.Timeout | undefined;
  #listener: ((u: SourceUpdate) => void) | undefined;
  #closed = false;

  constructor(paths: readonly string[], options: FileSourceOptions = {}) {
    this.#paths = paths.map((p) => resolve(p));
    this.description = `files ${paths.join(", ")}`;
    this.#debounceMs = options.debounceMs ?? 200;
    this.#pollMs = options.pollIntervalMs ?? 30_000;
    this.#settleMs = options.settleMs ?? 100;
    this.#allowEmpty = options.allowEmpty ?? false;
  }

  async start(listener: (update: SourceUpdate) => void): Promise<void> {
    this.#listener = listener;
    this.#watch();
    await this.#read();
    if (this.#pollMs > 0) {
      this.#poll = setInterval(() => void this.#reload(), this.#pollMs);
      this.#poll.unref();
    }
  }

  /** Reloads now (also what a change event does after the debounce); resolves once the update was delivered. */
  reload(): Promise<void> {
    return this.#reload();
  }

  close(): void {
    this.#closed = true;
    this.#unwatch();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#poll !== undefined) clearInterval(this.#poll);
  }

  #reload(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    // Re-watch: directories may have appeared or gone since (and a path missing at start may exist now).
    this.#unwatch();
    this.#watch();
    return this.#read();
  }

  /** One settled read delivered to the listener; a change during a read is read again after it. */
  #read(): Promise<void> {
    if (this.#reading !== undefined) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = (async () => {
      do {
        this.#again = false;
        const update = await readPathsSettled(this.#paths, this.#settleMs);
        if (this.#closed) return;
        if (update === undefined) {
          // Still being written after every attempt: not taken; the writer's next event (or the poll) reads again.
          if (!this.#delivered) this.#listener?.({ ok: false, origin: this.#paths.join(", "), errors: [`${this.#paths.join(", ")}: the files kept changing while being read; not loaded`] });
          continue;
        }
        if (!this.#allowEmpty && isEmptyUpdate(update)) {
          this.#listener?.({
            ok: false,
            origin: this.#paths.join(", "),
            errors: [`${this.#paths.join(", ")}: no policies found (an empty or missing source never replaces a policy set; --allow-empty accepts it)`],
          });
          continue;
        }
        if (update.ok) this.#delivered = true;
        this.#listener?.(update);
      } while (this.#again && !this.#closed);
    })().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  #unwatch(): void {
    for (const w of this.#watchers) w.close();
    this.#watchers = [];
  }

  #schedule = (): void => {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#reload();
    }, this.#debounceMs);
    this.#timer.unref();
  };

  #watch(): void {
    // Plain (non-recursive) watches on every directory: Node 20's recursive mode on Linux loses
    // track of files replaced by rename.
    const targets = new Map<string, Set<string> | "all">();
    const add = (dir: string, name: string | undefined): void => {
      const cur = targets.get(dir);
      if (name === undefined) targets.set(dir, "all");
      else if (cur === undefined) targets.set(dir, new Set([name]));
      else if (cur !== "all") cur.add(name);
    };
    for (const p of this.#paths) {
      let isDir = false;
      try {
        isDir = statSync(p).isDirectory();
      } catch {
        // Missing: watch the parent so its creation is seen.
      }
      if (isDir) for (const d of subdirectories(p)) add(d, undefined);
      else add(dirname(p), basename(p));
    }
    for (const [dir, names] of targets) {
      try {
        const w = watch(dir, { persistent: false }, (_event, filename) => {
          // For single files: only their own names, or a ConfigMap symlink swap (`..data`, `..2024_…`).
          if (names !== "all" && filename !== null && !names.has(String(filename)) && !String(filename).startsWith("..")) return;
          this.#schedule();
        });
        w.on("error", () => {
          w.close();
          this.#schedule();
        });
        this.#watchers.push(w);
      } catch {
        // Cannot watch (e.g. the parent is missing too): the periodic re-read still applies.
      }
    }
  }
}

/** A directory and its subdirectories (names starting with `.` skipped, as the loader skips them). */
function subdirectories(dir: string): string[] {
  const out = [dir];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) if (e.isDirectory() && !e.name.startsWith(".")) out.push(...subdirectories(join(dir, e.name)));
  return out;
}
