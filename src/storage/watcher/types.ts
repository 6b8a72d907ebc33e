// What a caller of watchRoot sees: the changes it is told of, the watcher it
// holds, and the options it starts one with. The parts of the watch import
// these from here, so none of them needs the entry module.
import type { EarlyWatches } from '../early-watches.js';
import type { FileState, Skip } from '../walk.js';

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
