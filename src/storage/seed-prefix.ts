// A fork's seed without holding it: one pass over the parent's log up to its
// first n events folds their facts and finds where their bytes end, so the
// writer can copy them verbatim (atomic-writer.ts copies in 1 MB pieces). A
// fork of a 10 GB session holds one batch of events at a time.
import type { SessionEvent } from '../session/events.js';
import { prefixFacts, type LogFacts } from '../session/log-facts.js';
import { LogShrankError, type Session } from '../session/session.js';
import type { SeedPrefix } from '../session/store.js';
import type { ByteRange } from './atomic-writer.js';
import { startReadLog } from './session-file.js';

/** What the writer needs of a fork's seed: the parent's first `length` events. */
export interface PrefixScan extends SeedPrefix {
  /** the parent's bytes that hold exactly those events, when they can be copied as they are (no damaged line before the cut, the cut ends a line) */
  range?: ByteRange;
  /** the child's facts for them (prefixFacts) */
  facts: LogFacts;
}

/**
 * Scans `parent`'s log (or its events in memory) for the seed of a fork cut
 * after its first `n` events, whose end is a boundary. `seedFrom`: as
 * prefixFacts takes it (n for a v0/v1 child, undefined for a marked one).
 */
export function scanPrefix(parent: Session, n: number, seedFrom: number | undefined): PrefixScan {
  // set as the events go by: where event n-1's line ends (the cut), where event n's does, and what precedes them
  let cutEnd: number | undefined;
  let nextEnd: number | undefined;
  let headerEnd = 0;
  let firstAnomaly = Infinity;

  function* inMemory(): Generator<SessionEvent> {
    const log = parent.ensureLoaded();
    headerEnd = log.headerEnd;
    firstAnomaly = log.firstAnomaly;
    for (let i = 0; i < log.events.length && i <= n; i++) {
      if (i === n - 1) cutEnd = log.eventEnds[i];
      if (i === n) nextEnd = log.eventEnds[i];
      yield log.events[i];
    }
  }

  function* fromFile(file: string): Generator<SessionEvent> {
    // reads what the facts describe (a log that grew since is read to there), 64 KB a step
    const job = startReadLog(file, true, parent.log.consumed, true);
    try {
      let i = 0;
      for (let done = false; !done && i <= n; ) {
        done = job.step(() => true);
        const reader = job.result().reader;
        headerEnd = reader.headerEnd;
        firstAnomaly = reader.firstAnomaly;
        const { events, ends } = reader.takeRetained();
        for (let k = 0; k < events.length && i <= n; k++, i++) {
          if (i === n - 1) cutEnd = ends[k];
          if (i === n) nextEnd = ends[k];
          yield events[k];
        }
      }
      // a log shorter than its facts said (truncated or replaced since): no seed is copied from it
      if (i < n) throw new LogShrankError(file, i, n);
    } finally {
      job.close();
    }
  }

  // prefixFacts takes event n too when there is one (then stops the read): the end of its line tells a cut inside a packed row
  const facts = prefixFacts(parent.facts, parent.isLoaded || !parent.file ? inMemory() : fromFile(parent.file), n, seedFrom);
  const out: PrefixScan = { length: n, facts, ...(facts.lastEventType !== undefined ? { last: { type: facts.lastEventType, time: facts.lastEventTime! } } : {}) };
  // copied verbatim unless a damaged line comes before the cut, or the cut falls inside a packed row (two events, one line)
  if (parent.file && n > 0 && cutEnd !== undefined && cutEnd <= firstAnomaly && nextEnd !== cutEnd) out.range = { file: parent.file, start: headerEnd, end: cutEnd };
  return out;
}
