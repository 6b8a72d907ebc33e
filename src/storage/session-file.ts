// One session file on disk -> a live Session (facts now, events on demand).
import fs from 'node:fs';
import type { Diagnostic } from '../session/diagnostics.js';
import { Session, type LogState } from '../session/session.js';
import { LogReader, MAX_LINE_BYTES } from './log-reader.js';
import type { FileState } from './walk.js';
import { isCompressedLog, readZstdLog } from './zstd-log.js';

/** size, inode and mtime: what tells a grown file from a replaced one */
export type FileStat = FileState;

export interface ReadResult {
  reader: LogReader;
  stat: FileStat;
  /** bytes after the last complete line (an append in progress or a torn tail) */
  pending: number;
}

// 1 MiB (was 8): a line over MAX_LINE_BYTES is held only up to the limit plus one
// chunk before it is dropped, so the chunk size adds directly to the peak.
const READ_CHUNK = 1024 * 1024;

/**
 * Reads `file` from offset 0 (or up to `limit` bytes) through a fresh reader,
 * chunk by chunk so memory stays bounded by the chunk and the longest line.
 */
export function readLog(file: string, retain: boolean, limit?: number): ReadResult {
  if (isCompressedLog(file)) return readZstdLog(file, retain, limit);
  const reader = new LogReader(file, { retain });
  const fd = fs.openSync(file, fs.constants.O_RDONLY);
  try {
    const st = fs.fstatSync(fd);
    const end = limit ?? st.size;
    // The incomplete line so far, as a list of chunks: they are joined only
    // once its "\n" arrives. (Growing one carry buffer with Buffer.concat on
    // every read held the old carry, the new chunk and the joined copy at once:
    // ~48 MiB transient for a line over the limit. Now a line over
    // MAX_LINE_BYTES costs at most the limit plus a read chunk or two before
    // it is dropped and skipped to its end.)
    let parts: Buffer[] = [];
    let partLen = 0;
    let pos = 0;
    let skipping = false;
    let skipFrom = 0;
    // The read buffer is reused unless part of it is held in `parts`.
    let buf: Buffer | undefined;
    let held = false;
    while (pos < end) {
      if (!buf || held || buf.length < Math.min(READ_CHUNK, end - pos)) buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, end - pos));
      held = false;
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, end - pos), pos);
      if (n === 0) break;
      pos += n;
      let data: Buffer = buf.subarray(0, n);
      if (skipping) {
        const nl = data.indexOf(10);
        if (nl < 0) continue;
        reader.skipLine(skipFrom, pos - n + nl + 1);
        skipping = false;
        data = data.subarray(nl + 1);
      }
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
        skipping = true;
        skipFrom = reader.consumed;
        parts = [];
        partLen = 0;
        held = false;
      }
    }
    return { reader, stat: { size: st.size, ino: st.ino, mtimeMs: st.mtimeMs }, pending: end - reader.consumed };
  } finally {
    fs.closeSync(fd);
  }
}

/** Turns a read into a live Session; undefined (with diagnostics) when the file is not a session. */
export function sessionFromRead(file: string, r: ReadResult): { session?: Session; diagnostics: Diagnostic[] } {
  const { reader } = r;
  if (!reader.header || reader.refused !== undefined) {
    const diagnostics = [...reader.diagnostics];
    if (diagnostics.length === 0) diagnostics.push({ file, line: 1, severity: 'error', code: 'NO_HEADER', message: r.stat.size === 0 ? 'empty file: no session header' : 'no complete header line yet' });
    return { diagnostics };
  }
  const loader = (current: LogState): LogState => readLog(file, true, current.consumed).reader;
  return { session: new Session(reader.header, file, reader, loader), diagnostics: reader.diagnostics };
}

export function openSessionFile(file: string, retain = false): { session?: Session; diagnostics: Diagnostic[]; read: ReadResult } {
  const read = readLog(file, retain);
  return { ...sessionFromRead(file, read), read };
}
