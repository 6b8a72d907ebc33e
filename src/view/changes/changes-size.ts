// How many Changes rows fit.
import { frameOf, type AppState } from '../app/state.js';

/** Lines for rows: the surface's title (1) and hint (1) lines aside. */
export const changesBody = (s: AppState): number => Math.max(1, frameOf(s).content - 2);
