/**
 * Ordered, windowed batch processing: items from an async source go out in batches to `run` (which
 * may work on several batches at once, e.g. on worker threads), and their results come back to
 * `emit` strictly in input order. At most `window` items are read and not yet emitted, so memory is
 * bounded however long the source is (the reader is pulled only when there is room). No threads
 * and no timers here: the caller's `run` decides where the work happens.
 */
export interface OrderedOptions {
  /** Items per batch handed to `run` (≥ 1). */
  readonly batch: number;
  /** Items read and not yet emitted, at most (≥ batch). */
  readonly window: number;
}

/** What happened, counted by the implementation itself (for tests and the benchmark). */
export interface OrderedStats {
  /** The most items that were read and not yet emitted at any moment. */
  maxInFlight: number;
  batches: number;
  items: number;
}

export function newOrderedStats(): OrderedStats {
  return { maxInFlight: 0, batches: 0, items: 0 };
}

export async function orderedMap<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  run: (batch: readonly T[]) => Promise<readonly R[]>,
  emit: (result: R, item: T) => void | Promise<void>,
  options: OrderedOptions,
  stats: OrderedStats = newOrderedStats(),
): Promise<OrderedStats> {
  const batchSize = Math.max(1, Math.floor(options.batch));
  const window = Math.max(batchSize, Math.floor(options.window));
  const queue: { readonly items: readonly T[]; readonly result: Promise<readonly R[]> }[] = [];
  let batch: T[] = [];
  let inFlight = 0;
  const submit = (): void => {
    const items = batch;
    batch = [];
    const result = run(items);
    result.catch(() => undefined); // awaited in order below; not an unhandled rejection meanwhile
    queue.push({ items, result });
    stats.batches++;
  };
  const drainOne = async (): Promise<void> => {
    const b = queue.shift()!;
    const results = await b.result;
    if (results.length !== b.items.length) throw new Error(`orderedMap: a batch of ${b.items.length} gave ${results.length} results`);
    for (let i = 0; i < results.length; i++) await emit(results[i]!, b.items[i]!);
    inFlight -= b.items.length;
  };
  const it: Iterator<T> | AsyncIterator<T> = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  for (;;) {
    // Room first, then read: the source is never more than `window` items ahead of the output.
    while (inFlight >= window) {
      if (queue.length === 0) submit();
      await drainOne();
    }
    const next = await it.next();
    if (next.done === true) break;
    const item = next.value;
    batch.push(item);
    inFlight++;
    stats.items++;
    if (inFlight > stats.maxInFlight) stats.maxInFlight = inFlight;
    if (batch.length >= batchSize) submit();
  }
  if (batch.length > 0) submit();
  while (queue.length > 0) await drainOne();
  return stats;
}
