// A session's offset index (session/turn-index.ts), built from its file in
// steps and kept up to date as its log grows: the Turns view of a large log
// draws from it instead of loading the log's events. Appends read
// the last segment again on to the new end; a log read again from scratch
// (truncated, replaced) is indexed again.
import fs from 'node:fs';
import { readOn, type LoadProgress, type LogState, type Session } from '../session/session.js';
import type { SessionEvent } from '../session/events.js';
import { HistoryFold, type HistoryEntry } from '../session/replay.js';
import { segmentCache, TurnIndex, TurnIndexBuilder, type IndexedSegment, type SegmentCache } from '../session/turn-index.js';
import { readRange, startRangeRead, type ReadJob } from './session-file.js';
import { isCompressedLog, zstdLineStartAfter } from './zstd-log.js';

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
  /** until the index is complete: the last turns, from a read of the log's tail (tail first) */
  tail?: { index: TurnIndex; log: LogState; consumed: number };
  /** a build or an extension under way, and what it will describe */
  job?: { read: ReadJob; builder: TurnIndexBuilder; log: LogState; consumed: number };
  failed?: unknown;
}

const states = new WeakMap<Session, IndexState>();
const ALWAYS = () => true;

/**
 * Whether the session is a large log whose events are not in memory: its
 * Turns view draws from an index, and reading it whole (its export, its
 * comparison) takes seconds, so the app does that in slices, in the
 * background. A compressed log's size is its text's (its turns are read
 * again from the frame before them: zstd-seek.ts).
 */
export function usesIndex(session: Session): boolean {
  return session.file !== undefined && !session.isLoaded && session.log.consumed >= indexedMin;
}

/** Reads a segment of `session`'s file again. */
function segmentReader(session: Session) {
  return (seg: IndexedSegment) => readRange(session.file!, session.header, seg.from, seg.to, seg.nextSeq).filter((e) => e.seq >= seg.seq && e.seq <= seg.lastSeq);
}

/**
 * The index as it stands: the complete one of the current log, else the last
 * complete one (stale: `current` false) while an extension runs, else the
 * index of the log's last turns (`partial`) while the whole log is indexed.
 */
export function turnIndexOf(session: Session): { index: TurnIndex; current: boolean; partial?: true } | undefined {
  const st = states.get(session);
  if (!st) return undefined;
  if (st.index && st.log === session.log) return { index: st.index, current: st.consumed === session.log.consumed };
  // (a stale index of a log read again from scratch is no use: its segments are other bytes)
  if (st.tail && st.tail.log === session.log) return { index: st.tail.index, current: false, partial: true };
  return undefined;
}

/** How much of a log's end the tail read takes first (16 MB when that holds no turn/start), and the most it grows to when no line starts in it (an over-long line). */
const TAIL_BYTES = 4 * 1024 * 1024;
const TAIL_MAX = 64 * 1024 * 1024;

/**
 * The index of the log's last turns, from a read of its last few MB: the
 * read starts at a line start and passes over the events before the first
 * turn/start it meets (a turn read from its middle). Why: a 10 GB log shows
 * its last turns, where a user forks, in a blink, and the rest fills in.
 * When no turn starts in the last 16 MB (an agent left running on one turn),
 * the last steps of that turn, from the first step/start in the window.
 */
function tailIndex(session: Session, cache: SegmentCache): TurnIndex {
  for (const skip of ['turn', 'step'] as const) {
    for (let size = TAIL_BYTES; size <= (skip === 'turn' ? TAIL_BYTES * 4 : TAIL_MAX); size *= 4) {
      const r = tailRead(session, cache, size, skip);
      if (r && (r.index.segments.length > 0 || r.whole)) return r.index;
    }
  }
  return new TurnIndex(segmentReader(session), cache);
}

/** The index of the log's last `size` bytes, from the first turn/start (or step/start) in them; undefined when no line starts in them (an over-long line fills them). `whole`: they are the whole log. */
function tailRead(session: Session, cache: SegmentCache, size: number, skip: 'turn' | 'step'): { index: TurnIndex; whole: boolean } | undefined {
  const log = session.log;
  const file = session.file!;
  const start = Math.max(log.headerEnd, log.consumed - size);
  const from = start === log.headerEnd ? start : lineStartAfter(file, start, log.consumed);
  if (from < 0) return undefined;
  const index = new TurnIndex(segmentReader(session), cache);
  const builder = new TurnIndexBuilder(index, from, 0, from !== log.headerEnd && skip);
  const read = startRangeRead(file, session.header, from, log.consumed, 0);
  try {
    for (let done = false; !done; ) {
      done = read.step(ALWAYS);
      const { events, ends } = read.drainRetained!();
      builder.add(events, ends);
    }
  } finally {
    read.close();
  }
  builder.finish();
  return { index, whole: from === log.headerEnd };
}

/** The offset just after the first newline in [at - 1, end) (the start of the first whole line from `at`), or -1. */
function lineStartAfter(file: string, at: number, end: number): number {
  if (isCompressedLog(file)) return zstdLineStartAfter(file, at, end);
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (let pos = at - 1; pos < end; pos += buf.length) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, end - pos), pos);
      if (n <= 0) return -1;
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl >= 0) return pos + nl + 1;
    }
    return -1;
  } finally {
    fs.closeSync(fd);
  }
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
  // the log grew while it was indexed: the read goes on to the new end; read again from scratch: start over
  if (st.job && st.job.log === log && st.job.consumed < log.consumed && st.job.read.extend?.(log.consumed)) st.job.consumed = log.consumed;
  if (st.job && (st.job.log !== log || st.job.consumed !== log.consumed)) cancelJob(st);
  // no index of this log yet: its last turns first (read again when the log grew, until the index is complete)
  if (!(st.index && st.log === log) && (st.tail?.log !== log || st.tail.consumed !== log.consumed)) st.tail = { index: tailIndex(session, cache), log, consumed: log.consumed };
  if (!st.job) {
    // go on from the complete index when the log only grew; else index it from its header on
    const from = st.index && st.log === log && st.consumed < log.consumed && st.index.segments.length > 0 ? st.index : undefined;
    const index = new TurnIndex(segmentReader(session), cache, from);
    const last = from?.segments[from.segments.length - 1];
    const start = last ? last.from : log.headerEnd;
    const next = last ? last.nextSeq : 0;
    st.job = { read: startRangeRead(session.file!, session.header, start, log.consumed, next), builder: new TurnIndexBuilder(index, start, next, false, last?.within), log, consumed: log.consumed };
  }
  const job = st.job;
  let done: boolean;
  try {
    do {
      // a chunk at a time (its events handed to the builder and dropped), whether or not pause() stops us
      done = job.read.step(ALWAYS);
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
  st.tail = undefined;
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

// ---- a large log's model history, read in steps ---------------------------

interface HistoryState {
  upTo: number;
  log: LogState;
  consumed: number;
  fold: HistoryFold;
  /** what it was started with: each entry's text kept, entries kept (historyOn reads on with them) */
  textMax: number;
  keep: number;
  /** the read under way (undefined once done) */
  batches?: Generator<readonly SessionEvent[] | undefined>;
}

const histories = new WeakMap<Session, HistoryState>();

/** The history after events [0, upTo] when it has been read for the log as it is (undefined: not yet). */
export function historyOf(session: Session, upTo: number): { entries: HistoryEntry[]; hidden: number } | undefined {
  const h = histories.get(session);
  return h && !h.batches && h.upTo === upTo && h.log === session.log && h.consumed === session.log.consumed ? { entries: h.fold.entries, hidden: h.fold.hidden } : undefined;
}

/** How far the read of a history under way has got: events folded of those up to `upTo`. */
export function historyProgress(session: Session): { seen: number; of: number } | undefined {
  const h = histories.get(session);
  return h?.batches ? { seen: h.fold.seen, of: h.upTo + 1 } : undefined;
}

/**
 * Reads on the history after events [0, upTo] (starting it, or over again
 * for another cut or a changed log): true once read, false when pause()
 * stopped it. One history per session; the read holds a batch at a time,
 * and each entry's first `textMax` characters, of the last `keep` entries.
 */
export function historyStep(session: Session, upTo: number, pause: () => boolean, textMax: number, keep = Infinity): boolean {
  let h = histories.get(session);
  if (h && (h.upTo !== upTo || h.log !== session.log || h.consumed !== session.log.consumed)) {
    h.batches?.return(undefined);
    h = undefined;
  }
  if (!h) {
    h = { upTo, log: session.log, consumed: session.log.consumed, fold: new HistoryFold(upTo, textMax, keep), textMax, keep };
    h.batches = session.pausedBatches(Infinity, pause);
    histories.set(session, h);
  }
  if (!h.batches) return true;
  const state = h;
  const end = () => {
    state.batches!.return(undefined);
    state.batches = undefined;
    state.fold.finish();
    return true;
  };
  try {
    return readOn(state.batches!, pause, (batch) => state.fold.add(batch)) ? end() : false;
  } catch (e) {
    state.batches?.return(undefined);
    histories.delete(session);
    throw e;
  }
}

/** Reads on the history under way, as it was started (the app's background slices): true when none is left to read. */
export function historyOn(session: Session, pause: () => boolean): boolean {
  const h = histories.get(session);
  return h?.batches ? historyStep(session, h.upTo, pause, h.textMax, h.keep) : true;
}

/** Drops a history read under way (its file closed). */
export function cancelHistory(session: Session): void {
  const h = histories.get(session);
  if (h?.batches) {
    h.batches.return(undefined);
    histories.delete(session);
  }
}
