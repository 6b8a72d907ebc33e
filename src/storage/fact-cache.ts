// The fact cache: what a read of each log found (its reader's state without
// events, or the diagnostics of a file that is not a session), kept between
// runs so a warm start lists every session without opening its log: the
// catalog.
//
// Where: ${XDG_CACHE_HOME:-~/.cache}/dsh-browse/<hash of the root's real path>.facts
// (folder 0700, files 0600), laid out as columns (catalog-file.ts): per file
// its path relative to the root (absolute when outside it), its stat, and
//
// - a session: its header (JSON), its catalog row (catalog-row.ts: the list's
//   facts and verdicts, as numbers and strings) and its reader's snapshot in
//   a compact form (compactSnapshot), parsed only when the session's log
//   state is first needed;
// - a file that is no session: its diagnostics (JSON);
//
// and the folder listings (folder-listings.ts: a warm walk lists only the
// folders that changed). `path` in the head is the root as the run named it:
// a row's verdicts quote file paths, so another name of the same folder
// rebuilds the cache.
//
// Loading it is a few reads: the columns are typed arrays over the file's
// bytes and two texts; a session's header and row are made when its file is
// asked for and its stat still matches.
//
// Trust, as git's index: an entry is used only when the file's dev, ino, size,
// mtime and ctime (full precision) are all the same as when it was read, and
// the file's mtime was at least RACY_MS older than the moment the run that
// read it started (a rewrite within the same mtime tick after the read would
// otherwise go unseen: such an entry is not written at all). Anything else is
// read again. A cache file that is truncated or grown (its sections say so),
// garbage, from another format or package version, or unreadable is ignored
// and rewritten; a folder that cannot be written leaves the run uncached.
// Never an error: at most one quiet note (`note`).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Diagnostic } from '../session/diagnostics.js';
import type { SessionHeader } from '../session/events.js';
import type { Session, ThawingRow } from '../session/session.js';
import { catalogRowOf, rowFromColumns, rowToColumns, type SnapshotSource } from './catalog-rows.js';
import { slicesOf, writeChunksAtomic, writeChunksAtomicAsync, type ChunkSource } from './atomic-lines.js';
import { Catalog, CatalogMismatch, NUM, TRANSIENT, WIDTH, catalogSource, readCatalog, readCatalogFolders, storable, type NewEntry, type WriteEntry } from './catalog-file.js';
import { LogReader, type ReaderSnapshot } from './log-reader.js';
import { FolderListings } from './folder-listings.js';
import { fsPath, readFullyAt } from './open-file.js';
import { thawReader, type FileStat } from './session-file.js';
import { statAheadOf, type AheadStat, type StatAhead } from './stat-ahead.js';

/**
 * Bump when the stored shape, the reader's rules (what a read finds: facts,
 * diagnostics) or LogReader's state change: a cache of another format is
 * ignored. The package version is part of the key too (cacheVersion).
 */
export const CACHE_FORMAT = 8;

/** An entry is trusted only when its file's mtime is this much older than the start of the run that read it. */
export const RACY_MS = 2000;

/** A cache file over this is not read (ignored, then rewritten). */
const MAX_CACHE_BYTES = 1024 * 1024 * 1024;

declare const __VERSION__: string | undefined;

let pkgVersion: string | undefined;
/** The package's version: inlined in the bundle; unbundled, package.json found upward from this module. */
export function packageVersion(): string {
  if (pkgVersion !== undefined) return pkgVersion;
  if (typeof __VERSION__ === 'string') return (pkgVersion = __VERSION__);
  let dir = path.dirname(new URL(import.meta.url).pathname);
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'dsh-session-browser' && typeof pkg.version === 'string') return (pkgVersion = pkg.version);
    } catch {
      // not here
    }
    dir = path.dirname(dir);
  }
  return (pkgVersion = 'unknown');
}

export const cacheVersion = (): string => `${CACHE_FORMAT}/${packageVersion()}`;

/** ${XDG_CACHE_HOME:-~/.cache}/dsh-browse (XDG_CACHE_HOME only when absolute, as the spec says). */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.cache');
  return path.join(base, 'dsh-browse');
}

/** The cache file of a root: named by a hash of its real path. Undefined when the root cannot be resolved. */
export function cacheFileFor(root: string, dir = cacheDir()): string | undefined {
  let real: string;
  try {
    real = fs.realpathSync(root);
  } catch {
    return undefined;
  }
  return path.join(dir, `${crypto.createHash('sha256').update(real).digest('hex').slice(0, 32)}.facts`);
}

/**
 * The folder listings the fact cache of `root` keeps, for a walk that reads
 * no entry (a search): only the catalog's head and last section are read.
 * Empty (every folder listed) when there is no usable catalog; never throws.
 * The caller never saves them: the runs that keep the facts keep these.
 */
export function keptListings(root: string, opts: FactCacheOptions = {}): FolderListings {
  const startedAt = (opts.now ?? Date.now)();
  const listings = new FolderListings(root, -Infinity, startedAt, RACY_MS);
  const file = cacheFileFor(root, opts.dir ?? cacheDir());
  if (!file) return listings;
  let fd: number | undefined;
  try {
    let size: number;
    ({ fd, size } = openCacheFile(file));
    const { stamp, folderLines } = readCatalogFolders(fd, size, catalogWanted(root));
    listings.load(folderLines, stamp);
  } catch {
    // absent, foreign or damaged: the walk lists every folder
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  return listings;
}

/** The cache file open for reading, with its size; throws when it is not a regular file or is over MAX_CACHE_BYTES (closed then). */
function openCacheFile(file: string): { fd: number; size: number } {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > MAX_CACHE_BYTES) throw new Error(`over ${MAX_CACHE_BYTES} bytes`);
    return { fd, size: st.size };
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

/** What a catalog must say it is to be read for `root` (this version, this root by real path and by name). */
const catalogWanted = (root: string) => ({ dshBrowseCache: cacheVersion(), root: safeRealpath(root), path: root });

/** kind of a cached entry */
const SESSION = 0;
const REFUSED = 1;

/** A trusted entry: the file's stat now, and what its read found. */
export interface CacheHit {
  stat: Required<FileStat>;
  pending: number;
  /** a session file: its header and row, and where its reader is rebuilt from on demand */
  session?: { header: SessionHeader; row: ThawingRow };
  /** a file that is not a session: its diagnostics */
  refused?: Diagnostic[];
}

/** What save() needs to know of one indexed file. */
export interface CacheSource {
  stat: FileStat;
  pending: number;
  older?: true;
  refused?: Diagnostic[];
  /** its session, read whole from its file (undefined: not a session, or one this process wrote) */
  session?: Session;
}

export interface FactCacheOptions {
  /** the cache folder (default cacheDir()) */
  dir?: string;
  /** the clock (tests) */
  now?: () => number;
  /** take the lookups' stats on a worker thread when the cache holds at least this many entries (default: stat-ahead.ts's STAT_AHEAD_MIN) */
  statAheadMin?: number;
}

export class FactCache {
  /** the cache file (undefined: the root has no real path; nothing is cached) */
  readonly file?: string;
  readonly dir: string;
  /** one quiet note: why the cache was not used or not written (for --help-level diagnosis, never an error) */
  note?: string;
  /** the catalog as loaded (its columns, until release) */
  private cat?: Catalog;
  /** its file, open: a catalog session's snapshot is read from it when first needed (a handle of its own, so a session keeps no column alive) */
  private source?: SnapshotSource;
  /** the entries used this run (the stat each was served for is its own: compared again at save) */
  private used = new Uint8Array(0);
  /** the cache file was absent, unreadable or stale: write it even when nothing was read */
  private invalid = false;
  /** when this run started reading (the racy rule's reference) */
  readonly startedAt: number;
  /** the folder listings kept in the cache file: the walk asks them before listing a folder */
  readonly listings: FolderListings;

  constructor(
    readonly root: string,
    opts: FactCacheOptions = {},
  ) {
    this.dir = opts.dir ?? cacheDir();
    this.statAheadMin = opts.statAheadMin;
    this.startedAt = (opts.now ?? Date.now)();
    this.file = cacheFileFor(root, this.dir);
    this.listings = new FolderListings(root, -Infinity, this.startedAt, RACY_MS);
    this.load();
  }

  private load(): void {
    if (!this.file) return;
    let fd: number | undefined;
    let cat: Catalog;
    try {
      let size: number;
      ({ fd, size } = openCacheFile(this.file));
      cat = readCatalog(fd, size, catalogWanted(this.root));
    } catch (e) {
      if (fd !== undefined) fs.closeSync(fd);
      this.invalid = true;
      if (e instanceof CatalogMismatch) this.note = e.version !== undefined ? `cache ${this.file} is from another version (${e.version}): rebuilt` : `cache ${this.file} is damaged: rebuilt`;
      else if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.note = `cache ${this.file} not read (${(e as Error).message}): rebuilt`;
      return;
    }
    this.cat = cat;
    this.stamp = cat.stamp;
    this.used = new Uint8Array(cat.size);
    this.source = snapshotSource(openCatalog(fd));
    this.listings.load(cat.folderLines, cat.stamp);
  }
  /** the start of the run that wrote the cache file */
  private stamp = -Infinity;
  private readonly statAheadMin: number | undefined;

  /**
   * `files` with their stats taken ahead on a worker thread, for lookups in
   * their order (lookup(file, ahead)), when this cache is large enough for
   * that to pay: a warm start of 100,000 logs spends more of its main thread
   * on those stats than on anything else. Undefined: look them up as they are.
   */
  statAhead(files: Iterable<string>): StatAhead | undefined {
    return statAheadOf(files, this.size, this.statAheadMin);
  }

  /** An entry's key: its path relative to the root (absolute when outside it). */
  private keyOf(file: string): string {
    const r = this.root;
    return file.length > r.length + 1 && file.startsWith(r) && file[r.length] === path.sep ? file.slice(r.length + 1) : file;
  }

  /** how many files came from the cache this run, of how many asked for */
  hits = 0;
  private lookups = 0;

  /** How many entries the cache file held. */
  get size(): number {
    return this.cat?.size ?? 0;
  }

  /**
   * The cached read of `file` when every key still matches (and the entry is
   * not racy), or undefined: read the file. Costs a stat when there is an
   * entry (the one `ahead` took, when it has it).
   */
  lookup(file: string, ahead?: StatAhead): CacheHit | undefined {
    this.lookups++;
    const cat = this.cat;
    const slot = cat?.slotOf(this.keyOf(file));
    if (slot === undefined) return undefined;
    const st = ahead?.take(file) ?? statOf(file);
    if (!st || !st.isFile) return undefined;
    let hit: CacheHit | undefined;
    try {
      hit = decode(file, cat!, slot, st, this.stamp, this.source!);
    } catch {
      hit = undefined;
    }
    if (hit) {
      this.used[slot] = 1;
      this.hits++;
    }
    return hit;
  }

  /**
   * Rewrites the cache file from what the index holds, when it differs from
   * what was loaded (something was read, or a cached file is gone). Atomic:
   * a temp file in the same folder, fsync, rename. `complete`: every file of
   * the root was looked at (otherwise entries not looked at are kept).
   * Returns true when the file was written. Never throws.
   */
  save(files: Iterable<[string, CacheSource]>, complete = true): boolean {
    const src = this.plan(files, complete);
    if (!src) return false;
    try {
      return writeChunksAtomic(this.dir, this.file!, src, slicesOf(2048));
    } catch (e) {
      this.note = `cache not written to ${this.dir} (${(e as Error).message})`;
      return false;
    }
  }

  /**
   * save() in slices of `budgetMs` with the loop free in between (the TUI:
   * encoding 30,000 entries at once is ~300 ms), each slice written as it is
   * encoded, with asynchronous I/O (fsync off the loop). Never rejects.
   */
  async saveAsync(files: Iterable<[string, CacheSource]>, complete = true, budgetMs = 8): Promise<boolean> {
    const src = this.plan(files, complete);
    if (!src) return false;
    try {
      return await writeChunksAtomicAsync(this.dir, this.file!, src, budgetMs);
    } catch (e) {
      this.note = `cache not written to ${this.dir} (${(e as Error).message})`;
      return false;
    }
  }

  /**
   * The file to write, its entries encoded as they are taken (an unchanged
   * one copied from the loaded catalog); undefined when nothing changed (or
   * there is no cache file). Its head() is undefined when the entries turned
   * out the same as the file's.
   */
  private plan(files: Iterable<[string, CacheSource]>, complete: boolean): ChunkSource | undefined {
    if (!this.file) return undefined;
    const folders = this.listings.lines(complete);
    // every file asked for came from the cache, every entry was used, and the folders too: the file would be the same
    if (this.lookups === this.hits && this.hits === this.size && !this.invalid && !folders.changed) return undefined;
    let fresh = 0;
    let kept = 0;
    const cat = this.cat;
    const seen = complete || !cat ? undefined : new Uint8Array(cat.size);
    const entries = function* (this: FactCache): Generator<WriteEntry> {
      for (const [file, src] of files) {
        if (src.older) continue;
        const key = this.keyOf(file);
        const slot = cat?.slotOf(key);
        if (slot !== undefined && seen) seen[slot] = 1;
        if (slot !== undefined && this.used[slot] === 1 && entryHasStat(cat!, slot, src.stat)) {
          kept++;
          yield { from: cat!, slot };
        } else {
          const e = encode(file, key, src, this.startedAt);
          if (e !== undefined) {
            fresh++;
            yield e;
          }
        }
      }
      if (seen)
        for (let slot = 0; slot < seen.length; slot++)
          if (seen[slot] === 0) {
            kept++;
            yield { from: cat!, slot };
          }
    }.call(this);
    const src = catalogSource({ ...catalogWanted(this.root), stamp: this.startedAt }, entries, () => folders.lines);
    return {
      headRoom: src.headRoom,
      next: (full) => src.next(full),
      head: () => (fresh === 0 && kept === this.size && !this.invalid && !folders.changed ? undefined : src.head()),
    };
  }

  /** Drops what was loaded (after the save: the rest of the run does not need it). */
  release(): void {
    this.cat = undefined;
    this.used = new Uint8Array(0);
    this.source = undefined; // (its file closed once no catalog session needs it)
    this.listings.release();
  }
}

export function safeRealpath(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The cache file a run loaded, kept open while any session listed from it
 * has not read its snapshot yet: the file may be replaced meanwhile (the save
 * renames a new one over it), the open file stays the one loaded. Closed when
 * nothing refers to it any more.
 */
interface OpenCatalog {
  fd: number;
}

const closeWhenUnused = new FinalizationRegistry<number>((fd) => {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
});

function openCatalog(fd: number): OpenCatalog {
  const c = { fd };
  closeWhenUnused.register(c, fd);
  return c;
}

/** `length` bytes at `offset` of the open catalog, as text. */
function readAt(c: OpenCatalog, offset: number, length: number): string {
  const buf = Buffer.allocUnsafe(length);
  return buf.toString('utf8', 0, readFullyAt(c.fd, buf, offset));
}

/** The reader whose snapshot is at [from, from + length) of the open catalog; undefined when it does not read back. */
function restoreAt(file: string, header: SessionHeader, opened: OpenCatalog, from: number, length: number): LogReader | undefined {
  try {
    const snap = snapshotFrom(JSON.parse(readAt(opened, from, length)) as unknown, header);
    if (!snap) return undefined;
    if (snap.diagnostics.length) snap.diagnostics = snap.diagnostics.map((d) => diagnosticFrom(file, d));
    return LogReader.restore(file, snap);
  } catch {
    return undefined;
  }
}

/** The open catalog as its rows' snapshot source: a reader rebuilt from its snapshot, or from the log when it does not read back. */
function snapshotSource(opened: OpenCatalog): SnapshotSource {
  return { restore: (file, header, at, length) => thawReader(file, restoreAt(file, header, opened, at, length)) };
}

/** `file`'s stat as lookup compares it, or undefined when there is none (or it failed). */
function statOf(file: string): AheadStat | undefined {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(fsPath(file), { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  return st && { isFile: st.isFile(), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, dev: st.dev, ctimeMs: st.ctimeMs };
}

/** Entry `slot` was read from a file whose stat is `st` (the five numbers the trust rule compares). */
function entryHasStat(cat: Catalog, slot: number, st: FileStat): boolean {
  if (st.dev === undefined || st.ctimeMs === undefined) return false;
  const v = cat.nums;
  const b = slot * WIDTH;
  return v[b + NUM.dev] === st.dev && v[b + NUM.ino] === st.ino && v[b + NUM.size] === st.size && v[b + NUM.mtimeMs] === st.mtimeMs && v[b + NUM.ctimeDelta] === st.ctimeMs - st.mtimeMs;
}

/** Entry `slot` of the catalog when the file `st` still matches it. */
function decode(file: string, cat: Catalog, slot: number, st: AheadStat, stamp: number, source: SnapshotSource): CacheHit | undefined {
  if (!entryHasStat(cat, slot, st)) return undefined;
  // racy: written by a run that started less than RACY_MS after the file's last change
  if (!(st.mtimeMs <= stamp - RACY_MS)) return undefined;
  const v = cat.nums;
  const b = slot * WIDTH;
  const pending = v[b + NUM.pending];
  if (!isNum(pending) || pending < 0) return undefined;
  const stat = { size: st.size, ino: st.ino, mtimeMs: st.mtimeMs, dev: st.dev, ctimeMs: st.ctimeMs };
  const kind = v[b + NUM.kind];
  const payload = JSON.parse(cat.transient(slot, TRANSIENT.head)) as unknown;
  if (kind === REFUSED) {
    if (!Array.isArray(payload) || payload.length === 0) return undefined;
    return { stat, pending, refused: payload.map((d) => diagnosticFrom(file, d)) };
  }
  if (kind !== SESSION || !isObj(payload) || typeof payload.id !== 'string' || !isNum(payload.version)) return undefined;
  const snapLen = v[b + NUM.snapLen];
  if (!(snapLen > 0)) return undefined;
  const row = rowFromColumns(cat, slot, source, cat.snapBase + v[b + NUM.snapAt], snapLen);
  if (!row) return undefined;
  return { stat, pending, session: { header: payload as unknown as SessionHeader, row } };
}

// ---- the compact form of a reader's snapshot ------------------------------------
//
// [header, facts, diagnostics, consumed, headerEnd, firstAnomaly, lines, nextSeq, audit, rest?]
// with the facts' keys shortened (FACT_SHORT; a key missing from the table is
// kept whole, so a new LogFacts field costs bytes, never correctness) and the
// rare fields (refused, skipFrom, scanned, gaveUp, unlisted, unknownTypes) in `rest`;
// `audit` is the audit's fold (event-audit.ts auditToJson: mostly a small number).

const FACT_SHORT: Record<string, string> = {
  events: 'e',
  turns: 't',
  openTurn: 'o',
  sawTurnEnd: 's',
  lastEventType: 'y',
  lastEventTime: 'm',
  lastReason: 'r',
  turnStarts: 'ts',
  validLength: 'v',
  endsAtBoundary: 'b',
  boundaries: 'bs',
  title: 'ti',
  seedFrom: 'sf',
  seedMarker: 'sm',
  unresolvedCallSeq: 'u',
  unknownEventLine: 'ue',
  rowRefusal: 'rr',
  stepHead: 'sh',
  migration: 'mg',
  forkCut: 'fc',
  strayInheritedMarker: 'si',
  titleInherited: 'tin',
  titleSeq: 'tq',
  pendingCalls: 'p',
  usage: 'us',
  rc8Rule: 'r8',
  rc8Vocabulary: 'rv',
  sessionTitle: 'st',
  damagedBeforeTurnEnd: 'd',
};
// no prototype: a key like "constructor" is no entry of either table
Object.setPrototypeOf(FACT_SHORT, null);
const FACT_LONG: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, Object.fromEntries(Object.entries(FACT_SHORT).map(([k, v]) => [v, k])));

/** The short key table (tests check that no fact's own name is a short key). */
export const factShortKeys = (): readonly string[] => Object.values(FACT_SHORT);

// openTurn's null (between turns: nearly every entry) is stored as "": a "null" in
// an entry then means a non-finite number to look for (encode), which is rare
function compactFacts(f: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in f) {
    const v = (f as Record<string, unknown>)[k];
    out[FACT_SHORT[k] ?? k] = k === 'openTurn' && v === null ? '' : v;
  }
  return out;
}

function factsFrom(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in o) {
    if (k === '__proto__') continue;
    const long = FACT_LONG[k] ?? k;
    out[long] = long === 'openTurn' && o[k] === '' ? null : o[k];
  }
  return out;
}

const RARE = ['refused', 'skipFrom', 'scanned', 'gaveUp', 'unlisted', 'unknownTypes'] as const;

function compactSnapshot(file: string, s: ReaderSnapshot): unknown[] {
  // (the header is the entry's own: not stored twice)
  const out: unknown[] = [0, compactFacts(s.facts), s.diagnostics.map((d) => withoutFile(file, d)), s.consumed, s.headerEnd, s.firstAnomaly, s.lines, s.nextSeq, s.audit ?? -1];
  let rest: Record<string, unknown> | undefined;
  for (const k of RARE) if (s[k] !== undefined) (rest ??= {})[k] = s[k];
  if (rest) out.push(rest);
  return out;
}

function snapshotFrom(p: unknown, header: SessionHeader): ReaderSnapshot | undefined {
  if (!Array.isArray(p) || p.length < 9 || p.length > 10) return undefined;
  const [, facts, diagnostics, consumed, headerEnd, firstAnomaly, lines, nextSeq, audit, rest] = p as unknown[];
  if (!isObj(facts)) return undefined;
  const f = factsFrom(facts);
  if (!isNum(f.events) || !isNum(f.turns) || !Array.isArray(f.turnStarts) || !Array.isArray(f.boundaries) || !isObj(f.usage)) return undefined;
  if (!Array.isArray(diagnostics) || !isNum(consumed) || !isNum(headerEnd) || !isNum(firstAnomaly) || !isNum(lines) || !isNum(nextSeq)) return undefined;
  const snap = { header, facts: f, diagnostics, consumed, headerEnd, firstAnomaly, lines, nextSeq, audit } as unknown as ReaderSnapshot;
  if (rest !== undefined) {
    if (!isObj(rest)) return undefined;
    for (const k of RARE) if (rest[k] !== undefined) (snap as unknown as Record<string, unknown>)[k] = rest[k];
    if (snap.refused !== undefined) return undefined; // a refused file is never a session entry
  }
  return snap;
}

/** A stored diagnostic: its file is left out when it is the entry's own. */
function diagnosticFrom(file: string, d: unknown): Diagnostic {
  if (!isObj(d) || typeof d.code !== 'string' || typeof d.message !== 'string' || (d.severity !== 'error' && d.severity !== 'warning')) throw new Error('bad diagnostic');
  return d.file === undefined ? ({ file, ...d } as unknown as Diagnostic) : (d as unknown as Diagnostic);
}

function encode(file: string, key: string, src: CacheSource, startedAt: number): NewEntry | undefined {
  const s = src.stat;
  if (s.dev === undefined || s.ctimeMs === undefined) return undefined; // not from a full read (a live append, a failure)
  if (!(s.mtimeMs <= startedAt - RACY_MS)) return undefined; // racy: read again next time
  if (!storable(key)) return undefined;
  const nums = new Float64Array(WIDTH).fill(NaN);
  nums[NUM.dev] = s.dev;
  nums[NUM.ino] = s.ino;
  nums[NUM.size] = s.size;
  nums[NUM.mtimeMs] = s.mtimeMs;
  nums[NUM.ctimeDelta] = s.ctimeMs - s.mtimeMs;
  nums[NUM.pending] = src.pending;
  nums[NUM.present] = 0;
  const kept = ['', '', '', ''];
  let payload: unknown;
  let snapshot: unknown[] | undefined;
  let structure = '';
  if (src.refused) {
    nums[NUM.kind] = REFUSED;
    payload = src.refused.map((d) => withoutFile(file, d));
  } else if (src.session) {
    const reader = src.session.log;
    if (!(reader instanceof LogReader) || !reader.header || reader.refused !== undefined) return undefined;
    nums[NUM.kind] = SESSION;
    payload = reader.header;
    const row = catalogRowOf(src.session);
    const stored = rowToColumns(row, nums, kept);
    if (stored === undefined) return undefined; // a string UTF-8 would change, a number NaN stands in for
    structure = stored;
    snapshot = compactSnapshot(file, reader.snapshot());
  } else return undefined;
  const head = JSON.stringify(payload);
  const tail = snapshot === undefined ? undefined : JSON.stringify(snapshot);
  // JSON has no Infinity or NaN (a log's 1e999 parses to Infinity): such an entry would come back different
  if ((head.includes('null') || tail?.includes('null')) && (hasNonFinite(payload) || hasNonFinite(snapshot))) return undefined;
  return { nums, kept, transient: [key, head, structure], snapshot: tail };
}

function withoutFile(file: string, d: Diagnostic): object {
  if (d.file !== file) return d;
  const { file: _f, ...rest } = d;
  return rest;
}

function hasNonFinite(v: unknown): boolean {
  if (typeof v === 'number') return !Number.isFinite(v);
  if (Array.isArray(v)) return v.some(hasNonFinite);
  if (isObj(v)) {
    for (const k in v) if (hasNonFinite(v[k])) return true;
  }
  return false;
}

/** `dsh-browse cache`: the folder, and how many files and bytes it holds. */
export function cacheUsage(dir = cacheDir()): { dir: string; files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  try {
    for (const name of fs.readdirSync(dir)) {
      const st = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false });
      if (st?.isFile()) {
        files++;
        bytes += st.size;
      }
    }
  } catch {
    // no folder yet
  }
  return { dir, files, bytes };
}

/** `dsh-browse cache --clear`: removes the files of the cache folder (the folder stays). Returns how many. */
export function clearCache(dir = cacheDir()): number {
  let n = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) {
      fs.unlinkSync(p);
      n++;
    }
  }
  return n;
}
