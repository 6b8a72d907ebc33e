// The Turns view's slice of the app state: each opened session's Turns
// state (cursor, expansion, scroll) by key, the rows a state shows, and
// opening a session at a seq (Enter in a list, a Compare turn, b from a
// refusal).
import { select, selectedSession, type AppState } from '../app/state.js';
import { AUTO_DETAIL_HEIGHT, turnsLayout } from './turns-layout.js';
import type { App } from '../app/surface.js';
import type { World } from '../app/world.js';
import type { TurnsData } from './reads.js';
import { openToSeq } from './turn-search.js';
import { rowIndexForSeq, type TurnRow } from './turn-rows.js';
import { initialTurnsState, turnsReducer, type RowsView, type TurnsState } from './turns-state.js';
import type { ViewName } from '../app/surface.js';

export interface TurnsSlice {
  /** each opened session's Turns state (cursor, expansion, scroll), by key: kept across views and help */
  turns: ReadonlyMap<string, TurnsState>;
  /** where Turns was opened from (Esc there returns to it, as Compare does) */
  turnsFrom?: ViewName;
  /** the sessions stepped out of into a subagent's child, the nearest last (Esc returns to each in turn) */
  turnsTrail?: readonly string[];
}

export const initialTurns: TurnsSlice = { turns: new Map() };

export const turnsStateOf = (s: AppState, key: string | undefined): TurnsState => (key !== undefined ? s.turns.get(key) : undefined) ?? initialTurnsState();

export const autoDetail = (s: AppState, app: App): boolean => app.layout(s).view >= AUTO_DETAIL_HEIGHT;

/** The rows a Turns state shows (tree under its expansion, or the history) and the list height. */
export function turnsView(s: AppState, data: Extract<TurnsData, { ok: true }>, app: App): (st: TurnsState) => RowsView {
  const height = app.layout(s).view;
  const auto = autoDetail(s, app);
  return (st) => {
    const list = turnsLayout(height, st.showDetail ?? auto).list;
    if (st.showHistory) return { rows: data.history(st.historyUpTo), height: list };
    const m = data.rows(st.expansion);
    return { rows: m.rows, index: m.index, height: list };
  };
}

/** What `f` on a Turns row cuts at: a boundary marker at its seq, any other row at its last seq. */
export const cutOfRow = (row: TurnRow): number => (row.kind === 'boundary' ? row.seq : row.lastSeq);

export function setTurns(s: AppState, key: string, t: TurnsState): AppState {
  const turns = new Map(s.turns);
  turns.set(key, t);
  return { ...s, turns };
}

/**
 * Opens the Turns view on `key`, at `seq` when given: its folded parents open
 * and the cursor lands on that event's row (a boundary marker at a cut).
 * `from` is where Esc in Turns returns.
 */
export function openTurns(s: AppState, world: World, app: App, key: string, seq?: number): AppState {
  const from = s.view === 'turns' ? (s.turnsFrom ?? app.home) : s.view;
  let next: AppState = { ...select(s, key, world), view: 'turns', help: undefined, dialog: undefined, menu: undefined, turnsFrom: from, turnsTrail: undefined };
  const session = selectedSession(next, world);
  if (seq === undefined || !session) return next;
  const data = world.turns(session);
  if (!data.ok) return next;
  const t0 = turnsStateOf(next, key);
  const t1 = { ...t0, showHistory: false, expansion: openToSeq(t0.expansion, data.tree, seq) };
  const t = turnsReducer(t1, { type: 'pick', view: turnsView(next, data, app), pick: (rows) => rowIndexForSeq(rows, seq) });
  return setTurns(next, key, t);
}

/** Enter on a subagent call: its child's Turns, the session left kept on the trail (Esc comes back to the same row). */
export function stepInto(s: AppState, world: World, app: App, childKey: string): AppState {
  const trail = s.selection !== undefined ? [...(s.turnsTrail ?? []), s.selection] : s.turnsTrail;
  return { ...openTurns(s, world, app, childKey), turnsFrom: s.turnsFrom, turnsTrail: trail };
}

/** Esc in a child stepped into: back to the session it was stepped into from (undefined: no trail). */
export function stepOut(s: AppState, world: World): AppState | undefined {
  const trail = s.turnsTrail;
  if (!trail?.length) return undefined;
  return { ...select(s, trail[trail.length - 1], world), view: 'turns', turnsTrail: trail.length > 1 ? trail.slice(0, -1) : undefined };
}

