// What the highlighted row means: the session instance (its file, not just
// its id) and the seq every action acts on. Every action (f, Enter, a, x, y,
// R, m, c, o, Tab to Turns) reads `target`, and only it; the key tables'
// disabled reasons read it too, so a key, its hint and its menu entry agree.
import type { Session } from '../../session/session.js';
import { SessionStore } from '../../session/store.js';
import { compareEnter } from '../compare/compare-state.js';
import type { TurnRow } from '../turns/turn-rows.js';
import { cursorIndex, type RowsView, type TurnsState } from '../turns/turns-state.js';
import { sanitizeInline } from '../text/sanitize.js';
import { rowSurface } from './surface.js';
import { cutOfRow, selectedSession, turnsStateOf, turnsView, type AppState } from './state.js';
import type { TurnsData, World } from './world.js';

export interface Target {
  /** the store key of the instance (its file) */
  key: string;
  session: Session;
  /** the session's file was deleted: kept on screen, nothing can be done with it but look */
  gone: boolean;
  /** the event (or turn, or fork point) the row means; undefined: the session as a whole */
  seq?: number;
  /** Turns: where `f` cuts and `x` exports up to (inclusive); undefined: the whole log */
  cut?: number;
  /** Turns: the model history is shown (a fork is cut from the tree) */
  history?: boolean;
}

export type TargetOf = Target | { none: string };

export const hasTarget = (t: TargetOf): t is Target => !('none' in t);

/** The Turns cursor: the one owner of "the selected turn row" (tree or history). */
export interface TurnsCursor {
  session: Session;
  data: Extract<TurnsData, { ok: true }>;
  t: TurnsState;
  view: RowsView;
  index: number;
  row: TurnRow | undefined;
}

export function turnsCursor(s: AppState, world: World, session = selectedSession(s, world)): TurnsCursor | undefined {
  if (!session) return undefined;
  const data = world.turns(session);
  if (!data.ok) return undefined;
  const t = turnsStateOf(s, SessionStore.keyOf(session));
  const view = turnsView(s, data)(t);
  const index = cursorIndex(t.showHistory ? t.history : t.tree, view);
  return { session, data, t, view, index, row: view.rows.at(index) };
}

function ofSession(s: AppState, world: World): TargetOf {
  const session = selectedSession(s, world);
  if (!session || s.selection === undefined) return { none: 'no session selected' };
  // (its counts, turns and boundaries are not known yet: any verdict on it would be a guess)
  if (session.partial) return { none: 'its log is still being read (the title bar shows how far): wait for its counts' };
  return { key: s.selection, session, gone: s.ghost };
}

export function target(s: AppState, world: World): TargetOf {
  switch (rowSurface(s)) {
    case 'sessions':
      return ofSession(s, world);
    case 'lineage': {
      const t = ofSession(s, world);
      // Enter on a fork child opens it at its fork point
      return hasTarget(t) && t.session.kind === 'fork' && t.session.seedLength ? { ...t, seq: t.session.seedLength - 1 } : t;
    }
    case 'problems': {
      const rows = world.problems();
      const row = s.problems.hint >= 0 ? rows[Math.min(s.problems.hint, rows.length - 1)] : undefined;
      if (!row) return { none: rows.length ? 'no problem highlighted (j/k choose one)' : 'no problems' };
      const session = row.sessionKey !== undefined ? world.session(row.sessionKey) : undefined;
      if (!session || row.sessionKey === undefined) return { none: `${sanitizeInline(row.file ?? row.code)} is not a loaded session` };
      return { key: row.sessionKey, session, gone: false, seq: row.seq };
    }
    case 'turns': {
      const base = ofSession(s, world);
      if (!hasTarget(base)) return base;
      const c = turnsCursor(s, world, base.session);
      if (!c) return base;
      if (c.t.showHistory) return { ...base, seq: c.row?.seq, cut: c.t.historyUpTo, history: true };
      return { ...base, seq: c.row?.seq, cut: c.row ? cutOfRow(c.row) : undefined };
    }
    case 'compare': {
      const c = s.compare!;
      const at = compareEnter(c.comparison, c.rows, c.cs);
      if (!at) return { none: 'no turn on this row' };
      const key = SessionStore.keyOf(at.session);
      const session = world.session(key);
      if (!session) return { none: `session ${sanitizeInline(at.session.id)} is no longer in the store` };
      return { key, session, gone: false, seq: at.seq };
    }
  }
}
