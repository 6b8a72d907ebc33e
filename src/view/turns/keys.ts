// The Turns view's own keys (the common ones are in app/keymap.ts), and the
// keys of its search prompt.
import { ch, either, flag, type Binding } from '../app/binding.js';
import type { ViewBinding } from '../app/keymap.js';

export const TURNS_KEYS: readonly ViewBinding[] = [
  { keys: 'b', command: 'jumpBoundary', help: 'jump to the nearest fork boundary', hint: 'boundary', match: ch('b') },
  { keys: 't', command: 'toggleHistory', help: 'toggle model history (what the model sees up to the selection)', hint: 'history', match: ch('t') },
  { keys: 'o', command: 'openReader', help: 'read the selected event full screen (scroll, wrap, / search, O opens $PAGER)', match: ch('o') },
  { keys: '/', command: 'search', help: 'search this session (same query language as the filter)', match: ch('/') },
  { keys: 'n', command: 'nextMatch', help: 'next search match', match: ch('n') },
  { keys: 'N', command: 'prevMatch', help: 'previous search match', match: ch('N') },
  { keys: '→ / l', command: 'expand', help: 'expand / go to the first child', match: either(flag('rightArrow'), ch('l')) },
  { keys: '← / h', command: 'collapse', help: 'collapse / go to the parent', match: either(flag('leftArrow'), ch('h')) },
  { keys: 'e', command: 'expandAll', help: 'expand all', match: ch('e') },
  { keys: 'E', command: 'collapseAll', help: 'collapse all', match: ch('E') },
  { keys: 'd', command: 'toggleDetail', help: 'toggle the detail pane', match: ch('d') },
];

export type SearchCommand = 'search' | 'cancel' | 'caret';

export const SEARCH_KEYS: readonly Binding<SearchCommand>[] = [
  { keys: 'Enter', command: 'search', help: 'search (matches are marked; n / N go to the next and previous)', hint: 'search', match: flag('return') },
  { keys: 'Esc', command: 'cancel', help: 'cancel the search', hint: 'cancel', match: flag('escape') },
  { keys: '← / →', command: 'caret', help: 'move the caret (text keys: see below)', hint: 'caret', hintKeys: '←→', match: () => false },
];
