// The Sessions rows as the view shows them.
import type { AppState } from '../app/state.js';
import type { RowSeq } from '../app/window.js';
import type { World } from '../app/world.js';
import { rowOf, type SessionRow } from './session-list.js';
import { listItemOf } from '../../session/list-item.js';

/** The Sessions rows as shown: the filtered, sorted list, plus a deleted selection kept in place. */
export function sessionsRows(s: AppState, world: World): RowSeq<SessionRow> {
  const rows = world.rows(s.filter.text, s.order, s.allProjects);
  if (!s.ghost || !s.selected) return rows;
  // rare (the selection's file was deleted): every row is built
  const ghost = { ...rowOf(listItemOf(s.selected), 0, world.now), badge: 'file deleted', tone: 'red' as const, forkable: false };
  const at = Math.min(Math.max(0, s.sessions.hint), rows.length);
  return [...rows.slice(0, at), ghost, ...rows.slice(at)];
}
