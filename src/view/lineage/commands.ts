// The Lineage view's commands: moves land on session rows, h / l hide and show a
// subtree. Pure steps of the reducer in app/reducer.ts.
import { openTarget } from '../app/commands.js';
import { lineageListHeight } from '../app/layout.js';
import { type Command } from '../app/keymap.js';
import { isMove, moveCursor } from '../app/list-cursor.js';
import type { LineageRow } from './lineage-layout.js';
import type { World } from '../app/world.js';
import { type AppState, type Step, indexOfKey, layoutOf, select, step } from '../app/state.js';

/** The session row nearest to `i` in direction `dir` first, then the other way; -1 when there is none. */
export function nearestSessionRow(rows: readonly LineageRow[], i: number, dir: 1 | -1): number {
  for (let j = i; j >= 0 && j < rows.length; j += dir) if (rows[j].key !== null) return j;
  for (let j = i; j >= 0 && j < rows.length; j -= dir) if (rows[j].key !== null) return j;
  return -1;
}

/** Moves in the lineage list land on session rows only (synthetic rows are labels). */
export function lineageMove(rows: readonly LineageRow[], from: number, cmd: Command, page: number): number {
  const i = moveCursor(from, cmd, rows.length, page);
  const j = nearestSessionRow(rows, i, cmd === 'up' || cmd === 'pageUp' || cmd === 'bottom' ? -1 : 1);
  return j < 0 ? from : j;
}

export function lineageCommand(s: AppState, cmd: Command, world: World): Step {
  const rows = world.lineage(s.lineage.collapsed).rows;
  if (isMove(cmd)) {
    if (!rows.length) return step(s);
    const from = Math.max(0, indexOfKey(rows, s.selection, s.lineage.hint));
    const i = lineageMove(rows, from, cmd, lineageListHeight(layoutOf(s).view));
    const key = rows[i].key ?? undefined;
    return step({ ...select(s, key, world), lineage: { ...s.lineage, hint: i } });
  }
  switch (cmd) {
    case 'open':
      return openTarget(s, world);
    case 'back':
      return step({ ...s, view: 'sessions' });
    case 'collapse':
    case 'expand': {
      // h hides the selected node's subtree, l shows it again
      const row = rows[indexOfKey(rows, s.selection, s.lineage.hint)];
      if (!row || s.selection === undefined || !row.hasChildren) return step(s);
      const collapsed = new Set(s.lineage.collapsed);
      if (cmd === 'collapse') collapsed.add(s.selection);
      else collapsed.delete(s.selection);
      return step({ ...s, lineage: { ...s.lineage, collapsed } });
    }
    default:
      return step(s);
  }
}
