/**
 * Rate-limited log lines for events a client can cause at any rate (TLS handshake failures,
 * malformed requests): at most `burst` lines per `intervalMs` per event; the next line after a
 * quiet period carries how many were suppressed. The metrics still count every event.
 */
export class LogLimiter {
  readonly #intervalMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; count: number; suppressed: number }>();

  constructor(options: { intervalMs?: number; burst?: number; now?: () => number } = {}) {
    this.#intervalMs = options.intervalMs ?? 10_000;
    this.#burst = options.burst ?? 5;
    this.#now = options.now ?? Date.now;
  }

  /** Whether to log this occurrence of `event`; `suppressed` is how many were dropped since the last one logged. */
  take(event: string): { log: boolean; suppressed: number } {
    const now = this.#now();
    let w = this.#windows.get(event);
    if (w === undefined || now - w.start >= this.#intervalMs) {
      const suppressed = w?.suppressed ?? 0;
      w = { start: now, count: 0, suppressed: 0 };
      this.#windows.set(event, w);
      w.count++;
      return { log: true, suppressed };
    }
    if (w.count < this.#burst) {
      w.count++;
      return { log: true, suppressed: 0 };
    }
    w.suppressed++;
    return { log: false, suppressed: 0 };
  }
}
