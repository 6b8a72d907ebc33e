// How many compare rows fit.
import { frameOf, type AppState } from '../app/state.js';

/** Lines for compare rows: the surface's header (2) and hint (1) lines aside. */
export const compareBody = (s: AppState): number => Math.max(1, frameOf(s).content - 3);
