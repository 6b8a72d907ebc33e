// A watch costs ~1 KB of memory (and one of the system's inotify watches),
// so past `hotFolders` session folders only the most recently written are
// watched: the older ("cold") ones are looked at by the safety poll, and one
// that changes is watched from then on.
import path from 'node:path';
import { eachInSlices } from './slices.js';
import type { Watch } from './state.js';

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

export class ColdFolders {
  /** how many session folders are watched at start at most */
  private readonly hotFolders: number;

  constructor(private readonly w: Watch) {
    this.hotFolders = Math.max(0, w.opts.hotFolders ?? HOT_FOLDERS);
  }

  /**
   * Picks the session folders to leave unwatched (cold) before the first
   * full comparison: those holding 1..COLD_MAX_FILES known files, past the
   * `hotFolders` most recently written (by their newest file's mtime). In
   * slices: a pass over 100,000 known files. Folders holding more files, and
   * folders with no known file (the root, project folders, new ones), are
   * always watched.
   */
  async pick(): Promise<void> {
    const { known, cold, root } = this.w;
    const hotFolders = this.hotFolders;
    if (known.size <= hotFolders) return;
    const folders = new Map<string, { files: number; newest: number }>();
    await eachInSlices(this.w, [...known.keys()], (f) => {
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

  /** A change in a cold folder: an agent writes there again, so it is watched from now on. */
  warmUp(dir: string): void {
    if (this.w.cold.delete(dir) && this.w.mode === 'watch') this.w.folders.addWatcher(dir);
  }
}
