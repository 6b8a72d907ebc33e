// The thin imperative shell around the pure reducer (src/view/app/state.ts):
// it holds the one state, applies every action to the latest state at once
// (synchronously, in arrival order), runs the effects the reducer returns
// (the fork write, exit, status timers) and tells React to draw. Store changes
// are coalesced into one `world` action per frame.
import { RootShapes, type ListRefusal } from '../../src/storage/root-refusals.js';
import { AuditIndex, type AuditMemory } from '../../src/session/audit-index.js';
import { isQueryError, parseQuery } from '../../src/session/query.js';
import { TurnScan } from '../../src/view/turns/turn-search.js';
import type { Query } from '../../src/session/query.js';
import { cancelFilter, indexSome, retryPending, runFilter, SearchIndex, startFilter, type FilterJob } from '../../src/session/search-index.js';
import { hasEventTerms } from '../../src/session/search.js';
import type { FilterAnswers } from '../../src/view/sessions/session-filter.js';
import { newChildId } from '../../src/session/ids.js';
import { sessionKey } from '../../src/session/session-key.js';
import type { ProjectScope } from '../../src/storage/project-scope.js';
import { ExportJob, exportToFile } from '../../src/export/export.js';
import { compareSteps } from '../../src/session/compare.js';
import type { ResumeCommand } from '../../src/session/resume-command.js';
import type { RootIndex } from '../../src/storage/load-root.js';
import { reduce } from '../../src/view/app/reducer.js';
import { initialAppState, type AppAction, type AppState, type Effect, type WorkResult } from '../../src/view/app/state.js';
import type { Size } from '../../src/view/app/layout.js';
import { problemOf } from '../../src/view/dialog/fork-dialog-state.js';
import type { ViewName } from '../../src/view/app/surface.js';
import { cancelOpen, openStep, opening, scopeTest, snapshotWorld, type World } from '../../src/view/app/world.js';
import { RootModel } from '../../src/view/app/root-model.js';
import { selectedSession } from '../../src/view/app/state.js';
import type { Session } from '../../src/session/session.js';
import { milestone } from '../../src/trace.js';
import type { ContentIndex } from '../../src/storage/content-index.js';
import { IndexRefresh } from './index-refresh.js';

export interface Snapshot {
  state: AppState;
  world: World;
}

export interface ControllerOptions {
  size: Size;
  initialView?: ViewName;
  /** the session key selected at start */
  selection?: string;
  /** fixed clock (tests); default: the real clock, re-read every `tickMs` while an age on screen counts seconds or minutes */
  now?: number;
  newId?: () => string;
  /** store changes are drawn at most once per `frameMs` (default 33: 30 frames a second) */
  frameMs?: number;
  /** how long the model's steps before a background frame take at once (default SYNC_STEP_MS) */
  syncStepMs?: number;
  tickMs?: number;
  /** where `x` writes exports (default: the current folder) */
  exportDir?: string;
  /** the current project's scope (dsh's own root) and whether the Sessions view starts scoped to it */
  scope?: ProjectScope;
  startScoped?: boolean;
  /** what the title bar calls the root */
  rootLabel?: string;
  /** audit sessions in the background once the scan is over (default true) */
  audit?: boolean;
  /** findings kept between runs (the findings cache; none with --no-cache) */
  auditMemory?: AuditMemory;
  /** opens the content index kept between runs (none with --no-cache): opened and refreshed once the scan is over, it narrows the Sessions filter and the Turns search */
  contentIndex?: () => ContentIndex;
}


const sameEntries = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
const sameList = (a: ReadonlyMap<string, ListRefusal>, b: ReadonlyMap<string, ListRefusal>): boolean => a.size === b.size && [...a].every(([k, v]) => b.get(k)?.reason === v.reason);

/** background frames are spaced by this many times what the last one cost */
const GAP_FACTOR = 16;
/** a change waits at most this long to be drawn (while keys keep coming, or frames are costly) */
const MAX_WAIT_MS = 1000;
/** a large log's first scan redraws its progress at most this often */
const SCAN_PROGRESS_MS = 250;
/** keys closer together than this are a burst: background frames wait for its end (j held or tapped ~4 a second: the news come at most MAX_WAIT_MS late) */
const KEY_QUIET_MS = 300;
/** the model's steps before a background frame take at most this long at once (then keys and other work) */
const SYNC_STEP_MS = 8;
/** the model's step after each batch of the first scan */
const SCAN_SYNC_MS = 4;

export class AppController {
  private snap: Snapshot;
  private version = 0;
  private dirty = false;
  private frame?: ReturnType<typeof setTimeout>;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe: () => void;
  private tick?: ReturnType<typeof setTimeout>;
  private readonly newId: () => string;
  /** set by the app: leaves Ink */
  onExit: () => void = () => {};
  /** the snapshot the app last drew (tests wait for the screen to catch up with the state) */
  rendered?: Snapshot;
  /** puts text on the clipboard; default: OSC 52 to the terminal (invisible where unsupported) */
  onCopy: (text: string) => void = (text) => {
    if (process.stdout.isTTY) process.stdout.write(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
  };
  /** shows text in $PAGER and comes back (runTui leaves the screen for it); default: unavailable */
  onPager: (content: string) => string | undefined = () => 'no pager here: run dsh-browse in a terminal';
  /** draws the whole last frame again (set by the app; runTui calls it after $PAGER) */
  repaint: () => void = () => {};
  /** what R asked to run once the browser has left the screen (runTui runs it) */
  pendingRun?: ResumeCommand;

  constructor(
    readonly index: RootIndex,
    private readonly opts: ControllerOptions,
  ) {
    this.newId = opts.newId ?? (() => newChildId());
    this.auditIndex = new AuditIndex(opts.auditMemory, index.store);
    this.auditSeen = index.store.changes.version;
    this.model = new RootModel(index.store, this.auditIndex, opts.scope && scopeTest(opts.scope));
    // a root read before (no scan running): its refusals in the first frame, as after a scan's end
    if (!index.scan || index.scan.finished) {
      this.stepRefusals(() => false);
      this.refusalsTaken = this.refusals.map;
    }
    this.listShown = !index.scan || index.scan.finished;
    if (this.listShown) this.listDrawn?.();
    if (opts.contentIndex) {
      this.indexRefresh = new IndexRefresh(opts.contentIndex, index, () => {
        // a filter answered before the index was ready: again, narrowed
        if (this.filter?.job) this.syncFilter(this.filter.text, true);
        this.checkIdle();
      });
      if (this.listShown) this.indexRefresh.start();
    }
    const world = this.takeWorld();
    const initial = { ...initialAppState(opts.size, opts.initialView), selection: opts.selection, pinTop: opts.selection === undefined, allProjects: !(opts.scope && opts.startScoped) };
    this.snap = { state: reduce(initial, { type: 'world' }, world).state, world };
    this.unsubscribe = index.store.subscribe(() => {
      // the audit looks at the store again only when a session came, went or changed: an emit
      // for the live status or a skipped file moved no session (after the first scan of 100,000
      // sessions, the watcher's start made it build its work list of the whole root again)
      const changes = index.store.changes.version;
      if (changes !== this.auditSeen) {
        this.auditSeen = changes;
        this.auditIndex.invalidate();
      }
      // while the first scan runs, its batches bring the model along a little each (so the scan's
      // end finds it nearly current: the complete list is drawn at once, not after seconds of steps
      // shared with the audit); the frames' steps do the rest
      if (index.scan && !index.scan.finished) {
        const until = performance.now() + SCAN_SYNC_MS;
        this.model.syncStep(this.refusalsTaken, () => performance.now() > until);
      }
      this.storeChanged();
      this.scheduleAudit();
    });
    this.scheduleAudit();
    if (opts.now === undefined) {
      // ages ("open 5s") keep counting while nothing else changes
      this.armTick();
    }
  }

  private readonly auditIndex: AuditIndex;
  /** the store's journal version the audit's work list is as of (its first step reads the store as it is then) */
  private auditSeen: number;
  /** the root's derived facts, updated from what changed before each new snapshot */
  private readonly model: RootModel;
  private auditTimer?: ReturnType<typeof setTimeout>;
  private refusals = { files: -1, sessions: -1, map: new Map<string, string>(), list: new Map<string, ListRefusal>() as ReadonlyMap<string, ListRefusal> };

  /** rc.8's root refusals being found again, in steps (the count of files or sessions moved) */
  private refusalJob?: { files: number; sessions: number; paths: Iterator<string>; shapes: RootShapes };

  /**
   * rc.8's refusals of whole roots, from the files found: found again when
   * the count of files or sessions changed (a file added, deleted or re-read
   * as a session), not on every append, and not while the first scan runs (a
   * pass over every path per frame would cost the keys; the scan's end brings
   * it). In steps until `pause()` (80 ms at once for 100,000 files); true
   * when `this.refusals` is current. The same verdicts keep the same map, so
   * the model is not rebuilt for them.
   */
  private stepRefusals(pause: () => boolean): boolean {
    if (this.index.scan && !this.index.scan.finished) return true;
    const r = this.refusals;
    const files = this.index.files.size;
    const sessions = this.index.store.size;
    if (!this.refusalJob) {
      if (r.files === files && r.sessions === sessions) return true;
      // the live iterator: files added meanwhile are visited, deleted ones skipped (and the counts say to look again)
      this.refusalJob = { files, sessions, paths: this.index.files.keys(), shapes: new RootShapes() };
    }
    const job = this.refusalJob;
    for (let n = 1; ; n++) {
      const next = job.paths.next();
      if (next.done) break;
      const s = this.index.store.byFile(next.value);
      if (s) job.shapes.addSession(next.value, s, () => this.index.store.withId(s.id));
      else job.shapes.add(next.value);
      if (n % 1024 === 0 && pause()) return false;
    }
    this.refusalJob = undefined;
    const map = job.shapes.refusals();
    const list = job.shapes.listRefusals(map);
    this.refusals = { files: job.files, sessions: job.sessions, map: sameEntries(map, r.map) ? r.map : map, list: sameList(list, r.list) ? r.list : list };
    return this.index.files.size === job.files && this.index.store.size === job.sessions ? true : this.stepRefusals(pause);
  }

  /** the store (or the audit's findings, once they show) changed since the last snapshot, not only the filter's answers */
  private contentDirty = true;
  /** the audit has news not yet looked at: drawn only when they show (auditChanged) */
  private auditDirty = false;
  /** the model's and the audit's versions the last fresh snapshot was taken at */
  private shown = { model: -1, findings: -1 };

  /**
   * A new snapshot of the store. `keepContent`: reuse the last snapshot's
   * derived data even when the store changed (a filter keystroke must not pay
   * for the background's changes: the next background frame takes them).
   */
  private takeWorld(keepContent = false): World {
    this.dirty = false;
    const base = (this.contentDirty && !keepContent) || !this.snap ? undefined : this.snap.world;
    if (base && keepContent && this.contentDirty) this.dirty = true;
    else this.contentDirty = false;
    if (!base) {
      this.model.sync(this.refusalsTaken);
      this.shown = { model: this.model.version, findings: this.auditIndex.findingsVersion };
    }
    return snapshotWorld(this.index, ++this.version, this.opts.now ?? Date.now(), this.newId, {
      base,
      audit: this.auditIndex,
      model: this.model,
      scope: this.opts.scope,
      rootRefusals: this.refusalsTaken,
      listRefusals: this.refusals.list,
      rootLabel: this.opts.rootLabel,
      filterAnswers: this.filterAnswers(),
      onLoading: (session) => this.loading(session),
    });
  }

  /**
   * The audit runs in slices of ~8 ms between frames (one session at least per
   * slice) once the scan is over, and again for the sessions a change touched.
   */
  private scheduleAudit(): void {
    if (this.opts.audit === false || this.auditTimer || this.closed) return;
    this.auditTimer = setTimeout(() => {
      this.auditTimer = undefined;
      if (!this.listShown) return this.scheduleAudit();
      const { changed, done } = this.auditIndex.step(() => this.index.store.list(), 8);
      if (changed) this.auditChanged();
      if (!done) this.scheduleAudit();
      else milestone('audit done');
      this.checkIdle();
    }, 20);
    this.auditTimer.unref?.();
  }

  private closed = false;

  // ---- a session opened while its events load (a multi-GB over-long line) --
  private loadTimer?: ReturnType<typeof setTimeout>;
  /** sessions with a load under way (world.turns reported them): the one the Turns view shows goes on, the others are dropped */
  private readonly loads = new Set<Session>();
  /** when a load's progress was last drawn */
  private loadDrawn = 0;

  /** The session the Turns view shows. */
  private shownSession(): Session | undefined {
    const s = this.snap.state;
    return s.view === 'turns' ? selectedSession(s, this.snap.world) : undefined;
  }

  /** world.turns found `session` still loading: its load goes on in slices. */
  private loading(session: Session): void {
    this.loads.add(session);
    this.scheduleLoad();
  }

  /**
   * Opening a session reads its ordinary lines at once, but skips an
   * over-long line only briefly (world.ts); the rest of the load runs here in
   * slices of ~8 ms while the session is shown, and is dropped (its file
   * closed) when it no longer is. Each slice redraws the progress; the last
   * one draws the session.
   */
  private scheduleLoad(): void {
    if (this.loadTimer || this.closed) return;
    this.loadTimer = setTimeout(() => {
      this.loadTimer = undefined;
      const shown = this.shownSession();
      for (const s of this.loads)
        if (s !== shown || !opening(s)) {
          if (s !== shown) cancelOpen(s);
          this.loads.delete(s);
        }
      if (shown && this.loads.has(shown)) {
        const until = performance.now() + 8;
        let done: boolean;
        try {
          done = openStep(shown, () => performance.now() > until);
        } catch {
          done = true; // the Turns view says why (the session keeps the error)
        }
        if (done) this.loads.delete(shown);
        else this.scheduleLoad();
        // the turn rows are not part of the snapshot's derived data; the progress is drawn every 100 ms
        // (a frame after every 8 ms slice took as long as the slice: a 1 GB log indexed at half speed)
        const now = performance.now();
        if (done || now - this.loadDrawn >= 100) {
          this.loadDrawn = now;
          this.storeChanged(false);
        }
      }
      this.checkIdle();
    }, 0);
  }

  // ---- the Turns search of a large log, read in the background --------------
  private turnScan?: { key: string; text: string; scan: TurnScan; drawn: number };
  private turnScanTimer?: ReturnType<typeof setTimeout>;

  private startTurnScan(session: Session, key: string, query: Query, text: string): void {
    this.turnScan?.scan.close();
    this.turnScan = undefined;
    // the content index: a log that cannot hold the query's words has no match, and is not read for it
    if (this.indexRefresh?.mayHold(query)?.(session) === false) {
      this.dispatch({ type: 'searchDone', key, query: text, seqs: [] });
      return;
    }
    const spent = () => performance.now() > this.sliceEnd;
    this.turnScan = { key, text, scan: new TurnScan(query, session.pausedBatches(Infinity, spent)), drawn: performance.now() };
    this.scheduleTurnScan();
  }
  /** when the current slice of background work ends */
  private sliceEnd = 0;

  /** Slices of ~8 ms; the progress is drawn every 250 ms; dropped once the state no longer asks for it (Esc, another search). */
  private scheduleTurnScan(): void {
    if (this.turnScanTimer || this.closed || !this.turnScan) return;
    this.turnScanTimer = setTimeout(() => {
      this.turnScanTimer = undefined;
      const job = this.turnScan;
      if (!job) return this.checkIdle();
      const t = this.snap.state.turnSearch;
      if (!t?.scanning || t.key !== job.key || t.query !== job.text) {
        job.scan.close();
        this.turnScan = undefined;
        return this.checkIdle();
      }
      this.sliceEnd = performance.now() + 8;
      let done: boolean;
      try {
        done = job.scan.run(() => performance.now() > this.sliceEnd);
      } catch (err) {
        job.scan.close();
        this.turnScan = undefined;
        this.dispatch({ type: 'searchFailed', key: job.key, query: job.text, message: err instanceof Error ? err.message : String(err) });
        return;
      }
      if (done) {
        this.turnScan = undefined;
        this.dispatch({ type: 'searchDone', key: job.key, query: job.text, seqs: job.scan.seqs });
        return;
      }
      // (armed before the progress is drawn, as the background work's slices are)
      this.scheduleTurnScan();
      if (performance.now() - job.drawn >= 250) {
        job.drawn = performance.now();
        this.dispatch({ type: 'searchProgress', key: job.key, query: job.text, seen: job.scan.seen });
      }
    }, 0);
  }

  // ---- an export or a comparison of a large log, made in the background -----
  private work?: { id: number; step: (spent: () => boolean) => WorkResult | undefined; progress: () => number; close: () => void; drawn: number };
  private workTimer?: ReturnType<typeof setTimeout>;

  private startWork(id: number, work: { step: (spent: () => boolean) => WorkResult | undefined; progress: () => number; close: () => void }): void {
    this.work?.close();
    this.work = { id, ...work, drawn: performance.now() };
    this.scheduleWork();
  }

  /** Slices of ~8 ms; the progress is drawn every 250 ms; dropped (reads and temp file closed) once the state no longer has it (Esc). */
  private scheduleWork(): void {
    if (this.workTimer || this.closed || !this.work) return;
    this.workTimer = setTimeout(() => {
      this.workTimer = undefined;
      const job = this.work;
      if (!job) return this.checkIdle();
      if (this.snap.state.work?.id !== job.id) {
        job.close();
        this.work = undefined;
        return this.checkIdle();
      }
      this.sliceEnd = performance.now() + 8;
      let result: WorkResult | undefined;
      try {
        result = job.step(() => performance.now() > this.sliceEnd);
      } catch (err) {
        job.close();
        this.work = undefined;
        this.dispatch({ type: 'workFailed', id: job.id, message: err instanceof Error ? err.message : String(err) });
        return;
      }
      if (result) {
        job.close();
        this.work = undefined;
        this.dispatch({ type: 'workDone', id: job.id, result });
        return;
      }
      // the next slice is armed before the progress is drawn: the dispatch asks whether the app is
      // idle, and with no slice armed it was, half-way through a slow export
      this.scheduleWork();
      if (performance.now() - job.drawn >= 250) {
        job.drawn = performance.now();
        this.dispatch({ type: 'workProgress', id: job.id, done: job.progress() });
      }
    }, 0);
  }

  /** x on a large log: its transcript written in slices (ExportJob). */
  private startExport(id: number, session: Session, upTo: number | undefined): void {
    let job: ExportJob;
    try {
      job = new ExportJob(session, this.index.store.list(), this.opts.exportDir ?? process.cwd(), { format: 'md', upTo });
    } catch (err) {
      this.dispatch({ type: 'workFailed', id, message: err instanceof Error ? err.message : String(err) });
      return;
    }
    this.startWork(id, {
      step: (spent) => (job.run(spent) ? { kind: 'export', file: job.result!.file, bytes: job.result!.bytes } : undefined),
      progress: () => job.progress(),
      close: () => job.close(),
    });
  }

  /** c with a large log on either side: both read side by side in slices (compareSteps). */
  private startCompare(id: number, left: Session, right: Session): void {
    const total = left === right ? left.length : left.length + right.length;
    let read = 0;
    const steps = compareSteps(left, right, this.index.store.list(), () => performance.now() > this.sliceEnd);
    this.startWork(id, {
      step: () => {
        const r = steps.next();
        if (r.done) return { kind: 'compare', comparison: r.value };
        read = r.value;
        return undefined;
      },
      progress: () => (total > 0 ? Math.min(1, read / total) : 1),
      close: () => void steps.return(undefined as never),
    });
  }

  // ---- the Sessions filter's query, answered in the background -------------
  private readonly searchIndex = new SearchIndex();
  private readonly indexRefresh?: IndexRefresh;
  /** when the filter's answers were last drawn */
  private filterDrawn = 0;
  private filter?: { text: string; job?: FilterJob };
  private filterTimer?: ReturnType<typeof setTimeout>;

  private filterAnswers(): FilterAnswers | undefined {
    const f = this.filter;
    if (!f?.job) return undefined;
    const todo = f.job.scan ? [...f.job.todo, f.job.scan.session] : f.job.todo; // (a large log being read is still to answer)
    return { text: f.text, results: f.job.results, todo: new Set(todo.map(sessionKey)) };
  }

  /**
   * A new filter text (or `again`) starts a new job over every session; its
   * answers arrive in ~8 ms slices. With the content index ready, a log that
   * cannot hold the query's words is answered at once, unread.
   */
  private syncFilter(text: string, again = false): boolean {
    if (this.filter?.text === text && !again) return false;
    cancelFilter(this.filter?.job);
    const q = text.trim() ? parseQuery(text) : undefined;
    this.filter = { text, job: q && !isQueryError(q) && hasEventTerms(q) ? startFilter(q, this.index.store.list(), this.indexRefresh?.mayHold(q)) : undefined };
    this.scheduleFilter();
    return true;
  }

  private scheduleFilter(): void {
    if (this.filterTimer || this.closed || !this.filter?.job) return;
    this.filterTimer = setTimeout(() => {
      this.filterTimer = undefined;
      const f = this.filter;
      if (!f?.job) return this.checkIdle();
      const job = f.job;
      if (!job.done) {
        const known = job.results.size;
        runFilter(job, this.searchIndex, 8);
        // a slice of a large log's read with nothing new to show is not drawn (a frame per slice halved its speed)
        if (!job.done && job.results.size === known && job.scan && performance.now() - this.filterDrawn < 250) {
          this.scheduleFilter();
          return;
        }
        this.filterDrawn = performance.now();
        // the whole answer is the moment a user waits for: drawn in the next frame, not after a background frame's gap
        if (job.done && ![...job.results.values()].includes('pending')) {
          this.drawSoon(false);
          this.scheduleFilter();
          return;
        }
      } else {
        // sessions without a search document answered 'pending': index them, then ask again
        const pending: Session[] = [];
        for (const [key, a] of job.results) {
          const s = a === 'pending' ? this.index.store.byFile(key) : undefined;
          if (s) pending.push(s);
        }
        if (pending.length === 0) return this.checkIdle();
        if (indexSome(this.searchIndex, pending, 8) === 0) f.job = retryPending(job, pending);
      }
      this.storeChanged(false);
      this.scheduleFilter();
    }, this.filter.job.scan ? 0 : 5); // (a large log being read: its next slice at once; keys still come first)
    this.filterTimer.unref?.();
  }

  // ---- background work, for whoever must wait for it (tests) ---------------
  private readonly idleWaiters: Array<() => void> = [];

  /**
   * True while background work still owes the state a change: an audit slice
   * (it also waits for the scan to finish), a filter search slice, or a store
   * change not yet applied (the coalesced frame). The clock's redraw of ages
   * does not count. With `audit: false` the scan is not waited for.
   */
  get busy(): boolean {
    return !this.closed && (this.auditTimer !== undefined || this.filterTimer !== undefined || this.indexRefresh?.busy === true || this.loadTimer !== undefined || this.turnScanTimer !== undefined || this.workTimer !== undefined || this.frame !== undefined);
  }

  /**
   * Resolves once nothing is `busy` (at once if nothing is): the latest state
   * then holds every answer the background had to give (the audit's findings,
   * the filter's matches, the store's changes). An event, not a delay: on a
   * loaded machine it resolves later, never early. Also resolves on close().
   */
  idle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private checkIdle(): void {
    if (this.idleWaiters.length === 0 || this.busy) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /**
   * Ages ("open 5s", "12m") keep counting while nothing else changes: redraw
   * every `tickMs` while the newest activity is under an hour old (ages in
   * seconds or minutes), else once a minute: an idle root costs nothing.
   */
  private armTick(): void {
    const newest = this.model.newestActivity();
    const ms = Date.now() - newest < 3_600_000 ? (this.opts.tickMs ?? 5000) : 60_000;
    this.tick = setTimeout(() => {
      this.storeChanged(false); // only the clock moved: reuse the snapshot's derived data
      this.armTick();
    }, ms);
    this.tick.unref?.();
  }

  // ---- background frames: spaced by their own cost, and never in the way of keys
  /** when the last key arrived (performance.now()) */
  private lastKeyAt = -Infinity;
  /** ms since the last key (Infinity before the first) */
  get sinceKeyMs(): number {
    return performance.now() - this.lastKeyAt;
  }
  /** when the oldest change not yet drawn arrived */
  private pendingSince?: number;
  /** what the last background frame cost (ms): snapshot, reducer and the draw it asked for */
  private frameCost = 0;

  /**
   * The store (or the audit, or the filter's answers) changed: draw it in a
   * coming frame. Frames are spaced by GAP_FACTOR times what the last one
   * cost (so derived data recomputed from the whole root takes a bounded
   * share of the CPU, however many slices the background runs), and wait
   * while keys arrive (keys first), but never longer than MAX_WAIT_MS.
   */
  private storeChanged(content = true): void {
    this.dirty = true;
    if (content) this.contentDirty = true;
    this.pendingSince ??= performance.now();
    if (this.frame) return;
    const gap = Math.min(MAX_WAIT_MS, Math.max(this.opts.frameMs ?? 33, GAP_FACTOR * this.frameCost));
    this.armFrame(gap);
  }

  /**
   * The audit has news: looked at in a coming frame like a store change, but
   * drawn only when they show (a badge moved, or findings the Problems tab
   * lists): most sessions are audited clean, and their news change nothing
   * on screen.
   */
  private auditChanged(): void {
    this.auditDirty = true;
    this.pendingSince ??= performance.now();
    if (this.frame) return;
    this.armFrame(Math.min(MAX_WAIT_MS, Math.max(this.opts.frameMs ?? 33, GAP_FACTOR * this.frameCost)));
  }

  /**
   * The first scan read on in a large log (the title bar says how far): a
   * frame at most every SCAN_PROGRESS_MS, none for a scan of small files
   * (their progress shows with the sessions they bring).
   */
  scanProgressed(): void {
    if (this.closed || this.frame || performance.now() - this.progressShownAt < SCAN_PROGRESS_MS) return;
    this.progressShownAt = performance.now();
    this.pendingSince ??= performance.now();
    this.dirty = true;
    this.armFrame(this.opts.frameMs ?? 33);
  }
  private progressShownAt = -Infinity;

  /**
   * The first scan is over: the complete list is drawn at once, not after a
   * background frame's gap (up to MAX_WAIT_MS at 100,000 sessions) nor a
   * frame's (its 33 ms were idle: nothing else comes to be batched). Once: it
   * is the moment a user waits for.
   */
  scanFinished(): void {
    if (this.closed) return;
    this.drawSoon(true, 0);
  }

  /**
   * The first scan is over and its complete list drawn (or no scan ran). The
   * audit and the content index wait for it: started with the scan's end,
   * their slices took turns with the frame's steps and the complete list of
   * 100,000 sessions came ~0.9 s after the scan.
   */
  private listShown: boolean;
  private listDrawn?: () => void;
  /** Resolves once the first scan's complete list is drawn (tui.ts starts the watcher then, for the same reason). */
  readonly listReady = new Promise<void>((resolve) => (this.listDrawn = resolve));

  /** a drawSoon frame is armed: typing does not hold it back */
  private urgent = false;

  /** A change drawn in the next frame (frameMs, or `ms`), whatever the last background frame cost. */
  private drawSoon(content: boolean, ms = this.opts.frameMs ?? 33): void {
    this.urgent = true;
    if (this.frame) clearTimeout(this.frame);
    this.frame = undefined;
    this.dirty = true;
    if (content) this.contentDirty = true;
    this.pendingSince ??= performance.now();
    this.armFrame(ms);
  }

  /**
   * The root refusals the model was last handed. New ones are taken only by
   * the steps before a background frame: their change can touch every item
   * (at 100,000 sessions, a 100 ms block when a snapshot took them at once).
   */
  private refusalsTaken: ReadonlyMap<string, string> = this.refusals.map;

  /** `synced`: the model's steps caught up just before: draw now (news since are a slice's worth). */
  private armFrame(ms: number, synced = false): void {
    this.frame = setTimeout(() => {
      this.frame = undefined;
      const now = performance.now();
      // (an answer a key asked for is not held back for the keys that may follow it)
      const typing = !this.urgent && now - this.lastKeyAt < KEY_QUIET_MS;
      const waited = now - (this.pendingSince ?? now);
      if (typing && waited < MAX_WAIT_MS) return this.armFrame(Math.min(KEY_QUIET_MS, MAX_WAIT_MS - waited));
      // the model takes the news in steps first, keys answered between them (a scan's 30,000 new
      // sessions were one 60-140 ms block at 100,000); the frame draws once it is current
      if ((this.contentDirty || this.auditDirty) && !synced) {
        const until = now + (this.opts.syncStepMs ?? SYNC_STEP_MS);
        const pause = () => performance.now() > until;
        if (!this.stepRefusals(pause)) return this.armFrame(0);
        this.refusalsTaken = this.refusals.map;
        if (this.model.behind(this.refusalsTaken)) {
          const done = this.model.syncStep(this.refusalsTaken, pause);
          return this.armFrame(0, done); // the frame is drawn in a task of its own
        }
        // the order on screen merged in this task, drawn in the next (keys between them)
        const { order, allProjects } = this.snap.state;
        if (this.model.prepare(order, Boolean(this.opts.scope) && !allProjects)) return this.armFrame(0, true);
      }
      if (this.auditDirty) {
        this.auditDirty = false;
        if (this.model.version !== this.shown.model || this.auditIndex.findingsVersion !== this.shown.findings) this.contentDirty = this.dirty = true;
        else if (!this.dirty) {
          // the audit's news show nothing new: no frame
          this.pendingSince = undefined;
          this.checkIdle();
          return;
        }
      }
      this.pendingSince = undefined;
      this.urgent = false;
      this.dispatch({ type: 'world' });
      if (!this.listShown && this.index.scan?.finished) {
        this.listShown = true;
        this.listDrawn?.();
        this.indexRefresh?.start();
      }
      // React renders in a microtask the dispatch queued, and Ink draws in its commit: measured after them
      // (measured at the dispatch's return, the cost left out the draw: at 100,000 sessions frames took 27% of the CPU)
      queueMicrotask(() => (this.frameCost = performance.now() - now));
    }, ms);
  }

  /** The world as of now: a fresh snapshot when the store changed since the last one. */
  world(): World {
    if (this.dirty) this.snap = { ...this.snap, world: this.takeWorld() };
    return this.snap.world;
  }

  readonly getSnapshot = (): Snapshot => this.snap;

  readonly subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  /** Applies one action to the latest state, then its effects, in order. */
  readonly dispatch = (action: AppAction): void => {
    // A key acts on the world on screen (what it highlights); the store's news
    // come in the next background frame. Everything else takes them now.
    const onScreen = action.type === 'key' || action.type === 'resize' || action.type === 'statusExpired';
    if (action.type === 'key') this.lastKeyAt = performance.now();
    const world = onScreen ? this.snap.world : this.world();
    const { state, effects } = reduce(this.snap.state, action, world);
    this.snap = { state, world };
    // a new filter query: draw this state with its (empty, searching) answers at once
    if (this.syncFilter(state.filter.text)) {
      const w = this.takeWorld(onScreen);
      this.snap = { state: reduce(state, { type: 'world' }, w).state, world: w };
    }
    for (const e of effects) this.run(e);
    for (const fn of this.listeners) fn();
    // a session left while it loads: its load is dropped in the next slice
    if (this.loads.size > 0) this.scheduleLoad();
    this.checkIdle();
  };

  private run(e: Effect): void {
    switch (e.type) {
      case 'exit':
        this.onExit();
        return;
      case 'copy':
        this.onCopy(e.text);
        return;
      case 'run':
        this.pendingRun = e.command;
        this.onExit();
        return;
      case 'pager': {
        const problem = this.onPager(e.content);
        if (problem) this.dispatch({ type: 'exportFailed', message: problem, pager: true });
        else this.dispatch({ type: 'world' }); // redraw the whole screen
        return;
      }
      case 'export':
        if (e.work !== undefined) return this.startExport(e.work, e.session, e.upTo);
        try {
          const out = exportToFile(e.session, this.index.store.list(), this.opts.exportDir ?? process.cwd(), { format: 'md', upTo: e.upTo });
          this.dispatch({ type: 'exported', file: out.file, bytes: out.bytes });
        } catch (err) {
          this.dispatch({ type: 'exportFailed', message: err instanceof Error ? err.message : String(err) });
        }
        return;
      case 'expireStatus': {
        const t = setTimeout(() => {
          this.timers.delete(t);
          this.dispatch({ type: 'statusExpired', id: e.id });
        }, e.ms);
        t.unref?.();
        this.timers.add(t);
        return;
      }
      case 'compare':
        this.startCompare(e.work, e.left, e.right);
        return;
      case 'searchTurns':
        this.startTurnScan(e.session, e.key, e.query, e.text);
        return;
      case 'fork':
        try {
          const child = this.index.store.fork({ source: e.source, boundary: e.boundary, sessionId: e.childId });
          this.dispatch({ type: 'forked', child, source: e.source });
        } catch (err) {
          this.dispatch({ type: 'forkFailed', error: problemOf(err) });
        }
        return;
    }
  }

  close(): void {
    this.closed = true;
    if (this.auditTimer) clearTimeout(this.auditTimer);
    this.auditIndex.cancel();
    if (this.filterTimer) clearTimeout(this.filterTimer);
    if (this.loadTimer) clearTimeout(this.loadTimer);
    if (this.turnScanTimer) clearTimeout(this.turnScanTimer);
    if (this.workTimer) clearTimeout(this.workTimer);
    this.indexRefresh?.close();
    this.work?.close();
    this.work = undefined;
    this.turnScan?.scan.close();
    cancelFilter(this.filter?.job);
    for (const s of this.loads) cancelOpen(s);
    this.loads.clear();
    this.unsubscribe();
    if (this.frame) clearTimeout(this.frame);
    if (this.tick) clearTimeout(this.tick);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.listeners.clear();
    this.checkIdle();
  }
}
