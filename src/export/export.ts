// Export entry points: a transcript in a format, to a string or to a new file.
import fs from 'node:fs';
import path from 'node:path';
import type { Session } from '../session/session.js';
import { batched } from '../cli/batched.js';
import { FILE_MODE } from '../storage/atomic-writer.js';
import { encodeId } from '../storage/id-encoding.js';
import { htmlText } from './html.js';
import { jsonText } from './json.js';
import { markdownText } from './markdown.js';
import { streamTranscript, type Sessions } from './transcript.js';

export type ExportFormat = 'md' | 'html' | 'json';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['md', 'html', 'json'];

export function isExportFormat(s: string): s is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(s);
}

/**
 * The session up to seq `upTo` inclusive (default: all) as text in `format`,
 * in pieces of ~64 KB made a turn at a time (`sessions`: every live session,
 * store.list(), to resolve the lineage line). A huge log is read in batches
 * and never held, nor is its text.
 */
export function exportText(s: Session, sessions: Sessions, format: ExportFormat, upTo?: number): Generator<string> {
  const t = streamTranscript(s, sessions, upTo);
  return batched(format === 'md' ? markdownText(t) : format === 'html' ? htmlText(t) : jsonText(t));
}

/** exportText as one string (tests, small sessions). */
export function exportSession(s: Session, sessions: Sessions, format: ExportFormat, upTo?: number): string {
  return [...exportText(s, sessions, format, upTo)].join('');
}

export interface ExportedFile {
  file: string;
  bytes: number;
}

/**
 * Writes the export to a NEW file in `dir` and returns its path: the name is
 * `<encoded id>[.at-SEQ].<format>`, and `-2`, `-3`… when taken. Never
 * overwrites or follows a symlink: the text goes to an exclusive temp file,
 * fsync, then a hard link to the final name (which fails if the name exists).
 * The temp is created owner-only (FILE_MODE, as session files are): a
 * transcript holds the same prompts and tool output, and a mode set at
 * creation leaves no moment when others could open it.
 */
export function exportToFile(s: Session, sessions: Sessions, dir: string, opts: { format?: ExportFormat; upTo?: number } = {}): ExportedFile {
  const format = opts.format ?? 'html';
  const base = encodeId(s.id) + (opts.upTo !== undefined && opts.upTo < s.length - 1 ? `.at-${opts.upTo}` : '');
  const abs = path.resolve(dir);
  const tmp = path.join(abs, `.${base}.${process.pid}.${Date.now()}.export.tmp`);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, FILE_MODE);
  let bytes = 0;
  try {
    try {
      for (const text of exportText(s, sessions, format, opts.upTo)) {
        const buf = Buffer.from(text, 'utf8');
        for (let off = 0; off < buf.length; ) off += fs.writeSync(fd, buf, off);
        bytes += buf.length;
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    for (let n = 1; n < 1000; n++) {
      const file = path.join(abs, `${base}${n === 1 ? '' : `-${n}`}.${format}`);
      try {
        fs.linkSync(tmp, file);
        return { file, bytes };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
    }
    throw new Error(`no free file name for ${base}.${format} in ${abs}`);
  } finally {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* gone */
    }
  }
}
