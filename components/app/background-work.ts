// An export (x), a comparison (c), the changes (C) of a large log or a large
// turn's timeline (T), made in background slices (ExportJob, compareSteps, changesSteps, foldSteps): its progress is drawn every PROGRESS_MS, its
// result or failure goes through the reducer as an action, and it is dropped
// (reads and temp file closed) once the state no longer has it (Esc). An
// export of a small log is written at once, here too, so the controller only
// says which. Its own file: the one job that writes files for the user.
import { ExportJob, exportToFile } from '../../src/export/export.js';
import { changesSteps, ownFrom } from '../../src/session/changes.js';
import { compareSteps } from '../../src/session/compare.js';
import type { Session } from '../../src/session/session.js';
import type { AppAction, AppState, WorkResult } from '../../src/view/app/state.js';
import { PROGRESS_MS, type BackgroundJobs, type Job, type Slice } from './background-jobs.js';

interface Work {
  step: (spent: () => boolean) => WorkResult | undefined;
  progress: () => number;
  close: () => void;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** A work made by a generator that yields how many of `total` events it has read and returns what it made. */
function stepped<T>(steps: Generator<number, T>, total: number, result: (v: T) => WorkResult): Work {
  let read = 0;
  return {
    step: () => {
      const r = steps.next();
      if (r.done) return result(r.value);
      read = r.value;
      return undefined;
    },
    progress: () => (total > 0 ? Math.min(1, read / total) : 1),
    close: () => void steps.return(undefined as never),
  };
}

export class BackgroundWork {
  private current?: Work & { id: number; drawn: number };
  private readonly slices: Job;

  constructor(
    private readonly jobs: BackgroundJobs,
    private readonly host: {
      state: () => AppState;
      dispatch: (action: AppAction) => void;
      /** every session of the store (an export and a comparison resolve parents in it) */
      sessions: () => readonly Session[];
      /** where exports are written */
      exportDir: () => string;
    },
  ) {
    this.slices = jobs.add({ step: (slice) => this.step(slice), keepAlive: true });
  }

  /** x: a large log's transcript written in slices (`id`: the state's work), else at once. */
  export(id: number | undefined, session: Session, upTo: number | undefined): void {
    const { host } = this;
    if (id === undefined) {
      try {
        const out = exportToFile(session, host.sessions(), host.exportDir(), { format: 'md', upTo });
        host.dispatch({ type: 'exported', file: out.file, bytes: out.bytes });
      } catch (err) {
        host.dispatch({ type: 'exportFailed', message: message(err) });
      }
      return;
    }
    let job: ExportJob;
    try {
      job = new ExportJob(session, host.sessions(), host.exportDir(), { format: 'md', upTo });
    } catch (err) {
      host.dispatch({ type: 'workFailed', id, message: message(err) });
      return;
    }
    this.start(id, {
      step: (spent) => (job.run(spent) ? { kind: 'export', file: job.result!.file, bytes: job.result!.bytes } : undefined),
      progress: () => job.progress(),
      close: () => job.close(),
    });
  }

  /** c with a large log on either side: both read side by side in slices (compareSteps). */
  compare(id: number, left: Session, right: Session): void {
    const total = left === right ? left.length : left.length + right.length;
    this.start(id, stepped(compareSteps(left, right, this.host.sessions(), this.jobs.spent), total, (comparison) => ({ kind: 'compare', comparison })));
  }

  /** C on a large log: its events folded in slices (changesSteps). */
  changes(id: number, session: Session): void {
    this.start(id, stepped(changesSteps(session, ownFrom(session, undefined), this.jobs.spent), session.length, (changes) => ({ kind: 'changes', changes })));
  }

  /** T on a large turn: its events folded in slices (foldSteps); the fold is kept for the timeline. */
  timeline(id: number, steps: (spent: () => boolean) => Generator<number, void>, total: number): void {
    this.start(id, stepped(steps(this.jobs.spent), total, () => ({ kind: 'timeline' })));
  }

  private start(id: number, work: Work): void {
    this.current?.close();
    this.current = { id, ...work, drawn: performance.now() };
    this.slices.arm();
  }

  private step(slice: Slice): void {
    const job = this.current;
    if (!job) return;
    if (this.host.state().work?.id !== job.id) {
      job.close();
      this.current = undefined;
      return;
    }
    let result: WorkResult | undefined;
    try {
      result = job.step(slice.spent);
    } catch (err) {
      job.close();
      this.current = undefined;
      this.host.dispatch({ type: 'workFailed', id: job.id, message: message(err) });
      return;
    }
    if (result) {
      job.close();
      this.current = undefined;
      this.host.dispatch({ type: 'workDone', id: job.id, result });
      return;
    }
    // the next slice is armed before the progress is drawn: the dispatch asks whether the app is
    // idle, and with no slice armed it was, half-way through a slow export
    this.slices.arm();
    if (performance.now() - job.drawn >= PROGRESS_MS) {
      job.drawn = performance.now();
      this.host.dispatch({ type: 'workProgress', id: job.id, done: job.progress() });
    }
  }

  close(): void {
    this.current?.close();
    this.current = undefined;
  }
}
