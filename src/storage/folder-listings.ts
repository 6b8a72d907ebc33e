// Folder listings kept between runs, in the fact cache's file (git's
// "untracked cache"): a warm start does not list a folder again when its
// stat is the one it had when a run listed it. At 100,000 one-session folders
// (the rc.8 layout) that is ~0.5 s of readdir saved; the files are still
// stat'ed one by one (an append changes no folder's mtime).
//
// One line per folder, beside the file entries of the fact cache:
//
//   D"<folder relative to the root, as JSON>"\t[dev,ino,mtimeMs,ctimeMs-mtimeMs,[file names],[indexes of the symlinks],[sub-folder names]]
//
// Trust, as for a file: dev, ino, mtime and ctime (full precision) all the
// same, and the folder's mtime at least RACY_MS older than the start of the
// run that listed it (a name added in the same mtime tick after the listing
// would otherwise go unseen: such a listing is not kept). Only clean listings
// are kept: one that reported a skipped entry (a FIFO, a folder named like a
// session file, an unreadable folder) or holds a name that is not UTF-8 is
// listed again every run, so its diagnostics and real names come back.
import path from 'node:path';
import { fsPath } from './open-file.js';
import type { FolderListing, FolderStat, ListingCache } from './walk.js';

/** The first character of a folder line: a file line starts with the JSON string's quote. */
export const FOLDER_MARK = 'D';

export class FolderListings implements ListingCache {
  /** key ("D" + JSON-encoded relative path) -> its line, from the cache file */
  private loaded = new Map<string, string>();
  /** lines recalled this run, by key */
  private used = new Map<string, string>();
  /** clean listings taken this run, by key */
  private fresh = new Map<string, string>();
  /** keys of every folder asked about this run */
  private visited = new Set<string>();
  hits = 0;

  constructor(
    private readonly root: string,
    /** the start of the run that wrote the cache file (its racy reference) */
    private stamp: number,
    /** the start of this run (the racy reference of what it lists) */
    private readonly startedAt: number,
    private readonly racyMs: number,
  ) {}

  /** The folder lines among the cache file's `lines` (a file entry's line is skipped), written by a run that started at `stamp`. */
  load(lines: readonly string[], stamp: number): void {
    this.stamp = stamp;
    for (const line of lines) {
      if (line[0] !== FOLDER_MARK) continue;
      const tab = line.indexOf('\t');
      if (tab > 1) this.loaded.set(line.slice(0, tab), line);
    }
  }

  get size(): number {
    return this.loaded.size;
  }

  private keyOf(dir: string): string {
    const r = this.root;
    const rel = dir === r ? '' : dir.length > r.length + 1 && dir.startsWith(r) && dir[r.length] === path.sep ? dir.slice(r.length + 1) : dir;
    return FOLDER_MARK + JSON.stringify(rel);
  }

  recall(dir: string, st: FolderStat): FolderListing | undefined {
    const key = this.keyOf(dir);
    this.visited.add(key);
    const line = this.loaded.get(key);
    if (line === undefined) return undefined;
    let listing: FolderListing | undefined;
    try {
      listing = this.decode(dir, line.slice(key.length + 1), st);
    } catch {
      listing = undefined;
    }
    if (listing) {
      this.used.set(key, line);
      this.hits++;
    }
    return listing;
  }

  private decode(dir: string, json: string, st: FolderStat): FolderListing | undefined {
    const a = JSON.parse(json) as unknown;
    if (!Array.isArray(a) || a.length !== 7) return undefined;
    const [dev, ino, mtimeMs, ctimeDelta, names, links, subs] = a as unknown[];
    if (dev !== st.dev || ino !== st.ino || mtimeMs !== st.mtimeMs || ctimeDelta !== st.ctimeMs - st.mtimeMs) return undefined;
    if (!(st.mtimeMs <= this.stamp - this.racyMs)) return undefined;
    if (!isNames(names) || !isNames(subs) || !Array.isArray(links)) return undefined;
    const files = names.map((n) => ({ path: join(dir, n), symlink: false }));
    for (const i of links) {
      if (typeof i !== 'number' || !(i >= 0 && i < files.length)) return undefined;
      files[i].symlink = true;
    }
    return { files, dirs: subs.map((n) => join(dir, n)) };
  }

  remember(dir: string, st: FolderStat, listing: FolderListing): void {
    if (!(st.mtimeMs <= this.startedAt - this.racyMs)) return; // racy: listed again next time
    const key = this.keyOf(dir);
    this.visited.add(key);
    const names: string[] = [];
    const links: number[] = [];
    const subs: string[] = [];
    if (fsPath(dir) !== dir) return; // a name that is not UTF-8 (its real bytes are not kept here)
    for (const f of listing.files) {
      const n = nameIn(dir, f.path);
      if (n === undefined) return;
      if (f.symlink) links.push(names.length);
      names.push(n);
    }
    for (const d of listing.dirs) {
      const n = nameIn(dir, d);
      if (n === undefined) return;
      subs.push(n);
    }
    this.fresh.set(key, `${key}\t${JSON.stringify([st.dev, st.ino, st.mtimeMs, st.ctimeMs - st.mtimeMs, names, links, subs])}`);
  }

  /**
   * The folder lines to write: those recalled or listed cleanly this run,
   * and, when the walk was not complete (or there was none), the loaded ones
   * of folders it did not reach. `changed`: they differ from what was loaded.
   */
  lines(complete: boolean): { lines: string[]; changed: boolean } {
    const out = new Map(this.used);
    for (const [k, line] of this.fresh) out.set(k, line);
    if (!complete || this.visited.size === 0) for (const [k, line] of this.loaded) if (!this.visited.has(k)) out.set(k, line);
    let changed = this.fresh.size > 0 || out.size !== this.loaded.size;
    if (!changed) for (const k of out.keys()) if (!this.loaded.has(k)) changed = true;
    return { lines: [...out.values()], changed };
  }

  /** Drops what was loaded (after the save). */
  release(): void {
    this.loaded = new Map();
    this.used = new Map();
    this.fresh = new Map();
    this.visited = new Set();
  }
}

const isNames = (v: unknown): v is string[] => Array.isArray(v) && v.every((n) => typeof n === 'string' && n !== '' && n !== '.' && n !== '..' && !n.includes(path.sep) && !n.includes('\0'));

/** A display path in `dir`, as readFolder builds it (displayName). */
const join = (dir: string, name: string): string => (dir.endsWith(path.sep) ? dir + name : dir + path.sep + name);

/** The entry's name in `dir` when `p` is one of its entries named in UTF-8, else undefined. */
function nameIn(dir: string, p: string): string | undefined {
  if (fsPath(p) !== p) return undefined;
  const n = p.slice(dir.endsWith(path.sep) ? dir.length : dir.length + 1);
  return join(dir, n) === p && isNames([n]) ? n : undefined;
}
