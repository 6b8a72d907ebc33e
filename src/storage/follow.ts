// Live follow: applies file changes reported by the watcher to the store.
// Appends go through the same LogReader as a full load, from the last
// complete line's offset, so a followed session equals a fresh load.
import fs from 'node:fs';
import type { Session } from '../session/session.js';
import { indexFileSafe, type RootIndex } from './load-root.js';
import { LogReader } from './log-reader.js';
import { readLog } from './session-file.js';
import { watchRoot, type FileChange, type RootWatcher } from './watcher.js';
import { isCompressedLog } from './zstd-log.js';

export interface FollowOptions {
  /** a human message for the status line (mode changes, replaced files) */
  onStatus?(message: string): void;
  /** called once per applied batch, after the store emitted */
  onApplied?(changes: FileChange[]): void;
  forcePolling?: boolean;
  pollIntervalMs?: number;
}

export interface Follower {
  close(): void;
  readonly mode: 'watch' | 'poll';
  /** apply a batch now (the watcher calls this; tests may too) */
  apply(changes: FileChange[]): void;
}

const sessionByFile = (index: RootIndex, file: string): Session | undefined => {
  const s = index.store.get(file);
  return s && s.file === file ? s : undefined;
};

/**
 * Reads the bytes appended since `reader.consumed` and feeds the complete
 * lines. Returns -1 when the byte before that offset is no longer the newline
 * that ended the last line read: the file was rewritten (truncated and grown
 * again between two looks), so offsets mean nothing and it must be re-read.
 */
export function feedAppended(file: string, reader: LogReader): number {
  const fd = fs.openSync(file, fs.constants.O_RDONLY);
  try {
    const size = fs.fstatSync(fd).size;
    if (size <= reader.consumed) return 0;
    const from = reader.consumed - 1; // >= 0: a session has at least its header line
    const buf = Buffer.allocUnsafe(size - from);
    const n = fs.readSync(fd, buf, 0, buf.length, from);
    if (from >= 0 && buf[0] !== 10) return -1;
    return reader.feed(buf.subarray(1, n));
  } finally {
    fs.closeSync(fd);
  }
}

export function applyChange(index: RootIndex, c: FileChange, status: (m: string) => void): void {
  const known = sessionByFile(index, c.file);
  const entry = index.files.get(c.file);
  switch (c.kind) {
    case 'deleted':
      index.files.delete(c.file);
      if (known) {
        known.gone = true;
        index.store.remove(known);
        status(`session file deleted: ${c.file}`);
      }
      return;
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
      if (!(known.log instanceof LogReader) || isCompressedLog(c.file)) {
        // a session this process wrote, or a compressed one (a new frame: offsets are in the decoded text): re-read it in place
        const r = readLog(c.file, known.isLoaded);
        known.resetLog(r.reader, known.isLoaded);
        if (isCompressedLog(c.file)) {
          index.files.set(c.file, { ...r.stat, pending: r.pending });
          return;
        }
      } else {
        const fed = feedAppended(c.file, known.log);
        if (fed < 0) {
          status(`session file was rewritten: re-read ${c.file}`);
          index.store.remove(known); // the old object is now stale (SESSION_NOT_LIVE)
          indexFileSafe(index, c.file);
          return;
        }
        if (fed === 0 && entry && entry.size === c.size) return;
      }
      index.files.set(c.file, { size: c.size, ino: c.ino, mtimeMs: c.mtimeMs, pending: c.size - known.log.consumed });
      return;
    }
  }
}

/** Follows the root until close(). */
export function followRoot(index: RootIndex, opts: FollowOptions = {}): Follower {
  const status = opts.onStatus ?? (() => {});
  const apply = (changes: FileChange[]) => {
    for (const c of changes) {
      try {
        applyChange(index, c, status);
      } catch (e) {
        status(`could not read ${c.file}: ${(e as Error).message}`);
      }
    }
    index.store.emit();
    opts.onApplied?.(changes);
  };
  const initial = new Map([...index.files].map(([f, e]) => [f, { size: e.size, ino: e.ino, mtimeMs: e.mtimeMs }]));
  const watcher: RootWatcher = watchRoot(index.root, {
    initial,
    forcePolling: opts.forcePolling,
    pollIntervalMs: opts.pollIntervalMs,
    onChanges: apply,
    onModeChange: (mode, reason) => status(mode === 'poll' ? `watching by polling${reason ? ` (${reason})` : ''}` : 'watching'),
  });
  return {
    close: () => watcher.close(),
    get mode() {
      return watcher.mode;
    },
    apply,
  };
}
