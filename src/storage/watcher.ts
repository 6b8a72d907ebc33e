// Follows a session root while agents write into it (DOMAIN.md §4).
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
// - any fs.watch error (ENOSPC: out of inotify watches, EMFILE, ...) switches to
//   polling: the whole tree is walked and stat'ed every `pollIntervalMs`.
// Nothing here throws out of a callback, and close() stops every watcher and
// timer.
import fs from 'node:fs';
import path from 'node:path';
import { defaultIsSessionFile, listSessionFiles, probe, skipDirName, walk, type FileState } from './walk.js';

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
}

export interface WatchRootOptions {
  onChanges(changes: FileChange[]): void;
  onModeChange?(mode: 'watch' | 'poll', reason?: string): void;
  /**
   * What the store already loaded, by absolute path. Files absent from this map
   * are reported as 'new' in the first batch (so with no map at all, every
   * existing session file is reported as 'new' once, shortly after start), and
   * files that differ from it are reported with the matching kind. An `ino` of
   * 0 means "unknown" and is not compared.
   */
  initial?: Map<string, FileState>;
  forcePolling?: boolean;
  /** poll period in poll mode, default 250 ms */
  pollIntervalMs?: number;
  /** burst window in watch mode, default 16 ms */
  coalesceMs?: number;
  /** safety walk period in watch mode, default 2000 ms (0 disables it) */
  safetyPollMs?: number;
  /** which files to report, by absolute path; default: isSessionFileName of the base name */
  isSessionFile?(path: string): boolean;
}

const DEFAULT_POLL_MS = 250;
const DEFAULT_COALESCE_MS = 16;
const DEFAULT_SAFETY_MS = 2000;

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

export function watchRoot(root: string, opts: WatchRootOptions): RootWatcher {
  root = path.resolve(root);
  const accept = opts.isSessionFile ?? defaultIsSessionFile;
  const pollMs = Math.max(10, opts.pollIntervalMs ?? DEFAULT_POLL_MS);
  const coalesceMs = Math.max(0, opts.coalesceMs ?? DEFAULT_COALESCE_MS);
  const safetyMs = opts.safetyPollMs ?? DEFAULT_SAFETY_MS;

  /** what was last reported (or given as initial), by path */
  const known = new Map<string, FileState>();
  if (opts.initial) for (const [f, st] of opts.initial) known.set(path.resolve(f), { ...st });

  const watchers = new Map<string, fs.FSWatcher>();
  const pending = new Map<string, Pending>();
  const dirtyDirs = new Set<string>();

  let mode: 'watch' | 'poll' = 'watch';
  let fallbackReason: string | undefined;
  let closed = false;
  let flushTimer: NodeJS.Timeout | undefined;
  let periodic: NodeJS.Timeout | undefined;
  let rescanTimer: NodeJS.Timeout | undefined;
  let delivering = false;

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

  /** Watch `dir` and everything below it (watch mode), then mark every file in it. */
  function addTree(dir: string): void {
    walk(
      dir,
      safeFileName,
      (f) => observe(f, undefined),
      (d) => {
        if (mode === 'watch') addWatcher(d);
      },
    );
  }

  /** `dir` is gone: drop its watchers and mark every known file below it. */
  function removeTree(dir: string): void {
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
      w = fs.watch(dir, { persistent: true }, (_event, filename) => onRaw(dir, filename));
    } catch (e) {
      const code = errCode(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') return; // vanished meanwhile; the parent's event covers it
      fallbackToPolling(`fs.watch(${dir}) failed: ${errText(e)}`);
      return;
    }
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
        fallbackToPolling(`fs.watch error on ${dir}: ${errText(e)}`);
      } catch {
        /* never throw out of a callback */
      }
    });
    watchers.set(dir, w);
  }

  // ---- raw events -------------------------------------------------------------

  function onRaw(dir: string, filename: string | Buffer | null): void {
    try {
      if (closed || mode !== 'watch') return;
      if (filename === null || filename === undefined || filename === '') {
        // no name (overflow on some platforms): look at the whole folder
        dirtyDirs.add(dir);
        schedule();
        return;
      }
      const name = typeof filename === 'string' ? filename : filename.toString('utf8');
      const p = path.join(dir, name);
      const e = probe(p);
      if (e?.kind === 'dir') {
        if (!skipDirName(name) && !watchers.has(p)) addTree(p);
      } else if (e?.kind === 'file') {
        if (safeFileName(p)) observe(p, e.st);
      } else {
        // gone (or not a file any more)
        if (watchers.has(p) || [...watchers.keys()].some((d) => isUnder(d, p))) removeTree(p);
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
        if (probe(d)?.kind === 'dir') addTree(d);
        else removeTree(d);
      }
      const changes: FileChange[] = [];
      for (const [file, rec] of pending) {
        const e = probe(file);
        const cur = e?.kind === 'file' && safeFileName(file) ? e.st : null;
        const prev = known.get(file);
        const kind = netKind(prev, cur, rec);
        if (cur) known.set(file, cur);
        else known.delete(file);
        if (kind) {
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

  /** Walk the whole tree (adding watchers for folders missed), compare everything. */
  function reconcile(): void {
    if (closed) return;
    try {
      if (mode === 'watch') {
        // drop watchers of folders that vanished without an event
        for (const d of [...watchers.keys()]) if (d !== root && probe(d)?.kind !== 'dir') removeTree(d);
      }
      addTree(root);
      for (const f of known.keys()) observe(f, undefined);
      flush();
    } catch {
      /* never throw out of a timer */
    }
  }

  // ---- modes ------------------------------------------------------------------------

  function startPeriodic(): void {
    if (periodic) clearInterval(periodic);
    periodic = undefined;
    const ms = mode === 'poll' ? pollMs : safetyMs;
    if (ms > 0) periodic = setInterval(reconcile, ms);
  }

  function fallbackToPolling(reason: string): void {
    if (closed || mode === 'poll') return;
    mode = 'poll';
    fallbackReason = reason;
    for (const w of watchers.values()) {
      try {
        w.close();
      } catch {
        /* ignore */
      }
    }
    watchers.clear();
    dirtyDirs.clear();
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
      else reconcile();
    }, ms);
  }

  // ---- start ----------------------------------------------------------------------------

  if (opts.forcePolling) {
    mode = 'poll';
  } else if (probe(root)?.kind !== 'dir' && !isDirViaSymlink(root)) {
    mode = 'poll';
    fallbackReason = `root ${root} is not a directory (yet)`;
  } else {
    // watchers first (this walk only installs them; files are compared below)
    walk(root, () => false, () => {}, (d) => addWatcher(d));
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
  // first comparison against `initial` (or against nothing), soon but not
  // inside this call
  scheduleRescan(0);

  return {
    get mode() {
      return mode;
    },
    get fallbackReason() {
      return fallbackReason;
    },
    rescan() {
      scheduleRescan(0);
    },
    close() {
      if (closed) return;
      closed = true;
      if (flushTimer) clearTimeout(flushTimer);
      if (periodic) clearInterval(periodic);
      if (rescanTimer) clearTimeout(rescanTimer);
      flushTimer = periodic = rescanTimer = undefined;
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
