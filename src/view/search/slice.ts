// The Turns search's slice of the app state: the query being typed, then its matches.
import type { TextField } from '../text/text-field.js';

export interface TurnSearch {
  /** the session it searched */
  key: string;
  field: TextField;
  editing: boolean;
  /** seqs of the matching events, ascending (after Enter) */
  seqs: number[];
  query?: string;
  /** a large log is being searched in the background (searchTurns): events read of all (Esc cancels) */
  scanning?: { seen: number; total: number };
}

export interface SearchSlice {
  /** the `/` search of the Turns session (n/N step through its matches) */
  turnSearch?: TurnSearch;
}
