// A cache file (the fact catalog, the findings cache) written as a stream,
// a slice at a time, so the whole file never sits in memory at once (at
// 100,000 sessions a file of lines made whole was 30-45 MB of old-generation
// garbage per write).
//
// Atomic: a temp file in the same folder (0600, O_EXCL), fsync, rename, the
// folder fsync'ed; the folder made 0700 (and tightened when looser). The head
// (which holds counts known only at the end) is written first as a
// placeholder of the same byte length that reads as no head, then
// overwritten in place before the fsync. A write that fails or is given up
// leaves no temp file; the old file stays whole until the rename.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface LineSource {
  /** the head line's placeholder (no JSON: a file left with it is damaged); the head must have the same byte length */
  headRoom: string;
  /** the lines after the head, each without its '\n' */
  lines: Iterator<string>;
  /** the head line, once every line was taken; undefined: nothing to write (the temp file is dropped) */
  head(): string | undefined;
}

/** Width of the entry count in a head line (padded with spaces: JSON allows them). */
const COUNT_WIDTH = 15;

/**
 * A head line: `fields` as JSON with `"entries":<count>` last, the count in a
 * fixed width. Without a count: the placeholder (`"entries":` and spaces: not JSON).
 */
export function headLine(fields: Record<string, unknown>, entries?: number): string {
  const json = JSON.stringify(fields);
  const count = entries === undefined ? ' '.repeat(COUNT_WIDTH) : String(entries).padStart(COUNT_WIDTH);
  return `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"entries":${count}}`;
}

/** Test hook: called before each write to the temp file of `file`, with its number (0: the head's placeholder, last: the head); may throw. */
export const writeHooks: { beforeWrite?: (slice: number, file: string) => void } = {};

function tempBeside(dir: string, file: string): string {
  return path.join(dir, `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
}

function prepareDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const st = fs.statSync(dir);
    if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) fs.chmodSync(dir, 0o700);
  } catch {
    // best effort
  }
}

/** The next slice of lines, joined with their '\n's; stops when `full()` says so (asked every 64 lines). Empty: no more lines. */
function nextSlice(lines: Iterator<string>, full: () => boolean): string {
  let text = '';
  let n = 0;
  for (;;) {
    const next = lines.next();
    if (next.done) return text;
    text += next.value + '\n';
    if ((++n & 63) === 0 && full()) return text;
  }
}

function checkHead(room: string, head: string): Buffer {
  const buf = Buffer.from(head + '\n', 'utf8');
  if (buf.length !== Buffer.byteLength(room + '\n', 'utf8')) throw new Error('head line of another length than its room');
  return buf;
}

/**
 * A file written as a stream of chunks: the head (whose content is known only
 * at the end) first as a placeholder of the same byte length, then the body,
 * then the head over its placeholder.
 */
export interface ChunkSource {
  /** the head's placeholder (unreadable as a head: a file left with it is damaged) */
  headRoom: Buffer;
  /** the next bytes of the body, made until `full()` says stop; empty when the body is done */
  next(full: () => boolean): Buffer;
  /** the head, once the body is done; undefined: nothing to write (the temp file is dropped) */
  head(): Buffer | undefined;
}

/** A LineSource as chunks: its lines joined with their '\n's. */
function linesAsChunks(src: LineSource): ChunkSource {
  return {
    headRoom: Buffer.from(src.headRoom + '\n', 'utf8'),
    next: (full) => Buffer.from(nextSlice(src.lines, full), 'utf8'),
    head: () => {
      const head = src.head();
      return head === undefined ? undefined : checkHead(src.headRoom, head);
    },
  };
}

/**
 * Writes the source's lines to `file` through a temp file in `dir` (slices of
 * `sliceLines` lines). Returns false when the source had nothing to write.
 * Throws when the write fails (no temp file left).
 */
export function writeLinesAtomic(dir: string, file: string, src: LineSource, sliceLines = 2048): boolean {
  return writeChunksAtomic(dir, file, linesAsChunks(src), slicesOf(sliceLines));
}

/**
 * Writes `parts` (a head, then the body) to `file` through a temp file in
 * `dir`: the head goes in last, over a placeholder of spaces, so a file cut
 * short has no head a reader takes. Throws when the write fails (no temp
 * file left).
 */
export function writeBuffersAtomic(dir: string, file: string, [head, ...parts]: readonly Buffer[]): boolean {
  const room = Buffer.alloc(head.length, ' ');
  room[room.length - 1] = 10;
  // (an empty chunk ends a source's body)
  const body = parts.filter((b) => b.length > 0);
  let i = 0;
  return writeChunksAtomic(dir, file, { headRoom: room, next: () => body[i++] ?? Buffer.alloc(0), head: () => head }, () => true);
}

/** A synchronous writer's `full()`: true once in `items` lines or entries (its sources ask every 64). */
export function slicesOf(items: number): () => boolean {
  let count = 0;
  return () => (count += 64) >= items && ((count = 0), true);
}

/** writeLinesAtomic with asynchronous I/O, the lines taken in slices of about `budgetMs` with the loop free in between (keys first). */
export function writeLinesAtomicAsync(dir: string, file: string, src: LineSource, budgetMs = 8): Promise<boolean> {
  return writeChunksAtomicAsync(dir, file, linesAsChunks(src), budgetMs);
}

/**
 * Writes the source's chunks to `file` through a temp file in `dir`, each
 * chunk made until `full()` says so. Returns false when the source had
 * nothing to write. Throws when the write fails (no temp file left).
 */
export function writeChunksAtomic(dir: string, file: string, src: ChunkSource, full: () => boolean): boolean {
  prepareDir(dir);
  const tmp = tempBeside(dir, file);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  let renamed = false;
  try {
    try {
      let slice = 0;
      const put = (buf: Buffer, at: number): void => {
        writeHooks.beforeWrite?.(slice++, file);
        let off = 0;
        while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off, at + off);
      };
      put(src.headRoom, 0);
      let pos = src.headRoom.length;
      for (;;) {
        const buf = src.next(full);
        if (buf.length === 0) break;
        put(buf, pos);
        pos += buf.length;
      }
      const head = src.head();
      if (head === undefined) return false;
      if (head.length !== src.headRoom.length) throw new Error('head of another length than its room');
      put(head, 0);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    renamed = true;
  } finally {
    if (!renamed)
      try {
        fs.unlinkSync(tmp);
      } catch {
        // gone already
      }
  }
  fsyncDir(dir);
  return true;
}

/** The rename made durable (one call, for both writers). */
function fsyncDir(dir: string): void {
  try {
    const dfd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
  } catch {
    // some file systems cannot fsync a folder: the rename is still atomic
  }
}

/**
 * writeChunksAtomic with asynchronous I/O, each chunk made in about
 * `budgetMs` with the loop free in between (keys first).
 */
export async function writeChunksAtomicAsync(dir: string, file: string, src: ChunkSource, budgetMs = 8): Promise<boolean> {
  const fsp = fs.promises;
  prepareDir(dir); // (synchronous: a mkdir and a stat, once per write) the TUI's writes tighten a loose folder too
  const tmp = tempBeside(dir, file);
  const fh = await fsp.open(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  let renamed = false;
  try {
    try {
      let slice = 0;
      const put = async (buf: Buffer, at: number): Promise<void> => {
        writeHooks.beforeWrite?.(slice++, file);
        let off = 0;
        while (off < buf.length) off += (await fh.write(buf, off, buf.length - off, at + off)).bytesWritten;
      };
      await put(src.headRoom, 0);
      let pos = src.headRoom.length;
      for (;;) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        const until = performance.now() + budgetMs;
        const buf = src.next(() => performance.now() > until);
        if (buf.length === 0) break;
        await put(buf, pos);
        pos += buf.length;
      }
      const head = src.head();
      if (head === undefined) return false;
      if (head.length !== src.headRoom.length) throw new Error('head of another length than its room');
      await put(head, 0);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, file);
    renamed = true;
  } finally {
    if (!renamed) await fsp.unlink(tmp).catch(() => undefined);
  }
  fsyncDir(dir);
  return true;
}
