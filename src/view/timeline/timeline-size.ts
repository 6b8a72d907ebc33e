// How many Timeline rows fit.
import { frameOf, type AppState } from '../app/state.js';

/** Lines for rows: the title, the times, the longest call, the legend and the position line aside. */
export const timelineBody = (s: AppState): number => Math.max(1, frameOf(s).content - 5);
