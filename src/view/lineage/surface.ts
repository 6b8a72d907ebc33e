// The Lineage view: every session in its family tree (forks, spawned
// subagents, missing parents). Moves land on session rows only, h / l hide and
// show a subtree, and Enter on a fork child opens it at its fork point.
import { openTarget } from '../app/commands.js';
import { ch, either, flag, type Handler } from '../app/binding.js';
import { lineageListHeight } from './lineage-height.js';
import { moveCursor, type Move } from '../app/list-cursor.js';
import { indexOfKey, select, step, type AppState } from '../app/state.js';
import type { App, ViewModule } from '../app/surface.js';
import { hasTarget, selectionTarget, type TargetOf } from '../app/target.js';
import { needsTarget } from '../app/verdicts.js';
import { viewKeys } from '../app/view-keys.js';
import { visibleWindow } from '../app/window.js';
import type { World } from '../app/world.js';
import type { LineageRow } from '../lineage-graph/lineage-layout.js';
import { lineageReads } from './reads.js';

/** The session row nearest to `i` in direction `dir` first, then the other way; -1 when there is none. */
export function nearestSessionRow(rows: readonly LineageRow[], i: number, dir: 1 | -1): number {
  for (let j = i; j >= 0 && j < rows.length; j += dir) if (rows[j].key !== null) return j;
  for (let j = i; j >= 0 && j < rows.length; j -= dir) if (rows[j].key !== null) return j;
  return -1;
}

/** Moves in the lineage list land on session rows only (synthetic rows are labels). */
export function lineageMove(rows: readonly LineageRow[], from: number, move: Move, page: number): number {
  const i = moveCursor(from, move, rows.length, page);
  const j = nearestSessionRow(rows, i, move === 'up' || move === 'pageUp' || move === 'bottom' ? -1 : 1);
  return j < 0 ? from : j;
}

const move = (m: Move): Handler => (s, world, app) => {
  const rows = world.lineage(s.lineage.collapsed).rows;
  if (!rows.length) return step(s);
  const from = Math.max(0, indexOfKey(rows, s.selection, s.lineage.hint));
  const i = lineageMove(rows, from, m, lineageListHeight(app.layout(s).view));
  const key = rows[i].key ?? undefined;
  return step({ ...select(s, key, world), lineage: { ...s.lineage, hint: i } });
};

/** h hides the selected node's subtree, l shows it again. */
const fold = (hide: boolean): Handler => (s, world) => {
  const rows = world.lineage(s.lineage.collapsed).rows;
  const row = rows[indexOfKey(rows, s.selection, s.lineage.hint)];
  if (!row || s.selection === undefined || !row.hasChildren) return step(s);
  const collapsed = new Set(s.lineage.collapsed);
  if (hide) collapsed.add(s.selection);
  else collapsed.delete(s.selection);
  return step({ ...s, lineage: { ...s.lineage, collapsed } });
};

const KEYS = viewKeys({
  move,
  open: { help: 'open the session in Turns at its fork point', menu: 'open at its fork point', run: openTarget, disabled: needsTarget },
  back: { help: 'back to Sessions', hint: 'back', run: (s, _w, app) => step({ ...s, view: app.home }) },
  own: [
    { keys: '→ / l', help: "show the selected node's subtree", match: either(flag('rightArrow'), ch('l')), run: fold(false) },
    { keys: '← / h', help: "hide the selected node's subtree", match: either(flag('leftArrow'), ch('h')), run: fold(true) },
  ],
});

/** The selection is on a session row: the same session, else the session row nearest where it was. */
function pointLineageRow(s0: AppState, world: World, app: App): AppState {
  let s = s0;
  const rows = world.lineage(s.lineage.collapsed).rows;
  let i = indexOfKey(rows, s.selection, s.lineage.hint);
  if (i < 0) {
    i = nearestSessionRow(rows, Math.min(Math.max(0, s.lineage.hint), rows.length - 1), 1);
    s = select(s, i >= 0 ? (rows[i].key as string) : undefined, world);
    if (i < 0) i = 0;
  }
  const top = visibleWindow(rows, i, lineageListHeight(app.layout(s).view), s.lineage.top).top;
  if (i !== s.lineage.hint || top !== s.lineage.top) s = { ...s, lineage: { ...s.lineage, hint: i, top } };
  return s;
}

/** The selected session; on a fork child, at its fork point (Enter opens it there). */
function lineageTarget(s: AppState, world: World): TargetOf {
  const t = selectionTarget(s, world);
  return hasTarget(t) && t.session.kind === 'fork' && t.session.seedLength ? { ...t, seq: t.session.seedLength - 1 } : t;
}

export const LINEAGE: ViewModule<'lineage'> = {
  id: 'lineage',
  title: 'Lineage',
  view: true,
  explainsDisabled: true,
  dropsDeleted: true,
  active: (s) => s.view === 'lineage',
  keys: () => KEYS,
  reads: lineageReads,
  normalize: pointLineageRow,
  target: lineageTarget,
};
