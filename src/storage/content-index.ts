// The content index: which logs of a root may hold a query's words, kept
// between runs beside the fact cache, so a search reads only the logs that
// may match (ripgrep reads them all; git's index and codesearch's trigram
// index are the models). It narrows and never decides: every candidate is
// then searched as before, so an indexed search finds exactly what a scan
// finds (test/storage/content-index.test.ts checks it on random roots).
//
// Where: ${XDG_CACHE_HOME:-~/.cache}/dsh-browse/<hash of the root's real path>.index
// (the manifest) and <same hash>.<random>.seg (segments, trigram-segment.ts).
// Folder 0700, files 0600. The manifest is a head line (the index's version,
// root, stamp, next part id and segments) and one entry per log, as columns
// (index-manifest.ts): its path relative to the root, its stat, `to`, the
// sha1, the flags and its parts.
//
// A log's entry says what was indexed: its bytes [0, to) (the complete lines;
// a torn tail is not searched either; a compressed log's complete frames, their
// text decoded and indexed), their sha1 (its first 64 bits), and the parts (ids in the
// segments) its trigrams went into. flags: 1 the log may hide a word from its
// trigrams (trigrams.ts; or a line longer than one read: always a candidate), 2 racy (changed too close to
// the run that read it for its stat to be trusted).
//
// Trust: a log whose dev, ino, size, mtime and ctime are the entry's (and not
// racy) is as indexed. Any other log with an entry is read up to the entry's
// `to` and hashed: the same bytes mean an append (only the bytes after `to`
// are indexed, as a new part), other bytes a new log (indexed again, whole).
// A manifest or segment that is truncated, garbage, foreign or from another
// version is ignored and rebuilt; a folder that cannot be written leaves the
// run unindexed. Never an error: at most one quiet note.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { hasTrigram, TrigramCollector } from '../session/trigrams.js';
import { writeBuffersAtomic } from './atomic-lines.js';
import { storable } from './catalog-file.js';
import { ManifestError, manifestBytes, readManifest } from './index-manifest.js';
import { cacheDir, cacheFileFor, packageVersion, RACY_MS, safeRealpath } from './fact-cache.js';
import { fsPath, openRegular } from './open-file.js';
import { mergePostings, postingsOfParts, SegmentError, SegmentReader, writeSegment, type PostingsEntry } from './trigram-segment.js';
import { fdSource } from './zstd-frames.js';
import { ALWAYS, EntryTable, RACY, type Entry } from './index-entries.js';
import { isCompressedLog, textBound } from './zstd-log.js';
import { ZstdTextStream } from './zstd-stream.js';
import type { FileStat } from './session-file.js';
import { statAheadOf, type StatAhead } from './stat-ahead.js';

/** Bump when the manifest's or a segment's shape, or what goes into a trigram, changes. */
export const INDEX_FORMAT = 3;

/** Parts held in memory past this many (trigram, part) pairs are written out as a segment. */
const FLUSH_PAIRS = 2_000_000;
/** More segments than this are merged into one at the next save. */
const MAX_SEGMENTS = 6;
/** A manifest over this is not read. */
const MAX_MANIFEST_BYTES = 512 * 1024 * 1024;
const READ_CHUNK = 1024 * 1024;
/** A segment no manifest lists is removed once this old (a younger one may be another run's, about to be listed). */
const STALE_SEGMENT_MS = 60 * 60 * 1000;

export interface ContentIndexOptions {
  /** the cache folder (default cacheDir()) */
  dir?: string;
  /** the clock (tests) */
  now?: () => number;
  /** bytes read at once, a refresh in steps pausing between two reads (tests: small, to pause inside a small log) */
  readChunk?: number;
  /** refreshAll takes its stats on a worker thread when the manifest held at least this many logs (default: stat-ahead.ts's STAT_AHEAD_MIN) */
  statAheadMin?: number;
}

/** How a log's entry stood when refresh() looked at it (tests and the bench count these). */
export type RefreshResult = 'current' | 'appended' | 'indexed' | 'unindexed';

/** A refresh in steps (ContentIndex.refreshJob). */
export interface RefreshJob {
  step(pause: () => boolean): boolean;
  /** stops it and closes the log (its entry stays as it was) */
  cancel(): void;
  /** set once step() returned true */
  result?: RefreshResult;
}

const NEVER = () => false;

/** Runs a generator of steps to its end. */
function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

export class ContentIndex {
  /** the manifest (undefined: the root has no real path; nothing is kept) */
  readonly file?: string;
  readonly dir: string;
  note?: string;
  readonly startedAt: number;
  private readonly chunk: number;
  private readonly statAheadMin: number | undefined;
  private readonly version = `${INDEX_FORMAT}/${packageVersion()}`;
  /** the entries: the manifest's as loaded, then what this run refreshed (index-entries.ts) */
  private table = new EntryTable();
  /** logs whose refresh job is under way (a discard refreshes them again too) */
  private readonly running = new Set<string>();
  private segments: SegmentReader[] = [];
  /** segments written this run and not yet in a manifest */
  private written: SegmentReader[] = [];
  private pending: Array<{ id: number; trigrams: Uint32Array }> = [];
  private pendingPairs = 0;
  private nextPart = 0;
  private invalid = false;
  private changed = false;
  /** moves with every row this run settles (the part owners below are as of one) */
  private freshVersion = 0;
  /** part id -> the row (rarely rows) holding it */
  private owners?: { version: number; of: Map<number, number | number[]> };
  /** what refresh() found, per kind */
  readonly counts: Record<RefreshResult, number> = { current: 0, appended: 0, indexed: 0, unindexed: 0 };

  constructor(
    readonly root: string,
    opts: ContentIndexOptions = {},
  ) {
    this.dir = opts.dir ?? cacheDir();
    this.startedAt = (opts.now ?? Date.now)();
    this.chunk = opts.readChunk ?? READ_CHUNK;
    this.statAheadMin = opts.statAheadMin;
    this.file = ContentIndex.fileFor(root, this.dir);
    this.load();
  }

  /** The manifest's path for `root` in the cache folder `dir` (beside the fact cache's file), or undefined when the root has no real path. */
  static fileFor(root: string, dir = cacheDir()): string | undefined {
    return cacheFileFor(root, dir)?.replace(/\.facts$/, '.index');
  }

  private load(): void {
    if (!this.file) return;
    let read: ReturnType<typeof readManifest>;
    try {
      read = readManifest(this.file, { dshBrowseIndex: this.version, root: safeRealpath(this.root) }, MAX_MANIFEST_BYTES);
    } catch (e) {
      this.invalid = true;
      if (e instanceof ManifestError) this.note = e.why === 'version' ? `index ${this.file} is from another version: rebuilt` : `index ${this.file} is damaged: rebuilt`;
      else if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.note = `index ${this.file} not read (${(e as Error).message}): rebuilt`;
      return;
    }
    const { head, columns } = read;
    try {
      for (const name of head.segments) this.segments.push(SegmentReader.open(this.segmentFile(name)));
    } catch (e) {
      for (const s of this.segments) s.close();
      this.segments = [];
      this.invalid = true;
      this.note = `index ${this.file}: a segment cannot be used (${(e as Error).message}): rebuilt`;
      return;
    }
    if (!this.table.loadColumns(columns, (key) => this.fileOf(key), head.nextPart)) {
      for (const s of this.segments) s.close();
      this.segments = [];
      this.invalid = true;
      this.note = `index ${this.file} is damaged: rebuilt`;
      return;
    }
    this.nextPart = head.nextPart;
  }

  /** How many logs the manifest read at start held (0: no index kept for the root, or one rebuilt). */
  get kept(): number {
    return this.table.loaded;
  }

  private segmentFile(name: string): string {
    return this.file!.replace(/\.index$/, `.${name}.seg`);
  }

  /** A log's key in the manifest: its path relative to the root (absolute when outside it), written as JSON. */
  private keyOf(file: string): string {
    const r = this.root;
    return file.length > r.length + 1 && file.startsWith(r) && file[r.length] === path.sep ? file.slice(r.length + 1) : file;
  }

  /** The log a manifest key names (keyOf's inverse). */
  private fileOf(key: string): string {
    return path.isAbsolute(key) ? key : this.root + path.sep + key;
  }

  /**
   * Brings `file`'s entry up to date, reading only what is new (nothing when
   * its stat is the entry's). A log that cannot be indexed (gone, unreadable,
   * a damaged compressed frame) is left a candidate for every query.
   */
  refresh(file: string): RefreshResult {
    const job = this.refreshJob(file);
    job.step(NEVER);
    return job.result!;
  }

  /**
   * refresh() of every log of `files`, in one loop: an unchanged log costs
   * its stat and a compare with its entry, with no job or generator of its
   * own (a search of 100,000 logs spent ~0.5 s more on those than on the
   * stats); the others are refreshed as refresh() does. The stats are taken
   * on a worker thread for a large index (`started`: a StatAhead over these
   * same files, started by a caller before this index was loaded).
   */
  refreshAll(files: Iterable<string>, started?: StatAhead): void {
    const t = this.table;
    // those stats are most of a warm search of a large root: taken ahead on the other core
    const ahead = started ?? statAheadOf(files, t.loaded, this.statAheadMin);
    try {
      const rowOf = t.cursor();
      for (const file of ahead?.files() ?? files) {
        const row = rowOf(file);
        if (row !== undefined) {
          if (t.fresh(row)) continue;
          if (t.has(row) && !(t.flags(row) & RACY)) {
            const now = ahead?.take(file) ?? statOf(file);
            if (now && t.trusts(row, now)) {
              this.keep(row);
              this.counts.current++;
              continue;
            }
          }
        }
        this.refresh(file);
      }
    } finally {
      ahead?.close();
    }
  }

  /**
   * refresh() in steps, for a caller that keeps its loop free (the browser):
   * step(pause) reads on until the entry is current (true) or pause(), asked
   * between two 1 MB chunks, says stop (false: call again later; the log
   * stays open until done or cancel()). A 1 GB log is read this way in
   * slices, never in one block.
   */
  refreshJob(file: string): RefreshJob {
    this.running.add(file);
    const steps = this.refreshSteps(file);
    const job: RefreshJob = {
      step: (pause) => {
        for (;;) {
          const r = steps.next();
          if (r.done) {
            job.result = r.value;
            this.counts[r.value]++;
            this.running.delete(file);
            return true;
          }
          if (pause()) return false;
        }
      },
      cancel: () => {
        this.running.delete(file);
        steps.return('unindexed');
      },
    };
    return job;
  }

  /** The work of refreshJob: yields between two chunks read. */
  private *refreshSteps(file: string): Generator<void, RefreshResult> {
    const t = this.table;
    const row = t.row(file);
    if (row !== undefined && t.fresh(row)) return t.has(row) ? 'current' : 'unindexed';
    const known = row !== undefined && t.has(row);
    // the common case first: an unchanged log is a stat, never opened
    const now = statOf(file);
    if (known && now && t.trusts(row, now)) {
      this.keep(row);
      return 'current';
    }
    let fd: number;
    let st: fs.Stats;
    try {
      ({ fd, st } = openRegular(file));
    } catch {
      this.forget(file, known);
      return 'unindexed';
    }
    const compressed = isCompressedLog(file);
    try {
      if (known && t.trusts(row, st)) {
        this.keep(row);
        return 'current';
      }
      this.changed = true;
      const was = known ? t.entry(row) : undefined;
      if (was && was.to <= st.size) {
        const hash = crypto.createHash('sha1');
        yield* hashRange(fd, 0, was.to, hash, this.chunk);
        if (hexOf(hash.copy()) === was.sha1) {
          const entry = yield* this.extend(fd, st, was, hash, compressed);
          this.current(file, entry);
          return entry.parts.length > was.parts.length ? 'appended' : 'current';
        }
      }
      this.current(file, yield* this.indexWhole(fd, st, compressed));
      return 'indexed';
    } catch {
      this.forget(file, known);
      return 'unindexed';
    } finally {
      fs.closeSync(fd);
    }
  }

  /** `file`'s entry as of this run (undefined: it cannot be indexed, a candidate for every query). */
  private current(file: string, entry: Entry | undefined): void {
    this.table.settle(this.table.row(file) ?? this.table.add(file), entry);
    this.freshVersion++;
  }

  /** Row `row`'s entry as the manifest had it is current. */
  private keep(row: number): void {
    this.table.keep(row);
    this.freshVersion++;
  }

  private forget(file: string, known: boolean): void {
    this.current(file, undefined);
    if (known) this.changed = true;
  }

  /** The same log with bytes after `to`: those are indexed as a new part (a log rewritten in place was caught by its hash). */
  private *extend(fd: number, st: fs.Stats, was: Entry, hash: crypto.Hash, compressed: boolean): Generator<void, Entry> {
    const c = new TrigramCollector();
    const to = yield* this.read(fd, was.to, st.size, c, hash, compressed);
    const parts = [...was.parts];
    let flags = was.flags & ALWAYS;
    if (c.size > 0) parts.push(this.addPart(c.take()));
    if (c.always) flags |= ALWAYS;
    return this.entryOf(st, to, flags, hexOf(hash), parts);
  }

  private *indexWhole(fd: number, st: fs.Stats, compressed: boolean): Generator<void, Entry> {
    const hash = crypto.createHash('sha1');
    const c = new TrigramCollector();
    const to = yield* this.read(fd, 0, st.size, c, hash, compressed);
    const parts = c.size > 0 ? [this.addPart(c.take())] : [];
    return this.entryOf(st, to, c.always ? ALWAYS : 0, hexOf(hash), parts);
  }

  private entryOf(st: Required<Pick<FileStat, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>>, to: number, flags: number, sha1: string, parts: number[]): Entry {
    if (!(st.mtimeMs <= this.startedAt - RACY_MS)) flags |= RACY;
    return { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, to, flags, sha1, parts };
  }

  /**
   * `file` is as the run that indexed it left it, by the stat a caller took
   * (the browser's scan): its entry is current, with no stat of its own.
   * Returns whether it made the entry current (false: refresh it).
   */
  trust(file: string, st: FileStat): boolean {
    const t = this.table;
    const row = t.row(file);
    if (row === undefined || t.fresh(row) || !t.trusts(row, st)) return false;
    this.keep(row);
    this.counts.current++;
    return true;
  }

  /**
   * Reads [from, size) of `fd`, feeding the complete lines to the collector
   * and the bytes read to the hash; returns where the next read starts (the
   * end of the last complete line; a compressed log's, of its last complete
   * frame). Yields after each chunk.
   */
  private *read(fd: number, from: number, size: number, c: TrigramCollector, hash: crypto.Hash, compressed: boolean): Generator<void, number> {
    if (!compressed) return yield* this.readPlain(fd, from, size, c, hash);
    const to = yield* this.readFrames(fd, from, size, c);
    yield* hashRange(fd, from, to, hash, this.chunk);
    return to;
  }

  /**
   * A compressed log's frames from `from` (a frame's first byte: an append's
   * frames start where the last complete one ended), decoded as a bounded
   * stream, their text's lines fed to the collector. Returns the end of the
   * last complete frame: a torn one (an append being written) is read again
   * next time. Its text up to there is indexed as it decodes, the torn
   * frame's too (more trigrams than the search sees narrow less, never
   * wrongly). Throws on a damaged frame: such a log is left unindexed.
   */
  private *readFrames(fd: number, from: number, size: number, c: TrigramCollector): Generator<void, number> {
    const lines = new LineFeed(c, this.chunk);
    const bound = textBound(size);
    let cleanAtTorn = true;
    const stream: ZstdTextStream = new ZstdTextStream(
      fdSource(fd, size),
      (text): boolean => {
        lines.push(text);
        return stream.decoded <= bound;
      },
      { from, onTorn: () => (cleanAtTorn = lines.clean) },
    );
    try {
      while (!stream.step(() => true)) yield;
    } finally {
      stream.close();
    }
    if (stream.error !== undefined) throw new Error(stream.error);
    const clean = stream.torn ? cleanAtTorn : lines.clean;
    lines.end();
    // text past the bound (a bomb) is not all indexed; text that stops inside a line at the next
    // read's start would lose the trigrams across it: either way, a candidate for every query
    if (stream.stopped || !clean) c.always = true;
    return stream.torn ? stream.torn.at : size;
  }

  /** Reads [from, size) in chunks, feeding the complete lines to the collector and the hash; returns the end of the last complete line. Yields after each chunk. */
  private *readPlain(fd: number, from: number, size: number, c: TrigramCollector, hash: crypto.Hash): Generator<void, number> {
    // (no larger than what is left: 100,000 small logs were 100,000 allocations of a whole chunk)
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(this.chunk, size - from)));
    let pos = from;
    let carry = 0; // bytes at buf's start carried over from the last read (an unfinished line)
    let to = from;
    while (pos < size) {
      if (carry === buf.length) {
        // a line longer than a chunk: its bytes are indexed as they come, and
        // as a trigram across the cut is not seen, the log is a candidate for every query
        c.always = true;
        c.add(buf, 0, carry);
        hash.update(buf.subarray(0, carry));
        to += carry;
        carry = 0;
      }
      if (pos > from) yield;
      const n = fs.readSync(fd, buf, carry, Math.min(buf.length - carry, size - pos), pos);
      if (n === 0) break;
      pos += n;
      const filled = carry + n;
      const nl = buf.lastIndexOf(10, filled - 1);
      if (nl < 0) {
        carry = filled;
        continue;
      }
      c.add(buf, 0, nl + 1);
      hash.update(buf.subarray(0, nl + 1));
      to += nl + 1;
      buf.copy(buf, 0, nl + 1, filled);
      carry = filled - nl - 1;
    }
    if (carry > 0 && to + carry < size) throw new Error('read ended early');
    return to;
  }

  private addPart(trigrams: Uint32Array): number {
    const id = this.nextPart++;
    this.pending.push({ id, trigrams });
    this.pendingPairs += trigrams.length;
    if (this.pendingPairs >= FLUSH_PAIRS) this.flush();
    return id;
  }

  /** Writes the parts held in memory as a segment (listed by the next manifest). */
  private flush(): void {
    if (this.pending.length === 0 || !this.file) return;
    const name = crypto.randomBytes(8).toString('hex');
    const file = this.segmentFile(name);
    try {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeSegment(file, postingsOfParts(this.pending));
      this.written.push(SegmentReader.open(file));
      this.pending = [];
      this.pendingPairs = 0;
    } catch (e) {
      // kept in memory: this run's queries still see them; the next save tries again
      this.note = `index segment not written to ${this.dir} (${(e as Error).message})`;
    }
  }

  /**
   * A test of which logs may hold every trigram of `trigrams` (trigramsOf a
   * query's required pieces): false only for a log refreshed this run whose
   * indexed bytes certainly do not, and (with `statNow`, what the caller
   * knows of each file now) whose stat is still the one indexed. An empty
   * set narrows nothing.
   */
  matcher(trigrams: Uint32Array, statNow?: (file: string) => { size: number; ino: number; mtimeMs: number } | undefined): (file: string) => boolean {
    if (trigrams.length === 0) return () => true;
    let holders: Array<Set<number>>;
    try {
      holders = this.holders(trigrams);
    } catch (e) {
      this.discard(e as Error);
      holders = this.holders(trigrams);
    }
    // parts made after this moment are in no holder set: their logs cannot be ruled out by it
    const known = this.nextPart;
    const hits = this.holding(holders);
    const t = this.table;
    // (a search asks in its logs' ascending order: each row found in passing)
    const rowOf = t.cursor();
    return (file) => {
      const row = rowOf(file);
      if (row === undefined || !t.fresh(row) || !t.has(row) || hits.has(row) || t.flags(row) & ALWAYS || t.lastPart(row) >= known) return true;
      // a log that changed since it was indexed (a live append): what it holds now is not known
      if (statNow) {
        const st = statNow(file);
        if (!st || !t.sameFile(row, st)) return true;
      }
      return false;
    };
  }

  /**
   * The entries refreshed this run whose parts hold every trigram's parts in
   * `holders`: found from the rarest trigram's parts, not by testing every
   * log (a rare word's answer at 100,000 logs is a handful of lookups).
   */
  private holding(holders: Array<Set<number>>): Set<number> {
    const rarest = holders.reduce((a, b) => (b.size < a.size ? b : a));
    const owners = this.partOwners();
    const hits = new Set<number>();
    const take = (row: number): void => {
      if (!hits.has(row) && holders.every((h) => this.table.parts(row).some((p) => h.has(p)))) hits.add(row);
    };
    for (const part of rarest) {
      const o = owners.get(part);
      if (o === undefined) continue;
      if (Array.isArray(o)) o.forEach(take);
      else take(o);
    }
    return hits;
  }

  /** Part id -> the row (rarely rows) refreshed this run that lists it; rebuilt when a row settled since. */
  private partOwners(): Map<number, number | number[]> {
    if (this.owners?.version === this.freshVersion) return this.owners.of;
    const of = new Map<number, number | number[]>();
    this.table.eachFreshPart((p, row) => {
      const o = of.get(p);
      if (o === undefined) of.set(p, row);
      else if (Array.isArray(o)) o.push(row);
      else if (o !== row) of.set(p, [o, row]);
    });
    this.owners = { version: this.freshVersion, of };
    return of;
  }

  /** Per trigram, the parts that hold it: from every segment and from the parts in memory. */
  private holders(trigrams: Uint32Array): Array<Set<number>> {
    return Array.from(trigrams, (t) => {
      const ids: number[] = [];
      for (const s of [...this.segments, ...this.written]) for (const id of s.postings(t)) ids.push(id);
      for (const p of this.pending) if (hasTrigram(p.trigrams, t)) ids.push(p.id);
      return new Set(ids);
    });
  }

  /**
   * A segment found damaged while in use (its postings fail their checksum,
   * or it cannot be read): every segment is dropped and each log refreshed
   * this run is indexed again, whole, so no answer rests on it.
   */
  private discard(e: Error): void {
    this.note = `index ${this.file}: ${e.message}: rebuilt`;
    for (const s of [...this.segments, ...this.written]) {
      s.close();
      try {
        fs.unlinkSync(s.file);
      } catch {
        // gone already
      }
    }
    this.segments = [];
    this.written = [];
    this.pending = [];
    this.pendingPairs = 0;
    // the logs looked at so far, and those under way, looked at again from nothing
    const again = new Set(this.running);
    for (let row = 0; row < this.table.size; row++) if (this.table.fresh(row)) again.add(this.table.file(row));
    this.table = new EntryTable();
    this.invalid = true;
    this.freshVersion++;
    for (const file of again) runSteps(this.refreshSteps(file));
  }

  /**
   * Writes the manifest (and a segment of this run's parts) when anything
   * changed. `complete`: every log of the root was refreshed this run, so
   * entries not refreshed are of logs gone (otherwise they are kept as they
   * were). Returns true when written. Never throws.
   */
  save(complete = true): boolean {
    try {
      return this.trySave(complete);
    } catch (e) {
      if (!(e instanceof SegmentError)) throw e;
      this.discard(e);
      return this.trySave(complete);
    }
  }

  private trySave(complete: boolean): boolean {
    if (!this.file) return false;
    // (nothing new and nothing gone: the files would be the same)
    const t = this.table;
    const gone = complete && t.unseen > 0;
    if (!this.changed && !this.invalid && !gone && this.pending.length === 0 && this.written.length === 0) return false;
    // the rows this run settled with an entry, and (not complete) the manifest's rows not looked at
    const kept: number[] = [];
    for (let row = 0; row < t.size; row++) if (t.has(row) && (t.fresh(row) ? !this.lostPart(row) : !complete)) kept.push(row);
    try {
      this.flush();
      if (this.pending.length > 0) return false; // the segment could not be written: note says why
      let segments = [...this.segments, ...this.written];
      const live = new Set<number>();
      for (const row of kept) for (const p of t.parts(row)) live.add(p);
      const merged: SegmentReader[] = [];
      if (segments.length > MAX_SEGMENTS || (segments.length > 1 && this.deadShare(live) > 0.5)) {
        const name = crypto.randomBytes(8).toString('hex');
        const file = this.segmentFile(name);
        writeSegment(file, mergePostings(segments, (id) => live.has(id)));
        merged.push(...segments);
        segments = [SegmentReader.open(file)];
      }
      const names = segments.map((s) => path.basename(s.file).split('.')[1]);
      const head = { dshBrowseIndex: this.version, root: safeRealpath(this.root), stamp: this.startedAt, nextPart: this.nextPart, segments: names };
      // (a key UTF-8 would change, a lone surrogate in a name, is not kept: its log is indexed again)
      const columns = t.columns(kept.filter((row) => storable(this.keyOf(t.file(row)))), (file) => this.keyOf(file));
      writeBuffersAtomic(this.dir, this.file, manifestBytes(head, columns));
      // what the new manifest no longer lists
      const listed = new Set(segments.map((s) => s.file));
      for (const s of [...this.segments, ...this.written, ...merged]) {
        if (listed.has(s.file)) continue;
        s.close();
        try {
          fs.unlinkSync(s.file);
        } catch {
          // gone already
        }
      }
      this.removeStale(listed);
      this.segments = segments;
      this.written = [];
      this.changed = false;
      this.invalid = false;
      return true;
    } catch (e) {
      if (e instanceof SegmentError) throw e;
      this.note = `index not written to ${this.dir} (${(e as Error).message})`;
      return false;
    }
  }

  /** Segments of this root no manifest lists (a run that stopped before its save), an hour old or more. */
  private removeStale(listed: Set<string>): void {
    const prefix = path.basename(this.file!).replace(/index$/, '');
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith(prefix) || !name.endsWith('.seg')) continue;
      const file = path.join(this.dir, name);
      if (listed.has(file)) continue;
      try {
        if (fs.statSync(file).mtimeMs < this.startedAt - STALE_SEGMENT_MS) fs.unlinkSync(file);
      } catch {
        // gone, or not ours to remove
      }
    }
  }

  /** A row whose part is in no segment (a flush failed): not written. */
  private lostPart(row: number): boolean {
    return this.table.lastPart(row) >= this.nextPart;
  }

  /** The share of part ids in the segments that no entry uses any more (estimated from the id range). */
  private deadShare(live: Set<number>): number {
    return this.nextPart === 0 ? 0 : 1 - live.size / this.nextPart;
  }

  /** Closes the segments. */
  close(): void {
    for (const s of [...this.segments, ...this.written]) s.close();
    this.segments = [];
    this.written = [];
  }
}

/** The first 64 bits of a sha1, as hex: it tells a prefix rewritten from the same one (no adversary: the files are the user's own). */
const hexOf = (h: crypto.Hash): string => h.digest('hex').slice(0, 16);

function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(fsPath(file), { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * Feeds a collector the complete lines of text that comes in pieces (a
 * compressed log's), holding at most `max` bytes of an unfinished line:
 * past that, its bytes go in as they come and the log is a candidate for
 * every query, as a plain log with a line longer than one read.
 */
class LineFeed {
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(
    private readonly c: TrigramCollector,
    private readonly max: number,
  ) {}

  /** the text so far ends at a line's end */
  get clean(): boolean {
    return this.heldBytes === 0;
  }

  push(text: Uint8Array): void {
    const b = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
    const nl = b.lastIndexOf(10);
    if (nl < 0) return this.hold(b);
    if (this.heldBytes > 0) {
      const line = Buffer.concat([...this.held, b.subarray(0, nl + 1)]);
      this.held = [];
      this.heldBytes = 0;
      this.c.add(line);
    } else this.c.add(b, 0, nl + 1);
    if (nl + 1 < b.length) this.hold(b.subarray(nl + 1));
  }

  /** The unfinished line at the end, as it is. */
  end(): void {
    if (this.heldBytes > 0) this.c.add(Buffer.concat(this.held));
    this.held = [];
    this.heldBytes = 0;
  }

  private hold(b: Buffer): void {
    // a copy: the decoder may reuse the memory it handed over
    this.held.push(Buffer.from(b));
    this.heldBytes += b.length;
    if (this.heldBytes > this.max) {
      this.c.always = true;
      this.end();
    }
  }
}

/** Hashes [from, to) in chunks, yielding after each. */
function* hashRange(fd: number, from: number, to: number, hash: crypto.Hash, chunk: number): Generator<void, void> {
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(chunk, to - from)));
  for (let pos = from; pos < to; ) {
    if (pos > from) yield;
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
    if (n === 0) throw new Error('file ended early');
    hash.update(buf.subarray(0, n));
    pos += n;
  }
}

export type { PostingsEntry };
