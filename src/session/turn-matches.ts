// The search of one session's events (the Turns `/` search): the matching
// events of a log in memory, or of a large log read in batches, in steps.
import type { SessionEvent } from './events.js';
import { readOn } from './session.js';
import type { Query } from './query.js';
import { buildSearchDoc, matchEntries, SearchDocBuilder, type EventMatch, type SearchEntry } from './search.js';

/**
 * The matching events of one session, in seq order (event terms only: the
 * session terms of the query are about the Sessions list). Pass `doc` to reuse
 * a search document built once per session (buildSearchDoc).
 */
export function turnMatches(q: Query, events: readonly SessionEvent[], doc: readonly SearchEntry[] = buildSearchDoc(events)): EventMatch[] {
  return matchEntries(eventTerms(q), doc);
}

const eventTerms = (q: Query): Query => ({ ...q, terms: q.terms.filter((t) => t.kind === 'text' || t.kind === 'tool' || t.kind === 'error' || t.kind === 'reason') });

/** The seqs of the matching events of a log read in batches (a large log: each batch searched and dropped). */
export function matchingSeqs(q: Query, batches: Iterable<readonly SessionEvent[]>): number[] {
  const scan = new TurnScan(q, batches);
  scan.run();
  return scan.seqs;
}

/**
 * A search of a large log in steps: `run(spent)` reads batches until the log
 * ends (true) or `spent()` says the slice is over (false: run again later).
 * Holds the seqs found and one batch. Stop early with close().
 */
export class TurnScan {
  readonly seqs: number[] = [];
  /** events read so far */
  seen = 0;
  private readonly terms: Query;
  private readonly doc = new SearchDocBuilder();
  private readonly it: Iterator<readonly SessionEvent[] | undefined>;

  constructor(q: Query, batches: Iterable<readonly SessionEvent[] | undefined>) {
    this.terms = eventTerms(q);
    this.it = batches[Symbol.iterator]();
  }

  run(spent: () => boolean = () => false): boolean {
    return readOn(this.it, spent, (batch) => {
      this.seen += batch.length;
      for (const m of matchEntries(this.terms, this.doc.add(batch))) if (this.seqs[this.seqs.length - 1] !== m.seq) this.seqs.push(m.seq);
    });
  }

  close(): void {
    this.it.return?.(undefined);
  }
}
