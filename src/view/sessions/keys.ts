// The Sessions view's own keys (the common ones are in app/keymap.ts), and the
// keys of its filter prompt.
import { ch, flag, type Binding } from '../app/binding.js';
import type { ViewBinding } from '../app/keymap.js';

export const SESSIONS_KEYS: readonly ViewBinding[] = [
  { keys: '/', command: 'filter', help: 'filter with a query: words, tool:NAME, is:error, reason:KIND, is:open|fork|spawn|damaged, cwd:, id:, after:, before:, -term, "quoted words"', hint: 'filter', match: ch('/') },
  { keys: 's', command: 'cycleSort', help: 'cycle order: recent, created, id, threaded', hint: (s) => `sort:${s.order}`, match: ch('s') },
  { keys: 'p', command: 'toggleScope', help: "this project only / all projects (in dsh's own root, as its /resume)", match: ch('p') },
];

export type FilterCommand = 'keep' | 'clear' | 'up' | 'down' | 'pageUp' | 'pageDown' | 'caret';

/** While the filter is typed: these keys, anything else edits the text (text-field.ts). */
export const FILTER_KEYS: readonly Binding<FilterCommand>[] = [
  { keys: 'Enter', command: 'keep', help: 'keep the filter and leave the prompt', hint: 'keep filter', match: flag('return') },
  { keys: 'Esc', command: 'clear', help: 'clear the filter and leave the prompt', hint: 'clear', match: flag('escape') },
  { keys: '↑', command: 'up', help: 'move up in the list while typing', hint: 'move', hintKeys: '↑↓', match: flag('upArrow') },
  { keys: '↓', command: 'down', help: 'move down in the list while typing', match: flag('downArrow') },
  { keys: 'PgUp', command: 'pageUp', help: 'page up', match: flag('pageUp') },
  { keys: 'PgDn', command: 'pageDown', help: 'page down', match: flag('pageDown') },
  { keys: '← / →', command: 'caret', help: 'move the caret (text keys: see below)', hint: 'caret', hintKeys: '←→', match: () => false },
];

