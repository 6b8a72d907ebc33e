// Binary search over things in order (segments, nodes, rows' first indexes).

/** The last index in [0, length) whose value is at or before `x` (values in order, `valueAt` reads one); -1 when none is. */
export function lastAtOrBefore(length: number, valueAt: (i: number) => number, x: number): number {
  let lo = -1;
  let hi = length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (valueAt(mid) <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
