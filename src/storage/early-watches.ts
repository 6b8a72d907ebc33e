// Watches taken while the first scan walks the root, before it reads a
// folder's files, and handed to the live watcher when it starts.
//
// Why: the watcher's first comparison used to stat every known file again
// (100,000 lstat calls, ~0.5-0.9 s of a start at 100,000 sessions), because a
// file could change between the scan's read and the watcher's first watch,
// and no event would say so. A folder watched before the scan listed it and
// read its files has no such gap: whatever changes after the watch is an
// event, kept here until the watcher takes the watch over and hears them
// (as git's fsmonitor lets `git status` skip the lstat of unchanged files).
//
// Bounded: at most `max` folders (the watcher's HOT_FOLDERS: more would be
// watches it gives back), at most MAX_NAMES changed names a folder (past it
// the folder is looked at whole, as on an overflow).
import fs from 'node:fs';
import { fsPath } from './open-file.js';

/** names kept per folder before the folder is just "look at all of it" */
const MAX_NAMES = 4096;

/** What the watcher takes over: the watch, and the names of what changed since it was set (null: look at the whole folder). */
export interface EarlyWatch {
  watcher: fs.FSWatcher;
  names: Set<string | Buffer> | null;
  /** the folder the walk stat'ed just after the watch was set (undefined: not stat'ed, not to be trusted) */
  id?: { dev: number; ino: number };
}

export class EarlyWatches {
  private readonly watches = new Map<string, EarlyWatch>();
  /** symlinked session files the walk met (inotify does not see their targets change: the watcher looks at them) */
  readonly links = new Set<string>();
  private closed = false;

  constructor(
    private readonly max: number,
    /** changed names kept per folder before it is looked at whole (tests lower it) */
    private readonly maxNames = MAX_NAMES,
  ) {}

  /** Watches `dir` (before it is listed): false when it is not (past the bound, or it cannot be watched). */
  watch(dir: string): boolean {
    if (this.closed || this.watches.size >= this.max || this.watches.has(dir)) return false;
    let w: fs.FSWatcher;
    const entry: EarlyWatch = { watcher: undefined as unknown as fs.FSWatcher, names: new Set() };
    try {
      w = fs.watch(fsPath(dir), { persistent: false, encoding: 'buffer' }, (_event, name) => {
        if (!entry.names) return;
        if (name === null || name === undefined || name.length === 0 || entry.names.size >= this.maxNames) entry.names = null;
        else entry.names.add(name);
      });
    } catch {
      return false; // the watcher tries again when it starts, and says why if it fails
    }
    entry.watcher = w;
    // an error (the folder gone, a watch lost): not handed over; the watcher looks at the folder the usual way
    w.on('error', () => this.drop(dir));
    this.watches.set(dir, entry);
    return true;
  }

  /**
   * The walk's stat of `dir`, taken just after its watch: the watch belongs to
   * that folder. The watcher hands a watch over only while `dir` is still that
   * folder: one moved away and made again under its name (a restore from a
   * backup keeps its mtime) is another inode, which the old watch never hears.
   */
  identify(dir: string, st: { dev: number; ino: number }): void {
    const e = this.watches.get(dir);
    if (e) e.id = { dev: st.dev, ino: st.ino };
  }

  /** A symlinked session file the walk accepted. */
  link(file: string): void {
    if (!this.closed) this.links.add(file);
  }

  /** The watch of `dir` with what it heard, now the caller's (its listener removed), or undefined. */
  take(dir: string): EarlyWatch | undefined {
    const e = this.watches.get(dir);
    if (!e) return undefined;
    this.watches.delete(dir);
    e.watcher.removeAllListeners('change');
    e.watcher.removeAllListeners('error');
    return e;
  }

  /** Closes the watch of `dir` (a folder the watcher leaves cold). */
  drop(dir: string): void {
    const e = this.watches.get(dir);
    if (!e) return;
    this.watches.delete(dir);
    try {
      e.watcher.close();
    } catch {
      /* closed already */
    }
  }

  get size(): number {
    return this.watches.size;
  }

  /** Closes every watch not taken (the scan was cut short, the watcher polls, or it has started). */
  close(): void {
    this.closed = true;
    for (const dir of [...this.watches.keys()]) this.drop(dir);
    this.links.clear();
  }
}
