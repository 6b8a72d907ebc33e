// The Changes surface's slice of the app state.
import type { ViewName } from '../app/surface.js';
import type { ChangesList } from './changes-rows.js';
import type { ChangesScope } from './open-changes.js';

export interface ChangesSurface {
  /** the session's key (Enter on a command opens it in Turns there) */
  key: string;
  list: ChangesList;
  cursor: number;
  /** first visible row */
  top: number;
  /** the view it was opened from (closing it returns there) */
  from: ViewName;
}

export interface ChangesSlice {
  /** what a session or a turn did to the code (C), over the views */
  changes?: ChangesSurface;
  /** what a background read of a large log's changes is for (its workDone opens the surface) */
  changesFor?: { key: string; scope: ChangesScope };
}
