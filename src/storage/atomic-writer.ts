// Writes a new session file the way the harness does: temp file, fsync,
// hard-link to the final name (fails if it exists), fsync the folder, remove
// the temp. A crash at any point leaves either no file or the complete file
// under the final name; existing files are never opened for writing.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SessionForkError } from '../session/errors.js';
import { errorText, openRegular } from './open-file.js';
import { encodeFrame } from './zstd-encode.js';

export interface ByteRange {
  file: string;
  start: number;
  end: number;
}

export interface NewFileBody {
  /** the header line, without newline */
  header: string;
  /** copy these bytes of an existing file verbatim (the seed as the parent wrote it) */
  copy?: ByteRange;
  /**
   * the seed's text handed to `sink` a piece at a time (a compressed parent's, as it is decoded);
   * into a compressed file, whole frames of the parent may come to `frame` instead (zstdSeed)
   */
  copyText?: (sink: (text: Uint8Array) => void, frame?: (bytes: Uint8Array, textLength: number) => void) => void;
  /** then these lines (without newlines), written as they come (a damaged seed is re-serialised event by event) */
  lines?: Iterable<string>;
  /** write rc.8's compressed encoding: a frame with the header line, then frames of whole lines (FRAME_TEXT each) */
  zstd?: boolean;
}

/** Session files hold prompts and tool output: only their owner reads them (as the harness writes them). */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export const TEMP_SUFFIX = '.tmp';
const COPY_CHUNK = 4 * 1024 * 1024;
/** The text of one frame of a compressed child (more when one line is longer): as an append batch, whole lines. */
const FRAME_TEXT = 1024 * 1024;

// The final name is cut to 150 characters here: a name near the 255-byte limit stays writable.
export const tempPathFor = (file: string): string =>
  path.join(path.dirname(file), `.${path.basename(file).slice(0, 150)}.${process.pid}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);

/** How the temp file is opened: a new file only (O_EXCL), never through a symlink (O_NOFOLLOW). */
export const TEMP_OPEN_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;

/** Names made by tempPathFor: `.<name>.<pid>.<12 hex>.tmp`. */
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;
/** A temp file older than this is a leftover of a killed writer (a live write takes seconds). */
export const STALE_TEMP_MS = 60 * 60 * 1000;
/**
 * A temp file whose writer (the pid in its name) is no longer running on this
 * machine is removed once it is this old: a live writer keeps its temp's
 * mtime fresh while it writes, so this also spares a writer on another
 * machine sharing the folder (whose pid means nothing here).
 */
export const DEAD_WRITER_TEMP_MS = 30 * 1000;

/** Is process `pid` running here? (EPERM: it exists, owned by someone else.) */
function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return true;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes leftover temp files (a writer killed between creating its temp and
 * removing it) from `dir`: those older than `maxAgeMs`, and those whose writer
 * pid is gone and that are older than DEAD_WRITER_TEMP_MS. Only regular files
 * with our temp name pattern are touched, never symlinks or anything else;
 * errors are ignored (cleanup must never fail a write). Returns the names removed.
 */
export function cleanupStaleTemps(dir: string, maxAgeMs = STALE_TEMP_MS, now = Date.now()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const p = path.join(dir, name);
    try {
      const st = fs.lstatSync(p);
      if (!st.isFile()) continue;
      const age = now - st.mtimeMs;
      const stale = age > maxAgeMs || (age > Math.min(DEAD_WRITER_TEMP_MS, maxAgeMs) && !pidAlive(Number(m[1])));
      if (!stale) continue;
      fs.unlinkSync(p);
      removed.push(name);
    } catch {
      /* gone or not ours to remove */
    }
  }
  return removed;
}

function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
}

/** The bytes of `range` handed to `sink` COPY_CHUNK at a time (one buffer, reused: the sink uses each piece at once). */
function copyRange(range: ByteRange, sink: (bytes: Buffer) => void): void {
  const src = openRegular(range.file).fd; // never blocks on a FIFO swapped in
  try {
    const buf = Buffer.allocUnsafe(Math.min(COPY_CHUNK, Math.max(1, range.end - range.start)));
    let pos = range.start;
    while (pos < range.end) {
      const n = fs.readSync(src, buf, 0, Math.min(buf.length, range.end - pos), pos);
      if (n === 0) throw Object.assign(new Error(`${range.file} is shorter than expected (${pos} < ${range.end})`), { code: 'ESHORT' });
      sink(buf.subarray(0, n));
      pos += n;
    }
  } finally {
    fs.closeSync(src);
  }
}

/**
 * Writes text as compressed frames of whole lines (zstd-encode.ts), about
 * FRAME_TEXT each, as it comes: rc.8 writes a frame per append batch, each
 * whole lines; a child of any size is written holding about one frame's text.
 */
class FrameWriter {
  private parts: Buffer[] = [];
  private held = 0;
  /** bytes of text written in frames */
  written = 0;
  /** the held text has a newline (what is left after a frame has none: a line longer than a frame is held to its end) */
  private newline = false;

  constructor(private readonly fd: number) {}

  push(text: Uint8Array): void {
    if (text.length === 0) return;
    this.parts.push(Buffer.from(text)); // a copy: the piece's buffer is reused by its reader
    this.held += text.length;
    this.newline ||= text.includes(10);
    if (this.held >= FRAME_TEXT && this.newline) this.flush(false);
  }

  /** Writes a frame of the parent's as it is, after the text held before it. */
  copy(bytes: Uint8Array, textLength: number): void {
    this.flush(true);
    writeAll(this.fd, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    this.written += textLength;
  }

  /** Writes the held text up to its last newline (all of it at the end). */
  flush(end: boolean): void {
    if (this.held === 0) return;
    const text = Buffer.concat(this.parts);
    const cut = end ? text.length : text.lastIndexOf(10) + 1;
    writeAll(this.fd, encodeFrame(text.subarray(0, cut)));
    this.written += cut;
    this.parts = cut < text.length ? [text.subarray(cut)] : [];
    this.held = text.length - cut;
    this.newline = false;
  }
}

/** The lines as text with a newline after each, in pieces of ~1 MB. */
function* lineText(lines: Iterable<string>): Generator<string> {
  let parts: string[] = [];
  let size = 0;
  for (const l of lines) {
    parts.push(l, '\n');
    size += l.length + 1;
    if (size >= COPY_CHUNK) {
      yield parts.join('');
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) yield parts.join('');
}

/** Writes the body; returns the length of its text (a compressed body's decoded length: nothing has to decode it again). */
function writeBody(fd: number, body: NewFileBody): number {
  if (body.zstd) {
    const head = Buffer.from(body.header + '\n', 'utf8');
    writeAll(fd, encodeFrame(head));
    const frames = new FrameWriter(fd);
    const put = (t: Uint8Array) => frames.push(t);
    if (body.copyText) body.copyText(put, (bytes, textLength) => frames.copy(bytes, textLength));
    else if (body.copy) copyRange(body.copy, put);
    if (body.lines) for (const text of lineText(body.lines)) put(Buffer.from(text, 'utf8'));
    frames.flush(true);
    return head.length + frames.written;
  }
  const head = Buffer.from(body.header + '\n', 'utf8');
  writeAll(fd, head);
  let written = head.length;
  const put = (t: Uint8Array) => {
    writeAll(fd, Buffer.from(t.buffer, t.byteOffset, t.byteLength));
    written += t.length;
  };
  if (body.copyText) body.copyText(put);
  else if (body.copy) copyRange(body.copy, put);
  if (body.lines) for (const text of lineText(body.lines)) put(Buffer.from(text, 'utf8'));
  return written;
}

/**
 * Creates the missing folders of `dir` one level at a time (mode 0700) and
 * fsyncs the folder that received each new one, so a new rc.8 session folder
 * (and a new project folder) survives a crash. Returns the folders created,
 * deepest last.
 */
function makeDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      fs.lstatSync(d);
      break;
    } catch {
      missing.push(d);
      if (path.dirname(d) === d) break;
    }
  }
  const created: string[] = [];
  for (const d of missing.reverse()) {
    fs.mkdirSync(d, { mode: DIR_MODE });
    created.push(d);
    fsyncDir(path.dirname(d));
  }
  return created;
}

function fsyncDir(dir: string): void {
  // O_DIRECTORY | O_NONBLOCK: a FIFO swapped in for the folder fails, never blocks
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NONBLOCK);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

const errText = errorText;

/**
 * Creates `file` atomically with `body`. Throws SessionForkError
 * SESSION_ALREADY_EXISTS when the name is taken, WRITE_FAILED on any I/O error
 * (nothing is left behind in either case).
 */
/** Returns the length of the text written (decoded, for a compressed file). */
export function writeNewSessionFile(dir: string, file: string, id: string, body: NewFileBody): number {
  let created: string[] = [];
  let tmp: string | undefined;
  try {
    let dirStat: fs.Stats | undefined;
    try {
      dirStat = fs.lstatSync(dir);
    } catch {
      /* missing: created below */
    }
    if (!dirStat) {
      created = makeDirs(dir);
    } else if (dirStat.isSymbolicLink() && /^session\.jsonl(\.zstd)?$/.test(path.basename(file))) {
      // rc8 layout: the session's own folder. A symlink planted at its name
      // would redirect the write outside the root: the name is taken, refuse.
      // (A folder shared with the parent, flat/v0 layouts, may be reached
      // through a symlinked root the user chose.)
      throw new SessionForkError('SESSION_ALREADY_EXISTS', `session "${id}" already exists`, { file });
    } else cleanupStaleTemps(dir);
    tmp = tempPathFor(file);
    let written = 0;
    const fd = fs.openSync(tmp, TEMP_OPEN_FLAGS, FILE_MODE);
    try {
      written = writeBody(fd, body);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new SessionForkError('SESSION_ALREADY_EXISTS', `session "${id}" already exists`, { file });
      throw e;
    }
    fsyncDir(dir);
    return written;
  } catch (e) {
    if (tmp !== undefined) tryUnlink(tmp);
    for (const d of created.reverse()) tryRemoveDir(d);
    if (e instanceof SessionForkError) throw e;
    throw new SessionForkError('WRITE_FAILED', `could not write session "${id}" to ${file}: ${errText(e)}`, { file });
  } finally {
    if (tmp !== undefined) tryUnlink(tmp);
  }
}

function tryUnlink(p: string): void {
  try {
    fs.unlinkSync(p);
  } catch {
    /* already gone */
  }
}

function tryRemoveDir(p: string): void {
  try {
    fs.rmdirSync(p);
  } catch {
    /* not empty or gone: leave it */
  }
}
