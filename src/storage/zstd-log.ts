// Reading a compressed session log (session.jsonl.zstd) through the same
// LogReader as a plain one: the decoded text is fed line by line, so offsets
// (eventEnds, consumed) are offsets in the decoded text, and the loader of a
// compressed session re-decodes the file and cuts the text there.
import fs from 'node:fs';
import { LogReader } from './log-reader.js';
import type { ReadResult } from './session-file.js';
import { decodeZstdLog } from './zstd-frames.js';

export const isCompressedLog = (file: string): boolean => file.endsWith('.zstd');

/** The decoded text of a compressed log (complete frames, then the complete blocks of a torn one). */
export function readZstdText(file: string): { text: Buffer; stat: fs.Stats; error?: string; tornBytes: number; headerFrameIsOneLine?: boolean } {
  const fd = fs.openSync(file, fs.constants.O_RDONLY);
  try {
    const stat = fs.fstatSync(fd);
    const buf = Buffer.allocUnsafe(stat.size);
    let off = 0;
    while (off < buf.length) {
      const n = fs.readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    const d = decodeZstdLog(buf.subarray(0, off));
    return { text: d.text, stat, error: d.error, tornBytes: d.tornBytes, headerFrameIsOneLine: d.headerFrameIsOneLine };
  } finally {
    fs.closeSync(fd);
  }
}

export function readZstdLog(file: string, retain: boolean, limit?: number): ReadResult {
  const reader = new LogReader(file, { retain });
  const { text, stat, error } = readZstdText(file);
  const end = limit === undefined ? text.length : Math.min(limit, text.length);
  reader.feed(end === text.length ? text : text.subarray(0, end));
  if (error !== undefined) {
    reader.diagnostics.push({ file, severity: 'error', code: 'ZSTD_CORRUPT', message: `${error}: the records before it are shown` });
    if (reader.firstAnomaly > reader.consumed) reader.firstAnomaly = reader.consumed;
  }
  if (reader.lines === 0 && error !== undefined && reader.refused === undefined) reader.refused = error;
  return { reader, stat: { size: stat.size, ino: stat.ino, mtimeMs: stat.mtimeMs }, pending: end - reader.consumed };
}
