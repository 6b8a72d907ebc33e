// The reader's slice of the app state.
import type { ReaderState } from './reader-state.js';

export interface ReaderSlice {
  /** the full-screen reader of one event's content (Enter/o in Turns); Esc returns to the same row */
  reader?: ReaderState;
}
