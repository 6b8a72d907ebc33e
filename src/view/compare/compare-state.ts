// Compare view state as a pure reducer, the window included: the selected
// row, the side Enter opens, and the first visible row. The owner embeds it in its app state and maps keys to these actions.
import type { Comparison } from '../../session/compare.js';
import { compareWindow, rowTarget, type CompareRow, type Side } from '../comparison/compare-model.js';

export interface CompareState {
  cursor: number;
  side: Side;
  /** first visible row (kept steady while the cursor moves inside the window) */
  from: number;
}

export type CompareAction =
  | { type: 'up' | 'down' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'left' | 'right' | 'toggleSide' }
  | { type: 'resize' };

/** Starts on the first row that differs (past the shared prefix and folded equal turns), left side. */
export function initialCompareState(rows: readonly CompareRow[], height: number): CompareState {
  const first = rows.findIndex((r) => r.kind === 'pair');
  const cursor = first >= 0 ? first : 0;
  return { cursor, side: 'left', from: compareWindow(rows, cursor, height).from };
}

/** `height`: lines available for rows (the view's body). */
export function compareReducer(state: CompareState, action: CompareAction, rows: readonly CompareRow[], height: number): CompareState {
  const last = Math.max(0, rows.length - 1);
  const page = Math.max(1, Math.floor(height / 3)); // pair rows take three lines
  let { cursor, side } = state;
  switch (action.type) {
    case 'up':
      cursor--;
      break;
    case 'down':
      cursor++;
      break;
    case 'pageUp':
      cursor -= page;
      break;
    case 'pageDown':
      cursor += page;
      break;
    case 'home':
      cursor = 0;
      break;
    case 'end':
      cursor = last;
      break;
    case 'left':
      side = 'left';
      break;
    case 'right':
      side = 'right';
      break;
    case 'toggleSide':
      side = side === 'left' ? 'right' : 'left';
      break;
    case 'resize':
      break;
  }
  cursor = Math.max(0, Math.min(last, cursor));
  const from = compareWindow(rows, cursor, height, state.from).from;
  if (cursor === state.cursor && side === state.side && from === state.from) return state;
  return { cursor, side, from };
}

/** What Enter opens in this state: the session of the selected side at the turn's first seq, if any. */
export function compareEnter(c: Comparison, rows: readonly CompareRow[], state: CompareState) {
  const row = rows[state.cursor];
  return row ? rowTarget(c, row, state.side) : undefined;
}
