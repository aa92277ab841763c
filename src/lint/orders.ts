/**
 * Which orders to run a set of policies in: every permutation up to `MAX_PERMUTED` policies;
 * beyond, the default order with every pair swapped in place (so each pair runs both ways) plus a
 * few orders drawn at random from a seeded generator, so that a run is repeatable.
 */

/** Policies per group up to which every order is tried (6! = 720). */
export const MAX_PERMUTED = 6;

/** Orders drawn at random beyond `MAX_PERMUTED` policies. */
export const SAMPLED_ORDERS = 24;

/** mulberry32: a small, fast, seeded generator of floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Every permutation of `items`, the identity first. */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  const out: T[][] = [];
  items.forEach((first, i) => {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const p of permutations(rest)) out.push([first, ...p]);
  });
  return out;
}

/** `items` with the elements at `i` and `j` exchanged. */
export function swapped<T>(items: readonly T[], i: number, j: number): T[] {
  const out = [...items];
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}

/** `items` with `x` and `y` first, in that order, the others after in their order. */
export function pairFirst<T>(items: readonly T[], x: T, y: T): T[] {
  return [x, y, ...items.filter((i) => i !== x && i !== y)];
}

export interface OrderPlan {
  readonly orders: readonly (readonly string[])[];
  /** True when the orders are pair swaps and samples, not every permutation. */
  readonly sampled: boolean;
}

/**
 * The orders of the units of each group (units of different groups never swap: MAP runs before
 * Kyverno's webhook), combined group by group. The default order comes first.
 */
export function ordersFor(groups: readonly (readonly string[])[], random: () => number): OrderPlan {
  let combined: string[][] = [[]];
  let sampled = false;
  for (const g of groups) {
    let own: string[][];
    if (g.length <= MAX_PERMUTED) own = permutations(g);
    else {
      sampled = true;
      own = [[...g]];
      for (let i = 0; i < g.length; i++) for (let j = i + 1; j < g.length; j++) own.push(swapped(g, i, j));
      for (let i = 0; i < SAMPLED_ORDERS; i++) own.push(shuffled(g, random));
    }
    const next: string[][] = [];
    for (const c of combined) for (const o of own) next.push([...c, ...o]);
    combined = next;
    if (combined.length > 5040) {
      sampled = true;
      combined = [combined[0]!, ...shuffled(combined.slice(1), random).slice(0, 5039)];
    }
  }
  return { orders: combined, sampled };
}
