// Where the selection sits in the Sessions list: its moves (the view's and
// its filter prompt's ↑ ↓ PgUp PgDn) and the clamp after every action (also
// Turns' while nothing is selected).
import { moveCursor, type Move } from '../app/list-cursor.js';
import { indexOfKey, select, step, type AppState, type Step } from '../app/state.js';
import type { App } from '../app/surface.js';
import { sessionsRows } from './rows.js';
import { sessionsLayout } from './sessions-layout.js';
import { visibleWindow } from '../app/window.js';
import type { World } from '../app/world.js';

/** The Sessions list's rows: the view less a summary line, a column header and the detail pane. */
const listHeight = (s: AppState, app: App): number => sessionsLayout(app.layout(s).view, s.sessionsDetail).list;

/** Moves the selection in the Sessions list (the filter prompt moves it too, while typing). */
export function moveSessions(s: AppState, move: Move, world: World, app: App): Step {
  const rows = sessionsRows(s, world);
  if (!rows.length) return step(s);
  const from = Math.max(0, indexOfKey(rows, s.selection, s.sessions.hint));
  const i = moveCursor(from, move, rows.length, listHeight(s, app));
  return step({ ...select(s, rows.at(i)!.key, world), sessions: { ...s.sessions, hint: i } });
}

/**
 * The selection is on a Sessions row: the top one until the first key (the
 * first scan keeps adding rows above), else the same session, else the row
 * where it was. Turns with nothing selected lands here too.
 */
export function pointSessionsRow(s0: AppState, world: World, app: App): AppState {
  let s = s0;
  const rows = sessionsRows(s, world);
  if (s.pinTop && rows.length && s.selection !== rows.at(0)!.key) s = { ...select(s, rows.at(0)!.key, world), sessions: { ...s.sessions, hint: 0 } };
  let i = indexOfKey(rows, s.selection, s.sessions.hint);
  if (i < 0) {
    i = rows.length ? Math.min(Math.max(0, s.sessions.hint), rows.length - 1) : 0;
    s = select(s, rows.at(i)?.key, world);
  }
  const top = visibleWindow(rows, i, listHeight(s, app), s.sessions.top).top;
  if (i !== s.sessions.hint || top !== s.sessions.top) s = { ...s, sessions: { hint: i, top } };
  return s;
}
