// The Sessions filter speaks the query language (src/session/query.ts).
// Session terms (is:open, cwd:, id:, after:, …) are decided at once from the
// index's facts. Free words match a session's id, title or cwd at once, as a
// plain filter does; failing that, its events decide, answered in the
// background by the search index (a FilterJob): a session joins the list once
// its events are known to match, with its match count. So the list narrows at
// once to what is known and grows as answers arrive; the selection, a key,
// stays where it is.
import { isEventTerm, isQueryError, parseQuery, queryErrorLine, type Query } from '../../session/query.js';
import { containsWord, hasEventTerms, sessionMeta, sessionTermsMatch } from '../../session/search.js';
import type { FilterAnswer } from '../../session/search-index.js';
import type { Session } from '../../session/session.js';
import type { SessionListItem } from './session-list.js';

/** The background answers for one query text. */
export interface FilterAnswers {
  text: string;
  results: ReadonlyMap<string, FilterAnswer>;
  /** keys not looked at yet */
  todo: ReadonlySet<string>;
}

/** Whether answers are still coming for this query (sessions not looked at, or waiting for their search document). */
export const searching = (a: FilterAnswers | undefined): boolean => a !== undefined && (a.todo.size > 0 || [...a.results.values()].includes('pending'));

/**
 * The filter text's query error as every surface shows it (queryErrorLine),
 * or undefined when it parses or is blank. The list then filters by the text
 * as plain text; the error says why.
 */
export function filterQueryError(text: string): string | undefined {
  if (!text.trim()) return undefined;
  const q = parseQuery(text);
  return isQueryError(q) ? queryErrorLine(q) : undefined;
}

/** Every positive free word is in the id, title or cwd, and the query asks nothing else of the events. */
function nameMatch(q: Query, item: SessionListItem): boolean {
  const events = q.terms.filter(isEventTerm);
  if (events.length === 0 || events.some((t) => t.negated || t.kind !== 'text')) return false;
  const hay = [item.id, item.title ?? '', item.cwd ?? ''].join('\n');
  return events.every((t) => t.kind === 'text' && containsWord(hay, t.value));
}

/** The items the query keeps, with the event match count of each where known. */
export function filterByQuery(
  items: readonly SessionListItem[],
  q: Query,
  session: (key: string) => Session | undefined,
  answers?: FilterAnswers,
): { items: SessionListItem[]; counts: Map<string, number> } {
  const out: SessionListItem[] = [];
  const counts = new Map<string, number>();
  const events = hasEventTerms(q);
  for (const item of items) {
    const s = session(item.key);
    if (!s || !sessionTermsMatch(q, sessionMeta(s))) continue;
    if (!events || nameMatch(q, item)) {
      out.push(item);
      continue;
    }
    const a = answers?.results.get(item.key);
    if (typeof a === 'number') counts.set(item.key, a);
    if (typeof a === 'number' || a === 'session') out.push(item);
  }
  return { items: out, counts };
}
