// Follows a session root while agents write into it (docs/formats.md,
// "Files on disk").
//
// The watcher only says WHICH session files changed and how (new, grown,
// truncated, replaced, deleted); the session store reads the bytes itself from
// its own last-complete-line offset.
//
// Design:
// - one non-recursive fs.watch per directory (Node 20's recursive mode is not
//   dependable on Linux); a raw event for a name that turns out to be a new
//   directory installs watchers for it and everything below it, then lists it
//   (watch first, list second, so nothing created in between is missed);
// - every raw event is followed by an lstat of the named entry; intermediate
//   observations are remembered so a burst (truncate-then-regrow, delete-then-
//   recreate) still reports the net kind that matters to a reader;
// - changes are collected for `coalesceMs` from the first event of a burst and
//   delivered as one batch, one entry per file, sorted by path;
// - a slow safety poll (every ~2 s) walks the tree even in watch mode, because
//   inotify can drop events (queue overflow) and cannot see symlink targets;
// - a watch costs ~1 KB of memory (and one of the system's inotify watches), so
//   past `hotFolders` session folders only the most recently written are
//   watched: the older ("cold") ones are looked at by the safety poll, and one
//   that changes is watched from then on (see coldFolders);
// - any fs.watch error (ENOSPC: out of inotify watches, EMFILE, ...) switches to
//   polling: the whole tree is walked and stat'ed every `pollIntervalMs`;
// - the root folder itself may be deleted and made again (a cleanup, a restore
//   from backup): while it is gone a slow timer looks for it, onRoot says so,
//   and when it is back it is watched and listed afresh (its inotify watch died
//   with the old folder, so nothing else would ever notice);
// - `ready` and `sync()` are promises of a delivered full comparison, so tests
//   and callers wait on that event rather than on time (a sleep is too short
//   on a loaded machine and wasted on an idle one).
// Nothing here throws out of a callback, and close() stops every watcher and
// timer.
import fs from 'node:fs';
import path from 'node:path';
import { NumberedMap } from '../session/key-table.js';
import type { EarlyWatches } from './early-watches.js';
import { displayName, fsPath } from './open-file.js';
import { defaultIsSessionFile, entrySkip, folderStat, listSessionFiles, probe, readFolder, skipDirName, walker, type FileState, type Skip } from './walk.js';

export { listSessionFiles };

export type FileChangeKind = 'new' | 'grown' | 'truncated' | 'replaced' | 'deleted';

export interface FileChange {
  /** absolute path */
  file: string;
  kind: FileChangeKind;
  /** current size in bytes (0 for deleted) */
  size: number;
  /** current inode (0 for deleted) */
  ino: number;
  /** current mtime (0 for deleted) */
  mtimeMs: number;
}

export type { FileState };

export interface RootWatcher {
  close(): void;
  readonly mode: 'watch' | 'poll';
  /** why it fell back to polling, if it did (undefined when polling was forced) */
  readonly fallbackReason?: string;
  /** walk the whole tree soon and report whatever differs from what was last reported */
  rescan(): void;
  /**
   * Resolves once the watcher is installed and its first full comparison
   * (against `initial`, or against nothing) has been delivered to onChanges;
   * from then on every file-system change is seen. Resolves (never rejects)
   * also when close() comes first. So a test or a caller waits on this event
   * instead of sleeping "long enough" after start.
   */
  readonly ready: Promise<void>;
  /**
   * Walks the whole tree now (a full comparison, as rescan: every known file
   * stat'ed, every folder listed), delivers whatever differs from what was
   * last reported, and resolves after that delivery: so once it resolves,
   * every change made before the call has been reported. Never delivers
   * inside the caller's stack (the walk runs from a timer); resolves at once
   * when closed, and when close() comes before the walk. This is what a test
   * awaits to say "nothing else arrived" instead of sleeping and hoping.
   */
  sync(): Promise<void>;
  /** folders that cannot be watched (and are polled instead), with the reason */
  readonly unwatched: ReadonlyMap<string, string>;
  /** session folders left unwatched because older sessions are many (hotFolders): the safety poll looks at them */
  readonly cold: ReadonlySet<string>;
  /** how many folders have a watch */
  readonly watched: number;
  /** what it last saw of each file, by path (an unchanged file keeps the entry it was given in `initial`) */
  readonly known: ReadonlyMap<string, FileState>;
  /** how many rounds of the safety poll have ended */
  readonly safetyRounds: number;
}

export interface WatchRootOptions {
  onChanges(changes: FileChange[]): void;
  onModeChange?(mode: 'watch' | 'poll', reason?: string): void;
  /**
   * What the store already loaded, by absolute path. Files absent from this map
   * are reported as 'new' in the first batch (so with no map at all, every
   * existing session file is reported as 'new' once, shortly after start), and
   * files that differ from it are reported with the matching kind. An `ino` of
   * 0 means "unknown" and is not compared. The watcher keeps its state
   * objects (and path strings) as its own: they must not change in place.
   */
  initial?: ReadonlyMap<string, FileState>;
  /**
   * Every folder under the root as a walk just listed it (with `initial`),
   * each with its mtime taken before the listing (NaN: look again). The first
   * comparison then lists only the folders whose mtime differs, instead of
   * the whole tree: at 100,000 session folders, 2 s of readdir saved. The
   * watcher keeps the map (its folder stamps).
   */
  initialFolders?: Map<string, number>;
  /**
   * The watches the scan took before it listed each folder and read its files
   * (with `initialFolders`): the first comparison takes them over, hears what
   * changed since, and does not stat the files of those folders again.
   */
  early?: EarlyWatches;
  forcePolling?: boolean;
  /** poll period in poll mode, default 250 ms */
  pollIntervalMs?: number;
  /** burst window in watch mode, default 16 ms */
  coalesceMs?: number;
  /** safety walk period in watch mode, default 2000 ms (0 disables it) */
  safetyPollMs?: number;
  /** which files to report, by absolute path; default: isSessionFileName of the base name */
  isSessionFile?(path: string): boolean;
  /** the folders that cannot be watched changed (each is polled on its own; the rest stays watched) */
  onUnwatched?(dirs: ReadonlyMap<string, string>): void;
  /** an entry named like a session file was skipped (FIFO, socket, loop, unreadable folder...) */
  onSkip?(skip: Skip): void;
  /** an entry is gone (so any skip reported for it no longer holds) */
  onGone?(path: string): void;
  /** the root folder vanished ('gone': its files were reported deleted) or is a folder again ('back') */
  onRoot?(state: 'gone' | 'back'): void;
  /** while the root is gone, how often to look for it, default 1000 ms */
  rootPollMs?: number;
  /** how many session folders are watched at start at most, the most recently written first (default HOT_FOLDERS) */
  hotFolders?: number;
}

const DEFAULT_POLL_MS = 250;
const DEFAULT_COALESCE_MS = 16;
const DEFAULT_SAFETY_MS = 2000;
const DEFAULT_ROOT_POLL_MS = 1000;
/**
 * Session folders watched at start, the most recently written first. The
 * rc.8 layout gives every session its own folder: a watch per folder was
 * ~110 MB of memory at 100,000 sessions (and more watches than many systems
 * allow: fs.inotify.max_user_watches is 8,192 on older kernels, which sent the
 * whole root to polling). An older session that an agent resumes is seen by
 * the safety poll (a round over 100,000 files takes ~140 s) and watched from
 * then on.
 */
export const HOT_FOLDERS = 1024;
/** a folder with more session files than this is always watched (one watch serves them all) */
const COLD_MAX_FILES = 4;
/**
 * The safety poll in watch mode goes round the tree in slices: per tick it
 * spends at most SAFETY_BUDGET_MS (and SAFETY_BATCH entries) looking at the
 * next folders (listed again only when their mtime changed) and files
 * (stat'ed within the budget). So an idle follower costs a few ms per 2 s whatever the tree
 * size (it was: re-stat every file every 2 s, 17% of a core at 50,000 files),
 * and a round over 50,000 files takes minutes instead of 2 s. That is the
 * trade: the safety poll is only the backstop for events inotify dropped;
 * symlinked files (whose targets inotify cannot see) are checked every tick.
 */
const SAFETY_BATCH = 2000;
const SAFETY_BUDGET_MS = 4;
/** the slice of a long walk (the start, a full comparison) before the loop gets a turn */
const SLICE_MS = 8;
/** fs.watch errors that mean "out of watches/descriptors": no folder can be watched any more. */
const EXHAUSTED = new Set(['ENOSPC', 'EMFILE', 'ENFILE']);

const errCode = (e: unknown): string | undefined =>
  e && typeof e === 'object' && 'code' in e ? String((e as NodeJS.ErrnoException).code) : undefined;

const errText = (e: unknown): string => {
  const code = errCode(e);
  const msg = e instanceof Error ? e.message : String(e);
  return code && !msg.includes(code) ? `${code}: ${msg}` : msg;
};

interface Pending {
  /** the file was seen missing at some point in this burst */
  vanished: boolean;
  /** some observation in this burst had a different inode than the one before */
  replaced: boolean;
  /** some observation in this burst was smaller than the one before */
  shrank: boolean;
  /** last observation in this burst (null = missing); undefined = none yet */
  last?: FileState | null;
}

/**
 * `f` as path.resolve would give it, without the new string when it is one
 * already (absolute, no empty, "." or ".." segment, no trailing "/"): the
 * index's paths are, and resolving 100,000 of them cost ~0.2 s of a start.
 */
export function resolved(f: string): string {
  return path.sep === '/' && f.charCodeAt(0) === 47 && !NOT_NORMAL.test(f) ? f : path.resolve(f);
}
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

/** A regular file (not a link) whose lstat shows the size, inode and mtime of `prev`. */
function unchangedFile(f: string, prev: FileState): boolean {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(fsPath(f), { throwIfNoEntry: false });
  } catch {
    return false;
  }
  return st !== undefined && st.isFile() && st.size === prev.size && st.ino === prev.ino && st.mtimeMs === prev.mtimeMs;
}

export function watchRoot(root: string, opts: WatchRootOptions): RootWatcher {
  root = path.resolve(root);
  const accept = opts.isSessionFile ?? defaultIsSessionFile;
  const pollMs = Math.max(10, opts.pollIntervalMs ?? DEFAULT_POLL_MS);
  const coalesceMs = Math.max(0, opts.coalesceMs ?? DEFAULT_COALESCE_MS);
  const safetyMs = opts.safetyPollMs ?? DEFAULT_SAFETY_MS;
  const rootPollMs = Math.max(10, opts.rootPollMs ?? DEFAULT_ROOT_POLL_MS);

  /** what was last reported (or given as initial), by path (over the index's key numbers when `initial` has them: key-table.ts) */
  const known: Map<string, FileState> = opts.initial instanceof NumberedMap ? new NumberedMap<FileState>(opts.initial.table) : new Map<string, FileState>();
  /** `initial`, copied into `known` by the first comparison, in slices (100,000 entries were a 100 ms block at start) */
  let initial = opts.initial;

  const watchers = new Map<string, fs.FSWatcher>();
  const pending = new Map<string, Pending>();
  const dirtyDirs = new Set<string>();

  let mode: 'watch' | 'poll' = 'watch';
  let fallbackReason: string | undefined;
  let closed = false;
  let flushTimer: NodeJS.Timeout | undefined;
  let periodic: NodeJS.Timeout | undefined;
  let unwatchedTimer: NodeJS.Timeout | undefined;
  /** folders that cannot be watched: folder -> reason; polled one by one */
  const unwatched = new Map<string, string>();
  /** files last listed in each unwatched folder */
  const polledFiles = new Map<string, Set<string>>();
  /** mtime of each watched folder when it was last listed */
  const dirStamp = new Map<string, number>();
  /** the walk the first comparison starts from, instead of walking the tree (initialFolders) */
  let firstFolders = opts.initialFolders;
  /** the scan's watches, until the first comparison takes them over (or closes them) */
  let early = opts.early;
  /** folders whose watch was set before the scan read their files: their files need no stat at the first comparison */
  let watchedEarly = new Set<string>();
  // the closures below keep `opts`: not the two maps of the first comparison (100,000 folders and files)
  opts = { ...opts, initial: undefined, initialFolders: undefined, early: undefined };
  /** known files that are symlinks (inotify does not see their targets change) */
  const links = new Set<string>();
  /** session folders left unwatched (coldFolders): the safety poll looks at them; a change makes them watched */
  const cold = new Set<string>();
  const hotFolders = Math.max(0, opts.hotFolders ?? HOT_FOLDERS);
  /** the root folder vanished: `rootTimer` looks for it until it is back */
  let rootGone = false;
  let rootTimer: NodeJS.Timeout | undefined;
  /** inode of the root folder being watched (a folder made again under the name has another) */
  let rootIno: number | undefined;
  let sweep: string[] = [];
  let sweepAt = 0;
  let rescanTimer: NodeJS.Timeout | undefined;
  let delivering = false;
  /** resolves `ready` (after the first full comparison, or at close) */
  let markReady: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  /** sync() calls waiting for the next full comparison to start and be delivered */
  let syncWaiters: (() => void)[] = [];

  const safeFileName = (p: string): boolean => {
    return accept(p);
  };

  // ---- observations -------------------------------------------------------

  function observe(file: string, st: FileState | null | undefined): void {
    let rec = pending.get(file);
    if (!rec) {
      rec = { vanished: false, replaced: false, shrank: false };
      pending.set(file, rec);
    }
    if (st === undefined) return; // just "look at it at flush time"
    const prev = rec.last !== undefined ? rec.last : known.get(file) ?? null;
    if (st === null) {
      if (prev) rec.vanished = true;
    } else if (prev) {
      if (prev.ino !== 0 && st.ino !== 0 && prev.ino !== st.ino) rec.replaced = true;
      else if (st.size < prev.size) rec.shrank = true;
    }
    rec.last = st;
  }

  function netKind(prev: FileState | undefined, cur: FileState | null, rec: Pending): FileChangeKind | undefined {
    if (!cur) return prev ? 'deleted' : undefined;
    if (!prev) return 'new';
    if (rec.vanished || rec.replaced || (prev.ino !== 0 && prev.ino !== cur.ino)) return 'replaced';
    if (rec.shrank || cur.size < prev.size) return 'truncated';
    if (cur.size > prev.size) return 'grown';
    return undefined;
  }

  // ---- directories ----------------------------------------------------------

  function isUnder(p: string, dir: string): boolean {
    return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
  }

  function skip(s: Skip): void {
    try {
      opts.onSkip?.(s);
    } catch {
      /* ignore */
    }
  }

  function dirMtime(d: string): number | null {
    try {
      const st = fs.statSync(fsPath(d));
      return st.isDirectory() ? st.mtimeMs : null;
    } catch {
      return null;
    }
  }

  /**
   * Watch `dir` and everything below it (watch mode), then mark every file in
   * it (with `onlyNew`, only the files not known yet: the caller compares the
   * known ones itself).
   */
  function treeWalker(dir: string, onlyNew = false): () => boolean {
    return walker(
      dir,
      safeFileName,
      (f, symlink) => {
        if (!onlyNew || !known.has(f)) observe(f, undefined);
        if (symlink) links.add(f);
      },
      (d) => {
        if (mode === 'watch') {
          const m = dirMtime(d); // before the listing: a change after it shows next time
          if (m !== null) dirStamp.set(d, m);
          if (!cold.has(d)) addWatcher(d);
        }
      },
      skip,
    );
  }

  function addTree(dir: string): void {
    const next = treeWalker(dir);
    while (next()) {
      /* one folder per call */
    }
  }

  /**
   * Runs `step` until it returns false, in slices of SLICE_MS with the loop
   * free in between (keys, frames, raw events): the start and a full
   * comparison of a 100,000-folder tree take seconds, never in one block.
   */
  async function inSlices(step: () => boolean): Promise<void> {
    let until = performance.now() + SLICE_MS;
    while (!closed && step()) {
      if (performance.now() >= until) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        until = performance.now() + SLICE_MS;
      }
    }
  }

  /** Runs `fn` on each of `items`, in slices (inSlices). */
  function eachInSlices<T>(items: readonly T[], fn: (item: T) => void): Promise<void> {
    let i = 0;
    return inSlices(() => {
      if (i >= items.length) return false;
      fn(items[i++]);
      return i < items.length;
    });
  }

  /** Lists one folder again (its mtime changed): new files, new sub-folders, vanished entries. */
  function relist(dir: string, m: number): void {
    dirStamp.set(dir, m);
    const { files, dirs } = readFolder(dir, safeFileName, skip);
    const seen = new Set<string>();
    for (const f of files) {
      seen.add(f.path);
      observe(f.path, undefined);
      if (f.symlink) links.add(f.path);
    }
    for (const sub of dirs) if (!watchers.has(sub) && !unwatched.has(sub) && !cold.has(sub)) addTree(sub);
    for (const f of known.keys()) if (!seen.has(f) && path.dirname(f) === dir) observe(f, undefined);
    for (const d of [...watchers.keys(), ...unwatched.keys(), ...cold]) if (d !== dir && path.dirname(d) === dir && dirMtime(d) === null) removeTree(d);
  }

  function setUnwatched(dir: string, reason: string | undefined): void {
    if (reason === undefined ? !unwatched.delete(dir) : unwatched.get(dir) === reason) return;
    if (reason !== undefined) unwatched.set(dir, reason);
    else polledFiles.delete(dir);
    if (unwatched.size > 0 && !unwatchedTimer && !closed) unwatchedTimer = setInterval(pollUnwatched, pollMs);
    if (unwatched.size === 0 && unwatchedTimer) {
      clearInterval(unwatchedTimer);
      unwatchedTimer = undefined;
    }
    try {
      opts.onUnwatched?.(new Map(unwatched));
    } catch {
      /* ignore */
    }
  }

  /** Polls the folders that cannot be watched: each is listed and its files stat'ed. */
  function pollUnwatched(): void {
    if (closed || mode !== 'watch') return;
    try {
      for (const dir of [...unwatched.keys()]) {
        if (dirMtime(dir) === null && probe(dir)?.kind !== 'dir') {
          for (const f of polledFiles.get(dir) ?? []) observe(f, undefined);
          removeTree(dir);
          continue;
        }
        const { files, dirs } = readFolder(dir, safeFileName);
        const now = new Set(files.map((f) => f.path));
        for (const f of polledFiles.get(dir) ?? []) if (!now.has(f)) observe(f, undefined);
        for (const f of now) observe(f, undefined);
        polledFiles.set(dir, now);
        for (const sub of dirs) if (!watchers.has(sub) && !unwatched.has(sub)) addTree(sub);
      }
      flush();
    } catch {
      /* never throw out of a timer */
    }
  }

  /** `dir` is gone: drop its watchers and mark every known file below it. */
  function removeTree(dir: string): void {
    for (const d of [...unwatched.keys()]) if (isUnder(d, dir)) setUnwatched(d, undefined);
    for (const d of [...dirStamp.keys()]) if (isUnder(d, dir)) dirStamp.delete(d);
    for (const d of [...cold]) if (isUnder(d, dir)) cold.delete(d);
    for (const [d, w] of watchers) {
      if (isUnder(d, dir)) {
        watchers.delete(d);
        try {
          w.close();
        } catch {
          /* already closed */
        }
      }
    }
    for (const f of known.keys()) if (isUnder(f, dir)) observe(f, undefined);
    for (const f of pending.keys()) if (isUnder(f, dir)) observe(f, undefined);
  }

  function addWatcher(dir: string): void {
    if (closed || mode !== 'watch' || watchers.has(dir)) return;
    let w: fs.FSWatcher;
    try {
      // names as bytes: a name that is not valid UTF-8 is reached by its real bytes
      w = fs.watch(fsPath(dir), { persistent: true, encoding: 'buffer' }, (_event, filename) => onRaw(dir, filename));
    } catch (e) {
      const code = errCode(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') return; // vanished meanwhile; the parent's event covers it
      // Out of inotify watches or descriptors: nothing more can be watched.
      if (code && EXHAUSTED.has(code)) fallbackToPolling(`fs.watch(${dir}) failed: ${errText(e)}`);
      // This folder alone cannot be watched (permissions, path length, a file
      // system without inotify): poll it, keep watching the rest.
      else setUnwatched(dir, errText(e));
      return;
    }
    if (unwatched.has(dir)) setUnwatched(dir, undefined);
    keepWatcher(dir, w);
  }

  /** `w` watches `dir` from now on: its errors handled, kept in `watchers`. */
  function keepWatcher(dir: string, w: fs.FSWatcher): void {
    w.on('error', (e: unknown) => {
      try {
        if (closed) return;
        if (watchers.get(dir) === w) watchers.delete(dir);
        try {
          w.close();
        } catch {
          /* ignore */
        }
        // A folder removed under its watcher is not a reason to stop watching
        // the rest (some platforms report it as an error).
        if (probe(dir)?.kind !== 'dir') {
          dirtyDirs.add(dir);
          schedule();
          return;
        }
        const code = errCode(e);
        if (code && EXHAUSTED.has(code)) fallbackToPolling(`fs.watch error on ${dir}: ${errText(e)}`);
        else setUnwatched(dir, errText(e));
      } catch {
        /* never throw out of a callback */
      }
    });
    watchers.set(dir, w);
  }

  // ---- the root itself ----------------------------------------------------------

  function rootStat(): fs.Stats | null {
    try {
      const st = fs.statSync(fsPath(root)); // follows a root that is a symlink to a folder
      return st.isDirectory() ? st : null;
    } catch {
      return null;
    }
  }

  function tellRoot(state: 'gone' | 'back'): void {
    // after the batch being flushed (the deleted files) is delivered, so this is the last word
    queueMicrotask(() => {
      if (closed) return;
      try {
        opts.onRoot?.(state);
      } catch {
        /* ignore */
      }
    });
  }

  /**
   * Looks at the root folder: gone (drop its watchers, report its files
   * deleted, look for it every rootPollMs), back after being gone, or made
   * again under the same name between two looks (a new inode: the old watch
   * sees nothing of it). Returns false while it is gone.
   */
  function checkRoot(): boolean {
    const st = rootStat();
    if (!st) {
      if (!rootGone) {
        rootGone = true;
        rootIno = undefined;
        removeTree(root);
        if (!rootTimer && !closed) rootTimer = setInterval(lookForRoot, rootPollMs);
        tellRoot('gone');
      }
      return false;
    }
    if (rootGone) {
      rootGone = false;
      if (rootTimer) clearInterval(rootTimer);
      rootTimer = undefined;
      tellRoot('back');
    } else if (rootIno === undefined || st.ino === rootIno) {
      rootIno = st.ino;
      return true;
    }
    // back, or replaced: watch the new folder from scratch and compare every file
    rootIno = st.ino;
    removeTree(root);
    addTree(root);
    return true;
  }

  function lookForRoot(): void {
    try {
      if (closed || !checkRoot()) return;
      flush();
    } catch {
      /* never throw out of a timer */
    }
  }

  // ---- raw events -------------------------------------------------------------

  function onRaw(dir: string, filename: Buffer | string | null): void {
    try {
      if (closed || mode !== 'watch') return;
      if (filename === null || filename === undefined || filename === '') {
        // no name (overflow on some platforms): look at the whole folder
        dirtyDirs.add(dir);
        schedule();
        return;
      }
      const p = typeof filename === 'string' ? path.join(dir, filename) : displayName(dir, filename, path.sep);
      const name = path.basename(p);
      const e = probe(p);
      if (e?.kind === 'dir') {
        if (!skipDirName(name) && !watchers.has(p) && !unwatched.has(p)) addTree(p);
        if (safeFileName(p)) skip(entrySkip(p)!);
      } else if (e?.kind === 'file') {
        if (safeFileName(p)) observe(p, e.st);
      } else {
        if (e === null) opts.onGone?.(p);
        else if (safeFileName(p)) {
          const s = entrySkip(p);
          if (s) skip(s);
        }
        // gone (or not a file any more)
        if (watchers.has(p) || cold.has(p) || [...watchers.keys(), ...cold].some((d) => isUnder(d, p))) removeTree(p);
        if (known.has(p) || pending.has(p)) observe(p, null);
        // the event may also be about the watched folder itself disappearing
        if (probe(dir)?.kind !== 'dir') dirtyDirs.add(dir);
      }
      schedule();
    } catch {
      /* never throw out of a callback */
    }
  }

  function schedule(): void {
    if (closed || flushTimer) return;
    if (pending.size === 0 && dirtyDirs.size === 0) return;
    flushTimer = setTimeout(() => {
      flushTimer = undefined;
      flush();
    }, coalesceMs);
  }

  // ---- delivery -----------------------------------------------------------------

  function flush(): void {
    if (closed) return;
    if (flushTimer) {
      clearTimeout(flushTimer);
      flushTimer = undefined;
    }
    try {
      for (const d of [...dirtyDirs]) {
        dirtyDirs.delete(d);
        if (d === root) checkRoot();
        else if (probe(d)?.kind === 'dir') addTree(d);
        else removeTree(d);
      }
      const changes: FileChange[] = [];
      for (const [file, rec] of pending) {
        const e = probe(file);
        const cur = e?.kind === 'file' && safeFileName(file) ? e.st : null;
        const prev = known.get(file);
        const kind = netKind(prev, cur, rec);
        // an unchanged file keeps its entry (often the index's own): a new one for each file the safety
        // poll looked at was ~10 MB of old-generation garbage a round at 100,000 files (idle over 420 s
        // 1.74% -> 1.27% of a core)
        if (cur) {
          if (!prev || prev.size !== cur.size || prev.ino !== cur.ino || prev.mtimeMs !== cur.mtimeMs) known.set(file, cur);
        } else {
          known.delete(file);
          links.delete(file);
        }
        if (kind) {
          warmUp(path.dirname(file));
          changes.push(
            cur ? { file, kind, size: cur.size, ino: cur.ino, mtimeMs: cur.mtimeMs } : { file, kind, size: 0, ino: 0, mtimeMs: 0 },
          );
        }
      }
      pending.clear();
      if (changes.length > 0) {
        changes.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
        deliver(changes);
      }
    } catch {
      /* never throw out of a timer */
    }
  }

  /** A change in a cold folder: an agent writes there again, so it is watched from now on. */
  function warmUp(dir: string): void {
    if (cold.delete(dir) && mode === 'watch') addWatcher(dir);
  }

  /**
   * Picks the session folders to leave unwatched (cold) before the first
   * full comparison: those holding 1..COLD_MAX_FILES known files, past the
   * `hotFolders` most recently written (by their newest file's mtime). In
   * slices: a pass over 100,000 known files. Folders holding more files, and
   * folders with no known file (the root, project folders, new ones), are
   * always watched.
   */
  async function coldFolders(): Promise<void> {
    if (known.size <= hotFolders) return;
    const folders = new Map<string, { files: number; newest: number }>();
    await eachInSlices([...known.keys()], (f) => {
      const mtime = known.get(f)!.mtimeMs;
      const d = path.dirname(f);
      const e = folders.get(d);
      if (e) {
        e.files++;
        if (mtime > e.newest) e.newest = mtime;
      } else folders.set(d, { files: 1, newest: mtime });
    });
    const eligible: string[] = [];
    for (const [d, e] of folders) if (e.files <= COLD_MAX_FILES && d !== root) eligible.push(d);
    if (eligible.length <= hotFolders) return;
    // the hotFolders-th newest mtime: folders written before it are cold (a typed sort of the
    // numbers, ~10 ms at 100,000, where sorting the folders themselves blocked the loop for ~60 ms)
    const newest = Float64Array.from(eligible, (d) => folders.get(d)!.newest).sort();
    const cut = newest[newest.length - hotFolders];
    for (const d of eligible) if (folders.get(d)!.newest < cut) cold.add(d);
  }
  let coldPicked = false;

  function deliver(changes: FileChange[]): void {
    if (closed) return;
    delivering = true;
    try {
      opts.onChanges(changes);
    } catch {
      /* a throwing consumer must not stop the watcher */
    } finally {
      delivering = false;
    }
  }

  let safetyRounds = 0;

  /** a full comparison is running; `again`: another was asked for meanwhile */
  let reconciling: Promise<void> | undefined;
  let again = false;

  /**
   * Walk the whole tree (adding watchers for folders missed), compare
   * everything: in slices (inSlices). One at a time; one asked for meanwhile
   * starts when it ends (so a sync() made now is answered by a walk that
   * started after it).
   */
  function reconcile(): Promise<void> {
    if (reconciling) {
      again = true;
      return reconciling;
    }
    const run = fullComparison().finally(() => {
      reconciling = undefined;
      if (again && !closed) {
        again = false;
        void reconcile();
      }
    });
    reconciling = run;
    return run;
  }

  async function fullComparison(): Promise<void> {
    if (closed) return;
    // Only the sync() calls made before this walk started are answered by it:
    // one made during the delivery (from onChanges) waits for the next walk.
    const answered = syncWaiters;
    syncWaiters = [];
    try {
      if (initial) {
        const from = initial;
        initial = undefined;
        await eachInSlices([...from.keys()], (f) => {
          // the caller's own state object and path string, never changed in place (a copy of each was ~180 bytes a file)
          const st = from.get(f);
          if (st) known.set(resolved(f), st);
        });
      }
      if (mode === 'watch') {
        // drop watchers of folders that vanished without an event
        await eachInSlices([...watchers.keys(), ...cold], (d) => {
          if (d !== root && (watchers.has(d) || cold.has(d)) && probe(d)?.kind !== 'dir') removeTree(d);
        });
        if (!coldPicked) {
          coldPicked = true;
          await coldFolders();
        }
      }
      if (!checkRoot()) {
        // the root is gone: its files go now, in this batch, before onRoot says so (tellRoot)
        for (const f of known.keys()) observe(f, undefined);
        flush();
        return;
      }
      const listed = mode === 'watch' ? firstFolders : undefined;
      firstFolders = undefined;
      const fromScan = listed !== undefined && listed.has(root);
      if (fromScan && early) for (const f of early.links) links.add(f);
      else {
        early?.close();
        early = undefined;
      }
      if (fromScan) await eachInSlices([...listed.keys()], (d) => checkListed(d, listed));
      else await inSlices(treeWalker(root, true));
      early?.close(); // the folders not taken over
      early = undefined;
      const trusted = watchedEarly;
      watchedEarly = new Set();
      // the known files: only those that differ from what was reported are marked (a flush of 100,000 would be one block);
      // starting from a walk, the files of cold folders are left to the safety poll, like any later change of theirs
      const skipCold = listed !== undefined && cold.size > 0;
      await eachInSlices([...known.keys()], (f) => {
        const prev = known.get(f);
        if (!prev) return;
        const dir = skipCold || trusted.size > 0 ? path.dirname(f) : '';
        if (skipCold && cold.has(dir)) return;
        // watched since before the scan read it: a change since is an event (a read that failed, ino 0, is looked at again)
        if (trusted.has(dir) && prev.ino !== 0 && !pending.has(f) && !links.has(f)) return;
        // the common case, a plain file as it was, without probe()'s objects (~0.2 s of a warm start at 100,000 files)
        if (!pending.has(f) && safeFileName(f) && unchangedFile(f, prev)) return;
        const e = probe(f);
        if (e?.kind === 'file' && e.link) links.add(f); // a walk from initialFolders did not list it
        const cur = e?.kind === 'file' && safeFileName(f) ? e.st : null;
        if (!cur || cur.size !== prev.size || cur.ino !== prev.ino || cur.mtimeMs !== prev.mtimeMs || pending.has(f)) observe(f, cur);
      });
      if (!closed) flush();
    } catch {
      /* never throw out of a timer */
    } finally {
      // resolved even after a failed walk: a waiter must never hang
      settle(answered);
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
  function checkListed(d: string, listed: Map<string, number>): void {
    const stamp = listed.get(d);
    if (cold.has(d) && stamp !== undefined && !Number.isNaN(stamp)) {
      // a cold folder the walk just stat'ed: left to the safety poll like its files (a stat
      // each of 100,000 folders again was ~250 ms at start); it compares with the walk's stamp
      early?.drop(d);
      dirStamp.set(d, stamp);
      return;
    }
    if (!cold.has(d) && takeEarly(d, stamp)) return;
    if (!cold.has(d)) addWatcher(d);
    const m = dirMtime(d);
    if (m === null) {
      if (d !== root) removeTree(d);
      return;
    }
    dirStamp.set(d, m);
    if (stamp === m) return;
    const { files, dirs } = readFolder(d, safeFileName, skip);
    for (const f of files) {
      if (!known.has(f.path)) observe(f.path, undefined);
      if (f.symlink) links.add(f.path);
    }
    for (const sub of dirs) if (!listed.has(sub) && !watchers.has(sub) && !unwatched.has(sub) && !cold.has(sub)) addTree(sub);
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
  function takeEarly(d: string, stamp: number | undefined): boolean {
    const e = early?.take(d);
    if (!e) return false;
    const st = e.id && stamp !== undefined && !Number.isNaN(stamp) ? folderStat(d) : null;
    const same = st !== null && st.mtimeMs === stamp && st.ino === e.id!.ino && st.dev === e.id!.dev && !heardSelf(d, e.names);
    if (closed || mode !== 'watch' || watchers.has(d) || !same) {
      e.watcher.close();
      return false;
    }
    e.watcher.ref(); // the scan's watch did not keep the process alive; the watcher's do
    e.watcher.on('change', (_event, filename) => onRaw(d, filename as Buffer | string | null));
    keepWatcher(d, e.watcher);
    dirStamp.set(d, stamp);
    watchedEarly.add(d);
    if (e.names === null) {
      dirtyDirs.add(d);
      schedule();
    } else for (const name of e.names) onRaw(d, name);
    return true;
  }

  /** whether a watch of `d` heard d's own name (names null: it heard too much to list them, and takeEarly looks at that folder whole anyway) */
  function heardSelf(d: string, names: Set<string | Buffer> | null): boolean {
    if (names === null || names.size === 0) return false;
    const base = path.basename(d);
    for (const n of names) if ((typeof n === 'string' ? n : n.toString()) === base) return true;
    return false;
  }

  function settle(waiters: (() => void)[]): void {
    markReady?.();
    markReady = undefined;
    for (const resolve of waiters) resolve();
  }

  // ---- modes ------------------------------------------------------------------------

  /**
   * The file is still as `known` has it (stat'ed here, inside the tick's
   * budget: flush() stat'ed every file of the slice after the budget was
   * checked, 2,000 a tick whatever they cost, ~1.1% of a core at 100,000
   * files; only a file that changed goes on to flush now).
   */
  function sameAsKnown(file: string): boolean {
    const e = probe(file);
    const prev = known.get(file);
    return e?.kind === 'file' && e.link !== true && prev !== undefined && e.st.size === prev.size && e.st.ino === prev.ino && e.st.mtimeMs === prev.mtimeMs;
  }

  /**
   * One slice of the safety poll in watch mode (see SAFETY_BATCH): symlinked
   * files every time; then the next folders (listed again only when their
   * mtime changed) and files (stat'ed) of a round over the whole tree.
   */
  function safetyTick(): void {
    if (closed || mode !== 'watch') return;
    try {
      // one stat: the root deleted (or made again) without an event reaching us
      if (!checkRoot()) return flush();
      for (const f of links) observe(f, undefined);
      if (sweepAt >= sweep.length) {
        sweep = [...watchers.keys(), ...cold, ...known.keys()];
        sweepAt = 0;
      }
      const stop = Math.min(sweep.length, sweepAt + SAFETY_BATCH);
      const until = performance.now() + SAFETY_BUDGET_MS;
      for (; sweepAt < stop && ((sweepAt & 15) !== 0 || performance.now() < until); sweepAt++) {
        const p = sweep[sweepAt];
        if (watchers.has(p) || cold.has(p)) {
          const m = dirMtime(p);
          if (m === null) {
            if (p !== root) removeTree(p);
            else checkRoot();
          } else if (dirStamp.get(p) !== m) relist(p, m);
        } else if (known.has(p) && !sameAsKnown(p)) observe(p, undefined);
      }
      flush();
      if (sweepAt >= sweep.length) safetyRounds++;
    } catch {
      /* never throw out of a timer */
    }
  }

  function startPeriodic(): void {
    if (periodic) clearTimeout(periodic);
    periodic = undefined;
    if (mode === 'watch') {
      if (safetyMs > 0) periodic = setInterval(safetyTick, safetyMs);
      return;
    }
    // Poll mode walks everything; on a big tree the period stretches so the
    // walk takes at most ~10% of a core. Measured in CPU time, not wall: on a
    // busy machine a small walk waits for the CPU, and a wall clock stretched
    // the period of a one-file root from 250 ms to 4 s.
    const tick = async () => {
      const t0 = process.cpuUsage();
      await reconcile();
      const used = process.cpuUsage(t0);
      const spent = (used.user + used.system) / 1000;
      if (!closed && mode === 'poll') periodic = setTimeout(tick, Math.max(pollMs, 10 * spent));
    };
    periodic = setTimeout(tick, pollMs);
  }

  function fallbackToPolling(reason: string): void {
    if (closed || mode === 'poll') return;
    mode = 'poll';
    fallbackReason = reason;
    early?.close();
    early = undefined;
    for (const w of watchers.values()) {
      try {
        w.close();
      } catch {
        /* ignore */
      }
    }
    watchers.clear();
    cold.clear();
    dirtyDirs.clear();
    dirStamp.clear();
    for (const d of [...unwatched.keys()]) setUnwatched(d, undefined);
    startPeriodic();
    try {
      opts.onModeChange?.('poll', reason);
    } catch {
      /* ignore */
    }
    // catch up right away (outside whatever callback we are in)
    scheduleRescan(0);
  }

  function scheduleRescan(ms: number): void {
    if (closed || rescanTimer) return;
    rescanTimer = setTimeout(() => {
      rescanTimer = undefined;
      if (delivering) scheduleRescan(0);
      else void reconcile();
    }, ms);
  }

  // ---- start ----------------------------------------------------------------------------

  if (opts.forcePolling) {
    mode = 'poll';
  } else if (probe(root)?.kind !== 'dir' && !isDirViaSymlink(root)) {
    mode = 'poll';
    fallbackReason = `root ${root} is not a directory (yet)`;
  } else {
    // the first full comparison installs the watchers as it walks (each folder's before it is listed)
    rootIno = rootStat()?.ino;
  }
  startPeriodic();
  if (mode === 'poll' && fallbackReason) {
    const reason = fallbackReason;
    queueMicrotask(() => {
      if (!closed) {
        try {
          opts.onModeChange?.('poll', reason);
        } catch {
          /* ignore */
        }
      }
    });
  }
  // first comparison against `initial` (or against nothing), which installs
  // the watchers: soon, never inside this call
  scheduleRescan(0);

  return {
    get mode() {
      return mode;
    },
    get fallbackReason() {
      return fallbackReason;
    },
    get unwatched() {
      return unwatched;
    },
    get cold() {
      return cold;
    },
    get watched() {
      return watchers.size;
    },
    get known() {
      return known;
    },
    get safetyRounds() {
      return safetyRounds;
    },
    rescan() {
      scheduleRescan(0);
    },
    ready,
    sync() {
      if (closed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        syncWaiters.push(resolve);
        // a walk already scheduled starts after this call, so it answers it too
        scheduleRescan(0);
      });
    },
    close() {
      if (closed) return;
      closed = true;
      if (flushTimer) clearTimeout(flushTimer);
      if (periodic) clearTimeout(periodic);
      if (unwatchedTimer) clearInterval(unwatchedTimer);
      if (rescanTimer) clearTimeout(rescanTimer);
      if (rootTimer) clearInterval(rootTimer);
      flushTimer = periodic = rescanTimer = rootTimer = undefined;
      early?.close();
      early = undefined;
      for (const w of watchers.values()) {
        try {
          w.close();
        } catch {
          /* ignore */
        }
      }
      watchers.clear();
      pending.clear();
      dirtyDirs.clear();
      // nothing will be delivered any more: whoever waits is told so now
      const waiting = syncWaiters;
      syncWaiters = [];
      settle(waiting);
    },
  };
}

/** The root itself may be a symlink to a folder (e.g. ~/.dsh -> /data/dsh): that one we follow. */
function isDirViaSymlink(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
