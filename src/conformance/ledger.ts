/**
 * Known-failure ledgers as data: a YAML (or JSON) list of `{path, reason}`. The runner ships none of
 * its own; a project keeps one file per suite beside its case data (celmap's are under
 * `conformance/`) and passes it in (`celmap conformance --known-failures <file>`).
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { KnownFailure } from "./suite.js";

/** Checks the shape of a parsed ledger; returns the entries or throws `<file>: [i].field: message`. */
export function ledgerFromValue(value: unknown, file: string): KnownFailure[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${file}: a known-failures ledger is a list of {path, reason}`);
  return value.map((e, i) => {
    if (e === null || typeof e !== "object") throw new Error(`${file}: [${i}]: want {path, reason}`);
    const { path, reason } = e as { path?: unknown; reason?: unknown };
    if (typeof path !== "string" || path === "") throw new Error(`${file}: [${i}].path: want a non-empty string`);
    if (typeof reason !== "string" || reason.trim() === "") throw new Error(`${file}: [${i}].reason: want the reason the case fails`);
    return { path, reason: reason.trim() };
  });
}

/** Reads a ledger file (`readText` defaults to the file system). */
export function loadLedger(file: string, readText: (path: string) => string = (p) => readFileSync(p, "utf8")): KnownFailure[] {
  return ledgerFromValue(parse(readText(file)), file);
}
