// The World the views read (src/view/app/world.ts), built from the store and
// the disk: one snapshot of the store (sessions, their list items, the
// lineage layout, each session's turn rows) at one version. Derived data is
// computed lazily and memoised, so a key press costs only what it reads; a
// new snapshot is taken after every store change.
import { sessionKey } from '../session/session-key.js';
import { AuditIndex } from '../session/audit-index.js';
import type { FilterAnswers } from '../session/search-index.js';
import { isDirectory } from '../storage/is-directory.js';
import { inProjectScope, type ProjectScope } from '../storage/project-scope.js';
import { problemRows, seedDivergence, type ProblemRow, type SeedDivergence } from '../session/problems.js';
import type { ListRefusal } from '../storage/root-refusals.js';
import { isSessionForkError, SessionForkError } from '../session/errors.js';
import { buildTurnTree, type TreeNode } from '../session/replay.js';
import type { SessionEvent } from '../session/events.js';
import { eventAtSeq } from '../session/turn-summary.js';
import type { TurnIndex } from '../session/turn-index.js';
import { cancelHistory, cancelIndex, historyOf, historyProgress, historyStep, historyUpTo, indexProgress, indexStep, turnIndexOf, usesIndex } from '../storage/indexed-turns.js';
import { pauseWhileSkipping, type LoadProgress, type Session } from '../session/session.js';
import { fileDiagnosticCount, generationDiagnostics, olderGenerations, type RootIndex } from '../storage/load-root.js';
import type { SessionListItem } from '../session/list-item.js';
import type { RowSeq } from '../view/app/window.js';
import type { Snapshot, World } from '../view/app/world.js';
import { worldOf } from '../view/app/surfaces.js';
import type { TurnsData } from '../view/turns/reads.js';
import { RootModel } from './root-model.js';
import { LABEL_CAP } from '../view/turns/turn-row-text.js';
import { buildTurnRows, HistoryRows, historyRows, indexedContext, rowsContext, type Expansion, type RowsContext, type TurnRow, type TurnRowsModel } from '../view/turns/turn-rows.js';

/** A session's turn tree, or why it cannot be read (a file deleted before it was opened). */
interface TurnsMemo {
  sig: string;
  data: TurnsData;
  /** the rows' clock: moved to each snapshot's now, so open turns' ages follow it without a rebuild */
  ctx?: RowsContext;
  /** the offset index the data was built from (a large log) */
  index?: TurnIndex;
}

const NO_REFUSALS: ReadonlyMap<string, ListRefusal> = new Map();

/** `rows` with a ROOT_NOT_LISTABLE row first for each root rc.8's session list fails for, on the session of the file that makes it. */
function withRootRows(refusals: ReadonlyMap<string, ListRefusal>, rows: ProblemRow[], session: (file: string) => Session | undefined): ProblemRow[] {
  if (refusals.size === 0) return rows;
  const top: ProblemRow[] = [];
  for (const [root, r] of refusals) {
    const s = session(r.file);
    top.push({ severity: 'error', code: 'ROOT_NOT_LISTABLE', file: r.file, ...(s ? { sessionKey: sessionKey(s), sessionId: s.id } : {}), message: `rc.8's session list fails for the whole root ${root}: ${r.reason}` });
  }
  return [...top, ...rows];
}

/** Turn data survives snapshots: it is rebuilt only when its session's log changed. */
const turnsMemo = new WeakMap<Session, TurnsMemo>();

/**
 * How long opening a session may skip an over-long line at once before the
 * rest of the skip goes to the background (the app's load slices); ordinary
 * lines are always read at once, so a normal log opens in the same step.
 */
export const OPEN_SKIP_MS = 16;

function turnsOf(session: Session, now: number, sessions: () => readonly Session[]): TurnsData {
  if (usesIndex(session)) {
    // a large log: its index brought up to the log (the last turns first), at once for a moment, then in the background
    const ix = turnIndexOf(session);
    if (!ix?.current && indexProgress(session) === undefined) {
      try {
        indexStep(session, pauseAfter(OPEN_INDEX_MS));
      } catch {
        /* said below, where the index is missing */
      }
    }
    if (!turnIndexOf(session)?.current) indexing.add(session); // the app steps it (openStep) while it is shown
  }
  const indexed = usesIndex(session) ? turnIndexOf(session) : undefined;
  const sig = `${session.length}|${session.log.consumed}|${session.diagnostics.length}|${session.gone}|${session.isLoaded}`;
  const hit = turnsMemo.get(session);
  if (hit && hit.sig === sig && hit.index === indexed?.index) {
    if (hit.ctx) hit.ctx.now = now;
    return hit.data;
  }
  let data: TurnsData;
  let clock: RowsContext | undefined;
  try {
    let tree: readonly TreeNode[];
    /** undefined: still being read */
    let history: (upTo: number) => RowSeq<TurnRow> | undefined;
    let event: (seq: number) => SessionEvent | undefined;
    let partial: (() => LoadProgress | undefined) | undefined;
    let hidden: (upTo: number) => number = (upTo) => historyOf(session, upTo)?.hidden ?? 0;
    if (usesIndex(session)) {
      // a large log: rows from its offset index, a turn's events read when a row needs them
      const index = turnIndexOf(session);
      if (!index) {
        const loading = indexProgress(session);
        if (loading) return { ok: false, session, loading };
        indexStep(session); // (not under way and no index: it failed, and says why again)
        return turnsOf(session, now, sessions);
      }
      const ix = index.index;
      if (index.partial) partial = () => indexProgress(session);
      tree = ix.tree;
      clock = indexedContext(session, ix, now);
      event = (seq) => ix.event(seq);
      history = (upTo) => {
        // read in the background (the app's slices, as the index): no rows until it is read
        let h = historyOf(session, upTo);
        try {
          if (!h && historyProgress(session) === undefined && historyStep(session, upTo, pauseAfter(OPEN_INDEX_MS), HISTORY_TEXT_MAX, HISTORY_KEEP)) h = historyOf(session, upTo);
        } catch {
          return []; // the log cannot be read now (deleted, replaced): the follower says so; no error in a frame
        }
        if (h) return new HistoryRows(h.entries);
        indexing.add(session);
        return undefined;
      };
    } else {
      // a load under way goes on in the background slices, not here (this is asked several times a frame)
      const loading = session.loading ?? (session.load(pauseWhileSkipping(() => session.loadJob, OPEN_SKIP_MS)) ? undefined : session.loading);
      if (loading) return { ok: false, session, loading };
      const events = session.events;
      tree = buildTurnTree(events);
      clock = rowsContext(session, now);
      event = (seq) => eventAtSeq(events, seq);
      history = (upTo) => historyRows(events, upTo);
      hidden = () => 0;
    }
    const ctx = clock;
    let last: { e: Expansion; m: TurnRowsModel } | undefined;
    let lastHistory: { upTo: number; rows: RowSeq<TurnRow> } | undefined;
    let divergence: SeedDivergence | null | undefined;
    data = {
      ok: true,
      session,
      tree,
      indexed: indexed !== undefined || usesIndex(session),
      event,
      get partial() {
        return partial?.();
      },
      rows(e) {
        if (last?.e !== e) last = { e, m: buildTurnRows(tree, e, ctx) };
        return last.m;
      },
      history(upTo) {
        if (lastHistory?.upTo !== upTo) {
          const rows = history(upTo);
          if (!rows) return []; // (not kept: asked again until read)
          lastHistory = { upTo, rows };
        }
        return lastHistory.rows;
      },
      historyHidden: (upTo) => hidden(upTo),
      get historyLoading() {
        return historyProgress(session);
      },
      get divergence() {
        if (divergence === undefined) {
          try {
            divergence = session.kind === 'fork' ? seedDivergence(session, sessions()) : null;
          } catch {
            divergence = null; // the parent cannot be read now: nothing to mark
          }
        }
        return divergence;
      },
    };
  } catch (e) {
    data = { ok: false, session, error: e instanceof Error ? e.message : String(e) };
    clock = undefined;
  }
  turnsMemo.set(session, { sig, data, ctx: clock, index: turnIndexOf(session)?.index });
  return data;
}

/** sessions whose index is being brought up to a grown log while the last one is shown (the app steps them: openStep) */
const indexing = new WeakSet<Session>();

/**
 * How much of each history entry's text a large log's history keeps: what a
 * row's label reads of it (clip cuts at twice its cap first), so its rows are
 * the rows of the whole text; the detail pane and the reader read the event.
 */
const HISTORY_TEXT_MAX = 2 * LABEL_CAP + 1;

/**
 * How many entries of a large log's history are kept: its last ones (a
 * 10 GB log's history has millions of entries, and a row each took 1.2 GB);
 * `t` on an earlier row shows the history up to there.
 */
export const HISTORY_KEEP = 20_000;

/** How long opening a large log may index it at once before the rest goes to the background slices. */
export const OPEN_INDEX_MS = 50;

const pauseAfter = (ms: number): (() => boolean) => {
  const until = performance.now() + ms;
  return () => performance.now() > until;
};

/**
 * One slice of opening `session` in the background: its load, or its offset
 * index (a large log). True when there is nothing left to do. Throws what
 * the read threw.
 */
export function openStep(session: Session, pause: () => boolean): boolean {
  if (usesIndex(session)) {
    let done = indexStep(session, pause);
    const h = historyUpTo(session); // (a history being read goes on beside the index)
    if (h !== undefined) done = historyStep(session, h, pause, HISTORY_TEXT_MAX, HISTORY_KEEP) && done;
    if (done) indexing.delete(session);
    return done;
  }
  return session.load(pause);
}

/** Whether opening `session` still has work under way (a load, an index build or extension). */
export function opening(session: Session): boolean {
  return session.loading !== undefined || indexProgress(session) !== undefined || historyProgress(session) !== undefined || indexing.has(session);
}

/** Stops the work of opening `session` (its file closed); the next look starts it again. */
export function cancelOpen(session: Session): void {
  session.cancelLoad();
  cancelIndex(session);
  cancelHistory(session);
  indexing.delete(session);
}

/** A snapshot of the index's store. */
export interface WorldOptions {
  audit?: AuditIndex;
  /** the project scope the Sessions view can narrow to (p) */
  scope?: ProjectScope;
  /** why rc.8 refuses whole roots, by root folder (rc8RootRefusalsOf: the caller keeps it across snapshots) */
  rootRefusals?: ReadonlyMap<string, string>;
  /** why rc.8's session list fails for whole roots, by root folder (RootShapes.listRefusals) */
  listRefusals?: ReadonlyMap<string, ListRefusal>;
  rootLabel?: string;
  /** the background answers of the Sessions filter's query (its event terms) */
  filterAnswers?: FilterAnswers;
  /** a snapshot of the same store contents (only the filter's answers moved on): its derived data is reused */
  base?: World;
  /**
   * The root's derived facts, kept across snapshots and brought up to date
   * from what changed (the controller's: it syncs it before each new
   * snapshot). Without one, each snapshot builds its own from the whole root.
   */
  model?: RootModel;
  /** turns() found a session still loading in the background: the app runs its load's slices */
  onLoading?: (session: Session) => void;
}

/**
 * The snapshot whose derived data a snapshot built on a base reuses: the base's
 * own origin when it has one, so that snapshots taken on a base (a clock tick,
 * a filter keystroke) never chain: an idle root ticks for hours, and each
 * snapshot held the one before it.
 */
const origins = new WeakMap<World, World>();

export function snapshotWorld(index: RootIndex, version: number, now: number, newChildId: () => string, opts: WorldOptions = {}): World {
  if (opts.base) opts = { ...opts, base: origins.get(opts.base) ?? opts.base };
  const audit = opts.audit ?? new AuditIndex();
  const model = opts.model ?? new RootModel(index.store, audit, opts.scope && scopeTest(opts.scope));
  if (!opts.model) model.sync(opts.rootRefusals);
  const store = index.store;
  // taken now: the model moves on between frames (its steps), a snapshot does not
  const total = opts.base ? opts.base.total : model.size;
  let sessions: Session[] | undefined;
  const all = () => (sessions ??= store.list());
  let items: SessionListItem[] | undefined;
  let diagnostics: number | undefined;
  let problems: ProblemRow[] | undefined;
  const cwds = new Map<string, boolean>();
  const listRefusals = opts.listRefusals ?? NO_REFUSALS;
  const problemRowsNow = (): ProblemRow[] =>
    (problems ??= withRootRows(
      listRefusals,
      model.problems(index.files.size + index.skipped.size, () => {
        // files that are not sessions, and the sessions whose current generation is stale
        const refused = [...[...index.files.values()].flatMap((f) => f.refused ?? []), ...generationDiagnostics(index)];
        return problemRows({ sessions: all(), refused, findings: audit.findings(all(), refused) });
      }),
      (file) => store.byFile(file),
    ));
  const itemInScope = opts.scope ? scopeTest(opts.scope) : () => true;
  const snap: Snapshot & Pick<World, 'problems' | 'turns'> = {
    version,
    root: index.root,
    rootLabel: opts.rootLabel ?? index.root,
    now,
    get items() {
      return (items ??= opts.base ? (opts.base.items as SessionListItem[]) : (model.all() as SessionListItem[]));
    },
    total,
    sameId: (id) => store.withId(id).length,
    get diagnostics() {
      return (diagnostics ??= opts.base ? opts.base.diagnostics : model.diagnostics + fileDiagnosticCount(index));
    },
    listRefusals,
    scanning: index.scan !== undefined && !index.scan.finished,
    session: (key) => store.byFile(key),
    sessions: all,
    sortedBy: (order, scoped) => model.sortedBy(order, scoped),
    statsOf: (order, scoped, make) => model.statsOf(order, scoped, make),
    itemInScope,
    filterAnswers: opts.filterAnswers,
    base: opts.base,
    scope: opts.scope,
    inScope: (s) => !opts.scope || inProjectScope(s, opts.scope),
    resumeRefusal: (s) => model.resumeRefusal(s),
    cwdExists(s) {
      if (s.cwd === undefined) return true; // no cwd: dsh runs where the browser was started
      let hit = cwds.get(s.cwd);
      if (hit === undefined) cwds.set(s.cwd, (hit = isDirectory(s.cwd)));
      return hit;
    },
    olderGenerations: (s) => olderGenerations(index, s.file),
    problems: () => (opts.base ? opts.base.problems() : problemRowsNow()),
    indexed: (s) => usesIndex(s),
    turns(session) {
      const data = turnsOf(session, now, all);
      if (data.loading || opening(session)) opts.onLoading?.(session);
      return data;
    },
    newChildId,
    forkError(session, boundary) {
      try {
        store.resolve(session); // a deleted or re-read instance: SESSION_NOT_FOUND / SESSION_NOT_LIVE
        // a large log: what the verdict names is read through its index, not by reading the log up to the cut
        const ix = usesIndex(session) ? turnIndexOf(session)?.index : undefined;
        return store.boundaryError(session, boundary, ix);
      } catch (e) {
        if (isSessionForkError(e)) return e;
        // the OPEN_TURN message reads the last event's type: a vanished file cannot
        return new SessionForkError('READ_FAILED', `could not read session ${JSON.stringify(session.id)}: ${(e as Error).message}`);
      }
    },
  };
  const world = worldOf(snap);
  if (opts.base) origins.set(world, opts.base);
  return world;
}

/** Whether a list item is in the project scope (the Sessions view's `p`). */
export const scopeTest =
  (scope: ProjectScope) =>
  (i: SessionListItem): boolean =>
    inProjectScope({ file: i.key, cwd: i.cwd }, scope);

