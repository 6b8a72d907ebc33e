// Reading a compressed session log (session.jsonl.zstd) through the same
// LogReader as a plain one: the decoded text is fed line by line, so offsets
// (eventEnds, consumed) are offsets in the decoded text, and the loader of a
// compressed session re-decodes the file and cuts the text there.
import fs from 'node:fs';
import { LogReader } from './log-reader.js';
import { openRegular } from './open-file.js';
import type { ReadResult } from './session-file.js';
import { decodedText, decodeZstdLog, initDecoder, wasmDecoderReady, type DecodedZstd } from './zstd-frames.js';

export const isCompressedLog = (file: string): boolean => file.endsWith('.zstd');

function readDecoded(file: string): { d: DecodedZstd; stat: fs.Stats } {
  // The first compressed log loads the WebAssembly decoder for the ones after it
  // (a root without any never loads it); this one goes through fzstd.
  if (!wasmDecoderReady()) void initDecoder();
  const { fd, st: stat } = openRegular(file); // never blocks on a FIFO; refuses anything but a regular file
  try {
    const buf = Buffer.allocUnsafe(stat.size);
    let off = 0;
    while (off < buf.length) {
      const n = fs.readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return { d: decodeZstdLog(buf.subarray(0, off)), stat };
  } finally {
    fs.closeSync(fd);
  }
}

/** The decoded text of a compressed log (complete frames, then the complete blocks of a torn one). */
export function readZstdText(file: string): { text: Buffer; stat: fs.Stats; error?: string; tornBytes: number } {
  const { d, stat } = readDecoded(file);
  return { text: decodedText(d), stat, error: d.error, tornBytes: d.tornBytes };
}

export function readZstdLog(file: string, retain: boolean, limit?: number): ReadResult {
  const reader = new LogReader(file, { retain });
  const { d, stat } = readDecoded(file);
  const error = d.error;
  const end = limit === undefined ? d.length : Math.min(limit, d.length);
  // Feed chunk by chunk; a line crossing chunks is carried (joined once its end arrives).
  let pos = 0;
  let carry: Buffer | undefined;
  for (const c of d.chunks) {
    if (pos >= end) break;
    let chunk = Buffer.from(c.buffer, c.byteOffset, Math.min(c.length, end - pos));
    pos += chunk.length;
    if (carry) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        carry = Buffer.concat([carry, chunk]);
        continue;
      }
      reader.feed(Buffer.concat([carry, chunk.subarray(0, nl + 1)]));
      carry = undefined;
      chunk = chunk.subarray(nl + 1);
    }
    const used = reader.feed(chunk);
    if (used < chunk.length) carry = Buffer.from(chunk.subarray(used));
  }
  if (error !== undefined) {
    reader.diagnostics.push({ file, severity: 'error', code: 'ZSTD_CORRUPT', message: `${error}: the records before it are shown` });
    if (reader.firstAnomaly > reader.consumed) reader.firstAnomaly = reader.consumed;
  }
  if (reader.lines === 0 && error !== undefined && reader.refused === undefined) reader.refused = error;
  return { reader, stat: { size: stat.size, ino: stat.ino, mtimeMs: stat.mtimeMs }, pending: end - reader.consumed };
}

/** The decoded text length of a compressed log (a live child's consumed bytes). */
export const zstdTextLength = (file: string): number => readDecoded(file).d.length;
