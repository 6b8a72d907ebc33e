// The Timeline surface's slice of the app state: which turn of which session
// it draws, and the cursor. The rows are not kept: they are drawn from the
// log each frame (timeline-of.ts), so a live turn's timeline grows with it.
import type { ViewName } from '../app/surface.js';

export interface TimelineSurface {
  /** the session's key */
  key: string;
  /** the seq of the turn's turn/start (its node's seq) */
  turnSeq: number;
  cursor: number;
  /** first visible row */
  top: number;
  /** the view it was opened from (closing it returns there) */
  from: ViewName;
}

export interface TimelineSlice {
  /** a turn's timeline (T in Turns), over the views */
  timeline?: TimelineSurface;
  /** the turn a background fold is for (its workDone opens the surface) */
  timelineFor?: { key: string; turnSeq: number };
}
