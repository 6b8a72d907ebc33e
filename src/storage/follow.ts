// Live follow: applies file changes reported by the watcher to the store.
// Appends go through the same LogReader as a full load, from the last
// complete line's offset, so a followed session equals a fresh load.
import fs from 'node:fs';
import type { Session } from '../session/session.js';
import { dropGeneration, fileEntry, indexFileSafe, recordSkip, type RootIndex } from './load-root.js';
import { LogReader } from './log-reader.js';
import { feedFd, readLog } from './session-file.js';
import { errorText, openRegular } from './open-file.js';
import { watchRoot, type FileChange, type RootWatcher } from './watcher.js';
import type { EarlyWatches } from './early-watches.js';
import { feedAppendedZstd, isCompressedLog } from './zstd-log.js';
import { loadZstd, zstdSettled } from './zstd-codecs.js';

export interface FollowOptions {
  /** a human message for the status line (mode changes, replaced files) */
  onStatus?(message: string): void;
  /** called once per applied batch, after the store emitted */
  onApplied?(changes: FileChange[]): void;
  forcePolling?: boolean;
  pollIntervalMs?: number;
  /** while the root folder is gone, how often to look for it (default: the watcher's, 1 s) */
  rootPollMs?: number;
  /** the watches the first scan took (scanRoot's `early`): the watcher takes them over */
  early?: EarlyWatches;
}

export const ROOT_GONE_MESSAGE = 'the root folder is gone; waiting for it to come back';
export const ROOT_BACK_MESSAGE = 'the root folder is back; following it again';

export interface Follower {
  close(): void;
  readonly mode: 'watch' | 'poll';
  /** the watcher's first full comparison was delivered (or it closed) */
  readonly ready: Promise<void>;
  /** apply a batch now (the watcher calls this; tests may too) */
  apply(changes: FileChange[]): void;
}

/** Time one batch may spend skipping through over-long lines before the loop gets a turn. */
const APPLY_BUDGET_MS = 25;

const sessionByFile = (index: RootIndex, file: string): Session | undefined => {
  const s = index.store.get(file);
  return s && s.file === file ? s : undefined;
};

/**
 * Reads the bytes appended since the reader stopped and feeds the complete
 * lines, through the same bounded reader as a full load (an over-long line is
 * skipped in bounded memory, LINE_TOO_LONG, and what follows it is read).
 * Returns the bytes newly consumed, or -1 when the byte before the reader's
 * offset is no longer the newline that ended the last line read: the file was
 * rewritten (truncated and grown again between two looks), so offsets mean
 * nothing and it must be re-read.
 */
export function feedAppended(file: string, reader: LogReader, pause?: () => boolean): number {
  const { fd, st } = openRegular(file);
  try {
    const size = st.size;
    if (reader.gaveUp) return 0;
    const from = reader.skipFrom !== undefined ? Math.max(reader.scanned, reader.consumed) : reader.consumed;
    if (size <= from) return 0;
    if (reader.consumed > 0) {
      // >= 1 byte before: a session has at least its header line
      const one = Buffer.alloc(1);
      if (fs.readSync(fd, one, 0, 1, reader.consumed - 1) !== 1 || one[0] !== 10) return -1;
    }
    const before = reader.consumed;
    feedFd(fd, reader, size, pause, Infinity);
    return reader.consumed - before;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Applies one change. Returns true when the work was paused (pause() said so
 * while skipping an over-long line) and the change must be applied again.
 */
export function applyChange(index: RootIndex, c: FileChange, status: (m: string) => void, pause?: () => boolean): boolean | void {
  const known = sessionByFile(index, c.file);
  const entry = index.files.get(c.file);
  switch (c.kind) {
    case 'deleted': {
      index.files.delete(c.file);
      if (known) {
        known.gone = true;
        index.store.remove(known);
        status(`session file deleted: ${c.file}`);
      }
      const next = dropGeneration(index, c.file);
      if (next !== undefined && known) status(`session file deleted: ${c.file}; the older generation ${next} is current now`);
      return;
    }
    case 'truncated':
    case 'replaced':
      if (known) status(`session file ${c.kind === 'truncated' ? 'shrank' : 'was replaced'}: re-read ${c.file}`);
      if (known) index.store.remove(known); // the old object is now stale (SESSION_NOT_LIVE)
      indexFileSafe(index, c.file);
      return;
    case 'new':
    case 'grown': {
      if (!known) {
        // new file, or one that was not a session yet (e.g. its header was still pending)
        indexFileSafe(index, c.file);
        return;
      }
      if (known.log instanceof LogReader && isCompressedLog(c.file)) {
        // a compressed log's new frames, decoded from where its last read ended
        const fed = feedAppendedZstd(c.file, known.log);
        if (fed) {
          index.store.touch(known);
          index.files.set(c.file, fileEntry(fed.result.stat, fed.result.pending));
          return;
        }
      }
      if (!(known.log instanceof LogReader) || isCompressedLog(c.file)) {
        // a session this process wrote, or a compressed one whose last read did not end where the new frames start
        // (a torn frame, written again; offsets are in the decoded text): re-read it in place
        const r = readLog(c.file, known.isLoaded);
        known.resetLog(r.reader, known.isLoaded);
        index.store.touch(known);
        if (isCompressedLog(c.file)) {
          index.files.set(c.file, fileEntry(r.stat, r.pending));
          return;
        }
      } else {
        const fed = feedAppended(c.file, known.log, pause);
        index.store.touch(known);
        if (fed < 0) {
          status(`session file was rewritten: re-read ${c.file}`);
          index.store.remove(known); // the old object is now stale (SESSION_NOT_LIVE)
          indexFileSafe(index, c.file);
          return;
        }
        const log = known.log;
        const more = log.skipFrom !== undefined && !log.gaveUp && log.scanned < c.size;
        if (more) {
          index.files.set(c.file, fileEntry(c, c.size - log.consumed));
          return true; // paused while skipping an over-long line: apply again
        }
        if (fed === 0 && entry && entry.size === c.size) return;
      }
      index.files.set(c.file, fileEntry(c, c.size - known.log.consumed));
      return;
    }
  }
}

/** Follows the root until close(). */
export function followRoot(index: RootIndex, opts: FollowOptions = {}): Follower {
  const status = opts.onStatus ?? (() => {});
  let closed = false;
  // Files whose append is being skipped through in steps (a huge over-long line).
  const resume = new Map<string, FileChange>();
  let resumeTimer: NodeJS.Immediate | undefined;
  const apply = (changes: FileChange[]) => {
    // a compressed log's changes wait for the WebAssembly zstd (zstd-codecs.ts), in their order: the first in a root of plain logs loads it
    if (!zstdSettled() && changes.some((c) => isCompressedLog(c.file))) {
      const later = changes.filter((c) => isCompressedLog(c.file));
      void loadZstd().then(() => {
        if (!closed) apply(later);
      });
      changes = changes.filter((c) => !isCompressedLog(c.file));
      if (changes.length === 0) return;
    }
    const until = performance.now() + APPLY_BUDGET_MS;
    const pause = () => performance.now() > until;
    // the store's listeners hear of the batch once (a thousand new files from a fleet of subagents: one emit, not a thousand)
    index.store.hold();
    try {
      for (const c of changes) {
        try {
          if (applyChange(index, c, status, pause)) resume.set(c.file, c);
          else resume.delete(c.file);
        } catch (e) {
          resume.delete(c.file);
          status(`could not read ${c.file}: ${errorText(e)}`);
        }
      }
    } finally {
      index.store.release(true);
    }
    opts.onApplied?.(changes);
    if (resume.size > 0 && !resumeTimer && !closed)
      resumeTimer = setImmediate(() => {
        resumeTimer = undefined;
        if (closed) return;
        const again = [...resume.values()];
        resume.clear();
        apply(again);
      });
  };
  const watcher: RootWatcher = watchRoot(index.root, {
    initial: index.files, // the watcher keeps these entries (fileEntry makes a new one for each change, never edits one)
    initialFolders: index.folders,
    early: opts.early,
    forcePolling: opts.forcePolling,
    pollIntervalMs: opts.pollIntervalMs,
    onChanges: apply,
    onModeChange: (mode, reason) => status(mode === 'poll' ? `watching by polling${reason ? ` (${reason})` : ''}` : 'watching'),
    onUnwatched: (dirs) => {
      if (dirs.size === 0) return status('watching');
      const [[dir, why]] = dirs;
      status(`watching; polling ${dirs.size} folder(s) that cannot be watched: ${dir} (${why})${dirs.size > 1 ? ` and ${dirs.size - 1} more` : ''}`);
    },
    onSkip: (s) => {
      const old = index.skipped.get(s.file);
      if (old && old.code === s.code && old.message === s.message) return;
      if (index.files.has(s.file) && s.code === 'NOT_A_FILE') return; // a file that became something else: the change says so
      recordSkip(index, s);
      index.store.emit();
    },
    onGone: (p) => {
      if (index.skipped.delete(p)) index.store.emit();
    },
    // the title bar shows the last status: while the root is gone, this is it (its files were just reported deleted)
    onRoot: (state) => status(state === 'gone' ? ROOT_GONE_MESSAGE : ROOT_BACK_MESSAGE),
    rootPollMs: opts.rootPollMs,
  });
  index.folders = undefined; // the watcher's now (its folder stamps)
  return {
    close: () => {
      closed = true;
      if (resumeTimer) clearImmediate(resumeTimer);
      watcher.close();
    },
    get mode() {
      return watcher.mode;
    },
    ready: watcher.ready,
    apply,
  };
}
