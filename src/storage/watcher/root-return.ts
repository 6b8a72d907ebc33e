// The root folder itself may be deleted and made again (a cleanup, a restore
// from backup): while it is gone a slow timer looks for it, onRoot says so,
// and when it is back it is watched and listed afresh (its inotify watch
// died with the old folder, so nothing else would ever notice).
import fs from 'node:fs';
import { fsPath } from '../open-file.js';
import type { Watch } from './state.js';

const DEFAULT_ROOT_POLL_MS = 1000;

export class RootReturn {
  /** while the root is gone, how often to look for it */
  private readonly pollMs: number;
  /** the root folder vanished: `timer` looks for it until it is back */
  private gone = false;
  private timer: NodeJS.Timeout | undefined;
  /** inode of the root folder being watched (a folder made again under the name has another) */
  private ino: number | undefined;

  constructor(private readonly w: Watch) {
    this.pollMs = Math.max(10, w.opts.rootPollMs ?? DEFAULT_ROOT_POLL_MS);
  }

  /** The root folder being watched from now on is the one there now. */
  remember(): void {
    this.ino = this.stat()?.ino;
  }

  private stat(): fs.Stats | null {
    try {
      const st = fs.statSync(fsPath(this.w.root)); // follows a root that is a symlink to a folder
      return st.isDirectory() ? st : null;
    } catch {
      return null;
    }
  }

  private tell(state: 'gone' | 'back'): void {
    // after the batch being flushed (the deleted files) is delivered, so this is the last word
    queueMicrotask(() => {
      if (this.w.closed) return;
      try {
        this.w.opts.onRoot?.(state);
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
  check(): boolean {
    const w = this.w;
    const st = this.stat();
    if (!st) {
      if (!this.gone) {
        this.gone = true;
        this.ino = undefined;
        w.folders.removeTree(w.root);
        if (!this.timer && !w.closed) this.timer = setInterval(() => this.lookFor(), this.pollMs);
        this.tell('gone');
      }
      return false;
    }
    if (this.gone) {
      this.gone = false;
      if (this.timer) clearInterval(this.timer);
      this.timer = undefined;
      this.tell('back');
    } else if (this.ino === undefined || st.ino === this.ino) {
      this.ino = st.ino;
      return true;
    }
    // back, or replaced: watch the new folder from scratch and compare every file
    this.ino = st.ino;
    w.folders.removeTree(w.root);
    w.folders.addTree(w.root);
    return true;
  }

  private lookFor(): void {
    try {
      if (this.w.closed || !this.check()) return;
      this.w.batches.flush();
    } catch {
      /* never throw out of a timer */
    }
  }

  /** close(): no more looking for the root */
  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
