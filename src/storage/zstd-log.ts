// Reading a compressed session log (session.jsonl.zstd) through the same
// LogReader as a plain one, as a stream: the decoded text is fed line by line
// with the plain reader's bounds (a line over MAX_LINE_BYTES is skipped in
// steps without being held, one with no end past MAX_LINE_SCAN gives the file
// up), and no more text is decoded than textBound allows (ZSTD_TOO_LARGE).
// Offsets (eventEnds, consumed) are offsets in the decoded text, so the loader
// of a compressed session re-decodes the file and stops there.
import fs from 'node:fs';
import { LogReader, MAX_LINE_BYTES, MAX_LINE_SCAN, type LogReaderOptions } from './log-reader.js';
import { openRegular } from './open-file.js';
import type { ReadJob, ReadResult } from './session-file.js';
import { fdSource, frameAt, HeaderReader, initDecoder, wasmDecoderReady } from './zstd-frames.js';
import { ZstdTextStream } from './zstd-stream.js';
import { frameMapOf, type FrameMap } from './zstd-seek.js';

export const isCompressedLog = (file: string): boolean => file.endsWith('.zstd');

/** Text any compressed log may decode to, however small on disk: the plain reader's bound on one line. */
export const MAX_TEXT = MAX_LINE_SCAN;
let textFloor = MAX_TEXT;
/** Sets the floor of textBound (tests: a log past it without a gigabyte of text). */
export const setTextFloor = (bytes: number): void => {
  textFloor = bytes;
};
/**
 * How many times its size on disk a compressed log's text may be. Session
 * logs compress 4-10 times (a generated 1 GB log: 5.7), a bomb thousands of
 * times (153 KB can decode to 5 GB): a 10 GB log needs 160 MB on disk.
 */
export const MAX_RATIO = 64;

/** The most text a compressed log of `compressed` bytes is decoded to: MAX_RATIO times that, and at least MAX_TEXT. */
export const textBound = (compressed: number): number => Math.max(textFloor, compressed * MAX_RATIO);

/** Feeds a LogReader decoded text piece by piece, holding at most one unfinished line under MAX_LINE_BYTES. */
class LineFeed {
  /** decoded offset of the next byte */
  at: number;
  /** the text ran past `end` (a limit, or MAX_TEXT) */
  cut = false;
  private parts: Buffer[] = [];
  private partLen = 0;

  constructor(
    private readonly reader: LogReader,
    from: number,
    private readonly end: number,
  ) {
    this.at = from;
  }

  /** the text fed so far ends inside a line */
  get midLine(): boolean {
    return this.partLen > 0 || this.reader.skipFrom !== undefined;
  }

  push(text: Uint8Array): boolean {
    const r = this.reader;
    let c = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
    if (c.length > this.end - this.at) {
      c = c.subarray(0, this.end - this.at);
      this.cut = true;
    }
    const base = this.at;
    this.at += c.length;
    let i = 0;
    while (i < c.length) {
      if (r.skipFrom !== undefined) {
        const nl = c.indexOf(10, i);
        if (nl < 0) {
          r.scanned = this.at;
          if (this.at - r.skipFrom > MAX_LINE_SCAN) {
            r.giveUp();
            return false;
          }
          break;
        }
        r.skipLine(r.skipFrom, base + nl + 1);
        i = nl + 1;
        continue;
      }
      if (this.partLen > 0) {
        const nl = c.indexOf(10, i);
        if (nl < 0) {
          this.hold(c.subarray(i));
          break;
        }
        r.feed(Buffer.concat([...this.parts, c.subarray(i, nl + 1)]));
        this.parts = [];
        this.partLen = 0;
        i = nl + 1;
        continue;
      }
      i += r.feed(c.subarray(i));
      if (i < c.length) this.hold(c.subarray(i));
      break;
    }
    // a log that is not a session (a foreign or broken header) is not decoded further
    return !this.cut && r.refused === undefined;
  }

  /** Keeps the start of an unfinished line; past MAX_LINE_BYTES it is skipped to its end instead. */
  private hold(piece: Buffer): void {
    this.parts.push(piece);
    this.partLen += piece.length;
    if (this.partLen > MAX_LINE_BYTES) {
      this.reader.startSkip(this.at);
      this.parts = [];
      this.partLen = 0;
    }
  }
}

function openSource(file: string): { fd: number; st: fs.Stats; src: ReturnType<typeof fdSource> } {
  // The first compressed log loads the WebAssembly decoder for the ones after it
  // (a root without any never loads it); until then fzstd decodes.
  if (!wasmDecoderReady()) void initDecoder();
  const { fd, st } = openRegular(file); // never blocks on a FIFO; refuses anything but a regular file
  return { fd, st, src: fdSource(fd, st.size) };
}

/**
 * The text of `file` from offset `from` on, handed to `sink` (false stops
 * it) a piece at a time: decoding starts at the last frame noted before
 * `from` (zstd-seek.ts) and passes over the text before it, noting frames
 * as it goes. `fresh`: the file may be another (a log read on load, or read
 * again by the follower): its map is noted again from nothing.
 */
function seekStream(file: string, from: number, sink: (t: Uint8Array) => boolean, fresh = false, start?: { at: number; text: number }, onTorn?: () => void): { fd: number; st: fs.Stats; stream: ZstdTextStream; base: number; map: FrameMap } {
  const { fd, st, src } = openSource(file);
  const map = frameMapOf(file, st, fresh);
  const place = start ?? map.before(from);
  let pos = place.text;
  const stream = new ZstdTextStream(
    src,
    (t) => {
      const at = pos;
      pos += t.length;
      if (pos <= from) return true;
      return sink(at < from ? t.subarray(from - at) : t);
    },
    { from: place.at, onFrame: (start, decoded) => map.note(start, place.text + decoded), onTorn },
  );
  return { fd, st, stream, base: place.text, map };
}

/**
 * readZstdLog in steps: step(pause) decodes until done (true) or until
 * pause() asks to stop between two pieces of text (false: call again).
 * A read of a log known before (its events loaded, exported, searched)
 * keeps its frame map, so the turns read meanwhile still start near them;
 * `fresh` (readZstdLog: a log's facts, on load or read again) notes it anew.
 */
export function startReadZstdLog(
  file: string,
  retain: boolean | LogReaderOptions,
  limit?: number,
  { maxText, fresh = false }: { maxText?: number; fresh?: boolean } = {},
): ReadJob {
  return zstdJob(file, new LogReader(file, typeof retain === 'boolean' ? { retain } : retain), 0, limit, { maxText, fresh });
}

/**
 * Text [from, to) of a compressed log read once before, through `reader`
 * (LogReader.at from): the offset index builds from it and reads a turn, or
 * the tail, again (session-file.ts startRangeRead).
 */
export function startZstdRangeRead(file: string, reader: LogReader, from: number, to: number): ReadJob {
  return zstdJob(file, reader, from, to, {});
}

/**
 * `reader` fed the text [from, limit) of `file`; no limit: to the end of
 * the text, where a cut at `maxText` (default: textBound of the file's
 * size) is ZSTD_TOO_LARGE.
 */
function zstdJob(file: string, reader: LogReader, from: number, limit: number | undefined, { maxText, fresh = false, start }: { maxText?: number; fresh?: boolean; start?: { at: number; text: number } }): ReadJob {
  // (the sink runs only in step(), once the feed is made from the size of the file as opened)
  let feed!: LineFeed;
  // the complete frames' text ends inside a line (rc.8: "complete frame contains a torn JSONL record")
  let tornMidLine = false;
  const { fd, st, stream, base, map } = seekStream(file, from, (t) => feed.push(t), fresh, start, () => (tornMidLine = feed.midLine));
  const bound = maxText ?? textBound(st.size);
  const whole = limit === undefined;
  const end = Math.min(limit ?? Infinity, bound);
  feed = new LineFeed(reader, from, end);
  let open = true;
  const close = () => {
    stream.close();
    if (open) fs.closeSync(fd);
    open = false;
  };
  const finish = () => {
    close();
    // read to the file's end, its last frame complete: an append is decoded from here (feedAppendedZstd)
    if (stream.error === undefined && !stream.stopped && stream.tornBytes === 0) map.ended(st.size, base + stream.decoded);
    const here = `compressed byte ${stream.position}`;
    if (stream.error !== undefined) {
      reader.addDiagnostic({ file, severity: 'error', code: 'ZSTD_CORRUPT', message: `${stream.error}: the records before it are shown` });
      if (reader.firstAnomaly > reader.consumed) reader.firstAnomaly = reader.consumed;
      if (reader.lines === 0 && reader.refused === undefined) reader.refused = stream.error;
    } else if (whole && !stream.stopped && !feed.cut) {
      // rc.8 refuses a log whose complete frames hold a damaged row or end inside a line (readZstdPrefix)
      const completeEnd = stream.torn ? base + stream.torn.text : feed.at;
      if (!reader.gaveUp && (reader.firstAnomaly < completeEnd || (stream.torn ? tornMidLine : feed.midLine))) reader.facts.zstdTornRecord = true;
      // rc.8 reads a torn last frame as libzstd streams it (a raw block's bytes as they come, a
      // compressed block once whole) and keeps its complete records; on resume it truncates the
      // file at the frame's start and writes them again (index.ts readZstdPrefix, commitRepair)
      const t = stream.torn;
      if (t) reader.addDiagnostic({ file, severity: 'warning', code: 'ZSTD_TORN_FRAME', message: `the last zstd frame is torn (an append in progress, or a crash): it starts at compressed byte ${t.at} and the file ends ${stream.tornBytes} bytes later; the records complete in it are shown (its text from decoded byte ${base + t.text}), as the harness keeps them, and resuming truncates the file at byte ${t.at} and writes them again` });
    } else if (feed.cut && whole && !reader.gaveUp) {
      if (reader.skipFrom !== undefined) reader.giveUp();
      else {
        reader.gaveUp = true;
        reader.addDiagnostic({ file, severity: 'error', code: 'ZSTD_TOO_LARGE', message: `decodes to more than ${bound} bytes: the rest is not read (stopped at decoded byte ${feed.at}, ${here}). A compressed log is read to ${MAX_RATIO} times its size on disk, and at least ${textFloor} bytes` });
        if (reader.firstAnomaly > reader.consumed) reader.firstAnomaly = reader.consumed;
      }
    }
  };
  return {
    step(pause) {
      try {
        if (!stream.step(pause)) return false;
        finish();
        return true;
      } catch (e) {
        close();
        throw e;
      }
    },
    result: () => ({ reader, stat: { size: st.size, ino: st.ino, mtimeMs: st.mtimeMs, dev: st.dev, ctimeMs: st.ctimeMs }, pending: reader.gaveUp ? 0 : feed.at - reader.consumed }),
    close,
    // offsets in the decoded text, whose end is known only at the end
    progress: () => reader.progress(whole ? Math.max(feed.at, reader.consumed) : end),
    drain: () => reader.takeEvents(),
    drainRetained: () => reader.takeRetained(),
  };
}

/**
 * Feeds `reader` (a compressed log's, read to the file's end before) the
 * frames appended since, decoded from where that read ended: a result like
 * feedAppended's (the text consumed, stat and pending), or undefined when the
 * reader does not stand there (that read ended in a torn frame, which the
 * harness writes again; the file is another; the reader gave up or skips
 * a line): the log is then read again whole.
 */
export function feedAppendedZstd(file: string, reader: LogReader): { consumed: number; result: ReadResult } | undefined {
  const st = fs.statSync(file);
  const end = frameMapOf(file, st).end;
  if (!end || end.text !== reader.consumed || reader.skipFrom !== undefined || reader.gaveUp || st.size < end.at) return undefined;
  const before = reader.consumed;
  const job = zstdJob(file, reader, end.text, undefined, { start: end });
  while (!job.step()) {
    /* no pause: the frames of an append */
  }
  return { consumed: reader.consumed - before, result: job.result() };
}

/** A compressed log's facts (or events), read whole at once: on load, or read again by the follower (its frame map noted anew). */
export function readZstdLog(file: string, retain: boolean | LogReaderOptions, limit?: number, opts?: { maxText?: number }): ReadResult {
  const r = startReadZstdLog(file, retain, limit, { ...opts, fresh: true });
  while (!r.step()) {
    /* no pause: runs to the end */
  }
  return r.result();
}

/** Runs a seekStream to its end (or until the sink stops it); the fd is closed after. */
function seekRun(file: string, from: number, sink: (t: Uint8Array) => boolean): { stream: ZstdTextStream; base: number } {
  const s = seekStream(file, from, sink);
  try {
    s.stream.step();
    return { stream: s.stream, base: s.base };
  } finally {
    fs.closeSync(s.fd);
  }
}

/**
 * The text [start, end) of a compressed log handed to `sink` a piece at a
 * time (a fork's verbatim seed, written as it is decoded); throws when the
 * file no longer holds it. Decodes from the last frame noted before `start`.
 */
export function zstdText(file: string, start: number, end: number, sink: (text: Uint8Array) => void): void {
  let got = start;
  seekRun(file, start, (t) => {
    const take = Math.min(t.length, end - got);
    if (take > 0) sink(t.subarray(0, take));
    got += take;
    return got < end;
  });
  if (got < end) throw new Error(`${file}: the compressed log no longer holds decoded bytes ${start}-${end}`);
}

/**
 * The text [start, end) of a compressed log for a fork's seed, as the
 * parent's own frames where it can: a frame whose text lies wholly inside
 * the range, whose header declares its size (rc.8's do) and that is smaller
 * than its text (compressed, not stored) is handed to `frame` as its bytes,
 * neither decoded nor encoded again (the plain fork copies bytes too); the
 * rest goes to `text` as zstdText decodes it. Text offsets are counted from
 * the declared sizes, so past the first frame without one it is all text.
 */
export function zstdSeed(file: string, start: number, end: number, text: (t: Uint8Array) => void, frame: (bytes: Uint8Array, textLength: number) => void): void {
  const { fd, st, src } = openSource(file);
  let at = start; // text handed on so far
  try {
    const heads = new HeaderReader(src);
    for (let pos = 0, t = 0; pos < st.size && t < end; ) {
      const f = frameAt(heads, pos);
      if (f.kind === 'skippable') {
        pos = f.end;
        continue;
      }
      if (f.kind !== 'frame' || f.size === undefined) break;
      if (t >= at && t + f.size <= end && f.size > 0 && f.end - f.start < f.size) {
        if (t > at) zstdText(file, at, t, text);
        frame(src.read(f.start, f.end - f.start), f.size);
        at = t + f.size;
      }
      t += f.size;
      pos = f.end;
    }
  } finally {
    fs.closeSync(fd);
  }
  if (at < end) zstdText(file, at, end, text);
}

/** The whole text of a small compressed log (tests), at most MAX_TEXT. */
export function readZstdText(file: string): Buffer {
  const out: Buffer[] = [];
  let n = 0;
  seekRun(file, 0, (t) => {
    out.push(Buffer.from(t));
    return (n += t.length) < MAX_TEXT;
  });
  return Buffer.concat(out);
}


/** The text offset just after the first newline in [at - 1, end) of a compressed log (the start of the first whole line from `at`), or -1. */
export function zstdLineStartAfter(file: string, at: number, end: number): number {
  let pos = at - 1;
  let found = -1;
  seekRun(file, pos, (t) => {
    const nl = t.indexOf(10);
    if (nl >= 0 && pos + nl < end) found = pos + nl + 1;
    pos += t.length;
    return found < 0 && pos < end;
  });
  return found;
}
