// Polling, where watching cannot serve. Any fs.watch error that means the
// system is out of watches (ENOSPC: out of inotify watches, EMFILE, ...)
// switches the whole root to polling: the tree is walked and stat'ed every
// `pollIntervalMs`. A folder that alone cannot be watched is polled on its
// own while the rest stays watched. The periodic timer lives here too: in
// watch mode it runs the safety poll, in poll mode the walk.
import { probe, readFolder } from '../walk.js';
import { dirMtime } from './fs-helpers.js';
import type { Watch } from './state.js';

const DEFAULT_POLL_MS = 250;
const DEFAULT_SAFETY_MS = 2000;

export class PollFallback {
  private readonly pollMs: number;
  private readonly safetyMs: number;
  /** files last listed in each unwatched folder */
  private readonly polledFiles = new Map<string, Set<string>>();
  private unwatchedTimer: NodeJS.Timeout | undefined;
  private periodic: NodeJS.Timeout | undefined;

  constructor(private readonly w: Watch) {
    this.pollMs = Math.max(10, w.opts.pollIntervalMs ?? DEFAULT_POLL_MS);
    this.safetyMs = w.opts.safetyPollMs ?? DEFAULT_SAFETY_MS;
  }

  /** `dir` cannot be watched, for `reason` (polled from now on), or can again (undefined). */
  setUnwatched(dir: string, reason: string | undefined): void {
    const w = this.w;
    if (reason === undefined ? !w.unwatched.delete(dir) : w.unwatched.get(dir) === reason) return;
    if (reason !== undefined) w.unwatched.set(dir, reason);
    else this.polledFiles.delete(dir);
    if (w.unwatched.size > 0 && !this.unwatchedTimer && !w.closed) this.unwatchedTimer = setInterval(() => this.pollUnwatched(), this.pollMs);
    if (w.unwatched.size === 0 && this.unwatchedTimer) {
      clearInterval(this.unwatchedTimer);
      this.unwatchedTimer = undefined;
    }
    try {
      w.opts.onUnwatched?.(new Map(w.unwatched));
    } catch {
      /* ignore */
    }
  }

  /** Polls the folders that cannot be watched: each is listed and its files stat'ed. */
  private pollUnwatched(): void {
    const w = this.w;
    if (w.closed || w.mode !== 'watch') return;
    try {
      for (const dir of [...w.unwatched.keys()]) {
        if (dirMtime(dir) === null && probe(dir)?.kind !== 'dir') {
          for (const f of this.polledFiles.get(dir) ?? []) w.batches.observe(f, undefined);
          w.folders.removeTree(dir);
          continue;
        }
        const { files, dirs } = readFolder(dir, w.safeFileName);
        const now = new Set(files.map((f) => f.path));
        for (const f of this.polledFiles.get(dir) ?? []) if (!now.has(f)) w.batches.observe(f, undefined);
        for (const f of now) w.batches.observe(f, undefined);
        this.polledFiles.set(dir, now);
        for (const sub of dirs) if (!w.watchers.has(sub) && !w.unwatched.has(sub)) w.folders.addTree(sub);
      }
      w.batches.flush();
    } catch {
      /* never throw out of a timer */
    }
  }

  /** (Re)starts the periodic timer of the current mode: the safety poll, or the walk of poll mode. */
  startPeriodic(): void {
    const w = this.w;
    if (this.periodic) clearTimeout(this.periodic);
    this.periodic = undefined;
    if (w.mode === 'watch') {
      if (this.safetyMs > 0) this.periodic = setInterval(() => w.safety.tick(), this.safetyMs);
      return;
    }
    // Poll mode walks everything; on a big tree the period stretches so the
    // walk takes at most ~10% of a core. Measured in CPU time, not wall: on a
    // busy machine a small walk waits for the CPU, and a wall clock stretched
    // the period of a one-file root from 250 ms to 4 s.
    const tick = async () => {
      const t0 = process.cpuUsage();
      await w.compare.reconcile();
      const used = process.cpuUsage(t0);
      const spent = (used.user + used.system) / 1000;
      if (!w.closed && w.mode === 'poll') this.periodic = setTimeout(tick, Math.max(this.pollMs, 10 * spent));
    };
    this.periodic = setTimeout(tick, this.pollMs);
  }

  fallbackToPolling(reason: string): void {
    const w = this.w;
    if (w.closed || w.mode === 'poll') return;
    w.mode = 'poll';
    w.fallbackReason = reason;
    w.compare.dropEarly();
    w.folders.closeAll();
    w.cold.clear();
    w.batches.dirtyDirs.clear();
    w.dirStamp.clear();
    for (const d of [...w.unwatched.keys()]) this.setUnwatched(d, undefined);
    this.startPeriodic();
    try {
      w.opts.onModeChange?.('poll', reason);
    } catch {
      /* ignore */
    }
    // catch up right away (outside whatever callback we are in)
    w.compare.scheduleRescan(0);
  }

  /** close(): neither timer fires again */
  stopTimers(): void {
    if (this.periodic) clearTimeout(this.periodic);
    if (this.unwatchedTimer) clearInterval(this.unwatchedTimer);
    this.periodic = undefined;
  }
}
