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
import type { FilterAnswers } from '../../session/search-index.js';

export type { FilterAnswers };
import type { Session } from '../../session/session.js';
import type { SessionListItem } from '../../session/list-item.js';

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

/**
 * The words a session's names answer for the events: the query's event terms
 * when all are positive free words (undefined otherwise). Worked out once a
 * filter, not once a row (100,000 rows a frame).
 */
function nameWords(q: Query): string[] | undefined {
  const words: string[] = [];
  for (const t of q.terms) {
    if (!isEventTerm(t)) continue;
    if (t.negated || t.kind !== 'text') return undefined;
    words.push(t.value);
  }
  return words.length > 0 ? words : undefined;
}

/** Every positive free word is in the id, title or cwd, and the query asks nothing else of the events. */
function nameMatch(words: string[] | undefined, item: SessionListItem): boolean {
  if (!words) return false;
  const hay = [item.id, item.title ?? '', item.cwd ?? ''].join('\n');
  return words.every((w) => containsWord(hay, w));
}

/**
 * What a query decides from the list alone: the items its session terms
 * keep, and which of those their id, title or cwd keep whatever the events
 * hold. The same until the list changes: a frame asks it again each time the
 * events' answers move (100,000 names folded and searched a frame were ~80 ms).
 */
export interface QueryBase {
  items: readonly SessionListItem[];
  /** per item of `items`: 1 when kept without its events */
  named: Uint8Array;
}

export function queryBase(items: readonly SessionListItem[], q: Query, session: (key: string) => Session | undefined): QueryBase {
  const kept: SessionListItem[] = [];
  const named: number[] = [];
  const events = hasEventTerms(q);
  const words = nameWords(q);
  // (a session's meta is built only for a query that asks it something: upgradeRefusal alone was ~170 ms at 100,000 rows)
  const asksSessions = q.terms.some((t) => !isEventTerm(t));
  for (const item of items) {
    const s = session(item.key);
    if (!s || (asksSessions && !sessionTermsMatch(q, sessionMeta(s)))) continue;
    kept.push(item);
    named.push(!events || nameMatch(words, item) ? 1 : 0);
  }
  return { items: kept, named: Uint8Array.from(named) };
}

/** The items the query keeps (from its queryBase), with the event match count of each where known. */
export function filterByQuery(base: QueryBase, answers?: FilterAnswers): { items: SessionListItem[]; counts: Map<string, number> } {
  const out: SessionListItem[] = [];
  const counts = new Map<string, number>();
  const { items, named } = base;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (named[i] === 1) {
      out.push(item);
      continue;
    }
    const a = answers?.results.get(item.key);
    if (typeof a === 'number') counts.set(item.key, a);
    if (typeof a === 'number' || a === 'session') out.push(item);
  }
  return { items: out, counts };
}
