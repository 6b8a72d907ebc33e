// Export entry points: a transcript in a format, to a string or to a new file.
import fs from 'node:fs';
import path from 'node:path';
import { batched } from '../cli/batched.js';
import { FILE_MODE } from '../storage/atomic-writer.js';
import { encodeId } from '../storage/id-encoding.js';
import { htmlText } from './html.js';
import { jsonText } from './json.js';
import { markdownText } from './markdown.js';
import { foldPrefixUsage, streamTranscript, transcriptCount, type Sessions, type TranscriptRead } from './transcript.js';
import type { SessionEvent } from '../session/events.js';
import { readOn, type Session } from '../session/session.js';
import { emptyUsage, withSplit, type SessionUsage } from '../session/usage.js';

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
export function exportText(s: Session, sessions: Sessions, format: ExportFormat, upTo?: number, read?: TranscriptRead): Generator<string> {
  const t = streamTranscript(s, sessions, upTo, read);
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
  const job = new ExportJob(s, sessions, dir, opts);
  try {
    while (!job.run(() => false)) {
      /* no pause: runs to the end */
    }
    return job.result!;
  } finally {
    job.close();
  }
}

/**
 * exportToFile in steps (the app exports a large log in its ~8 ms slices,
 * keys answered meanwhile): run(spent) writes until done (true) or spent()
 * says the slice is over (false: run again later). close() before the end
 * cancels: the temp file goes, no export file is made.
 */
export class ExportJob {
  result?: ExportedFile;
  private readonly format: ExportFormat;
  private readonly base: string;
  private readonly abs: string;
  private readonly tmp: string;
  private fd: number | undefined;
  /** the UTF-8 of a piece, before it is written (encode) */
  private out = Buffer.allocUnsafeSlow(64 * 1024);
  private bytes = 0;
  private readonly count: number;
  /** events read so far (by the usage fold, then by the transcript) */
  private read = 0;
  /** the usage fold of a transcript that stops early, while it runs */
  private fold?: { u: SessionUsage; it: Iterator<readonly SessionEvent[] | undefined> };
  private pieces?: Iterator<string>;
  private spent: () => boolean = () => false;

  constructor(
    private readonly s: Session,
    private readonly sessions: Sessions,
    dir: string,
    private readonly opts: { format?: ExportFormat; upTo?: number } = {},
  ) {
    this.format = opts.format ?? 'html';
    this.base = encodeId(s.id) + (opts.upTo !== undefined && opts.upTo < s.length - 1 ? `.at-${opts.upTo}` : '');
    this.abs = path.resolve(dir);
    this.tmp = path.join(this.abs, `.${this.base}.${process.pid}.${Date.now()}.export.tmp`);
    this.count = transcriptCount(s, opts.upTo);
    this.fd = fs.openSync(this.tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, FILE_MODE);
    // the usage of a transcript that stops early is read first, in slices too (pause: the slice is spent)
    if (this.count !== s.length) this.fold = { u: emptyUsage() as SessionUsage, it: s.pausedBatches(this.count, () => this.spent()) };
  }

  /** How much is done, 0 to 1 (events read of those to read). */
  progress(): number {
    const total = this.count * (this.count !== this.s.length ? 2 : 1);
    return total > 0 ? Math.min(1, this.read / total) : 1;
  }

  /**
   * `text` as UTF-8 in `out` (grown when too small): how many bytes. Why one
   * buffer: a Buffer per piece is a malloc of 100s of KB each, and glibc kept
   * ~60 MB of them resident while a 10 GB log exported.
   */
  private encode(text: string): number {
    // (a UTF-16 unit is at most 3 bytes of UTF-8: a surrogate pair, 2 units, is 4)
    if (this.out.length < 3 * text.length) this.out = Buffer.allocUnsafeSlow(Math.max(2 * this.out.length, 3 * text.length));
    return this.out.write(text, 0, 'utf8');
  }

  run(spent: () => boolean): boolean {
    if (this.result) return true;
    this.spent = spent;
    if (this.fold) {
      const f = this.fold;
      const done = readOn(f.it, spent, (batch) => {
        foldPrefixUsage(f.u, batch, this.s.seedLength);
        this.read += batch.length;
      });
      if (!done) return false;
      this.fold = undefined;
      this.pieces = exportText(this.s, this.sessions, this.format, this.opts.upTo, { usage: withSplit(f.u, this.s.seedLength), batches: this.counted });
    }
    this.pieces ??= exportText(this.s, this.sessions, this.format, this.opts.upTo, { batches: this.counted });
    for (;;) {
      const r = this.pieces.next();
      if (r.done) break;
      const n = this.encode(r.value);
      for (let off = 0; off < n; ) off += fs.writeSync(this.fd!, this.out, off, n - off);
      this.bytes += n;
      if (spent()) return false;
    }
    fs.fsyncSync(this.fd!);
    this.closeFd();
    this.result = { file: this.link(), bytes: this.bytes };
    this.close();
    return true;
  }

  /** the transcript's batches, counted for progress() */
  private readonly counted = (n: number): Iterable<readonly SessionEvent[]> => {
    const job = this;
    return (function* () {
      for (const b of job.s.eventBatches(n)) {
        job.read += b.length;
        yield b;
      }
    })();
  };

  private link(): string {
    for (let n = 1; n < 1000; n++) {
      const file = path.join(this.abs, `${this.base}${n === 1 ? '' : `-${n}`}.${this.format}`);
      try {
        fs.linkSync(this.tmp, file);
        return file;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
    }
    throw new Error(`no free file name for ${this.base}.${this.format} in ${this.abs}`);
  }

  private closeFd(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  /** Ends the job: its reads closed, its temp file gone (the export file, when made, stays). */
  close(): void {
    this.fold?.it.return?.(undefined);
    this.fold = undefined;
    this.pieces?.return?.(undefined);
    this.closeFd();
    try {
      fs.unlinkSync(this.tmp);
    } catch {
      /* gone */
    }
  }
}
