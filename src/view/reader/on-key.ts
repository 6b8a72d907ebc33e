// Keys while the reader is open (reader/reader-keys.ts), its search prompt included.
import type { KeyPress } from '../app/keys.js';
import { readerReducer, type ReaderState } from './reader-state.js';
import { readerCommandFor, readerPromptKey } from './reader-keys.js';
import { editField, textField } from '../text/text-field.js';
import { step, type AppState, type Step } from '../app/state.js';
import { openHelp } from '../help/on-key.js';

export function readerKey(s: AppState, r: ReaderState, p: KeyPress): Step {
  if (r.prompt !== null) {
    if (p.paste === undefined) {
      const a = readerPromptKey(p.input, p.key);
      if (a) return step({ ...s, reader: readerReducer(r, a) });
    }
    const field = editField(textField(r.prompt), p);
    return step(field && field.text !== r.prompt ? { ...s, reader: readerReducer(r, { type: 'searchInput', text: field.text }) } : s);
  }
  if (p.paste !== undefined) return step(s);
  const cmd = readerCommandFor(p.input, p.key);
  if (!cmd) return step(s);
  // a leftover status (a search's "match 1 of 3") gives the footer back to the keys on the next key
  const s2 = s.status ? { ...s, status: undefined } : s;
  if ('action' in cmd) return step({ ...s2, reader: readerReducer(r, cmd.action) });
  if (cmd.app === 'close') return step({ ...s2, reader: undefined });
  if (cmd.app === 'help') return openHelp(s2);
  return step(s2, [{ type: 'pager', content: r.doc.lines.map((l) => l.text).join('\n') + '\n' }]);
}
