// Where the selection sits in the Sessions list: its moves (the view's and
// its filter prompt's ↑ ↓ PgUp PgDn) and the clamp after every action (also
// Turns' while nothing is selected).
import { sessionsListHeight } from '../app/layout.js';
import { moveCursor, type Move } from '../app/list-cursor.js';
import { indexOfKey, layoutOf, select, step, type AppState, type Step } from '../app/state.js';
import { sessionsRows } from './rows.js';
import { visibleWindow } from '../app/window.js';
import type { World } from '../app/world.js';

/** Moves the selection in the Sessions list (the filter prompt moves it too, while typing). */
export function moveSessions(s: AppState, move: Move, world: World): Step {
  const rows = sessionsRows(s, world);
  if (!rows.length) return step(s);
  const from = Math.max(0, indexOfKey(rows, s.selection, s.sessions.hint));
  const i = moveCursor(from, move, rows.length, sessionsListHeight(layoutOf(s).view));
  return step({ ...select(s, rows.at(i)!.key, world), sessions: { ...s.sessions, hint: i } });
}

/**
 * The selection is on a Sessions row: the top one until the first key (the
 * first scan keeps adding rows above), else the same session, else the row
 * where it was. Turns with nothing selected lands here too.
 */
export function pointSessionsRow(s0: AppState, world: World): AppState {
  let s = s0;
  const rows = sessionsRows(s, world);
  if (s.pinTop && rows.length && s.selection !== rows.at(0)!.key) s = { ...select(s, rows.at(0)!.key, world), sessions: { ...s.sessions, hint: 0 } };
  let i = indexOfKey(rows, s.selection, s.sessions.hint);
  if (i < 0) {
    i = rows.length ? Math.min(Math.max(0, s.sessions.hint), rows.length - 1) : 0;
    s = select(s, rows.at(i)?.key, world);
  }
  const top = visibleWindow(rows, i, sessionsListHeight(layoutOf(s).view), s.sessions.top).top;
  if (i !== s.sessions.hint || top !== s.sessions.top) s = { ...s, sessions: { hint: i, top } };
  return s;
}
