// The highlighted problem: its index in the Problems rows, read by the
// view's clamp, its target and the drawing alike.
import type { ProblemRow } from '../../session/problems.js';
import type { AppState } from '../app/state.js';

/** The highlighted problem's index: the one owner of it (-1: none, as when Problems was entered on a session without problems). */
export const highlightedProblem = (s: AppState, rows: readonly ProblemRow[]): number => (rows.length && s.problems.hint >= 0 ? Math.min(s.problems.hint, rows.length - 1) : -1);
