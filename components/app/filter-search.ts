// The Sessions filter's query, answered in background slices (FilterJob): a
// new filter text starts a new job over every session, its answers join the
// list as they come, and sessions with no search document yet are indexed
// and asked again. Its own file: the one job whose answers are part of the
// snapshot (the controller hands them to every world it takes).
import { sessionKey } from '../../src/session/session-key.js';
import { isQueryError, parseQuery, type Query } from '../../src/session/query.js';
import { hasEventTerms } from '../../src/session/search.js';
import { cancelFilter, indexSome, retryPending, runFilter, SearchIndex, startFilter, type FilterJob } from '../../src/session/search-index.js';
import type { Session } from '../../src/session/session.js';
import type { FilterAnswers } from '../../src/session/search-index.js';
import { PROGRESS_MS, type BackgroundJobs, type Job, type Slice } from './background-jobs.js';

export class FilterSearch {
  private readonly searchIndex = new SearchIndex();
  /** when the filter's answers were last drawn */
  private drawn = 0;
  private filter?: { text: string; job?: FilterJob };
  private readonly slices: Job;

  constructor(
    jobs: BackgroundJobs,
    private readonly host: {
      sessions: () => readonly Session[];
      byFile: (file: string) => Session | undefined;
      /** the content index's test of the query's words, once it has one */
      mayHold: (query: Query) => ((s: Session) => boolean) | undefined;
      /** new answers: drawn in a coming background frame */
      changed: () => void;
      /** the whole answer: drawn in the next frame */
      done: () => void;
    },
  ) {
    // (a large log being read: its next slice at once; keys still come first)
    this.slices = jobs.add({ step: (slice) => this.step(slice), delay: () => (this.filter?.job?.scan ? 0 : 5) });
  }

  /** The answers so far, for the snapshot (none without a search over the events). */
  answers(): FilterAnswers | undefined {
    const f = this.filter;
    if (!f?.job) return undefined;
    const todo = f.job.scan ? [...f.job.todo, f.job.scan.session] : f.job.todo; // (a large log being read is still to answer)
    return { text: f.text, results: f.job.results, todo: new Set(todo.map(sessionKey)) };
  }

  /**
   * A new filter text (or `again`) starts a new job over every session; its
   * answers arrive in background slices. With the content index ready, a log
   * that cannot hold the query's words is answered at once, unread. True
   * when a job (or none, for a text with no event terms) replaced the last.
   */
  sync(text: string, again = false): boolean {
    if (this.filter?.text === text && !again) return false;
    cancelFilter(this.filter?.job);
    const q = text.trim() ? parseQuery(text) : undefined;
    this.filter = { text, job: q && !isQueryError(q) && hasEventTerms(q) ? startFilter(q, this.host.sessions(), this.host.mayHold(q)) : undefined };
    this.schedule();
    return true;
  }

  /** The content index is ready: a filter answered before it is asked again, narrowed. */
  narrow(): void {
    if (this.filter?.job) this.sync(this.filter.text, true);
  }

  private schedule(): void {
    if (this.filter?.job) this.slices.arm();
  }

  private step({ ms }: Slice): void {
    const f = this.filter;
    if (!f?.job) return;
    const job = f.job;
    if (!job.done) {
      const known = job.results.size;
      runFilter(job, this.searchIndex, ms);
      // a slice of a large log's read with nothing new to show is not drawn (a frame per slice halved its speed)
      if (!job.done && job.results.size === known && job.scan && performance.now() - this.drawn < PROGRESS_MS) return this.schedule();
      this.drawn = performance.now();
      // the whole answer is the moment a user waits for: drawn in the next frame, not after a background frame's gap
      if (job.done && ![...job.results.values()].includes('pending')) {
        this.host.done();
        return this.schedule();
      }
    } else {
      // sessions without a search document answered 'pending': index them, then ask again
      const pending: Session[] = [];
      for (const [key, a] of job.results) {
        const s = a === 'pending' ? this.host.byFile(key) : undefined;
        if (s) pending.push(s);
      }
      if (pending.length === 0) return;
      if (indexSome(this.searchIndex, pending, ms) === 0) f.job = retryPending(job, pending);
    }
    this.host.changed();
    this.schedule();
  }

  close(): void {
    cancelFilter(this.filter?.job);
  }
}
