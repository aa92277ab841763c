/** Small helpers the benchmarks share: medians, geometric means, integer settings, the machine line. */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function geomean(xs: readonly number[]): number {
  return Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
}

/** A positive integer from the environment, or `dflt`. */
export function envInt(name: string, dflt: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return dflt;
  const n = Number.parseInt(v, 10);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive integer, got '${v}'`);
  return n;
}

/** The CPU model (from /proc/cpuinfo on Linux), core count and Node version. */
export function machine(): string {
  let model = cpus()[0]?.model ?? "unknown CPU";
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (m !== null) model = m[1]!.trim();
  } catch {
    // not Linux: keep os.cpus()'s model
  }
  return `${model}, ${cpus().length} cores, Node ${process.version}`;
}
