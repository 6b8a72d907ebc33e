// The content index brought up to date in the browser's background, once the
// first scan's list is drawn: its manifest read then (not at start-up), each
// session's log refreshed in the background jobs' ~8 ms slices (an unchanged
// log is known by the scan's own stat of it; a new one is read again from the
// page cache, a large one over many slices), then the index saved. None of it
// is in the scan: the complete list comes first. Until it is done, the
// Sessions filter treats every log as a candidate; after it, a query's words
// rule out the logs that cannot hold them (search-index.ts `mayHold`). A
// browser closed before the pass is over saves what it indexed so far.
//
// With no index kept for the root (a first run), the pass waits until a
// query asks for words: building it reads every log again, ~9 s of CPU at
// 100,000 sessions, which a browser opened to look at a list never needs.
import type { ContentIndex, RefreshJob } from '../../src/storage/content-index.js';
import type { RootIndex } from '../../src/storage/load-root.js';
import { requiredLiterals } from '../../src/session/search.js';
import { trigramsOf } from '../../src/session/trigrams.js';
import type { Query } from '../../src/session/query.js';
import type { Session } from '../../src/session/session.js';
import { BackgroundJobs, type Job, type Slice } from './background-jobs.js';

export class IndexRefresh {
  /** the pass's slices */
  private readonly slices: Job;
  private todo?: string[];
  /** the log being refreshed over several slices (a large one) */
  private job?: RefreshJob;
  private index?: ContentIndex;
  /** every log was looked at once: the index narrows from now on */
  ready = false;
  /** a query asked for words before the list was drawn: the pass starts with it, kept index or not */
  private asked = false;

  constructor(
    /** makes the index (reads its manifest) when the pass starts */
    private readonly open: () => ContentIndex,
    private readonly root: RootIndex,
    /** called when the pass is over (the filter starts again, narrowed) */
    private readonly onDone: () => void,
    /** the runner the slices take turns in (the app's; a runner of its own when tested alone) */
    jobs: BackgroundJobs = new BackgroundJobs(),
  ) {
    this.slices = jobs.add({ step: (slice) => this.step(slice) });
  }

  get busy(): boolean {
    return this.slices.armed;
  }

  /** The first scan's list is drawn: the pass starts when an index was kept for the root (else it waits for want()). */
  start(): void {
    if (this.index) return;
    this.index = this.open();
    if (this.index.kept > 0 || this.asked) this.want();
  }

  /** A query asks for words: the pass over the sessions' logs now in the store starts (once). */
  want(): void {
    if (this.todo) return;
    this.index ??= this.open();
    this.todo = this.root.store
      .list()
      .map((s) => s.file)
      .filter((f): f is string => f !== undefined)
      .reverse();
    this.slices.arm();
  }

  /** One slice of the pass; true while logs are left. */
  private step(slice: Slice): boolean {
    if (!this.slice(slice)) return true;
    // entries of logs not looked at (older generations) are kept for the next find
    this.index!.save(false);
    this.ready = true;
    this.onDone();
    return false;
  }

  /** Refreshes logs for one slice; true when every log is done. */
  private slice({ spent }: Slice): boolean {
    const todo = this.todo!;
    const index = this.index!;
    do {
      if (!this.job) {
        const file = todo.pop();
        if (file === undefined) return true;
        // the scan's stat of the log: unchanged since it was indexed, it is not stat'ed again, nor given a
        // refresh job (a job and a generator each were ~0.1 s of CPU at 100,000 logs)
        const st = this.root.files.get(file);
        if (st && index.trust(file, st)) continue;
        this.job = index.refreshJob(file);
      }
      if (!this.job.step(spent)) return false;
      this.job = undefined;
    } while (!spent());
    return todo.length === 0;
  }

  /**
   * Which sessions may hold the query's words, once the pass is over
   * (undefined before, or for a query with no word that must match). A log
   * that changed since it was indexed (the root index's stat of it now
   * differs) is always a candidate.
   */
  mayHold(q: Query): ((s: Session) => boolean) | undefined {
    const literals = requiredLiterals(q);
    if (!literals) return undefined;
    const trigrams = trigramsOf(literals);
    if (trigrams.length === 0) return undefined;
    if (!this.ready || !this.index) {
      // asked before the pass: it starts now, or with the list (the caller is called back when it is over)
      this.asked = true;
      if (this.index) this.want();
      return undefined;
    }
    const test = this.index.matcher(trigrams, (file) => this.root.files.get(file));
    return (s) => s.file === undefined || test(s.file);
  }

  close(): void {
    this.slices.cancel();
    this.job?.cancel();
    this.job = undefined;
    // closed before the pass was over: what it indexed is kept (the rest is looked at next time)
    if (this.todo && !this.ready) this.index!.save(false);
    this.index?.close();
  }
}
