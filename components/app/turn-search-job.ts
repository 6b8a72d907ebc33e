// The Turns search of a large log, read in background slices (TurnScan): its
// progress is drawn every PROGRESS_MS, its answer or its failure goes through
// the reducer as an action, and it is dropped once the state no longer asks
// for it (Esc, another search). Its own file: the one job that owns an open
// read of a log on behalf of the Turns view.
import type { Query } from '../../src/session/query.js';
import type { Session } from '../../src/session/session.js';
import { TurnScan } from '../../src/session/turn-matches.js';
import type { AppAction, AppState } from '../../src/view/app/state.js';
import { PROGRESS_MS, type BackgroundJobs, type Job, type Slice } from './background-jobs.js';

export class TurnSearchJob {
  private current?: { key: string; text: string; scan: TurnScan; drawn: number };
  private readonly slices: Job;

  constructor(
    private readonly jobs: BackgroundJobs,
    private readonly host: {
      state: () => AppState;
      dispatch: (action: AppAction) => void;
      /** the content index's test of the query's words, when it has one */
      mayHold: (query: Query) => ((s: Session) => boolean) | undefined;
    },
  ) {
    this.slices = jobs.add({ step: (slice) => this.step(slice), keepAlive: true });
  }

  start(session: Session, key: string, query: Query, text: string): void {
    this.current?.scan.close();
    this.current = undefined;
    // the content index: a log that cannot hold the query's words has no match, and is not read for it
    if (this.host.mayHold(query)?.(session) === false) {
      this.host.dispatch({ type: 'searchDone', key, query: text, seqs: [] });
      return;
    }
    this.current = { key, text, scan: new TurnScan(query, session.pausedBatches(Infinity, this.jobs.spent)), drawn: performance.now() };
    this.slices.arm();
  }

  private step(slice: Slice): void {
    const job = this.current;
    if (!job) return;
    const t = this.host.state().turnSearch;
    if (!t?.scanning || t.key !== job.key || t.query !== job.text) {
      job.scan.close();
      this.current = undefined;
      return;
    }
    let done: boolean;
    try {
      done = job.scan.run(slice.spent);
    } catch (err) {
      job.scan.close();
      this.current = undefined;
      this.host.dispatch({ type: 'searchFailed', key: job.key, query: job.text, message: err instanceof Error ? err.message : String(err) });
      return;
    }
    if (done) {
      this.current = undefined;
      this.host.dispatch({ type: 'searchDone', key: job.key, query: job.text, seqs: job.scan.seqs });
      return;
    }
    // (armed before the progress is drawn, as the background work's slices are)
    this.slices.arm();
    if (performance.now() - job.drawn >= PROGRESS_MS) {
      job.drawn = performance.now();
      this.host.dispatch({ type: 'searchProgress', key: job.key, query: job.text, seen: job.scan.seen });
    }
  }

  close(): void {
    this.current?.scan.close();
  }
}
