// Moving a selection through a list: a pure state transition for every list view.

/** The moves every list has (its ↑ ↓ g G PgUp PgDn keys). */
export type Move = 'up' | 'down' | 'top' | 'bottom' | 'pageUp' | 'pageDown';

/** The index after `move`, clamped to `[0, count-1]` (0 for an empty list); `page` is the window height. */
export function moveCursor(index: number, move: Move, count: number, page: number): number {
  if (count <= 0) return 0;
  const step = Math.max(1, Math.floor(page) - 1);
  let i = Number.isFinite(index) ? Math.floor(index) : 0;
  switch (move) {
    case 'up': i -= 1; break;
    case 'down': i += 1; break;
    case 'top': i = 0; break;
    case 'bottom': i = count - 1; break;
    case 'pageUp': i -= step; break;
    case 'pageDown': i += step; break;
  }
  return Math.min(Math.max(i, 0), count - 1);
}
