// Loads a root directory (all three layouts) into a SessionStore. One bad
// file never fails the load: it becomes diagnostics and the rest loads.
import fs from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../session/diagnostics.js';
import type { LoadProgress } from '../session/session.js';
import { Session } from '../session/session.js';
import { SessionStore } from '../session/store.js';
import { DiskPersistence } from './disk-persistence.js';
import { FactCache, type CacheHit, type CacheSource, type FactCacheOptions } from './fact-cache.js';
import { logLoader, sessionFromRead, startReadLog, type FileStat } from './session-file.js';
import type { ScanProgress } from './scan.js';
import type { StatAhead } from './stat-ahead.js';
import { iterateSessionFiles, listSessionFiles, probe, type Skip } from './walk.js';
import { currentGeneration, forgetGeneration, knowsGeneration, registerGeneration, siblingGenerations, type GenerationMap } from './generations.js';
import { NotAFileError, errorText } from './open-file.js';
import { zstdFor } from './zstd-codecs.js';
import { NumberedMap } from '../session/key-table.js';

export interface FileEntry extends FileStat {
  /** bytes after the last complete line */
  pending: number;
  /** diagnostics of a file that is not a session (refused) */
  refused?: Diagnostic[];
  /** an older generation of the session whose current file is beside it: listed, never read */
  older?: true;
}

/**
 * An index entry, always built here with the same fields in the same order:
 * spread or Object.assign gave each of 100,000 entries its own hidden class
 * (~150 bytes a session).
 */
export function fileEntry(st: FileStat, pending: number, refused?: Diagnostic[], older?: true): FileEntry {
  return new IndexEntry(st, pending, refused, older);
}

/** `n` as V8's small integer when it is one (a Stats field is a boxed double, 416.0 included) */
const small = (n: number): number => (Number.isInteger(n) && n >= 0 && n <= 0x3fffffff ? n | 0 : n);

/**
 * A class whose number fields are declared without a value (so each starts
 * undefined): V8 then stores a small integer (size, ino, dev, pending) in the
 * object itself. Built as a literal of numbers from a Stats object, every
 * field was a boxed number of its own (16 bytes each, 0 included: ~100 bytes
 * a file). A Stats number is a boxed one even when it is a small integer:
 * small() makes it a plain one. The two rare fields live on the prototype
 * until set.
 */
class IndexEntry implements FileEntry {
  size: number;
  ino: number;
  mtimeMs: number;
  dev: number | undefined;
  ctimeMs: number | undefined;
  pending: number;
  declare refused?: Diagnostic[];
  declare older?: true;
  constructor(st: FileStat, pending: number, refused: Diagnostic[] | undefined, older: true | undefined) {
    this.size = small(st.size);
    this.ino = small(st.ino);
    this.mtimeMs = st.mtimeMs;
    this.dev = st.dev === undefined ? undefined : small(st.dev);
    this.ctimeMs = st.ctimeMs;
    this.pending = small(pending);
    if (refused !== undefined) this.refused = refused;
    if (older !== undefined) this.older = older;
  }
}

export interface RootIndex {
  root: string;
  store: SessionStore;
  files: Map<string, FileEntry>;
  /**
   * Every folder of the root as the first scan listed it, with its mtime
   * before the listing (NaN: listed too close to a change). Set once a full
   * scan finished; the follower hands it to the watcher, which then looks at
   * each folder's mtime instead of listing the tree again.
   */
  folders?: Map<string, number>;
  /**
   * Entries skipped while listing, one diagnostic each: FIFOs, sockets and
   * devices named like session files, symlink loops, folders named *.jsonl,
   * folders that cannot be listed, paths over the length limit.
   */
  skipped: Map<string, Diagnostic>;
  /** the generation files of each session folder (generations.ts): only the highest is a session */
  generations: GenerationMap;
  /** background work, for a status line: the initial scan, then live following */
  scan?: ScanProgress;
  live?: { mode: 'watch' | 'poll'; message?: string };
  /** the fact cache while the first load or scan runs (detached once saved) */
  cache?: FactCache;
  /** the cache's one quiet note, if it could not be read or written */
  cacheNote?: string;
  /** once saved: files that came from the cache, entries it held, whether it was rewritten, folder listings reused */
  cacheStats?: { hits: number; entries: number; wrote: boolean; folders: number };
}

export { listSessionFiles };

export function newRootIndex(root: string): RootIndex {
  const abs = path.resolve(root);
  const store = new SessionStore(new DiskPersistence(abs));
  return { root: abs, store, files: new FileIndex(store.keys), skipped: new Map(), generations: new Map() };
}

/**
 * The index's files, with the count of their refusal diagnostics kept as
 * entries come and go: the title bar's count reads it on every frame, and a
 * pass over 100,000 entries for it was a few ms of each.
 */
export class FileIndex extends NumberedMap<FileEntry> {
  refusedCount = 0;
  /**
   * the files with refusal diagnostics, and how many each (few: asked
   * instead of the whole index on each set, a lookup in a map of 100,000
   * per file of a warm start)
   */
  private readonly refused = new Map<string, number>();

  override set(file: string, entry: FileEntry): this {
    const now = entry.refused?.length ?? 0;
    const before = this.refused.get(file) ?? 0;
    if (now !== before) {
      this.refusedCount += now - before;
      if (now > 0) this.refused.set(file, now);
      else this.refused.delete(file);
    }
    return super.set(file, entry);
  }

  override delete(file: string): boolean {
    this.refusedCount -= this.refused.get(file) ?? 0;
    this.refused.delete(file);
    return super.delete(file);
  }

  override clear(): void {
    this.refusedCount = 0;
    this.refused.clear();
    super.clear();
  }
}

/** Records a skipped entry in the index (one diagnostic per path). */
export function recordSkip(index: RootIndex, s: Skip): void {
  index.skipped.set(s.file, { file: s.file, severity: s.severity, code: s.code, message: s.message });
}

/** Reads one file into the index (new or re-read). Throws on I/O errors; see indexFileSafe. */
export function indexFile(index: RootIndex, file: string): void {
  const step = startIndexFile(index, file);
  while (step && !step()) {
    /* runs to the end */
  }
}

/**
 * indexFile in steps, for a scan that must keep the UI responsive: returns
 * undefined when the file is indexed, or a function that continues the work
 * (true when done) after pause() asked to stop (a multi-GB over-long line).
 */
export type IndexStep = (() => boolean) & { cancel?(): void; /** how much of the file is read */ progress?(): LoadProgress };

/** A newer generation supersedes the ones beside it (they leave the store, listed as older). `current`: registerGeneration's answer. */
function supersede(index: RootIndex, file: string, current: string | undefined): void {
  if (current !== undefined) for (const other of siblingGenerations(index.generations, file)) listOlderGeneration(index, other);
}

function startIndexFile(index: RootIndex, file: string, pause?: () => boolean, ahead?: StatAhead): IndexStep | undefined {
  if (index.skipped.size > 0) index.skipped.delete(file);
  const current = registerGeneration(index.generations, file);
  if (current !== undefined && current !== file) {
    listOlderGeneration(index, file);
    return undefined;
  }
  // a file unchanged since a run that read it: its facts from the cache, the log not opened
  // (no closure made before this: a warm start takes this way 100,000 times)
  const hit = index.cache?.lookup(file, ahead);
  if (hit && addRead(index, file, hit)) {
    supersede(index, file, current);
    return undefined;
  }
  // (paused between 1 MB chunks too: a 10 GB log's first scan leaves the loop free for keys)
  const r = startReadLog(file, false, undefined, 'read');
  const finish = () => {
    const read = r.result();
    const { session, diagnostics } = sessionFromRead(file, read);
    index.files.set(file, fileEntry(read.stat, read.pending, session ? undefined : diagnostics));
    if (session) index.store.add(session);
    supersede(index, file, current);
  };
  if (r.step(pause)) {
    finish();
    return undefined;
  }
  return Object.assign(
    () => {
      if (!r.step(pause)) return false;
      finish();
      return true;
    },
    {
      cancel: r.close,
      progress: r.progress,
    },
  );
}

/** A cached read into the index (the entry object is the hit's stat: the cache knows it unchanged by that). False when unusable. */
function addRead(index: RootIndex, file: string, hit: CacheHit): boolean {
  if (hit.refused) {
    index.files.set(file, fileEntry(hit.stat, hit.pending, hit.refused));
    return true;
  }
  const c = hit.session!;
  index.files.set(file, fileEntry(hit.stat, hit.pending));
  index.store.add(Session.fromCatalog(c.header, file, c.row, logLoader));
  return true;
}

/** Lists `file` as an older generation: out of the store, its stat kept (so the watcher knows it), never read. */
function listOlderGeneration(index: RootIndex, file: string): void {
  const s = index.store.byFile(file);
  if (s) index.store.remove(s);
  const e = probe(file);
  const st = e?.kind === 'file' ? e.st : { size: 0, ino: 0, mtimeMs: 0 };
  index.files.set(file, fileEntry(st, 0, undefined, true));
}

/**
 * A generation file was deleted: forget it, and when it was the current one,
 * the next highest becomes the session (read now). Returns that file, if any.
 */
export function dropGeneration(index: RootIndex, file: string): string | undefined {
  if (!knowsGeneration(index.generations, file)) return undefined;
  const wasCurrent = currentGeneration(index.generations, path.dirname(file)) === file;
  const next = forgetGeneration(index.generations, file);
  if (!wasCurrent || next === undefined) return undefined;
  indexFileSafe(index, next);
  return next;
}

/** The older generations beside a session's current file, highest first. */
export const olderGenerations = (index: RootIndex, file: string | undefined): string[] => (file ? siblingGenerations(index.generations, file) : []);

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * STALE_GENERATION: the current (highest) generation of `file`'s folder is
 * older by mtime and shorter than a lower generation beside it. The harness
 * opens the highest one and never falls back (session-persistence-jsonl), so
 * the newer work in the lower one is not what it resumes: a real store held a
 * v3 file of 332 lines beside a v0 file of 34,468 lines written five days later.
 */
export function staleGeneration(index: RootIndex, file: string): Diagnostic | undefined {
  const cur = index.files.get(file);
  if (cur === undefined) return undefined;
  for (const older of olderGenerations(index, file)) {
    const o = index.files.get(older);
    if (o === undefined || !(o.mtimeMs > cur.mtimeMs && o.size > cur.size)) continue;
    const name = path.basename(file);
    return {
      file,
      severity: 'warning',
      code: 'STALE_GENERATION',
      message: `${name} (${day(cur.mtimeMs)}, ${cur.size} bytes) is older and shorter than ${path.basename(older)} beside it (${day(o.mtimeMs)}, ${o.size} bytes): the harness opens the highest generation, ${name}, and never the later work in the other`,
    };
  }
  return undefined;
}

/** Every session's STALE_GENERATION warning (staleGeneration): only folders with several generations are looked at. */
export function generationDiagnostics(index: RootIndex): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [dir, gens] of index.generations) {
    if (typeof gens === 'string') continue;
    const current = currentGeneration(index.generations, dir);
    const d = current === undefined ? undefined : staleGeneration(index, current);
    if (d) out.push(d);
  }
  return out;
}

/** indexFile, with an unreadable file (permissions, vanished, not a regular file) recorded as a diagnostic. */
export function indexFileSafe(index: RootIndex, file: string, ahead?: StatAhead): void {
  indexFileStepped(index, file, undefined, ahead)?.();
}

/**
 * indexFileSafe in steps (see startIndexFile): undefined when done, or a
 * function to call again until it returns true. Never throws.
 */
export function indexFileStepped(index: RootIndex, file: string, pause?: () => boolean, ahead?: StatAhead): IndexStep | undefined {
  let step: IndexStep | undefined;
  try {
    step = startIndexFile(index, file, pause, ahead);
  } catch (e) {
    failed(index, file, e);
    return undefined;
  }
  if (!step) return undefined;
  const s = step;
  const run = () => {
    try {
      return s();
    } catch (e) {
      failed(index, file, e);
      return true;
    }
  };
  return Object.assign(run, { cancel: s.cancel, progress: s.progress });
}

/** A file that could not be read, in the index with the reason. */
function failed(index: RootIndex, file: string, e: unknown): void {
  index.files.set(file, fileEntry({ size: 0, ino: 0, mtimeMs: 0 }, 0, [readFailure(file, e)]));
}

/** The diagnostic for a file that could not be read: what it is and why. */
export function readFailure(file: string, e: unknown): Diagnostic {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (e instanceof NotAFileError) return { file, severity: 'error', code: 'NOT_A_FILE', message: e.message };
  if (code === 'ELOOP') return { file, severity: 'error', code: 'SYMLINK_LOOP', message: 'symbolic link loop: not read' };
  if (code === 'ENAMETOOLONG') return { file, severity: 'error', code: 'PATH_TOO_LONG', message: 'path is over the system length limit: not read' };
  return { file, severity: 'error', code: 'READ_FAILED', message: errorText(e) };
}

/** Diagnostics that are not a session's own: skipped entries and refused files. */
export function fileDiagnosticCount(index: RootIndex): number {
  if (index.files instanceof FileIndex) return index.skipped.size + index.files.refusedCount;
  let n = index.skipped.size;
  for (const f of index.files.values()) n += f.refused?.length ?? 0;
  return n;
}

/** All diagnostics: refused files and every session's own. */
export function allDiagnostics(index: RootIndex): Diagnostic[] {
  const out: Diagnostic[] = [...index.skipped.values(), ...generationDiagnostics(index)];
  for (const f of index.files.values()) if (f.refused) out.push(...f.refused);
  for (const s of index.store.list()) out.push(...s.diagnostics);
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0)));
}

export interface LoadOptions {
  /** use the fact cache (fact-cache.ts): read it, and rewrite it when something was read (default false; the CLI passes true unless --no-cache) */
  cache?: boolean | FactCacheOptions;
}

export function loadRootSync(root: string, opts: LoadOptions = {}): RootIndex {
  const { index, files } = walkRoot(root, opts);
  readRoot(index, files);
  return index;
}

/** loadRootSync, with the WebAssembly zstd loaded first when the root holds a compressed log (zstd-codecs.ts). */
export async function loadRoot(root: string, opts: LoadOptions = {}): Promise<RootIndex> {
  const { index, files } = walkRoot(root, opts);
  await zstdFor(files);
  readRoot(index, files);
  return index;
}

/** A new index of `root` with its cache attached, and the root's session files in path order. */
function walkRoot(root: string, opts: LoadOptions): { index: RootIndex; files: string[] } {
  const index = newRootIndex(root);
  if (!fs.statSync(index.root).isDirectory()) throw new Error(`${root} is not a directory`);
  if (opts.cache) attachCache(index, opts.cache === true ? {} : opts.cache);
  // the walk of listSessionFiles, with the cache's folder listings (an unchanged folder is not listed again)
  const files = [...iterateSessionFiles(index.root, (s) => recordSkip(index, s), undefined, index.cache?.listings)].sort();
  return { index, files };
}

/** Reads `files` into the index (from its cache where unchanged), then saves the cache. */
function readRoot(index: RootIndex, files: string[]): void {
  const ahead = index.cache?.statAhead(files);
  try {
    for (const f of ahead?.files() ?? files) indexFileSafe(index, f, ahead);
  } finally {
    ahead?.close();
  }
  saveCache(index, true);
}

/** Gives the index a fact cache: later reads of unchanged files come from it. */
export function attachCache(index: RootIndex, opts: FactCacheOptions = {}): FactCache {
  index.cache = new FactCache(index.root, opts);
  return index.cache;
}

/** What the fact cache stores of each indexed file. */
export function* cacheSources(index: RootIndex): Generator<[string, CacheSource]> {
  for (const [file, e] of index.files) {
    const s = e.refused || e.older ? undefined : index.store.byFile(file);
    // (a partial session's reader holds its head's facts only: never kept)
    yield [file, { stat: e, pending: e.pending, older: e.older, refused: e.refused, session: s && !s.partial ? s : undefined }];
  }
}

/**
 * Rewrites the index's fact cache when this run read something new (once:
 * the cache is detached after). `complete`: every file of the root was
 * indexed. Never throws.
 */
export function saveCache(index: RootIndex, complete: boolean): boolean {
  const c = index.cache;
  if (!c) return false;
  index.cache = undefined;
  let wrote = false;
  try {
    wrote = c.save(cacheSources(index), complete);
  } catch (e) {
    c.note = `cache not written (${(e as Error).message})`;
  }
  return savedCache(index, c, wrote);
}

/** saveCache in slices with the loop free in between (the TUI's scan). Never rejects. */
export async function saveCacheAsync(index: RootIndex, complete: boolean): Promise<boolean> {
  const c = index.cache;
  if (!c) return false;
  index.cache = undefined;
  let wrote = false;
  try {
    wrote = await c.saveAsync(cacheSources(index), complete);
  } catch (e) {
    c.note = `cache not written (${(e as Error).message})`;
  }
  return savedCache(index, c, wrote);
}

function savedCache(index: RootIndex, c: FactCache, wrote: boolean): boolean {
  index.cacheNote = c.note;
  index.cacheStats = { hits: c.hits, entries: c.size, wrote, folders: c.listings.hits };
  c.release();
  return wrote;
}
