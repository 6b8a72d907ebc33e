// When the store's news are drawn. Changes (the store's, the audit's, the
// filter's answers, the clock's) are coalesced into one `world` frame, spaced
// by GAP_FACTOR times what the last frame cost (so derived data recomputed
// from the whole root takes a bounded share of the CPU, however many slices
// the background runs), held back while keys arrive (keys first) but never
// longer than MAX_WAIT_MS, and preceded by the model's catch-up steps in
// slices of their own. Its own file: the timing of frames is a policy with
// its own state (what is pending since when, what the last frame cost), apart
// from what a frame shows.
import type { BackgroundJobs, Job, Slice } from './background-jobs.js';

/** background frames are spaced by this many times what the last one cost */
const GAP_FACTOR = 16;
/** a change waits at most this long to be drawn (while keys keep coming, or frames are costly) */
const MAX_WAIT_MS = 1000;
/** a large log's first scan redraws its progress at most this often */
const SCAN_PROGRESS_MS = 250;
/** keys closer together than this are a burst: background frames wait for its end (j held or tapped ~4 a second: the news come at most MAX_WAIT_MS late) */
const KEY_QUIET_MS = 300;

export interface FrameHost {
  /**
   * One of the model's steps towards the news, before a frame: undefined
   * once it is current (the frame draws now); else the frame is armed again
   * at once, and `true` says the next one may draw without another step
   * (the news since are a slice's worth).
   */
  catchUp(pause: () => boolean): boolean | undefined;
  /** whether the audit's news show (a badge moved, or findings the Problems tab lists) */
  auditShows(): boolean;
  /** draws the world as of now */
  draw(): void;
}

export class Frames {
  /** a change not yet in the snapshot (the world is taken again when asked for) */
  dirty = false;
  /** the store (or the audit's findings, once they show) changed since the last snapshot, not only the filter's answers */
  contentDirty = true;
  /** the audit has news not yet looked at: drawn only when they show */
  private auditDirty = false;
  /** when the oldest change not yet drawn arrived */
  private pendingSince?: number;
  /** what the last background frame cost (ms): snapshot, reducer and the draw it asked for */
  private cost = 0;
  /** when the last key arrived (performance.now()) */
  private lastKeyAt = -Infinity;
  private progressShownAt = -Infinity;
  /** a soon() frame is armed: typing does not hold it back */
  private urgent = false;
  /** the armed frame follows the model's last catch-up step: it draws without another */
  private synced = false;
  private readonly frame: Job;

  constructor(
    private readonly jobs: BackgroundJobs,
    private readonly host: FrameHost,
    /** the least time between frames */
    private readonly frameMs: number,
    /** how long the model's steps before a frame take at once (default: a background slice) */
    syncStepMs?: number,
  ) {
    this.frame = jobs.add({ step: (slice) => this.step(slice), sliceMs: syncStepMs, keepAlive: true });
  }

  /** a key arrived: background frames wait for the burst's end */
  keyArrived(): void {
    this.lastKeyAt = performance.now();
  }

  /** ms since the last key (Infinity before the first) */
  get sinceKeyMs(): number {
    return performance.now() - this.lastKeyAt;
  }

  /** The store (or the filter's answers, or only the clock: `content` false) changed: drawn in a coming background frame. */
  changed(content = true): void {
    this.dirty = true;
    if (content) this.contentDirty = true;
    this.pendingSince ??= performance.now();
    this.arm(this.gap());
  }

  /**
   * The audit has news: looked at in a coming frame like a store change, but
   * drawn only when they show: most sessions are audited clean, and their
   * news change nothing on screen.
   */
  auditChanged(): void {
    this.auditDirty = true;
    this.pendingSince ??= performance.now();
    this.arm(this.gap());
  }

  /**
   * The first scan read on in a large log (the title bar says how far): a
   * frame at most every SCAN_PROGRESS_MS, none for a scan of small files
   * (their progress shows with the sessions they bring).
   */
  scanProgressed(): void {
    if (this.jobs.closed || this.frame.armed || performance.now() - this.progressShownAt < SCAN_PROGRESS_MS) return;
    this.progressShownAt = performance.now();
    this.pendingSince ??= performance.now();
    this.dirty = true;
    this.arm(this.frameMs);
  }

  /** A change drawn in the next frame (frameMs, or `ms`), whatever the last background frame cost. */
  soon(content: boolean, ms = this.frameMs): void {
    this.urgent = true;
    this.frame.cancel();
    this.dirty = true;
    if (content) this.contentDirty = true;
    this.pendingSince ??= performance.now();
    this.arm(ms);
  }

  private gap(): number {
    return Math.min(MAX_WAIT_MS, Math.max(this.frameMs, GAP_FACTOR * this.cost));
  }

  /** `synced`: the model's steps caught up just before: draw now (news since are a slice's worth). */
  private arm(ms: number, synced = false): void {
    if (this.frame.armed) return;
    this.synced = synced;
    this.frame.arm(ms);
  }

  private step(slice: Slice): void {
    const now = slice.start;
    // (an answer a key asked for is not held back for the keys that may follow it)
    const typing = !this.urgent && now - this.lastKeyAt < KEY_QUIET_MS;
    const waited = now - (this.pendingSince ?? now);
    if (typing && waited < MAX_WAIT_MS) return this.arm(Math.min(KEY_QUIET_MS, MAX_WAIT_MS - waited));
    // the model takes the news in steps first, keys answered between them (a scan's 30,000 new
    // sessions were one 60-140 ms block at 100,000); the frame draws once it is current
    if ((this.contentDirty || this.auditDirty) && !this.synced) {
      const synced = this.host.catchUp(slice.spent);
      if (synced !== undefined) return this.arm(0, synced); // the frame is drawn in a task of its own
    }
    if (this.auditDirty) {
      this.auditDirty = false;
      if (this.host.auditShows()) this.contentDirty = this.dirty = true;
      else if (!this.dirty) {
        // the audit's news show nothing new: no frame
        this.pendingSince = undefined;
        return;
      }
    }
    this.pendingSince = undefined;
    this.urgent = false;
    this.host.draw();
    // React renders in a microtask the dispatch queued, and Ink draws in its commit: measured after them
    // (measured at the dispatch's return, the cost left out the draw: at 100,000 sessions frames took 27% of the CPU)
    queueMicrotask(() => (this.cost = performance.now() - now));
  }
}
