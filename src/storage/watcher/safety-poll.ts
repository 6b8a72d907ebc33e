// The slow safety poll of watch mode: inotify can drop events (queue
// overflow) and cannot see symlink targets, so every ~2 s a slice of the
// tree is looked at again, round after round, and whatever differs from
// what was reported goes into the next batch.
import { probe } from '../walk.js';
import { dirMtime } from './fs-helpers.js';
import type { Watch } from './state.js';

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

export class SafetyPoll {
  /** how many rounds over the tree have ended */
  rounds = 0;
  /** the folders and files of the current round, and how far it got */
  private sweep: string[] = [];
  private sweepAt = 0;

  constructor(private readonly w: Watch) {}

  /**
   * One slice of the safety poll in watch mode (see SAFETY_BATCH): symlinked
   * files every time; then the next folders (listed again only when their
   * mtime changed) and files (stat'ed) of a round over the whole tree.
   */
  tick(): void {
    const w = this.w;
    if (w.closed || w.mode !== 'watch') return;
    try {
      // one stat: the root deleted (or made again) without an event reaching us
      if (!w.rootReturn.check()) return w.batches.flush();
      for (const f of w.links) w.batches.observe(f, undefined);
      if (this.sweepAt >= this.sweep.length) {
        this.sweep = [...w.watchers.keys(), ...w.cold, ...w.known.keys()];
        this.sweepAt = 0;
      }
      const sweep = this.sweep;
      const stop = Math.min(sweep.length, this.sweepAt + SAFETY_BATCH);
      const until = performance.now() + SAFETY_BUDGET_MS;
      for (; this.sweepAt < stop && ((this.sweepAt & 15) !== 0 || performance.now() < until); this.sweepAt++) {
        const p = sweep[this.sweepAt];
        if (w.watchers.has(p) || w.cold.has(p)) {
          const m = dirMtime(p);
          if (m === null) {
            if (p !== w.root) w.folders.removeTree(p);
            else w.rootReturn.check();
          } else if (w.dirStamp.get(p) !== m) w.folders.relist(p, m);
        } else if (w.known.has(p) && !this.sameAsKnown(p)) w.batches.observe(p, undefined);
      }
      w.batches.flush();
      if (this.sweepAt >= this.sweep.length) this.rounds++;
    } catch {
      /* never throw out of a timer */
    }
  }

  /**
   * The file is still as `known` has it (stat'ed here, inside the tick's
   * budget: flush() stat'ed every file of the slice after the budget was
   * checked, 2,000 a tick whatever they cost, ~1.1% of a core at 100,000
   * files; only a file that changed goes on to flush now).
   */
  private sameAsKnown(file: string): boolean {
    const e = probe(file);
    const prev = this.w.known.get(file);
    return e?.kind === 'file' && e.link !== true && prev !== undefined && e.st.size === prev.size && e.st.ino === prev.ino && e.st.mtimeMs === prev.mtimeMs;
  }
}
