// The reader's keys: a scroll, a search step or a wrap is a ReaderAction for
// readerReducer (kept on the binding, so a key's action can be read back);
// close, help and $PAGER act on the app. Plus the $PAGER command line.
import { ch, either, flag, type Binding, type Handler } from '../app/binding.js';
import { step, type AppState } from '../app/state.js';
import { readerReducer, type ReaderAction } from './reader-state.js';

export type ReaderBinding = Binding & { action?: ReaderAction };

/** A leftover status (a search's "match 1 of 3") gives the footer back to the keys on the next key. */
const quiet = (s: AppState): AppState => (s.status ? { ...s, status: undefined } : s);

const act = (action: ReaderAction, keepStatus = false): Pick<ReaderBinding, 'action' | 'run'> => ({
  action,
  run: (s) => step({ ...(keepStatus ? s : quiet(s)), reader: readerReducer(s.reader!, action) }),
});

const pager: Handler = (s) => step(quiet(s), [{ type: 'pager', content: s.reader!.doc.lines.map((l) => l.text).join('\n') + '\n' }]);

export const READER_BINDINGS: readonly ReaderBinding[] = [
  { keys: '↓ / j', help: 'scroll down a line', match: either(flag('downArrow'), ch('j')), ...act({ type: 'scroll', by: 1 }) },
  { keys: '↑ / k', help: 'scroll up a line', match: either(flag('upArrow'), ch('k')), ...act({ type: 'scroll', by: -1 }) },
  { keys: 'Space / PgDn', help: 'page down', hint: 'page', match: either(flag('pageDown'), ch(' ')), ...act({ type: 'page', by: 1 }) },
  { keys: 'b / PgUp', help: 'page up', match: either(flag('pageUp'), ch('b')), ...act({ type: 'page', by: -1 }) },
  { keys: 'g / Home', help: 'top', match: either(flag('home'), ch('g')), ...act({ type: 'top' }) },
  { keys: 'G / End', help: 'bottom', match: either(flag('end'), ch('G')), ...act({ type: 'bottom' }) },
  { keys: '← / h', help: 'scroll left (wrap off)', match: either(flag('leftArrow'), ch('h')), ...act({ type: 'left' }) },
  { keys: '→ / l', help: 'scroll right (wrap off)', match: either(flag('rightArrow'), ch('l')), ...act({ type: 'right' }) },
  { keys: 'w', help: 'wrap long lines on/off', hint: 'wrap', match: ch('w'), ...act({ type: 'toggleWrap' }) },
  { keys: '/', help: 'search', hint: 'search', match: ch('/'), ...act({ type: 'searchStart' }) },
  { keys: 'n', help: 'next match', hint: 'next', match: ch('n'), ...act({ type: 'next' }) },
  { keys: 'N', help: 'previous match', match: ch('N'), ...act({ type: 'prev' }) },
  { keys: 'O', help: 'open in $PAGER (default less -R), then come back', hint: 'pager', match: ch('O'), run: pager },
  { keys: 'Esc / q', help: 'back to the same row', hint: 'back', match: either(flag('escape'), ch('q')), run: (s) => step({ ...quiet(s), reader: undefined }) },
  { keys: '?', help: 'these keys', hint: 'help', match: ch('?'), run: (s, w, app) => app.help(quiet(s), w) },
];

/** The keys of the reader's search prompt (anything else is text for it). */
export const READER_PROMPT_KEYS: readonly ReaderBinding[] = [
  { keys: 'Enter', help: 'search', hint: 'search', match: flag('return'), ...act({ type: 'searchCommit' }, true) },
  { keys: 'Esc', help: 'cancel the search', hint: 'cancel', match: flag('escape'), ...act({ type: 'searchCancel' }, true) },
];
