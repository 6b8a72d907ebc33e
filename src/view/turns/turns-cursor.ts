// The Turns cursor, the one owner of "the selected turn row" (tree or
// history), and the moves to a search match (n / N, and the first match
// when a search ends).
import { SessionStore } from '../../session/store.js';
import type { Session } from '../../session/session.js';
import { selectedSession, step, withStatus, type AppState, type Step } from '../app/state.js';
import { setTurns, turnsStateOf, turnsView } from './turns-slice.js';
import type { App } from '../app/surface.js';
import type { World } from '../app/world.js';
import type { TurnsData } from './reads.js';
import { openToSeq, stepMatch } from './turn-search.js';
import { rowIndexForSeq, type TurnRow } from './turn-rows.js';
import { cursorIndex, turnsReducer, type RowsView, type TurnsState } from './turns-state.js';

export interface TurnsCursor {
  session: Session;
  data: Extract<TurnsData, { ok: true }>;
  t: TurnsState;
  view: RowsView;
  index: number;
  row: TurnRow | undefined;
}

export function turnsCursor(s: AppState, world: World, app: App, session = selectedSession(s, world)): TurnsCursor | undefined {
  if (!session) return undefined;
  const data = world.turns(session);
  if (!data.ok) return undefined;
  const t = turnsStateOf(s, SessionStore.keyOf(session));
  const view = turnsView(s, data, app)(t);
  const index = cursorIndex(t.showHistory ? t.history : t.tree, view);
  return { session, data, t, view, index, row: view.rows.at(index) };
}

/** n / N: the next (previous) match from the cursor; folded parents open to show it. */
export function gotoMatch(s: AppState, world: World, app: App, dir: 1 | -1, inclusive = false): Step {
  const t = s.turnSearch;
  const session = selectedSession(s, world);
  if (!t || !t.seqs.length || !session || t.key !== s.selection) return withStatus(s, 'no search here: / searches this session');
  const data = world.turns(session);
  if (!data.ok) return step(s);
  const ts = turnsStateOf(s, t.key);
  const row = turnsCursor(s, world, app, session)?.row;
  const from = row === undefined ? undefined : inclusive ? row.seq - dir : row.seq;
  const seq = stepMatch(t.seqs, from, dir);
  if (seq === undefined) return step(s);
  const expansion = openToSeq(ts.expansion, data.tree, seq);
  const opened = { ...ts, showHistory: false, expansion };
  const next = turnsReducer(opened, { type: 'pick', view: turnsView(s, data, app), pick: (rows) => rowIndexForSeq(rows, seq) });
  const k = t.seqs.indexOf(seq) + 1;
  return withStatus(setTurns(s, t.key, next), `match ${k} of ${t.seqs.length}: seq ${seq} (n/N)`);
}
