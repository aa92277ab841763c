/**
 * Go's `sort.Slice` (pattern-defeating quicksort, not stable), reproduced step
 * for step so that elements with equal keys end up in the same order as in
 * cel-go (`sortBy` on lists longer than 12 with duplicate keys).
 */

type Less = (i: number, j: number) => boolean;
type Swap = (i: number, j: number) => void;

const enum Hint {
  Unknown,
  Increasing,
  Decreasing,
}

function bitsLen(x: number): number {
  return x === 0 ? 0 : 32 - Math.clz32(x);
}

/** Sorts positions [0, n) in place through `less` and `swap`, as Go's `sort.Slice` does. */
export function goSortSlice(n: number, less: Less, swap: Swap): void {
  pdqsort(less, swap, 0, n, bitsLen(n));
}

function insertionSort(less: Less, swap: Swap, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    for (let j = i; j > a && less(j, j - 1); j--) swap(j, j - 1);
  }
}

function siftDown(less: Less, swap: Swap, lo: number, hi: number, first: number): void {
  let root = lo;
  for (;;) {
    let child = 2 * root + 1;
    if (child >= hi) return;
    if (child + 1 < hi && less(first + child, first + child + 1)) child++;
    if (!less(first + root, first + child)) return;
    swap(first + root, first + child);
    root = child;
  }
}

function heapSort(less: Less, swap: Swap, a: number, b: number): void {
  const first = a;
  const hi = b - a;
  for (let i = Math.floor((hi - 1) / 2); i >= 0; i--) siftDown(less, swap, i, hi, first);
  for (let i = hi - 1; i >= 0; i--) {
    swap(first, first + i);
    siftDown(less, swap, 0, i, first);
  }
}

function pdqsort(less: Less, swap: Swap, a: number, b: number, limit: number): void {
  const maxInsertion = 12;
  let wasBalanced = true;
  let wasPartitioned = true;
  for (;;) {
    const length = b - a;
    if (length <= maxInsertion) {
      insertionSort(less, swap, a, b);
      return;
    }
    if (limit === 0) {
      heapSort(less, swap, a, b);
      return;
    }
    if (!wasBalanced) {
      breakPatterns(swap, a, b);
      limit--;
    }
    let [pivot, hint] = choosePivot(less, a, b);
    if (hint === Hint.Decreasing) {
      reverseRange(swap, a, b);
      pivot = b - 1 - (pivot - a);
      hint = Hint.Increasing;
    }
    if (wasBalanced && wasPartitioned && hint === Hint.Increasing) {
      if (partialInsertionSort(less, swap, a, b)) return;
    }
    if (a > 0 && !less(a - 1, pivot)) {
      a = partitionEqual(less, swap, a, b, pivot);
      continue;
    }
    const [mid, alreadyPartitioned] = partition(less, swap, a, b, pivot);
    wasPartitioned = alreadyPartitioned;
    const leftLen = mid - a;
    const rightLen = b - mid;
    const balanceThreshold = Math.floor(length / 8);
    if (leftLen < rightLen) {
      wasBalanced = leftLen >= balanceThreshold;
      pdqsort(less, swap, a, mid, limit);
      a = mid + 1;
    } else {
      wasBalanced = rightLen >= balanceThreshold;
      pdqsort(less, swap, mid + 1, b, limit);
      b = mid;
    }
  }
}

function partition(less: Less, swap: Swap, a: number, b: number, pivot: number): [number, boolean] {
  swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  while (i <= j && less(i, a)) i++;
  while (i <= j && !less(j, a)) j--;
  if (i > j) {
    swap(j, a);
    return [j, true];
  }
  swap(i, j);
  i++;
  j--;
  for (;;) {
    while (i <= j && less(i, a)) i++;
    while (i <= j && !less(j, a)) j--;
    if (i > j) break;
    swap(i, j);
    i++;
    j--;
  }
  swap(j, a);
  return [j, false];
}

function partitionEqual(less: Less, swap: Swap, a: number, b: number, pivot: number): number {
  swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  for (;;) {
    while (i <= j && !less(a, i)) i++;
    while (i <= j && less(a, j)) j--;
    if (i > j) break;
    swap(i, j);
    i++;
    j--;
  }
  return i;
}

function partialInsertionSort(less: Less, swap: Swap, a: number, b: number): boolean {
  const maxSteps = 5;
  const shortestShifting = 50;
  let i = a + 1;
  for (let step = 0; step < maxSteps; step++) {
    while (i < b && !less(i, i - 1)) i++;
    if (i === b) return true;
    if (b - a < shortestShifting) return false;
    swap(i, i - 1);
    if (i - a >= 2) {
      for (let j = i - 1; j >= 1; j--) {
        if (!less(j, j - 1)) break;
        swap(j, j - 1);
      }
    }
    if (b - i >= 2) {
      for (let j = i + 1; j < b; j++) {
        if (!less(j, j - 1)) break;
        swap(j, j - 1);
      }
    }
  }
  return false;
}

const MASK64 = (1n << 64n) - 1n;

function breakPatterns(swap: Swap, a: number, b: number): void {
  const length = b - a;
  if (length < 8) return;
  let random = BigInt(length);
  const modulus = 2 ** bitsLen(length);
  const start = a + Math.floor(length / 4) * 2 - 1;
  for (let idx = start; idx <= start + 2; idx++) {
    random ^= (random << 13n) & MASK64;
    random ^= random >> 7n;
    random ^= (random << 17n) & MASK64;
    let other = Number(random & BigInt(modulus - 1));
    if (other >= length) other -= length;
    swap(idx, a + other);
  }
}

function choosePivot(less: Less, a: number, b: number): [number, Hint] {
  const shortestNinther = 50;
  const maxSwaps = 4 * 3;
  const l = b - a;
  const swaps = { n: 0 };
  let i = a + Math.floor(l / 4) * 1;
  let j = a + Math.floor(l / 4) * 2;
  let k = a + Math.floor(l / 4) * 3;
  if (l >= 8) {
    if (l >= shortestNinther) {
      i = median(less, i - 1, i, i + 1, swaps);
      j = median(less, j - 1, j, j + 1, swaps);
      k = median(less, k - 1, k, k + 1, swaps);
    }
    j = median(less, i, j, k, swaps);
  }
  if (swaps.n === 0) return [j, Hint.Increasing];
  if (swaps.n === maxSwaps) return [j, Hint.Decreasing];
  return [j, Hint.Unknown];
}

function order2(less: Less, a: number, b: number, swaps: { n: number }): [number, number] {
  if (less(b, a)) {
    swaps.n++;
    return [b, a];
  }
  return [a, b];
}

function median(less: Less, a: number, b: number, c: number, swaps: { n: number }): number {
  [a, b] = order2(less, a, b, swaps);
  [b, c] = order2(less, b, c, swaps);
  [a, b] = order2(less, a, b, swaps);
  return b;
}

function reverseRange(swap: Swap, a: number, b: number): void {
  let i = a;
  let j = b - 1;
  while (i < j) {
    swap(i, j);
    i++;
    j--;
  }
}
