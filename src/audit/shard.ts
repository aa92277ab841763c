/**
 * `--shard i/n`: which objects a shard admits. Every shard lists every object; an object belongs to
 * shard `h(key) mod n`, where `key` is its uid (stable for the object's life and the same whoever
 * lists it; the `group/Kind/namespace/name` when it has none) and `h` the first 48 bits of its
 * SHA-256. So each object is in exactly one shard, the same one on every run, and shards are about
 * equal in size whatever the namespaces or names.
 */
import { createHash } from "node:crypto";

export interface Shard {
  /** 0-based. */
  readonly index: number;
  readonly count: number;
}

export const WHOLE: Shard = { index: 0, count: 1 };

/** Parses `i/n` (0 <= i < n); a message on error. */
export function parseShard(text: string): { ok: true; shard: Shard } | { ok: false; error: string } {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (m === null) return { ok: false, error: `--shard must be i/n (e.g. 0/4: the first of four shards), got ${JSON.stringify(text)}` };
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > 100_000) return { ok: false, error: `--shard ${text}: the shard count must be between 1 and 100000` };
  if (index >= count) return { ok: false, error: `--shard ${text}: the index is 0-based and must be below the count (0/${count} … ${count - 1}/${count})` };
  return { ok: true, shard: { index, count } };
}

/** The shard key of an object: its uid, else `group/Kind/namespace/name`. */
export function shardKey(o: { readonly apiVersion?: unknown; readonly kind?: unknown; readonly metadata?: { readonly uid?: unknown; readonly namespace?: unknown; readonly name?: unknown } }): string {
  const uid = o.metadata?.uid;
  if (typeof uid === "string" && uid !== "") return uid;
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return `${group}/${String(o.kind ?? "")}/${String(o.metadata?.namespace ?? "")}/${String(o.metadata?.name ?? "")}`;
}

/** The shard (0 … count-1) a key belongs to. */
export function shardOf(key: string, count: number): number {
  if (count <= 1) return 0;
  const h = createHash("sha256").update(key).digest();
  return h.readUIntBE(0, 6) % count;
}

export function inShard(key: string, shard: Shard): boolean {
  return shardOf(key, shard.count) === shard.index;
}
