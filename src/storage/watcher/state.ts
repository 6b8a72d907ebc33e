// What the parts of one watch share: the root and the options, what was last
// reported of each file, which folders are watched, polled or cold, the mode,
// and the parts themselves. A part reaches another through here instead of
// importing it, so the parts can call one another (a flush looks at the
// root, the root's return walks the tree again, ...) and each file still
// holds one job.
import type { FSWatcher } from 'node:fs';
import { NumberedMap } from '../../session/key-table.js';
import { defaultIsSessionFile, type FileState, type Skip } from '../walk.js';
import type { Batches } from './batches.js';
import type { ColdFolders } from './cold-folders.js';
import type { PollFallback } from './poll-fallback.js';
import type { Reconcile } from './reconcile.js';
import type { RootReturn } from './root-return.js';
import type { SafetyPoll } from './safety-poll.js';
import type { WatchRootOptions } from './types.js';
import type { WatchFolders } from './watch-folders.js';

export class Watch {
  /** the root folder, resolved */
  readonly root: string;
  /** the caller's options, without what only the first comparison needs (Reconcile holds that) */
  readonly opts: WatchRootOptions;
  /** which files to report, by absolute path (isSessionFile) */
  readonly safeFileName: (p: string) => boolean;
  /** what was last reported (or given as initial), by path (over the index's key numbers when `initial` has them: key-table.ts) */
  readonly known: Map<string, FileState>;
  readonly watchers = new Map<string, FSWatcher>();
  /** folders that cannot be watched: folder -> reason; polled one by one */
  readonly unwatched = new Map<string, string>();
  /** mtime of each watched folder when it was last listed */
  readonly dirStamp = new Map<string, number>();
  /** known files that are symlinks (inotify does not see their targets change) */
  readonly links = new Set<string>();
  /** session folders left unwatched (coldFolders): the safety poll looks at them; a change makes them watched */
  readonly cold = new Set<string>();
  mode: 'watch' | 'poll' = 'watch';
  fallbackReason: string | undefined;
  closed = false;

  // The parts, each set once by watchRoot before anything runs.
  batches!: Batches;
  folders!: WatchFolders;
  poll!: PollFallback;
  compare!: Reconcile;
  safety!: SafetyPoll;
  rootReturn!: RootReturn;
  coldFolders!: ColdFolders;

  constructor(root: string, opts: WatchRootOptions) {
    this.root = root;
    const accept = opts.isSessionFile ?? defaultIsSessionFile;
    this.safeFileName = (p) => accept(p);
    this.known = opts.initial instanceof NumberedMap ? new NumberedMap<FileState>(opts.initial.table) : new Map<string, FileState>();
    // the parts keep `opts`: not the two maps of the first comparison (100,000 folders and files)
    this.opts = { ...opts, initial: undefined, initialFolders: undefined, early: undefined };
  }

  /** Tells onSkip of an entry passed over (a callback for the walks and listings). */
  readonly skip = (s: Skip): void => {
    try {
      this.opts.onSkip?.(s);
    } catch {
      /* ignore */
    }
  };
}
