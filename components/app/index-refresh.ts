// The content index brought up to date in the browser's background, once the
// first scan is over: its manifest read then (not at start-up), each
// session's log refreshed in ~8 ms slices (an unchanged log is a stat, a new
// one read again from the page cache), then the index saved. None of it is in
// the scan: the complete list comes first. Until it is done, the
// Sessions filter treats every log as a candidate; after it, a query's words
// rule out the logs that cannot hold them (search-index.ts `mayHold`).
import type { ContentIndex } from '../../src/storage/content-index.js';
import type { RootIndex } from '../../src/storage/load-root.js';
import { requiredLiterals } from '../../src/session/search.js';
import { trigramsOf } from '../../src/session/trigrams.js';
import type { Query } from '../../src/session/query.js';
import type { Session } from '../../src/session/session.js';

/** A log over this is not read for the index in the browser (one slice would hold the keys); a `find` run indexes it. */
export const BROWSER_INDEX_MAX = 16 * 1024 * 1024;
const SLICE_MS = 8;

export class IndexRefresh {
  private timer?: ReturnType<typeof setTimeout>;
  private todo?: string[];
  private index?: ContentIndex;
  /** every log was looked at once: the index narrows from now on */
  ready = false;

  constructor(
    /** makes the index (reads its manifest) when the pass starts */
    private readonly open: () => ContentIndex,
    private readonly root: RootIndex,
    /** called when the pass is over (the filter starts again, narrowed) */
    private readonly onDone: () => void,
  ) {}

  get busy(): boolean {
    return this.timer !== undefined;
  }

  /** Starts the pass over the sessions' logs now in the store (once). */
  start(): void {
    if (this.todo) return;
    this.index = this.open();
    this.todo = this.root.store
      .list()
      .map((s) => s.file)
      .filter((f): f is string => f !== undefined)
      .reverse();
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const todo = this.todo!;
      const index = this.index!;
      const t0 = performance.now();
      while (todo.length > 0 && performance.now() - t0 < SLICE_MS) index.refresh(todo.pop()!, BROWSER_INDEX_MAX);
      if (todo.length > 0) return this.schedule();
      // entries of logs not looked at (large ones, older generations) are kept for the next find
      index.save(false);
      this.ready = true;
      this.onDone();
    }, 0);
    this.timer.unref?.();
  }

  /**
   * Which sessions may hold the query's words, once the pass is over
   * (undefined before, or for a query with no word that must match). A log
   * that changed since it was indexed (the root index's stat of it now
   * differs) is always a candidate.
   */
  mayHold(q: Query): ((s: Session) => boolean) | undefined {
    if (!this.ready || !this.index) return undefined;
    const literals = requiredLiterals(q);
    if (!literals) return undefined;
    const trigrams = trigramsOf(literals);
    if (trigrams.length === 0) return undefined;
    const test = this.index.matcher(trigrams, (file) => this.root.files.get(file));
    return (s) => s.file === undefined || test(s.file);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.index?.close();
  }
}
