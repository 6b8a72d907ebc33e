/**
 * Windowing for any list view: which slice of `rows` is on screen.
 *
 * Pure: the caller keeps `top` in its state and feeds it back as `prevTop`, so
 * scrolling is a state transition (as in @inkjs/ui's Select) and the view only
 * maps the visible rows.
 */

/**
 * What a list view reads of its rows: an array, or a list that builds only
 * the rows read (the Sessions list of a 100,000-session root: ItemRows).
 */
export interface RowSeq<T> {
  readonly length: number;
  at(i: number): T | undefined;
  slice(start?: number, end?: number): T[];
}

export interface VisibleWindow<T> {
  /** Index of the first visible row. */
  top: number;
  /** `rows.slice(top, top + height)`. */
  rows: T[];
}

function toInt(n: number): number {
  return Number.isFinite(n) ? Math.floor(n) : 0;
}

/**
 * Keep `selected` in view with minimal scrolling.
 *
 * - The previous top is kept when the selection is still inside the window.
 * - Moving above the window scrolls so the selection is the first row; moving
 *   below scrolls so it is the last row (one row per step when stepping).
 * - The window never shows empty space below the last row when the list is
 *   taller than the window (a shrinking list pulls the window up).
 * - `selected` is clamped to the list; a height of 0 or less (or an empty
 *   list) gives no rows. Non-finite numbers count as 0.
 */
export function visibleWindow<T>(
  rows: RowSeq<T>,
  selected: number,
  height: number,
  prevTop: number,
): VisibleWindow<T> {
  const n = rows.length;
  const h = toInt(height);
  if (n === 0 || h <= 0) return { top: 0, rows: [] };
  const sel = Math.min(Math.max(toInt(selected), 0), n - 1);
  const maxTop = Math.max(0, n - h);
  let top = Math.min(Math.max(toInt(prevTop), 0), maxTop);
  if (sel < top) top = sel;
  else if (sel >= top + h) top = sel - h + 1;
  return { top, rows: rows.slice(top, top + h) };
}
