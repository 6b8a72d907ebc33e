// The Sessions view's slice of the app state.
import type { SortOrder } from '../../session/list-item.js';

export interface SessionsSlice {
  /** the highlighted row and the window's top (where a vanished selection's successor is) */
  sessions: { hint: number; top: number };
  order: SortOrder;
  /** every project's sessions, or only the current project's (when the world has a scope) */
  allProjects: boolean;
  /** the detail pane (d): the selected session's facts and its tokens per turn */
  sessionsDetail: boolean;
}

export const initialSessions: SessionsSlice = { sessions: { hint: 0, top: 0 }, order: 'recent', allProjects: true, sessionsDetail: false };
