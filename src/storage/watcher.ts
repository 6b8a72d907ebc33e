// Follows a session root while agents write into it (docs/formats.md,
// "Files on disk").
//
// The watcher only says WHICH session files changed and how (new, grown,
// truncated, replaced, deleted); the session store reads the bytes itself from
// its own last-complete-line offset.
//
// It is made of parts with one job each, in ./watcher/, that share one Watch
// (state.ts) and reach one another through it:
// - watch-folders.ts: one non-recursive fs.watch per folder, and its raw events;
// - batches.ts: what each raw event showed, coalesced into one batch a burst;
// - safety-poll.ts: the slow walk that catches what inotify dropped or cannot see;
// - cold-folders.ts: past `hotFolders` session folders, only the newest watched;
// - poll-fallback.ts: polling, for the whole root or for a folder, when
//   watching fails;
// - root-return.ts: the root folder deleted and made again;
// - reconcile.ts: the full comparison, behind `ready` and `sync()`.
// This module wires them and starts the watch. Nothing here throws out of a
// callback, and close() stops every watcher and timer.
import path from 'node:path';
import { Batches } from './watcher/batches.js';
import { ColdFolders } from './watcher/cold-folders.js';
import { isDirViaSymlink } from './watcher/fs-helpers.js';
import { PollFallback } from './watcher/poll-fallback.js';
import { Reconcile } from './watcher/reconcile.js';
import { RootReturn } from './watcher/root-return.js';
import { SafetyPoll } from './watcher/safety-poll.js';
import { Watch } from './watcher/state.js';
import type { RootWatcher, WatchRootOptions } from './watcher/types.js';
import { WatchFolders } from './watcher/watch-folders.js';
import { listSessionFiles, probe, type FileState } from './walk.js';

export { listSessionFiles };
export type { FileState };
export type { FileChange, FileChangeKind, RootWatcher, WatchRootOptions } from './watcher/types.js';
export { HOT_FOLDERS } from './watcher/cold-folders.js';
export { resolved } from './watcher/fs-helpers.js';

export function watchRoot(root: string, opts: WatchRootOptions): RootWatcher {
  const w = new Watch(path.resolve(root), opts);
  w.batches = new Batches(w);
  w.folders = new WatchFolders(w);
  w.poll = new PollFallback(w);
  w.compare = new Reconcile(w, opts);
  w.safety = new SafetyPoll(w);
  w.rootReturn = new RootReturn(w);
  w.coldFolders = new ColdFolders(w);
  start(w);
  return handle(w);
}

/** Picks the mode and schedules the first full comparison (never inside watchRoot's call). */
function start(w: Watch): void {
  if (w.opts.forcePolling) {
    w.mode = 'poll';
  } else if (probe(w.root)?.kind !== 'dir' && !isDirViaSymlink(w.root)) {
    w.mode = 'poll';
    w.fallbackReason = `root ${w.root} is not a directory (yet)`;
  } else {
    // the first full comparison installs the watchers as it walks (each folder's before it is listed)
    w.rootReturn.remember();
  }
  w.poll.startPeriodic();
  if (w.mode === 'poll' && w.fallbackReason) {
    const reason = w.fallbackReason;
    queueMicrotask(() => {
      if (!w.closed) {
        try {
          w.opts.onModeChange?.('poll', reason);
        } catch {
          /* ignore */
        }
      }
    });
  }
  // first comparison against `initial` (or against nothing), which installs
  // the watchers: soon, never inside this call
  w.compare.scheduleRescan(0);
}

/** What the caller holds: a view of the watch's state, and close(). */
function handle(w: Watch): RootWatcher {
  return {
    get mode() {
      return w.mode;
    },
    get fallbackReason() {
      return w.fallbackReason;
    },
    get unwatched() {
      return w.unwatched;
    },
    get cold() {
      return w.cold;
    },
    get watched() {
      return w.watchers.size;
    },
    get known() {
      return w.known;
    },
    get safetyRounds() {
      return w.safety.rounds;
    },
    rescan() {
      w.compare.scheduleRescan(0);
    },
    ready: w.compare.ready,
    sync() {
      return w.compare.sync();
    },
    close() {
      if (w.closed) return;
      w.closed = true;
      w.batches.stopTimer();
      w.poll.stopTimers();
      w.compare.stopTimer();
      w.rootReturn.stopTimer();
      w.compare.dropEarly();
      w.folders.closeAll();
      w.batches.clear();
      w.compare.settleAll();
    },
  };
}
