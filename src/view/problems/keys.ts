// The Problems view's own keys: none beyond the common ones (app/keymap.ts);
// there every action means the highlighted problem's session (app/target.ts).
import type { ViewBinding } from '../app/keymap.js';

export const PROBLEMS_KEYS: readonly ViewBinding[] = [];
