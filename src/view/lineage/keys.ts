// The Lineage view's own keys (the common ones are in app/keymap.ts).
import { ch, either, flag } from '../app/binding.js';
import type { ViewBinding } from '../app/keymap.js';

export const LINEAGE_KEYS: readonly ViewBinding[] = [
  { keys: '→ / l', command: 'expand', help: "show the selected node's subtree", match: either(flag('rightArrow'), ch('l')) },
  { keys: '← / h', command: 'collapse', help: "hide the selected node's subtree", match: either(flag('leftArrow'), ch('h')) },
];
