// The Sessions filter's search, built so a key never waits for it: search
// documents are built in the background in time-boxed slices (indexSome), and
// a query is answered in time-boxed slices too (startFilter + runFilter), so
// the caller can hand control back to the input loop between slices. Pure
// logic with an injected clock; the only I/O is a Session loading its events.
import { sessionKey } from './session-key.js';
import { isEventTerm, type Query, type Term } from './query.js';
import { buildSearchDoc, entryMatches, SearchDocBuilder, eventTermHolds, hasEventTerms, sessionMeta, sessionTermsMatch, type SearchEntry, type SessionMeta } from './search.js';
import type { SessionEvent } from './events.js';
import { readOn, type Session } from './session.js';

interface Indexed {
  doc: SearchEntry[];
  /** the session's event count when the doc was built: a grown log is indexed again */
  events: number;
}


/**
 * How the index gets a session's events. The default loads them through the
 * session and unloads them again; note that Session.unload() (as of this
 * writing) keeps the events reachable through `session.log`, so for a whole
 * root pass a reader that leaves the session alone, e.g. in storage:
 * `(s) => readLog(s.file!, true, s.log.consumed).reader.events`.
 */
export type EventsOf = (s: Session) => readonly SessionEvent[];

const throughSession: EventsOf = (s) => {
  const was = s.isLoaded;
  try {
    return s.events;
  } finally {
    if (!was) s.unload();
  }
};

/** Search documents per session key. */
export class SearchIndex {
  private readonly docs = new Map<string, Indexed>();

  constructor(private readonly eventsOf: EventsOf = throughSession) {}

  get size(): number {
    return this.docs.size;
  }
  /** The doc when it is current for the session (same event count). */
  docOf(s: Session): SearchEntry[] | undefined {
    const d = this.docs.get(sessionKey(s));
    return d && d.events === s.facts.events ? d.doc : undefined;
  }
  isCurrent(s: Session): boolean {
    return this.docOf(s) !== undefined;
  }
  set(s: Session, doc: SearchEntry[]): void {
    this.docs.set(sessionKey(s), { doc, events: s.facts.events });
  }
  /** Builds the doc of one session now. */
  build(s: Session): SearchEntry[] {
    const doc = buildSearchDoc(this.eventsOf(s));
    this.set(s, doc);
    return doc;
  }
  /** Forgets sessions that are not in `live` (deleted files). */
  retain(live: readonly Session[]): void {
    const keep = new Set(live.map(sessionKey));
    for (const k of this.docs.keys()) if (!keep.has(k)) this.docs.delete(k);
  }
}

export type Clock = () => number;
const defaultClock: Clock = () => performance.now();

/**
 * Builds docs for sessions that have none (or a stale one), in the given
 * order, until `budgetMs` is spent (at least one session per call). Returns
 * how many sessions still need a doc. One huge session can overrun the budget:
 * a session is the unit of work.
 */
export function indexSome(index: SearchIndex, sessions: readonly Session[], budgetMs: number, clock: Clock = defaultClock): number {
  const t0 = clock();
  let built = 0;
  let remaining = 0;
  for (const s of sessions) {
    if (index.isCurrent(s) || s.gone || scannedWhole(s)) continue;
    if (built > 0 && clock() - t0 >= budgetMs) {
      remaining++;
      continue;
    }
    index.build(s);
    built++;
  }
  return remaining;
}

/** A session's answer: how many events match, 'session' when the query has only session terms, 'pending' while it has no doc. */
export type FilterAnswer = number | 'session' | 'pending';

export interface FilterJob {
  query: Query;
  /** sessions still to look at, in order */
  readonly todo: Session[];
  /** key -> answer, for matching sessions (and pending ones) only */
  readonly results: Map<string, FilterAnswer>;
  done: boolean;
  /** a large session being searched as its log is read (it has no doc: see scannedWhole) */
  scan?: Scan;
}

interface Scan {
  session: Session;
  batches: Generator<readonly SessionEvent[] | undefined>;
  doc: SearchDocBuilder;
  matches: number;
  /** only negated event terms: an event has what is excluded */
  excluded: boolean;
}

/**
 * Logs this big get no search document (it would hold their text: a 1 GB log
 * made a 2 GB one): a query reads them in batches, in the job's slices, and
 * keeps a count. Set lower by tests.
 */
let scanMin = 16 * 1024 * 1024;
export const setScanMin = (bytes: number): void => {
  scanMin = bytes;
};
const scannedWhole = (s: Session): boolean => s.file !== undefined && s.log.consumed >= scanMin;

/**
 * Starts answering `q` over `sessions` (nothing is evaluated yet).
 * `mayHold`: whether a session's log may hold the query's words (the content
 * index, src/storage/content-index.ts), asked here of every session at once
 * (a lookup each): one that cannot is left out, answered with no document
 * and no read. Only for a query with a word that must match.
 */
export function startFilter(q: Query, sessions: readonly Session[], mayHold?: (s: Session) => boolean): FilterJob {
  const todo = mayHold && positive(q).length > 0 ? sessions.filter(mayHold) : [...sessions];
  return { query: q, todo: todo.reverse(), results: new Map(), done: todo.length === 0 };
}

/**
 * The job again for the sessions it answered 'pending', once their
 * documents are made: its other answers stand (asking every session again
 * cost a content-index test of each, ~35 ms at 100,000).
 */
export function retryPending(job: FilterJob, pending: readonly Session[]): FilterJob {
  const results = new Map([...job.results].filter(([, a]) => a !== 'pending'));
  return { query: job.query, todo: [...pending].reverse(), results, done: pending.length === 0 };
}

const positive = (q: Query): Term[] => q.terms.filter((t) => isEventTerm(t) && !t.negated);

/** How many events of `doc` match the query's event terms (no snippets: cheap). */
export function countMatches(q: Query, doc: readonly SearchEntry[]): number {
  let n = 0;
  for (const e of doc) if (entryMatches(q, e)) n++;
  return n;
}

function answer(q: Query, meta: SessionMeta, doc: readonly SearchEntry[] | undefined): FilterAnswer | null {
  if (!sessionTermsMatch(q, meta)) return null;
  if (!hasEventTerms(q)) return 'session';
  if (!doc) return 'pending';
  if (positive(q).length === 0) {
    // only negated event terms: the session matches when no event has what is excluded (as matchSession)
    const excluded = q.terms.filter(isEventTerm);
    return doc.some((e) => excluded.some((t) => eventTermHolds(t, e))) ? null : 'session';
  }
  const n = countMatches(q, doc);
  return n > 0 ? n : null;
}

/**
 * Evaluates the job for up to `budgetMs` (at least one session). Sessions
 * without a current doc answer 'pending' (start the job again once indexSome
 * has caught up). Returns whether the job is done.
 */
export function runFilter(job: FilterJob, index: SearchIndex, budgetMs: number, clock: Clock = defaultClock): boolean {
  const t0 = clock();
  const spent = () => clock() - t0 >= budgetMs;
  let first = true;
  for (;;) {
    if (job.scan) {
      if (!stepScan(job, job.scan, spent)) return false;
      continue;
    }
    if (job.todo.length === 0) break;
    if (!first && spent()) return false;
    first = false;
    const s = job.todo.pop()!;
    const meta = sessionMeta(s);
    if (scannedWhole(s) && hasEventTerms(job.query) && sessionTermsMatch(job.query, meta)) {
      job.scan = { session: s, batches: s.pausedBatches(Infinity, spent), doc: new SearchDocBuilder(), matches: 0, excluded: false };
      continue;
    }
    const a = answer(job.query, meta, index.docOf(s));
    if (a !== null) job.results.set(sessionKey(s), a);
  }
  job.done = true;
  return true;
}

/** Drops a job that is no longer wanted (a large log's read under way is closed). */
export function cancelFilter(job: FilterJob | undefined): void {
  job?.scan?.batches.return(undefined);
  if (job) job.scan = undefined;
}

/** Reads on in a large session's log until the budget is spent (false) or its answer is known (true). */
function stepScan(job: FilterJob, scan: Scan, spent: () => boolean): boolean {
  const q = job.query;
  const only = positive(q).length === 0 ? q.terms.filter(isEventTerm) : undefined;
  try {
    const done = readOn(scan.batches, spent, (batch) => {
      for (const e of scan.doc.add(batch)) {
        if (only) {
          if (only.some((t) => eventTermHolds(t, e))) scan.excluded = true;
        } else if (entryMatches(q, e)) scan.matches++;
      }
      return scan.excluded;
    });
    if (!done) return false;
  } catch {
    // the log cannot be read now (deleted, truncated): no answer for it
    scan.batches.return(undefined);
    job.scan = undefined;
    return true;
  }
  scan.batches.return(undefined);
  const a: FilterAnswer | null = only ? (scan.excluded ? null : 'session') : scan.matches > 0 ? scan.matches : null;
  if (a !== null) job.results.set(sessionKey(scan.session), a);
  job.scan = undefined;
  return true;
}

/** The background answers for one query text (the Sessions filter's). */
export interface FilterAnswers {
  text: string;
  results: ReadonlyMap<string, FilterAnswer>;
  /** keys not looked at yet */
  todo: ReadonlySet<string>;
}
