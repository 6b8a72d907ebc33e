// How many lines of reader text fit.
import { frameOf, type AppState } from '../app/state.js';

/** Rows of reader text: the content area less its title and status lines. */
export const readerHeight = (s: AppState): number => Math.max(1, frameOf(s).content - 2);
