// The browser's background work (the audit, a session's load, the Turns
// search, an export or a comparison, the Sessions filter, the content index's
// pass, and the coalesced frame) all runs alike: a step in a timer of its own,
// time-boxed so that keys are answered between steps, armed again while it has
// more to do, and never once the browser is closed. One runner holds their
// timers, so whether anything is still owed to the state (`busy`, what the
// controller's idle() waits on) is one question, close() is one call, and the
// length of a slice is named once for the whole app.

/** how long one step of background work runs at once (then keys, frames and the other jobs have the loop) */
export const SLICE_MS = 8;

/** a long job's progress (a search, an export, the filter over a large log) is drawn at most this often: a frame per slice halved its speed */
export const PROGRESS_MS = 250;

/** The time a step was given. */
export interface Slice {
  /** when the step started (performance.now()) */
  readonly start: number;
  /** the slice's length, for a stepper that takes a budget and times itself from when it is called */
  readonly ms: number;
  /** true once the slice is spent */
  readonly spent: () => boolean;
}

export interface JobSpec {
  /** one step of the work. `true` asks for another (armed once the step is over); a step that must have its next one armed before what it does last (a draw, which asks whether the app is idle) calls arm() itself */
  step: (slice: Slice) => boolean | void;
  /** ms from arming to the step, when arm() is given none (a function: decided at each arming) */
  delay?: number | (() => number);
  /** the slice's length (default SLICE_MS) */
  sliceMs?: number;
  /** the armed timer keeps Node's event loop alive (the frames, loads, searches and exports ask for it; the audit, the filter and the content index leave the process free to end under them) */
  keepAlive?: boolean;
}

/** A job of the runner: at most one step armed at a time. */
export interface Job {
  /** arms the next step in `ms` (default: the job's delay), unless one is armed or the runner is closed */
  arm(ms?: number): void;
  /** drops the armed step, if any */
  cancel(): void;
  readonly armed: boolean;
}

export class BackgroundJobs {
  private readonly armed = new Map<Job, ReturnType<typeof setTimeout>>();
  private isClosed = false;
  /** when the running step's slice ends */
  private sliceEnd = 0;
  /** idle()'s callers not yet answered */
  private readonly waiters: Array<() => void> = [];

  /**
   * True while the running step's slice is spent, whichever job runs it: for
   * a reader made before its first step (a comparison's or a Turns search's
   * generator), which is only read on inside its job's steps.
   */
  readonly spent = (): boolean => performance.now() > this.sliceEnd;

  get closed(): boolean {
    return this.isClosed;
  }

  /** True while any job has a step armed (false once closed). */
  get busy(): boolean {
    return !this.isClosed && this.armed.size > 0;
  }

  /**
   * Resolves once no job is armed (at once if none is), or on close(). An
   * event, not a delay: on a loaded machine it resolves later, never early.
   */
  idle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Answers idle() when no job is armed. Called after every step, once its
   * next one (if any) is armed; and by whoever may have ended the last job
   * outside a step (an action that dropped one).
   */
  settle(): void {
    if (this.waiters.length === 0 || this.busy) return;
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  add(spec: JobSpec): Job {
    const armed = this.armed;
    const sliceMs = spec.sliceMs ?? SLICE_MS;
    const run = (): void => {
      armed.delete(job);
      const start = performance.now();
      const until = start + sliceMs;
      this.sliceEnd = until;
      if (spec.step({ start, ms: sliceMs, spent: () => performance.now() > until }) === true) job.arm();
      this.settle();
    };
    const job: Job = {
      arm: (ms) => {
        if (armed.has(job) || this.isClosed) return;
        const delay = ms ?? (typeof spec.delay === 'function' ? spec.delay() : (spec.delay ?? 0));
        const timer = setTimeout(run, delay);
        if (!spec.keepAlive) timer.unref?.();
        armed.set(job, timer);
      },
      cancel: () => {
        clearTimeout(armed.get(job));
        armed.delete(job);
      },
      get armed() {
        return armed.has(job);
      },
    };
    return job;
  }

  /** Drops every armed step (nothing is armed again) and answers idle(). */
  close(): void {
    this.isClosed = true;
    for (const timer of this.armed.values()) clearTimeout(timer);
    this.armed.clear();
    this.settle();
  }
}
