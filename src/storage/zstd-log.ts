// Reading a compressed session log (session.jsonl.zstd) through the same
// LogReader as a plain one, as a stream: the decoded text is fed line by line
// with the plain reader's bounds (a line over MAX_LINE_BYTES is skipped in
// steps without being held, one with no end past MAX_LINE_SCAN gives the file
// up), and no more than MAX_TEXT of text is decoded at all (ZSTD_TOO_LARGE).
// Offsets (eventEnds, consumed) are offsets in the decoded text, so the loader
// of a compressed session re-decodes the file and stops there.
import fs from 'node:fs';
import { LogReader, MAX_LINE_BYTES, MAX_LINE_SCAN, type LogReaderOptions } from './log-reader.js';
import { openRegular } from './open-file.js';
import type { ReadJob, ReadResult } from './session-file.js';
import { fdSource, initDecoder, wasmDecoderReady } from './zstd-frames.js';
import { ZstdTextStream } from './zstd-stream.js';
import { frameMapOf } from './zstd-seek.js';

export const isCompressedLog = (file: string): boolean => file.endsWith('.zstd');

/** The most text a compressed log is decoded to: the plain reader's bound on one line, for the whole file. */
export const MAX_TEXT = MAX_LINE_SCAN;

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
 * as it goes. `fresh`: a read from the start, which notes the map again.
 */
function seekStream(file: string, from: number, sink: (t: Uint8Array) => boolean, fresh = false): { fd: number; st: fs.Stats; stream: ZstdTextStream; base: number } {
  const { fd, st, src } = openSource(file);
  const map = frameMapOf(file, st, fresh);
  const place = map.before(from);
  let pos = place.text;
  const stream = new ZstdTextStream(
    src,
    (t) => {
      const at = pos;
      pos += t.length;
      if (pos <= from) return true;
      return sink(at < from ? t.subarray(from - at) : t);
    },
    { from: place.at, onFrame: (start, decoded) => map.note(start, place.text + decoded) },
  );
  return { fd, st, stream, base: place.text };
}

/**
 * readZstdLog in steps: step(pause) decodes until done (true) or until
 * pause() asks to stop between two pieces of text (false: call again).
 */
export function startReadZstdLog(
  file: string,
  retain: boolean | LogReaderOptions,
  limit?: number,
  { maxText = MAX_TEXT }: { maxText?: number } = {},
): ReadJob {
  return zstdJob(file, new LogReader(file, typeof retain === 'boolean' ? { retain } : retain), 0, Math.min(limit ?? Infinity, maxText), limit === undefined, maxText);
}

/**
 * Text [from, to) of a compressed log read once before, through `reader`
 * (LogReader.at from): the offset index builds from it and reads a turn, or
 * the tail, again (session-file.ts startRangeRead).
 */
export function startZstdRangeRead(file: string, reader: LogReader, from: number, to: number): ReadJob {
  return zstdJob(file, reader, from, to, false, MAX_TEXT);
}

/** `reader` fed the text [from, end) of `file`; `whole`: to the end of the text, so a cut at `end` is ZSTD_TOO_LARGE. */
function zstdJob(file: string, reader: LogReader, from: number, end: number, whole: boolean, maxText: number): ReadJob {
  const feed = new LineFeed(reader, from, end);
  const { fd, st, stream } = seekStream(file, from, (t) => feed.push(t), from === 0);
  let open = true;
  const close = () => {
    stream.close();
    if (open) fs.closeSync(fd);
    open = false;
  };
  const finish = () => {
    close();
    const here = `compressed byte ${stream.position}`;
    if (stream.error !== undefined) {
      reader.addDiagnostic({ file, severity: 'error', code: 'ZSTD_CORRUPT', message: `${stream.error}: the records before it are shown` });
      if (reader.firstAnomaly > reader.consumed) reader.firstAnomaly = reader.consumed;
      if (reader.lines === 0 && reader.refused === undefined) reader.refused = stream.error;
    } else if (feed.cut && whole && !reader.gaveUp) {
      if (reader.skipFrom !== undefined) reader.giveUp();
      else {
        reader.gaveUp = true;
        reader.addDiagnostic({ file, severity: 'error', code: 'ZSTD_TOO_LARGE', message: `decodes to more than ${maxText} bytes: the rest is not read (stopped at decoded byte ${feed.at}, ${here})` });
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

export function readZstdLog(file: string, retain: boolean | LogReaderOptions, limit?: number, opts?: { maxText?: number }): ReadResult {
  const r = startReadZstdLog(file, retain, limit, opts);
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

/** The decoded text [start, end) of a compressed log (a fork's verbatim seed; end Infinity: to the end, tests, at most MAX_TEXT); throws when the file no longer holds it. */
export function readZstdRange(file: string, start: number, end: number): Buffer {
  const out: Buffer[] = [];
  const want = Math.min(end, MAX_TEXT) - start;
  let got = 0;
  seekRun(file, start, (t) => {
    const take = Math.min(t.length, want - got);
    if (take > 0) out.push(Buffer.from(t.subarray(0, take)));
    got += take;
    return got < want;
  });
  const text = Buffer.concat(out);
  if (text.length !== end - start && end !== Infinity) throw new Error(`${file}: the compressed log no longer holds decoded bytes ${start}-${end}`);
  return text;
}

/** The decoded text length of a compressed log (a live child's consumed bytes), up to MAX_TEXT: decoded from the last frame noted. */
export function zstdTextLength(file: string): number {
  const { stream, base } = seekRun(file, MAX_TEXT, () => false);
  return Math.min(base + stream.decoded, MAX_TEXT);
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
