// Moving a selection through a list: a pure state transition for every list view.
import type { Command } from './keymap.js';

/** The index after `cmd`, clamped to `[0, count-1]` (0 for an empty list); `page` is the window height. */
export function moveCursor(index: number, cmd: Command, count: number, page: number): number {
  if (count <= 0) return 0;
  const step = Math.max(1, Math.floor(page) - 1);
  let i = Number.isFinite(index) ? Math.floor(index) : 0;
  switch (cmd) {
    case 'up': i -= 1; break;
    case 'down': i += 1; break;
    case 'top': i = 0; break;
    case 'bottom': i = count - 1; break;
    case 'pageUp': i -= step; break;
    case 'pageDown': i += step; break;
    default: break;
  }
  return Math.min(Math.max(i, 0), count - 1);
}

export const isMove = (cmd: Command | undefined): boolean =>
  cmd === 'up' || cmd === 'down' || cmd === 'top' || cmd === 'bottom' || cmd === 'pageUp' || cmd === 'pageDown';
