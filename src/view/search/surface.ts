// The Turns search prompt (`/` in Turns): Enter runs the query over the
// session shown (a large log's in the background, Esc cancels), then n / N
// step through its matches in Turns.
import { isQueryError, parseQuery, queryErrorLine } from '../../session/query.js';
import { flag, textKey, type Binding, type Handler } from '../app/binding.js';
import { selectedSession, step, withStatus, type AppAction, type AppState, type Step } from '../app/state.js';
import type { App, SurfaceModule } from '../app/surface.js';
import type { World } from '../app/world.js';
import { sanitizeInline } from '../text/sanitize.js';
import { editField } from '../text/text-field.js';
import { turnMatches } from '../../session/turn-matches.js';

/** Enter: the matches, the first one at or after the cursor; a large log is read in the background (searchDone brings them). */
const search: Handler = (s, world, app) => {
  const t = s.turnSearch!;
  const text = t.field.text.trim();
  if (!text) return step({ ...s, turnSearch: undefined });
  const q = parseQuery(text);
  if (isQueryError(q)) return withStatus(s, queryErrorLine(q), 'error');
  const session = selectedSession(s, world);
  if (!session) return step(s);
  const data = world.turns(session);
  if (data.ok && data.indexed) {
    // a large log: read in the background, the progress shown, Esc cancels (searchDone brings the matches)
    const next = { ...s, turnSearch: { ...t, editing: false, seqs: [], query: text, scanning: { seen: 0, total: session.length } } };
    return step(next, [{ type: 'searchTurns', session, key: t.key, query: q, text }]);
  }
  let seqs: number[];
  try {
    seqs = [...new Set(turnMatches(q, session.events).map((m) => m.seq))].sort((a, b) => a - b);
  } catch (e) {
    return withStatus(s, `cannot search this session: ${sanitizeInline((e as Error).message)}`, 'error');
  }
  return foundMatches({ ...s, turnSearch: { ...t, editing: false, seqs, query: text } }, world, app);
};

/** The matches of a search are known: the view under the prompt shows the first at or after its cursor, or none is said. */
function foundMatches(s: AppState, world: World, app: App): Step {
  const t = s.turnSearch!;
  if (!t.seqs.length) return withStatus(s, `no match for ${sanitizeInline(t.query ?? '')}`, 'error');
  return app.surface(s.view).found?.(s, world, app) ?? step(s);
}

/** The background search of a large log read on (progress) or ended (its matches), if it is still the one asked for. */
function searchAnswer(s: AppState, a: AppAction, world: World, app: App): Step | undefined {
  if (a.type !== 'searchProgress' && a.type !== 'searchDone' && a.type !== 'searchFailed') return undefined;
  const t = s.turnSearch;
  if (!t?.scanning || t.key !== a.key || t.query !== a.query) return step(s); // cancelled, or another search since
  if (a.type === 'searchProgress') return step({ ...s, turnSearch: { ...t, scanning: { ...t.scanning, seen: a.seen } } });
  if (a.type === 'searchFailed') return withStatus({ ...s, turnSearch: undefined }, `cannot search this session: ${sanitizeInline(a.message)}`, 'error');
  return foundMatches({ ...s, turnSearch: { ...t, scanning: undefined, seqs: a.seqs } }, world, app);
}

const KEYS: readonly Binding[] = [
  { keys: 'Enter', help: 'search (matches are marked; n / N go to the next and previous)', hint: 'search', match: flag('return'), run: search },
  { keys: 'Esc', help: 'cancel the search', hint: 'cancel', match: flag('escape'), run: (s) => step({ ...s, turnSearch: undefined }) },
  { keys: '← / →', help: 'move the caret (text keys: see below)', hint: 'caret', hintKeys: '←→', match: textKey },
];

export const SEARCH: SurfaceModule<'search'> = {
  id: 'search',
  title: 'Search prompt',
  hasText: true,
  prompt: true,
  active: (s) => Boolean(s.turnSearch?.editing),
  keys: () => KEYS,
  answer: searchAnswer,
  other: (s, _world, _app, p) => {
    const t = s.turnSearch!;
    const field = editField(t.field, p);
    return step(field && field !== t.field ? { ...s, turnSearch: { ...t, field } } : s);
  },
};
