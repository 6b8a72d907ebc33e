// What the highlighted row means: the session instance (its file, not just
// its id) and the seq every action acts on. Each row surface owns its own
// (its module's `target`); every action (f, Enter, a, x, y, R, m, c, o) and
// every disabled reason reads it through `app.target`, and only there, so a
// key, its hint and its menu entry agree.
import type { Session } from '../../session/session.js';
import { selectedSession, type AppState } from './state.js';
import type { World } from './world.js';

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

/** The selected session as a whole: what a row of Sessions or Lineage means, and where Turns starts. */
export function selectionTarget(s: AppState, world: World): TargetOf {
  const session = selectedSession(s, world);
  if (!session || s.selection === undefined) return { none: 'no session selected' };
  // (its counts, turns and boundaries are not known yet: any verdict on it would be a guess)
  if (session.partial) return { none: 'its log is still being read (the title bar shows how far): wait for its counts' };
  return { key: s.selection, session, gone: s.ghost };
}
