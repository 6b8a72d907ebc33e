// What the Sessions view reads of the store (a part of the World).
import type { RowSeq } from '../app/window.js';
import type { SessionRow } from './session-list.js';
import type { SessionListItem, SortOrder } from '../../session/list-item.js';

export interface SessionsReads {
  readonly items: readonly SessionListItem[];
  /** Sessions rows for a filter and order, in the project scope unless `all` (memoised). */
  rows(filter: string, order: SortOrder, all?: boolean): RowSeq<SessionRow>;
  /** the Sessions filter's query is still being answered in the background */
  filterSearching(filter: string): boolean;
}
