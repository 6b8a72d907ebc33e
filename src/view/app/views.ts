import type { ViewName } from './keymap.js';

/** The tabs, in order (Tab / Shift-Tab cycle them). */
export const VIEW_NAMES: readonly ViewName[] = ['sessions', 'turns', 'lineage', 'problems'];
