// Compare's slice of the app state.
import type { Comparison } from '../../session/compare.js';
import type { ViewName } from '../app/surface.js';
import type { CompareRow } from '../comparison/compare-model.js';
import type { CompareState } from './compare-state.js';

export interface CompareSurface {
  comparison: Comparison;
  rows: CompareRow[];
  cs: CompareState;
  open: boolean;
  /** the view Compare was opened from (closing it returns there) */
  from: ViewName;
}

export interface CompareSlice {
  /** open over the views, or hidden while one of its turns is open in Turns (Esc returns) */
  compare?: CompareSurface;
}
