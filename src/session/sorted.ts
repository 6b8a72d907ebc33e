// Binary search over things in order (segments, nodes, rows' first indexes).

/** The first index in [0, length) whose element is not before the one looked for (`before(i)`: elements in order), `length` when none is. */
export function firstNotBefore(length: number, before: (i: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The last index in [0, length) whose value is at or before `x` (values in order, `valueAt` reads one); -1 when none is. */
export function lastAtOrBefore(length: number, valueAt: (i: number) => number, x: number): number {
  return firstNotBefore(length, (i) => valueAt(i) <= x) - 1;
}

/** The index of `x` among values in order (`valueAt` reads one), or -1 when it is not there. */
export function indexIn(length: number, valueAt: (i: number) => number, x: number): number {
  const i = firstNotBefore(length, (j) => valueAt(j) < x);
  return i < length && valueAt(i) === x ? i : -1;
}
