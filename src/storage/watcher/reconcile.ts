// The full comparison: the whole tree walked (adding watchers for folders
// missed) and every known file compared with what was last reported. The
// first one starts from what the store already loaded (`initial`), from the
// scan's listing of every folder (`initialFolders`) and from the watches the
// scan took (`early`), so a warm start lists and stats only what changed.
// `ready` and `sync()` are promises of a delivered full comparison, so tests
// and callers wait on that event rather than on time (a sleep is too short
// on a loaded machine and wasted on an idle one).
import path from 'node:path';
import type { EarlyWatches } from '../early-watches.js';
import { folderStat, probe, readFolder, type FileState } from '../walk.js';
import { dirMtime, resolved, unchangedFile } from './fs-helpers.js';
import { eachInSlices, inSlices } from './slices.js';
import type { Watch } from './state.js';
import type { WatchRootOptions } from './types.js';

export class Reconcile {
  /** resolves once the first full comparison is delivered, or at close */
  readonly ready: Promise<void>;
  /** `initial`, copied into `known` by the first comparison, in slices (100,000 entries were a 100 ms block at start) */
  private initial: ReadonlyMap<string, FileState> | undefined;
  /** the walk the first comparison starts from, instead of walking the tree (initialFolders) */
  private firstFolders: Map<string, number> | undefined;
  /** the scan's watches, until the first comparison takes them over (or closes them) */
  private early: EarlyWatches | undefined;
  /** folders whose watch was set before the scan read their files: their files need no stat at the first comparison */
  private watchedEarly = new Set<string>();
  /** resolves `ready` (after the first full comparison, or at close) */
  private markReady: (() => void) | undefined;
  /** sync() calls waiting for the next full comparison to start and be delivered */
  private syncWaiters: (() => void)[] = [];
  /** a full comparison is running; `again`: another was asked for meanwhile */
  private reconciling: Promise<void> | undefined;
  private again = false;
  private rescanTimer: NodeJS.Timeout | undefined;
  private coldPicked = false;

  constructor(
    private readonly w: Watch,
    first: Pick<WatchRootOptions, 'initial' | 'initialFolders' | 'early'>,
  ) {
    this.initial = first.initial;
    this.firstFolders = first.initialFolders;
    this.early = first.early;
    this.ready = new Promise<void>((resolve) => (this.markReady = resolve));
  }

  /** A full comparison soon (never inside the caller's stack), unless one is due already. */
  scheduleRescan(ms: number): void {
    if (this.w.closed || this.rescanTimer) return;
    this.rescanTimer = setTimeout(() => {
      this.rescanTimer = undefined;
      if (this.w.batches.delivering) this.scheduleRescan(0);
      else void this.reconcile();
    }, ms);
  }

  /** RootWatcher.sync(): resolves once a full comparison that started after this call is delivered. */
  sync(): Promise<void> {
    if (this.w.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.syncWaiters.push(resolve);
      // a walk already scheduled starts after this call, so it answers it too
      this.scheduleRescan(0);
    });
  }

  /**
   * Walk the whole tree (adding watchers for folders missed), compare
   * everything: in slices (inSlices). One at a time; one asked for meanwhile
   * starts when it ends (so a sync() made now is answered by a walk that
   * started after it).
   */
  reconcile(): Promise<void> {
    if (this.reconciling) {
      this.again = true;
      return this.reconciling;
    }
    const run = this.fullComparison().finally(() => {
      this.reconciling = undefined;
      if (this.again && !this.w.closed) {
        this.again = false;
        void this.reconcile();
      }
    });
    this.reconciling = run;
    return run;
  }

  /** The scan's watches that were not taken over are closed (polling from now on, or closed). */
  dropEarly(): void {
    this.early?.close();
    this.early = undefined;
  }

  /** close(): no full comparison starts any more */
  stopTimer(): void {
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    this.rescanTimer = undefined;
  }

  /** close(): nothing will be delivered any more, so whoever waits is told so now */
  settleAll(): void {
    const waiting = this.syncWaiters;
    this.syncWaiters = [];
    this.settle(waiting);
  }

  private async fullComparison(): Promise<void> {
    const w = this.w;
    if (w.closed) return;
    // Only the sync() calls made before this walk started are answered by it:
    // one made during the delivery (from onChanges) waits for the next walk.
    const answered = this.syncWaiters;
    this.syncWaiters = [];
    try {
      if (this.initial) {
        const from = this.initial;
        this.initial = undefined;
        await eachInSlices(w, [...from.keys()], (f) => {
          // the caller's own state object and path string, never changed in place (a copy of each was ~180 bytes a file)
          const st = from.get(f);
          if (st) w.known.set(resolved(f), st);
        });
      }
      if (w.mode === 'watch') {
        // drop watchers of folders that vanished without an event
        await eachInSlices(w, [...w.watchers.keys(), ...w.cold], (d) => {
          if (d !== w.root && (w.watchers.has(d) || w.cold.has(d)) && probe(d)?.kind !== 'dir') w.folders.removeTree(d);
        });
        if (!this.coldPicked) {
          this.coldPicked = true;
          await w.coldFolders.pick();
        }
      }
      if (!w.rootReturn.check()) {
        // the root is gone: its files go now, in this batch, before onRoot says so (RootReturn.tell)
        for (const f of w.known.keys()) w.batches.observe(f, undefined);
        w.batches.flush();
        return;
      }
      const listed = w.mode === 'watch' ? this.firstFolders : undefined;
      this.firstFolders = undefined;
      const fromScan = listed !== undefined && listed.has(w.root);
      if (fromScan && this.early) for (const f of this.early.links) w.links.add(f);
      else this.dropEarly();
      if (fromScan) await eachInSlices(w, [...listed.keys()], (d) => this.checkListed(d, listed));
      else await inSlices(w, w.folders.treeWalker(w.root, true));
      this.dropEarly(); // the folders not taken over
      const trusted = this.watchedEarly;
      this.watchedEarly = new Set();
      // the known files: only those that differ from what was reported are marked (a flush of 100,000 would be one block);
      // starting from a walk, the files of cold folders are left to the safety poll, like any later change of theirs
      const skipCold = listed !== undefined && w.cold.size > 0;
      const pending = w.batches.pending;
      await eachInSlices(w, [...w.known.keys()], (f) => {
        const prev = w.known.get(f);
        if (!prev) return;
        const dir = skipCold || trusted.size > 0 ? path.dirname(f) : '';
        if (skipCold && w.cold.has(dir)) return;
        // watched since before the scan read it: a change since is an event (a read that failed, ino 0, is looked at again)
        if (trusted.has(dir) && prev.ino !== 0 && !pending.has(f) && !w.links.has(f)) return;
        // the common case, a plain file as it was, without probe()'s objects (~0.2 s of a warm start at 100,000 files)
        if (!pending.has(f) && w.safeFileName(f) && unchangedFile(f, prev)) return;
        const e = probe(f);
        if (e?.kind === 'file' && e.link) w.links.add(f); // a walk from initialFolders did not list it
        const cur = e?.kind === 'file' && w.safeFileName(f) ? e.st : null;
        if (!cur || cur.size !== prev.size || cur.ino !== prev.ino || cur.mtimeMs !== prev.mtimeMs || pending.has(f)) w.batches.observe(f, cur);
      });
      if (!w.closed) w.batches.flush();
    } catch {
      /* never throw out of a timer */
    } finally {
      // resolved even after a failed walk: a waiter must never hang
      this.settle(answered);
    }
  }

  /**
   * One folder of `initialFolders` at the first comparison: watched first
   * (a change from now on is an event), then its mtime compared with the one
   * taken before the walk listed it (a cold one is not: the safety poll
   * compares it later, as it does its files). Unchanged: that listing holds. Changed
   * (or racy): listed again; new files are marked, new sub-folders walked and
   * watched. A file that vanished is found by the pass over the known files.
   */
  private checkListed(d: string, listed: Map<string, number>): void {
    const w = this.w;
    const stamp = listed.get(d);
    if (w.cold.has(d) && stamp !== undefined && !Number.isNaN(stamp)) {
      // a cold folder the walk just stat'ed: left to the safety poll like its files (a stat
      // each of 100,000 folders again was ~250 ms at start); it compares with the walk's stamp
      this.early?.drop(d);
      w.dirStamp.set(d, stamp);
      return;
    }
    if (!w.cold.has(d) && this.takeEarly(d, stamp)) return;
    if (!w.cold.has(d)) w.folders.addWatcher(d);
    const m = dirMtime(d);
    if (m === null) {
      if (d !== w.root) w.folders.removeTree(d);
      return;
    }
    w.dirStamp.set(d, m);
    if (stamp === m) return;
    const { files, dirs } = readFolder(d, w.safeFileName, w.skip);
    for (const f of files) {
      if (!w.known.has(f.path)) w.batches.observe(f.path, undefined);
      if (f.symlink) w.links.add(f.path);
    }
    for (const sub of dirs) if (!listed.has(sub) && !w.watchers.has(sub) && !w.unwatched.has(sub) && !w.cold.has(sub)) w.folders.addTree(sub);
  }

  /**
   * Takes over the scan's watch of `d` (set before the walk listed it and the
   * scan read its files): a file changed since is a name it heard, heard now
   * as an event (the known files are in place by now), and the other files
   * are not stat'ed again. Only while the folder is the one the walk listed
   * (the inode the watch was set on, its mtime the walk's stamp): a folder
   * whose entries changed since (a file added, deleted or renamed), or that
   * is another folder now (moved away and made again, even with the old
   * mtime, as a restore from a backup leaves it), is looked at as before,
   * its files compared one by one. A watch that heard its own folder's name
   * (inotify's move-self or delete-self, or an entry of that name: either
   * way, rare) is not trusted either.
   */
  private takeEarly(d: string, stamp: number | undefined): boolean {
    const w = this.w;
    const e = this.early?.take(d);
    if (!e) return false;
    const st = e.id && stamp !== undefined && !Number.isNaN(stamp) ? folderStat(d) : null;
    const same = st !== null && st.mtimeMs === stamp && st.ino === e.id!.ino && st.dev === e.id!.dev && !heardSelf(d, e.names);
    if (w.closed || w.mode !== 'watch' || w.watchers.has(d) || !same) {
      e.watcher.close();
      return false;
    }
    e.watcher.ref(); // the scan's watch did not keep the process alive; the watcher's do
    e.watcher.on('change', (_event, filename) => w.folders.onRaw(d, filename as Buffer | string | null));
    w.folders.keepWatcher(d, e.watcher);
    w.dirStamp.set(d, stamp);
    this.watchedEarly.add(d);
    if (e.names === null) {
      w.batches.dirtyDirs.add(d);
      w.batches.schedule();
    } else for (const name of e.names) w.folders.onRaw(d, name);
    return true;
  }

  private settle(waiters: (() => void)[]): void {
    this.markReady?.();
    this.markReady = undefined;
    for (const resolve of waiters) resolve();
  }
}

/** whether a watch of `d` heard d's own name (names null: it heard too much to list them, and takeEarly looks at that folder whole anyway) */
function heardSelf(d: string, names: Set<string | Buffer> | null): boolean {
  if (names === null || names.size === 0) return false;
  const base = path.basename(d);
  for (const n of names) if ((typeof n === 'string' ? n : n.toString()) === base) return true;
  return false;
}
