// One session file on disk -> a live Session (facts now, events on demand).
import fs from 'node:fs';
import type { Diagnostic } from '../session/diagnostics.js';
import type { SessionEvent, SessionHeader } from '../session/events.js';
import { Session, type LoadJob, type LoadProgress, type LogState, type Loader } from '../session/session.js';
import { LogReader, MAX_LINE_BYTES, MAX_LINE_SCAN, type LogReaderOptions } from './log-reader.js';
import { openRegular } from './open-file.js';
import type { FileState } from './walk.js';
import { isCompressedLog, readZstdLog, startReadZstdLog, startZstdRangeRead } from './zstd-log.js';

/** size, inode and mtime: what tells a grown file from a replaced one */
export type FileStat = FileState & {
  /** device and inode-change time of the read (what the fact cache keys on, with size, ino and mtime) */
  dev?: number;
  ctimeMs?: number;
};

export interface ReadResult {
  reader: LogReader;
  stat: FileStat;
  /** bytes after the last complete line (an append in progress or a torn tail) */
  pending: number;
}

// 1 MiB (was 8): a line over MAX_LINE_BYTES is held only up to the limit plus one
// chunk before it is dropped, so the chunk size adds directly to the peak.
const READ_CHUNK = 1024 * 1024;
// While skipping an over-long line nothing is kept, so larger reads into one
// reused buffer cost no memory growth and far fewer system calls.
const SKIP_CHUNK = 2 * 1024 * 1024;
let skipBuf: Buffer | undefined;
// Reads that may stop between chunks: a chunk's lines are parsed in a few ms.
const STEP_CHUNK = 64 * 1024;

/**
 * Feeds `reader` the file's bytes from where it stopped (its last complete
 * line, or how far it has scanned an over-long line) up to `end`. The one
 * place that reads a log: a full load and a live follow go through it, so both
 * obey the same memory bound. Complete lines are fed; an unfinished last line
 * is left unconsumed (read again next time) while it is under MAX_LINE_BYTES;
 * past that it is skipped to its end without being held (reader.skipFrom,
 * reader.scanned), and past `scanCap` (MAX_LINE_SCAN for a load) with no end
 * the file is given up. A live follow passes no cap: it only ever scans the
 * bytes appended since its last look, in steps, so it goes on following
 * whatever comes after a line of any length. `everyChunk`: pause() is also
 * asked between chunks of ordinary lines (true: smaller ones, STEP_CHUNK, for
 * slices of a few ms; 'read': READ_CHUNK, for the root scan, whose first read
 * of a 10 GB log held the loop, keys and all, for 30 s), so a large log loads
 * in slices; an unfinished line under a chunk is read again on the next call
 * (all the state is in the reader). Without it (a live follow) only an
 * over-long line pauses: the follower takes any other pause as the end.
 */
export function feedFd(fd: number, reader: LogReader, end: number, pause?: () => boolean, scanCap = MAX_LINE_SCAN, everyChunk: boolean | 'read' = false): boolean {
  if (reader.gaveUp) return true;
  let pos = reader.skipFrom !== undefined ? Math.max(reader.scanned, reader.consumed) : reader.consumed;
  // The incomplete line so far, as a list of chunks: they are joined only
  // once its "\n" arrives (growing one carry buffer with Buffer.concat held
  // the old carry, the new chunk and the joined copy at once).
  let parts: Buffer[] = [];
  let partLen = 0;
  // The read buffer is reused unless part of it is held in `parts`.
  let buf: Buffer | undefined;
  let held = false;
  const chunk = everyChunk === true ? STEP_CHUNK : READ_CHUNK;
  while (pos < end) {
    if (reader.skipFrom !== undefined) {
      skipBuf ??= Buffer.allocUnsafe(SKIP_CHUNK);
      const n = fs.readSync(fd, skipBuf, 0, Math.min(SKIP_CHUNK, end - pos), pos);
      if (n === 0) break;
      const nl = skipBuf.subarray(0, n).indexOf(10);
      if (nl < 0) {
        pos += n;
        reader.scanned = pos;
        if (pos - reader.skipFrom > scanCap) {
          reader.giveUp();
          return true;
        }
        // Skipping a long line is the only unbounded work here: it can stop
        // between chunks (all its state is in the reader) and resume later.
        if (pause?.()) return false;
        continue;
      }
      reader.skipLine(reader.skipFrom, pos + nl + 1);
      pos += nl + 1;
      continue;
    }
    const want = Math.min(chunk, end - pos);
    if (!buf || held || buf.length < want) buf = Buffer.allocUnsafe(want);
    held = false;
    const n = fs.readSync(fd, buf, 0, want, pos);
    if (n === 0) break;
    pos += n;
    let data: Buffer = buf.subarray(0, n);
    if (partLen > 0) {
      const nl = data.indexOf(10);
      if (nl >= 0) {
        // The pending line is complete: feed exactly that line.
        const line = Buffer.concat([...parts, data.subarray(0, nl + 1)]);
        parts = [];
        partLen = 0;
        reader.feed(line);
        data = data.subarray(nl + 1);
      } else {
        parts.push(data);
        held = true;
        partLen += data.length;
        data = data.subarray(data.length);
      }
    }
    if (data.length > 0) {
      const used = reader.feed(data);
      if (used < data.length) {
        parts = [data.subarray(used)];
        held = true;
        partLen = data.length - used;
      }
    }
    if (partLen > MAX_LINE_BYTES) {
      // A line over the limit: skip to its end without holding it in memory.
      reader.startSkip(pos);
      parts = [];
      partLen = 0;
      held = false;
    } else if (everyChunk !== false && partLen < chunk && pos < end && pause?.()) return false;
  }
  return true;
}

/**
 * Reads `file` from offset 0 (or up to `limit` bytes) through a fresh reader,
 * chunk by chunk so memory stays bounded by the chunk and the line limit.
 * Opens without blocking and refuses anything but a regular file (NOT_A_FILE).
 */
export function readLog(file: string, retain: boolean | LogReaderOptions, limit?: number): ReadResult {
  if (isCompressedLog(file)) return readZstdLog(file, retain, limit);
  const r = startReadLog(file, retain, limit);
  while (!r.step()) {
    /* no pause: runs to the end */
  }
  return r.result();
}

/** A read in steps (startReadLog): see LoadJob in session.ts. */
export interface ReadJob {
  step(pause?: () => boolean): boolean;
  result(): ReadResult;
  close(): void;
  /** bytes read of the end, and the over-long line being skipped */
  progress(): LoadProgress;
  /** reads on up to `end` (the file grew); false when it cannot (closed, or a compressed log) */
  extend?(end: number): boolean;
  /** the events read since the last drain, no longer held by the reader (a read that streams them) */
  drain(): SessionEvent[];
  /** drain with the byte offset just after the line that held each event (the offset index) */
  drainRetained?(): { events: SessionEvent[]; ends: number[] };
}

/**
 * readLog in steps: step(pause) reads until done (true) or until pause()
 * says so (false: call step again later): while skipping an over-long line,
 * and with `everyChunk` between any two chunks (see feedFd). The file stays open until
 * done (or close()).
 */
export function startReadLog(file: string, retain: boolean | LogReaderOptions, limit?: number, everyChunk: boolean | 'read' = false): ReadJob {
  if (isCompressedLog(file)) return startReadZstdLog(file, retain, limit);
  return readJob(file, new LogReader(file, typeof retain === 'boolean' ? { retain } : retain), limit, everyChunk);
}

/** `reader` fed `file`'s bytes from where it stands up to `limit` (default: the size at open), in steps. */
function readJob(file: string, reader: LogReader, limit: number | undefined, everyChunk: boolean | 'read'): ReadJob {
  const { fd, st } = openRegular(file);
  let end = limit ?? st.size;
  let open = true;
  const close = () => {
    if (open) fs.closeSync(fd);
    open = false;
  };
  return {
    step(pause) {
      try {
        const done = feedFd(fd, reader, end, pause, MAX_LINE_SCAN, everyChunk);
        if (done) close();
        return done;
      } catch (e) {
        close();
        throw e;
      }
    },
    result: () => ({ reader, stat: { size: st.size, ino: st.ino, mtimeMs: st.mtimeMs, dev: st.dev, ctimeMs: st.ctimeMs }, pending: end - reader.consumed }),
    close,
    progress: () => reader.progress(end),
    drain: () => reader.takeEvents(),
    drainRetained: () => reader.takeRetained(),
    extend(to) {
      if (!open) return false;
      end = Math.max(end, to);
      return true;
    },
  };
}

/**
 * How a session loads its events: the file read again in steps up to what
 * the current state has consumed (its appends since then are fed by the
 * follower), every chunk a place to pause.
 */
export const logLoader: Loader = (current, file) => loadSteps(current, file, true);
/** logLoader for a session this process wrote (no seed-marker check). */
export const ownLogLoader: Loader = (current, file) => loadSteps(current, file, false);

// one function for every session (a closure per session was ~100 bytes at 100,000 sessions)
function loadSteps(current: LogState, file: string, seedCheck: boolean): LoadJob {
  const compressed = isCompressedLog(file);
  {
    const r = startReadLog(file, true, current.consumed, true);
    return {
      step: (pause) => r.step(pause),
      result() {
        const next = r.result().reader;
        // the read stops where the current state did: one that gave up on (or is still skipping) the over-long
        // line there says so again (LINE_TOO_LONG with its file and line), and goes on from there (plain logs:
        // a compressed one gives up for its decoded size too)
        if (!compressed && current instanceof LogReader && next.consumed === current.consumed && next.skipFrom === undefined && !next.gaveUp) {
          if (current.gaveUp) next.giveUp();
          else if (current.skipFrom !== undefined) next.startSkip(current.scanned);
        }
        // what only a read to the file's end finds in a compressed log (zstd-log.ts), kept by this read up to the facts' end
        if (compressed && current instanceof LogReader) keepWholeReadFindings(current, next);
        if (seedCheck) seedMarkerCheck(next);
        // the same header line, read again: keep one object (the loaded reader stays as the session's facts)
        if (current instanceof LogReader && current.header && next.header?.id === current.header.id) next.header = current.header;
        return next;
      },
      close: () => r.close(),
      progress: () => r.progress(),
      drain: () => r.drain(),
      drainRetained: r.drainRetained,
      extend: r.extend,
    };
  }
}

/** A compressed log's torn last frame (ZSTD_TORN_FRAME) and torn record (facts.zstdTornRecord), from `whole`'s read to the file's end. */
function keepWholeReadFindings(whole: LogReader, next: LogReader): void {
  if (whole.facts.zstdTornRecord) next.facts.zstdTornRecord = true;
  const torn = whole.diagnostics.find((d) => d.code === 'ZSTD_TORN_FRAME');
  if (torn && !next.diagnostics.some((d) => d.code === 'ZSTD_TORN_FRAME')) next.addDiagnostic(torn);
}

/** Turns a read into a live Session; undefined (with diagnostics) when the file is not a session. */
export function sessionFromRead(file: string, r: ReadResult): { session?: Session; diagnostics: Diagnostic[] } {
  const { reader } = r;
  if (!reader.header || reader.refused !== undefined) {
    const diagnostics = [...reader.diagnostics];
    if (diagnostics.length === 0) diagnostics.push({ file, line: 1, severity: 'error', code: 'NO_HEADER', message: r.stat.size === 0 ? 'empty file: no session header' : 'no complete header line yet' });
    return { diagnostics };
  }
  seedMarkerCheck(reader);
  reader.compact();
  return { session: new Session(reader.header, file, reader, logLoader), diagnostics: reader.diagnostics };
}

/**
 * v2+ seed rules (session-format-v1-to-v2 .. v3-to-v4): a seeded log must mark
 * its cut with an inherited session/end-seed, and an unseeded one must not
 * carry one. The harness refuses either; we show the log and say why.
 */
export function seedMarkerCheck(reader: LogReader): void {
  const f = reader.facts;
  if (reader.diagnostics.some((d) => d.code === 'SEED_MARKER')) return;
  const v = reader.header?.version;
  if (f.seedMarker === 'seeded' && f.seedFrom === undefined && f.events > 0)
    reader.addDiagnostic({ file: reader.file, line: 1, severity: 'error', code: 'SEED_MARKER', message: `format v${v} header says isSeeded, but no session/end-seed {"inherited":true} marks the inherited prefix: the harness refuses this log` });
  else if (f.strayInheritedMarker !== undefined)
    reader.addDiagnostic({ file: reader.file, line: 1, severity: 'error', code: 'SEED_MARKER', message: `seq ${f.strayInheritedMarker} is an inherited session/end-seed in a log whose header says isSeeded false: the harness refuses this log` });
}

/**
 * The reader of a catalog session, built when first needed: its snapshot
 * from the catalog (`restored`: undefined when it does not read back, the
 * catalog damaged since it was loaded), checked as a read's is
 * (sessionFromRead); else a read of the log itself.
 */
export function thawReader(file: string, restored: LogReader | undefined): LogReader {
  let reader = restored;
  if (reader === undefined) {
    reader = readLog(file, false).reader;
    if (!reader.header) throw new Error(`${file}: its catalog entry is damaged and the log has no header now`);
  }
  seedMarkerCheck(reader);
  reader.compact();
  return reader;
}

export function openSessionFile(file: string, retain = false): { session?: Session; diagnostics: Diagnostic[]; read: ReadResult } {
  const read = readLog(file, retain);
  return { ...sessionFromRead(file, read), read };
}

/**
 * A read of bytes [from, to) of a log read once before, in steps of a
 * chunk (everyChunk): `from` is a line start where the last event read had
 * seq `nextSeq - 1` (LogReader.at). The offset index builds from it and reads
 * a turn again by its byte range. A compressed log's offsets are in its text,
 * decoded from the last frame noted before `from` (zstd-seek.ts).
 */
export function startRangeRead(file: string, header: SessionHeader, from: number, to: number, nextSeq: number): ReadJob {
  if (isCompressedLog(file)) return startZstdRangeRead(file, LogReader.at(file, header, from, nextSeq), from, to);
  return readJob(file, LogReader.at(file, header, from, nextSeq), to, true);
}

/** The events of bytes [from, to) of a log read once before, at once (see startRangeRead). */
export function readRange(file: string, header: SessionHeader, from: number, to: number, nextSeq: number): SessionEvent[] {
  const job = startRangeRead(file, header, from, to, nextSeq);
  try {
    while (!job.step()) {
      /* no pause */
    }
    return job.drain();
  } finally {
    job.close();
  }
}
