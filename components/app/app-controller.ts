// The thin imperative shell around the pure reducer (src/view/app/state.ts):
// it holds the one state, applies every action to the latest state at once
// (synchronously, in arrival order), runs the effects the reducer returns
// (the fork write, exit, status timers) and tells React to draw. Store changes
// are coalesced into one `world` action per frame (frames.ts). The work done
// in the background (the audit, loads, searches, exports, the filter, the
// content index, the frames) runs through one runner (background-jobs.ts).
import type { AuditMemory } from '../../src/session/audit-index.js';
import { newChildId } from '../../src/session/ids.js';
import type { ProjectScope } from '../../src/storage/project-scope.js';
import type { ResumeCommand } from '../../src/session/resume-command.js';
import type { RootIndex } from '../../src/storage/load-root.js';
import { reduce } from '../../src/view/app/reducer.js';
import { APP, initialAppState } from '../../src/view/app/surfaces.js';
import { selectedSession, type AppAction, type AppState, type Effect } from '../../src/view/app/state.js';
import type { Size } from '../../src/view/app/layout.js';
import { problemOf } from '../../src/session/errors.js';
import type { ViewName } from '../../src/view/app/surface.js';
import { scopeTest, snapshotWorld } from '../../src/world/world.js';
import type { World } from '../../src/view/app/world.js';
import { RootModel } from '../../src/world/root-model.js';
import type { Query } from '../../src/session/query.js';
import type { Session } from '../../src/session/session.js';
import type { ContentIndex } from '../../src/storage/content-index.js';
import { BackgroundAudit } from './background-audit.js';
import { BackgroundJobs } from './background-jobs.js';
import { BackgroundWork } from './background-work.js';
import { FilterSearch } from './filter-search.js';
import { Frames } from './frames.js';
import { IndexRefresh } from './index-refresh.js';
import { RefusalSteps } from './refusal-steps.js';
import { SessionLoads } from './session-loads.js';
import { TurnSearchJob } from './turn-search-job.js';
import { foldSteps, turnNode } from '../../src/view/timeline/timeline-of.js';

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
  /** how long the model's steps before a background frame take at once (default SLICE_MS, background-jobs.ts) */
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

/** the model's step after each batch of the first scan */
const SCAN_SYNC_MS = 4;

export class AppController {
  private snap: Snapshot;
  private version = 0;
  /** the status line's expiry timers */
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

  /** every background job's timer, the frames' included: idle() waits for none to be armed */
  private readonly jobs = new BackgroundJobs();
  private readonly frames: Frames;
  private readonly audit: BackgroundAudit;
  /** the root's derived facts, updated from what changed before each new snapshot */
  private readonly model: RootModel;
  private readonly refusals: RefusalSteps;
  /**
   * The root refusals the model was last handed. New ones are taken only by
   * the steps before a background frame: their change can touch every item
   * (at 100,000 sessions, a 100 ms block when a snapshot took them at once).
   */
  private refusalsTaken: ReadonlyMap<string, string>;
  private readonly loads: SessionLoads;
  private readonly turnSearch: TurnSearchJob;
  private readonly work: BackgroundWork;
  private readonly filter: FilterSearch;
  private readonly indexRefresh?: IndexRefresh;
  /** the model's and the audit's versions the last fresh snapshot was taken at */
  private shown = { model: -1, findings: -1 };

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

  constructor(
    readonly index: RootIndex,
    private readonly opts: ControllerOptions,
  ) {
    this.newId = opts.newId ?? (() => newChildId());
    this.listShown = !index.scan || index.scan.finished;
    this.audit = new BackgroundAudit(this.jobs, index.store, opts.auditMemory, { enabled: opts.audit !== false, listShown: () => this.listShown, changed: () => this.frames.auditChanged() });
    this.model = new RootModel(index.store, this.audit.index, opts.scope && scopeTest(opts.scope));
    this.refusals = new RefusalSteps(index);
    // a root read before (no scan running): its refusals in the first frame, as after a scan's end
    if (this.listShown) this.refusals.step(() => false);
    this.refusalsTaken = this.refusals.map;
    this.frames = new Frames(this.jobs, { catchUp: (pause) => this.catchUp(pause), auditShows: () => this.auditShows(), draw: () => this.drawFrame() }, opts.frameMs ?? 33, opts.syncStepMs);
    const state = () => this.snap.state;
    const dispatch = (action: AppAction) => this.dispatch(action);
    const sessions = () => index.store.list();
    const mayHold = (q: Query) => this.indexRefresh?.mayHold(q);
    this.loads = new SessionLoads(this.jobs, () => this.shownSession(), () => this.frames.changed(false));
    this.turnSearch = new TurnSearchJob(this.jobs, { state, dispatch, mayHold });
    this.work = new BackgroundWork(this.jobs, { state, dispatch, sessions, exportDir: () => opts.exportDir ?? process.cwd() });
    this.filter = new FilterSearch(this.jobs, { sessions, byFile: (f) => index.store.byFile(f), mayHold, changed: () => this.frames.changed(false), done: () => this.frames.soon(false) });
    if (this.listShown) this.listDrawn?.();
    if (opts.contentIndex) {
      // a filter answered before the index was ready: again, narrowed
      this.indexRefresh = new IndexRefresh(opts.contentIndex, index, () => this.filter.narrow(), this.jobs);
      if (this.listShown) this.indexRefresh.start();
    }
    const world = this.takeWorld();
    const initial = { ...initialAppState(opts.size, opts.initialView), selection: opts.selection, pinTop: opts.selection === undefined, allProjects: !(opts.scope && opts.startScoped) };
    this.snap = { state: reduce(initial, { type: 'world' }, world).state, world };
    this.unsubscribe = index.store.subscribe(() => {
      this.audit.storeChanged();
      // while the first scan runs, its batches bring the model along a little each (so the scan's
      // end finds it nearly current: the complete list is drawn at once, not after seconds of steps
      // shared with the audit); the frames' steps do the rest
      if (index.scan && !index.scan.finished) {
        const until = performance.now() + SCAN_SYNC_MS;
        this.model.syncStep(this.refusalsTaken, () => performance.now() > until);
      }
      this.frames.changed();
      this.audit.schedule();
    });
    this.audit.schedule();
    if (opts.now === undefined) {
      // ages ("open 5s") keep counting while nothing else changes
      this.armTick();
    }
  }

  /**
   * A new snapshot of the store. `keepContent`: reuse the last snapshot's
   * derived data even when the store changed (a filter keystroke must not pay
   * for the background's changes: the next background frame takes them).
   */
  private takeWorld(keepContent = false): World {
    const f = this.frames;
    f.dirty = false;
    const base = (f.contentDirty && !keepContent) || !this.snap ? undefined : this.snap.world;
    if (base && keepContent && f.contentDirty) f.dirty = true;
    else f.contentDirty = false;
    if (!base) {
      this.model.sync(this.refusalsTaken);
      this.shown = { model: this.model.version, findings: this.audit.index.findingsVersion };
    }
    return snapshotWorld(this.index, ++this.version, this.opts.now ?? Date.now(), this.newId, {
      base,
      audit: this.audit.index,
      model: this.model,
      scope: this.opts.scope,
      rootRefusals: this.refusalsTaken,
      listRefusals: this.refusals.list,
      rootLabel: this.opts.rootLabel,
      filterAnswers: this.filter.answers(),
      onLoading: (session) => this.loads.add(session),
    });
  }

  /** The session whose turns are on screen: the one Turns shows, or the selection the Sessions detail pane reads. */
  private shownSession(): Session | undefined {
    const s = this.snap.state;
    const view = APP.surface(s.view);
    return view.showsSession || view.readsSelection?.(s) ? selectedSession(s, this.snap.world) : undefined;
  }

  /**
   * True while background work still owes the state a change: a step of any
   * job armed (the audit, which also waits for the scan to finish; a load, a
   * search, an export or comparison, the filter, the content index), or a
   * store change not yet applied (the coalesced frame). The clock's redraw of
   * ages does not count. With `audit: false` the scan is not waited for.
   */
  get busy(): boolean {
    return this.jobs.busy;
  }

  /**
   * Resolves once nothing is `busy` (at once if nothing is): the latest state
   * then holds every answer the background had to give (the audit's findings,
   * the filter's matches, the store's changes). An event, not a delay: on a
   * loaded machine it resolves later, never early. Also resolves on close().
   */
  idle(): Promise<void> {
    return this.jobs.idle();
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
      this.frames.changed(false); // only the clock moved: reuse the snapshot's derived data
      this.armTick();
    }, ms);
    this.tick.unref?.();
  }

  /** ms since the last key (Infinity before the first) */
  get sinceKeyMs(): number {
    return this.frames.sinceKeyMs;
  }

  /** The first scan read on in a large log: its progress drawn now and then (frames.ts). */
  scanProgressed(): void {
    this.frames.scanProgressed();
  }

  /**
   * The first scan is over: the complete list is drawn at once, not after a
   * background frame's gap (up to a second at 100,000 sessions) nor a
   * frame's (its 33 ms were idle: nothing else comes to be batched). Once: it
   * is the moment a user waits for.
   */
  scanFinished(): void {
    if (!this.jobs.closed) this.frames.soon(true, 0);
  }

  /** One of the model's steps before a frame (frames.ts FrameHost.catchUp). */
  private catchUp(pause: () => boolean): boolean | undefined {
    if (!this.refusals.step(pause)) return false;
    this.refusalsTaken = this.refusals.map;
    if (this.model.behind(this.refusalsTaken)) return this.model.syncStep(this.refusalsTaken, pause);
    // the order on screen merged in this task, drawn in the next (keys between them)
    const { order, allProjects } = this.snap.state;
    return this.model.prepare(order, Boolean(this.opts.scope) && !allProjects) ? true : undefined;
  }

  /** The audit's news show: the model or the findings moved since the last fresh snapshot. */
  private auditShows(): boolean {
    return this.model.version !== this.shown.model || this.audit.index.findingsVersion !== this.shown.findings;
  }

  /** A background frame: the world as of now, and once the first scan's complete list is drawn, what waited for it. */
  private drawFrame(): void {
    this.dispatch({ type: 'world' });
    if (!this.listShown && this.index.scan?.finished) {
      this.listShown = true;
      this.listDrawn?.();
      this.indexRefresh?.start();
    }
  }

  /** The world as of now: a fresh snapshot when the store changed since the last one. */
  world(): World {
    if (this.frames.dirty) this.snap = { ...this.snap, world: this.takeWorld() };
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
    if (action.type === 'key') this.frames.keyArrived();
    const world = onScreen ? this.snap.world : this.world();
    const { state, effects } = reduce(this.snap.state, action, world);
    this.snap = { state, world };
    // a new filter query: draw this state with its (empty, searching) answers at once
    if (this.filter.sync(state.filter.text)) {
      const w = this.takeWorld(onScreen);
      this.snap = { state: reduce(state, { type: 'world' }, w).state, world: w };
    }
    for (const e of effects) this.run(e);
    for (const fn of this.listeners) fn();
    // a session left while it loads: its load is dropped in the next slice
    this.loads.recheck();
    this.jobs.settle();
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
        this.work.export(e.work, e.session, e.upTo);
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
        this.work.compare(e.work, e.left, e.right);
        return;
      case 'changes':
        this.work.changes(e.work, e.session);
        return;
      case 'timeline': {
        const found = turnNode(this.snap.world, e.session, e.turnSeq);
        if ('error' in found) this.dispatch({ type: 'workFailed', id: e.work, message: found.error });
        else this.work.timeline(e.work, (spent) => foldSteps(e.session, found.node, found.data.event, spent), found.node.lastSeq - found.node.seq + 1);
        return;
      }
      case 'searchTurns':
        this.turnSearch.start(e.session, e.key, e.query, e.text);
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
    this.jobs.close();
    this.audit.close();
    this.indexRefresh?.close();
    this.work.close();
    this.turnSearch.close();
    this.filter.close();
    this.loads.close();
    this.unsubscribe();
    if (this.tick) clearTimeout(this.tick);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.listeners.clear();
  }
}
