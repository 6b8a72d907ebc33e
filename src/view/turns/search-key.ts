// Keys while the Turns search is typed (turns/keys.ts SEARCH_KEYS): Enter runs it.
import type { KeyPress } from '../app/keys.js';
import { isQueryError, parseQuery, queryErrorLine } from '../../session/query.js';
import { matchingSeqs, turnMatches } from './turn-search.js';
import { SEARCH_KEYS } from './keys.js';
import { bindingFor } from '../app/binding.js';
import { sanitizeInline } from '../text/sanitize.js';
import { editField } from '../text/text-field.js';
import type { World } from '../app/world.js';
import { selectedSession, step, withStatus, type AppState, type Step, type TurnSearch } from '../app/state.js';
import { gotoMatch } from './commands.js';

/** Typing the Turns search: Enter runs it (matches, the first one at or after the cursor), Esc cancels. */
export function searchKey(s: AppState, t: TurnSearch, p: KeyPress, world: World): Step {
  const cmd = bindingFor(SEARCH_KEYS, p)?.command;
  if (cmd === 'cancel') return step({ ...s, turnSearch: undefined });
  if (cmd === 'search') {
    const text = t.field.text.trim();
    if (!text) return step({ ...s, turnSearch: undefined });
    const q = parseQuery(text);
    if (isQueryError(q)) return withStatus(s, queryErrorLine(q), 'error');
    const session = selectedSession(s, world);
    if (!session) return step(s);
    let seqs: number[];
    try {
      // a large log (its rows from the offset index) is searched a batch at a time, never held
      const data = world.turns(session);
      seqs = data.ok && data.indexed ? matchingSeqs(q, session.eventBatches()) : [...new Set(turnMatches(q, session.events).map((m) => m.seq))].sort((a, b) => a - b);
    } catch (e) {
      return withStatus(s, `cannot search this session: ${sanitizeInline((e as Error).message)}`, 'error');
    }
    const next = { ...s, turnSearch: { ...t, editing: false, seqs, query: text } };
    if (!seqs.length) return withStatus(next, `no match for ${sanitizeInline(text)}`, 'error');
    return gotoMatch(next, world, 1, true);
  }
  const field = editField(t.field, p);
  return step(field && field !== t.field ? { ...s, turnSearch: { ...t, field } } : s);
}
