// Export entry points: a transcript in a format, to a string or to a new file.
import fs from 'node:fs';
import path from 'node:path';
import type { Session } from '../session/session.js';
import { FILE_MODE } from '../storage/atomic-writer.js';
import { encodeId } from '../storage/id-encoding.js';
import { toHtml } from './html.js';
import { toJson } from './json.js';
import { toMarkdown } from './markdown.js';
import { buildTranscript, type Sessions } from './transcript.js';

export type ExportFormat = 'md' | 'html' | 'json';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['md', 'html', 'json'];

export function isExportFormat(s: string): s is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(s);
}

/** `sessions`: every live session (store.list()), to resolve the lineage line. The session up to seq `upTo` inclusive (default: all) as text in `format`. */
export function exportSession(s: Session, sessions: Sessions, format: ExportFormat, upTo?: number): string {
  const t = buildTranscript(s, sessions, upTo);
  return format === 'md' ? toMarkdown(t) : format === 'html' ? toHtml(t) : toJson(t);
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
  const text = exportSession(s, sessions, format, opts.upTo);
  const base = encodeId(s.id) + (opts.upTo !== undefined && opts.upTo < s.length - 1 ? `.at-${opts.upTo}` : '');
  const abs = path.resolve(dir);
  const tmp = path.join(abs, `.${base}.${process.pid}.${Date.now()}.export.tmp`);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, FILE_MODE);
  try {
    try {
      const buf = Buffer.from(text, 'utf8');
      for (let off = 0; off < buf.length; ) off += fs.writeSync(fd, buf, off);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    for (let n = 1; n < 1000; n++) {
      const file = path.join(abs, `${base}${n === 1 ? '' : `-${n}`}.${format}`);
      try {
        fs.linkSync(tmp, file);
        return { file, bytes: Buffer.byteLength(text, 'utf8') };
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
