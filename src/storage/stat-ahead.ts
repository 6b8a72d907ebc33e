// Stats the files a walk hands out on a worker thread, ahead of whoever
// takes them. A warm start of 100,000 logs spends more of its main thread in
// statSync than in anything else: the fact cache trusts a log only after a
// stat of it, and on Node 20 each one is a system call plus a Stats object
// with four Dates, ~5 µs alone and ~12 µs inside the app's larger heap (its
// garbage). The worker does the system calls on the other core and writes
// each stat's numbers into shared memory; the taker reads them there, in the
// order it asked. Whenever the worker is not that far yet (it is starting,
// or it is slow), take() says so and the caller stats the file itself, so a
// worker that never starts costs nothing but its attempt.
//
// A stat taken a moment earlier than the caller would have taken it is as
// good as its own: whatever changes the file after either one is seen the
// same way, by the stat the index keeps for it (the watcher compares it).
import { Worker } from 'node:worker_threads';
import type { FileStat } from './session-file.js';
import { fsPath } from './open-file.js';
import { milestone } from '../trace.js';

/** The stat numbers the fact cache compares, and whether the path is a regular file. */
export interface AheadStat extends FileStat {
  dev: number;
  ctimeMs: number;
  isFile: boolean;
}

/**
 * A root with this many logs known has their stats taken on a worker thread:
 * below it, the stats are a few ms of the main thread, and a worker, ~50 ms
 * of the other core to start and 65-110 ms before its first stat, takes few.
 */
export const STAT_AHEAD_MIN = 2000;

/** StatAhead over `files` when `known` (the logs a cache holds, whose stats it will compare) is at least `min`. */
export function statAheadOf(files: Iterable<string>, known: number, min = STAT_AHEAD_MIN): StatAhead | undefined {
  return known > 0 && known >= min ? StatAhead.start(files) : undefined;
}

/**
 * Slots of the ring the worker writes into (paths handed out and not yet
 * taken, at most), for a source of unknown length; an array gets one slot a
 * file up to MAX_SLOTS, so the worker can stat all of it while its taker is
 * busy elsewhere (a search reads the index's manifest meanwhile).
 */
const SLOTS = 4096;
const MAX_SLOTS = 1 << 17;
/** Paths sent to the worker in one message (joined: larger texts were slower to make). */
const BATCH = 512;
/** numbers a slot holds: mode (-1: no entry, or the stat failed), size, mtimeMs, ino, dev, ctimeMs */
const WIDTH = 6;
/** ctl[DONE]: stats written; ctl[AT]: the index the taker is on (the worker leaves what it reaches to it) */
const DONE = 0;
const AT = 1;
/** How far past the taker the worker goes on when the taker reaches it. */
export const LEAD = 128;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

/**
 * The worker's whole program, run from its source text (`eval`), so it needs
 * no file of its own beside the bundle or the sources: it stats each path of
 * each message into its slot, in order, then tags the slot with the path's
 * index. A path the taker has reached is left to the taker, and the worker
 * goes on `lead` paths past it: the two then stat different paths (a taker
 * that does nothing but take, a search, is as fast as the worker alone).
 */
function workerMain(req: NodeJS.Require): void {
  const { parentPort, workerData } = req('node:worker_threads') as typeof import('node:worker_threads');
  const nodeFs = req('node:fs') as typeof import('node:fs');
  const { nums, tags, ctl, slots, width, lead } = workerData as { nums: Float64Array; tags: Int32Array; ctl: Int32Array; slots: number; width: number; lead: number };
  let from = 0;
  parentPort!.on('message', (m: { from: number; paths: string }) => {
    const paths = m.paths.split('\0');
    for (let i = 0; i < paths.length; i++) {
      const k = m.from + i;
      if (k < from) continue;
      const at = Atomics.load(ctl, 1);
      if (k <= at) {
        from = at + lead;
        continue;
      }
      const b = (k % slots) * width;
      let st: import('node:fs').Stats | undefined;
      try {
        st = nodeFs.statSync(paths[i], { throwIfNoEntry: false });
      } catch {
        st = undefined;
      }
      if (st === undefined) nums[b] = -1;
      else {
        nums[b] = st.mode;
        nums[b + 1] = st.size;
        nums[b + 2] = st.mtimeMs;
        nums[b + 3] = st.ino;
        nums[b + 4] = st.dev;
        nums[b + 5] = st.ctimeMs;
      }
      Atomics.store(tags, k % slots, k);
      Atomics.add(ctl, 0, 1);
    }
  });
}

/**
 * `files` handed out in their order, each stat'ed ahead on a worker thread:
 * iterate `files()`, and call take(file) for the file last handed out.
 * close() when done (the worker also ends with the process: it is unref'd).
 */
export class StatAhead {
  private readonly nums: Float64Array;
  /** the index of the path whose stat a slot holds (-1: none yet) */
  private readonly tags: Int32Array;
  private readonly ctl = new Int32Array(new SharedArrayBuffer(8));
  /** the paths handed to the worker and not yet overwritten, by slot */
  private readonly paths: Array<string | undefined>;
  private worker: Worker | undefined;
  /** how many paths were pulled from the source (and sent, or marked not sent) */
  private pulled = 0;
  /** the index of the file last handed out */
  private at = -1;
  private ended = false;
  /** stats the worker had ready when asked */
  taken = 0;
  /** stats asked for that the worker had not reached (the caller stat'ed) */
  missed = 0;

  private constructor(
    private readonly source: Iterator<string>,
    private readonly slots: number,
  ) {
    this.nums = new Float64Array(new SharedArrayBuffer(slots * WIDTH * 8));
    this.tags = new Int32Array(new SharedArrayBuffer(slots * 4)).fill(-1);
    this.ctl[AT] = -1;
    this.paths = new Array<string | undefined>(slots);
  }

  /** Wraps `files`; undefined when no worker can start here (use `files` as they are). */
  static start(files: Iterable<string>): StatAhead | undefined {
    const slots = Array.isArray(files) ? Math.min(Math.max(files.length, SLOTS), MAX_SLOTS) : SLOTS;
    const ahead = new StatAhead(files[Symbol.iterator](), slots);
    try {
      const w = new Worker(`(${workerMain.toString()})(require)`, {
        eval: true,
        workerData: { nums: ahead.nums, tags: ahead.tags, ctl: ahead.ctl, slots, width: WIDTH, lead: LEAD },
        // a thread that only stats: no stdin, and a small heap
        stdin: false,
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
      });
      w.unref();
      // a worker that fails leaves the caller to stat each file itself
      w.on('error', () => ahead.close());
      ahead.worker = w;
    } catch {
      return undefined;
    }
    // a list known whole goes to the worker at once: it stats while its taker does other work
    if (Array.isArray(files)) while (ahead.pull());
    return ahead;
  }

  /** The files, in the source's order, each sent to the worker before it is handed out. */
  files(): Iterable<string> {
    return { [Symbol.iterator]: () => this };
  }

  next(): IteratorResult<string> {
    const i = this.at + 1;
    if (i >= this.pulled && !this.pull()) return { done: true, value: undefined };
    this.at = i;
    Atomics.store(this.ctl, AT, i);
    // keep the worker a batch or more ahead of the taker
    if (this.pulled - i < this.slots - BATCH && !this.ended) this.pull();
    return { done: false, value: this.paths[i % this.slots]! };
  }

  /** Pulls up to a batch from the source and sends it; false when the source is over. */
  private pull(): boolean {
    if (this.ended) return false;
    const from = this.pulled;
    const batch: string[] = [];
    // a path never takes the slot of the one handed out last (its stat may still be taken)
    const last = Math.max(this.at, 0);
    for (let n = 0; n < BATCH && this.pulled - last < this.slots; n++) {
      const r = this.source.next();
      if (r.done) {
        this.ended = true;
        break;
      }
      this.paths[this.pulled % this.slots] = r.value;
      this.pulled++;
      // a name that is not UTF-8 is stat'ed by its bytes, here: the worker gets strings only (an empty one fails its stat)
      batch.push(typeof fsPath(r.value) === 'string' ? r.value : '');
    }
    // one text, the paths between NULs (no path holds one): a string array was ~0.8 µs a path to send
    if (batch.length > 0) this.worker?.postMessage({ from, paths: batch.join('\0') });
    return batch.length > 0;
  }

  /** The stat of `file`, the file last handed out, when the worker has it; undefined: stat it yourself. */
  take(file: string): AheadStat | undefined {
    const i = this.at;
    if (i < 0 || this.paths[i % this.slots] !== file || typeof fsPath(file) !== 'string') return undefined;
    if (!this.has(i)) {
      this.missed++;
      return undefined;
    }
    this.taken++;
    const v = this.nums;
    const b = (i % this.slots) * WIDTH;
    const mode = v[b];
    if (mode < 0) return NO_ENTRY;
    return { isFile: (mode & S_IFMT) === S_IFREG, size: v[b + 1], mtimeMs: v[b + 2], ino: v[b + 3], dev: v[b + 4], ctimeMs: v[b + 5] };
  }

  /** Whether the stat of the `index`-th file is in its slot (the worker took it, and no later file's took the slot). */
  has(index: number): boolean {
    return Atomics.load(this.tags, index % this.slots) === index;
  }

  /** How many of the files the worker has stat'ed. */
  ready(): number {
    return Atomics.load(this.ctl, DONE);
  }

  /** Stops the worker: the taker needs no more stats, or it failed (files still handed out are the caller's to stat). */
  close(): void {
    const w = this.worker;
    this.worker = undefined;
    if (!w) return;
    void w.terminate();
    milestone(`stats ahead: ${this.taken} taken, ${this.missed} missed`);
  }
}

/** What take() returns for a path with no entry (or a stat that failed): the caller treats it as it treats statSync's undefined. */
const NO_ENTRY: AheadStat = Object.freeze({ isFile: false, size: -1, mtimeMs: NaN, ino: -1, dev: -1, ctimeMs: NaN });
