// What the Sessions view reads of the store (a part of the World): its rows
// for a filter, an order and a scope, built once per snapshot. The common
// case (no filter, a flat order) reads the root model's kept order; a
// snapshot taken on a base (a clock tick) reuses the base's rows at its time.
import { isQueryError, parseQuery } from '../../session/query.js';
import type { SessionListItem, SortOrder } from '../../session/list-item.js';
import type { RowSeq } from '../app/window.js';
import type { Snapshot } from '../app/world.js';
import { filterByQuery, queryBase, searching, type QueryBase } from './session-filter.js';
import { ItemRows, ListStats, sessionRows, type SessionRow } from './session-list.js';

export interface SessionsReads {
  /** Sessions rows for a filter and order, in the project scope unless `all` (memoised). */
  rows(filter: string, order: SortOrder, all?: boolean): RowSeq<SessionRow>;
  /** the Sessions filter's query is still being answered in the background */
  filterSearching(filter: string): boolean;
}

/** The filter's queryBase of a list of items (the last filter asked of it): frames of one list share it. */
const queryBases = new WeakMap<readonly SessionListItem[], { filter: string; all: boolean; base: QueryBase }>();

export function sessionsReads(snap: Snapshot): SessionsReads {
  const { now } = snap;
  let memo: { filter: string; order: SortOrder; all: boolean; rows: RowSeq<SessionRow> } | undefined;

  /** The filter as a query (a text that does not parse filters as plain text, as before). */
  const filteredRows = (items: readonly SessionListItem[], all: boolean, filter: string, order: SortOrder): SessionRow[] => {
    const q = filter.trim() ? parseQuery(filter) : undefined;
    const inScope = (): readonly SessionListItem[] => (all || !snap.scope ? items : items.filter((i) => snap.itemInScope(i)));
    if (!q || isQueryError(q)) return sessionRows(inScope(), { filter, order, now });
    const answers = snap.filterAnswers?.text === filter ? snap.filterAnswers : undefined;
    // kept while the items are the same array (the model makes a new one when any item changes)
    const kept = queryBases.get(items);
    const base = kept?.filter === filter && kept.all === all ? kept.base : queryBase(inScope(), q, (k) => snap.session(k));
    if (base !== kept?.base) queryBases.set(items, { filter, all, base });
    const found = filterByQuery(base, answers);
    return sessionRows(found.items, { filter: '', order, now }).map((r) => {
      const n = found.counts.get(r.key);
      return n === undefined ? r : { ...r, title: `[${n} match${n === 1 ? '' : 'es'}] ${r.title}` };
    });
  };

  return {
    rows(filter, order, allProjects = true) {
      const all = allProjects || !snap.scope;
      if (!memo || memo.filter !== filter || memo.order !== order || memo.all !== all) {
        let rows: RowSeq<SessionRow>;
        const plain = !filter.trim() && order !== 'threaded';
        const fromBase = snap.base && plain ? snap.base.rows(filter, order, allProjects) : undefined;
        if (fromBase instanceof ItemRows) {
          // the base's kept order at this snapshot's time (a clock tick: the ages move, not the rows)
          rows = fromBase.withNow(now);
        } else if (plain && !snap.base) {
          // the common case, kept sorted by the model (per scope, with its stats): rows are built as the window reads them
          rows = new ItemRows(snap.sortedBy(order, !all), now, snap.statsOf(order, !all, () => new ListStats()));
        } else rows = filteredRows(snap.items, all, filter, order);
        memo = { filter, order, all, rows };
      }
      return memo.rows;
    },
    filterSearching: (filter) => snap.filterAnswers?.text === filter && searching(snap.filterAnswers),
  };
}
