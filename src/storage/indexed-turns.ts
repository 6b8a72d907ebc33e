// A session's offset index (session/turn-index.ts), built from its file in
// steps and kept up to date as its log grows: the Turns view of a large log
// draws from it instead of loading the log's events (issue 23). Appends read
// the last segment again on to the new end; a log read again from scratch
// (truncated, replaced) is indexed again.
import type { LoadProgress, LogState, Session } from '../session/session.js';
import { segmentCache, TurnIndex, TurnIndexBuilder, type IndexedSegment, type SegmentCache } from '../session/turn-index.js';
import { readRange, startRangeRead, type ReadJob } from './session-file.js';
import { isCompressedLog } from './zstd-log.js';

/**
 * Logs at least this big open from the index; smaller ones load whole (as
 * fast, and the reader then has every event at hand). Set lower by tests
 * (setIndexedMin) so that both ways are tried on the same logs.
 */
let indexedMin = 16 * 1024 * 1024;
export const setIndexedMin = (bytes: number): void => {
  indexedMin = bytes;
};

interface IndexState {
  /** the log state (and how much of it) the complete index describes */
  log?: LogState;
  consumed: number;
  index?: TurnIndex;
  /** a build or an extension under way, and what it will describe */
  job?: { read: ReadJob; builder: TurnIndexBuilder; log: LogState; consumed: number };
  failed?: unknown;
}

const states = new WeakMap<Session, IndexState>();

/** Whether the session's Turns view draws from an index: a plain log over the threshold whose events are not in memory. */
export function usesIndex(session: Session): boolean {
  return session.file !== undefined && !session.isLoaded && !isCompressedLog(session.file) && session.log.consumed >= indexedMin;
}

/** Reads a segment of `session`'s file again. */
function segmentReader(session: Session) {
  return (seg: IndexedSegment) => readRange(session.file!, session.header, seg.from, seg.to, seg.nextSeq).filter((e) => e.seq >= seg.seq && e.seq <= seg.lastSeq);
}

/** The index as it stands: the complete one of the current log, else the last complete one (stale: `current` false) while an extension runs. */
export function turnIndexOf(session: Session): { index: TurnIndex; current: boolean } | undefined {
  const st = states.get(session);
  if (!st?.index) return undefined;
  const current = st.log === session.log && st.consumed === session.log.consumed;
  // a stale index of a log read again from scratch is no use: its segments are other bytes
  if (!current && st.log !== session.log) return undefined;
  return { index: st.index, current };
}

/**
 * Brings the index up to the log: true once it describes the log as it is;
 * false when pause() stopped it (asked between chunks), to go on at the next
 * call. Throws what the read threw (then says it again until cancelled).
 */
export function indexStep(session: Session, pause?: () => boolean, cache: SegmentCache = segmentCache): boolean {
  let st = states.get(session);
  if (!st) states.set(session, (st = { consumed: 0 }));
  if (st.failed !== undefined) throw st.failed;
  const log = session.log;
  if (st.index && st.log === log && st.consumed === log.consumed) return true;
  if (st.job && (st.job.log !== log || st.job.consumed !== log.consumed)) cancelJob(st);
  if (!st.job) {
    // go on from the complete index when the log only grew; else index it from its header on
    const from = st.index && st.log === log && st.consumed < log.consumed && st.index.segments.length > 0 ? st.index : undefined;
    const index = new TurnIndex(segmentReader(session), cache, from);
    const last = from?.segments[from.segments.length - 1];
    const start = last ? last.from : log.headerEnd;
    const next = last ? last.nextSeq : 0;
    st.job = { read: startRangeRead(session.file!, session.header, start, log.consumed, next), builder: new TurnIndexBuilder(index, start, next), log, consumed: log.consumed };
  }
  const job = st.job;
  let done: boolean;
  try {
    do {
      done = job.read.step(pause);
      const { events, ends } = job.read.drainRetained!();
      job.builder.add(events, ends);
    } while (!done && !pause?.());
  } catch (e) {
    cancelJob(st);
    st.failed = e;
    throw e;
  }
  if (!done) return false;
  st.index = job.builder.finish();
  st.log = job.log;
  st.consumed = job.consumed;
  st.job = undefined;
  return true;
}

/** How far a build under way has got (undefined when none is). */
export function indexProgress(session: Session): LoadProgress | undefined {
  return states.get(session)?.job?.read.progress();
}

/** Stops a build under way (its file closed) and forgets a failure; the index built so far stays. */
export function cancelIndex(session: Session): void {
  const st = states.get(session);
  if (!st) return;
  cancelJob(st);
  st.failed = undefined;
}

function cancelJob(st: IndexState): void {
  st.job?.read.close();
  st.job = undefined;
}
