// A session opened while its events load (a multi-GB over-long line).
// Opening a session reads its ordinary lines at once, but skips an over-long
// line only briefly (world.ts); the rest of the load runs here in background
// slices while the session is shown, and is dropped (its file closed) when it
// no longer is. Its own file because it is the one job that follows what the
// Turns view shows rather than an action.
import type { Session } from '../../src/session/session.js';
import { cancelOpen, openStep, opening } from '../../src/world/world.js';
import type { BackgroundJobs, Job, Slice } from './background-jobs.js';

/** the progress of a load is drawn at most this often (a frame after every slice took as long as the slice: a 1 GB log indexed at half speed) */
const LOAD_PROGRESS_MS = 100;

export class SessionLoads {
  /** sessions with a load under way (world.turns reported them): the one the Turns view shows goes on, the others are dropped */
  private readonly loads = new Set<Session>();
  /** when a load's progress was last drawn */
  private drawn = 0;
  private readonly slices: Job;

  constructor(
    jobs: BackgroundJobs,
    /** the session the Turns view shows */
    private readonly shown: () => Session | undefined,
    /** a load moved on: its progress (or the session, once loaded) is drawn; the turn rows are not part of the snapshot's derived data */
    private readonly progressed: () => void,
  ) {
    this.slices = jobs.add({ step: (slice) => this.step(slice), keepAlive: true });
  }

  /** world.turns found `session` still loading: its load goes on in slices. */
  add(session: Session): void {
    this.loads.add(session);
    this.slices.arm();
  }

  /** The state changed: a session left while it loads is dropped in the next slice. */
  recheck(): void {
    if (this.loads.size > 0) this.slices.arm();
  }

  private step(slice: Slice): void {
    const shown = this.shown();
    for (const s of this.loads)
      if (s !== shown || !opening(s)) {
        if (s !== shown) cancelOpen(s);
        this.loads.delete(s);
      }
    if (!shown || !this.loads.has(shown)) return;
    let done: boolean;
    try {
      done = openStep(shown, slice.spent);
    } catch {
      done = true; // the Turns view says why (the session keeps the error)
    }
    if (done) this.loads.delete(shown);
    else this.slices.arm();
    const now = performance.now();
    if (done || now - this.drawn >= LOAD_PROGRESS_MS) {
      this.drawn = now;
      this.progressed();
    }
  }

  close(): void {
    for (const s of this.loads) cancelOpen(s);
    this.loads.clear();
  }
}
