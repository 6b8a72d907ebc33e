// The World the views read (src/view/app/world.ts), taken from the store and
// the disk: one snapshot of the store at one version (its sessions and list
// items, the root model's kept orders, a session's log opened to read its
// turns, the problems), on which each view builds its reads (its `reads`
// hook; the registry's worldOf composes them). Derived data is computed
// lazily and memoised, so a key press costs only what it reads; a new
// snapshot is taken after every store change.
import { sessionKey } from '../session/session-key.js';
import { AuditIndex } from '../session/audit-index.js';
import type { FilterAnswers } from '../session/search-index.js';
import { isDirectory } from '../storage/is-directory.js';
import { inProjectScope, type ProjectScope } from '../storage/project-scope.js';
import { problemRows, type ProblemRow } from '../session/problems.js';
import type { ListRefusal } from '../storage/root-refusals.js';
import { isSessionForkError, SessionForkError } from '../session/errors.js';
import { buildTurnTree, modelHistory } from '../session/replay.js';
import { eventAtSeq } from '../session/turn-summary.js';
import { cancelHistory, cancelIndex, historyOf, historyProgress, historyOn, historyStep, indexProgress, indexStep, turnIndexOf, usesIndex } from '../storage/indexed-turns.js';
import { pauseWhileSkipping, type Session } from '../session/session.js';
import { fileDiagnosticCount, generationDiagnostics, olderGenerations, type RootIndex } from '../storage/load-root.js';
import type { SessionListItem } from '../session/list-item.js';
import type { Snapshot, TurnSource, World } from '../view/app/world.js';
import { worldOf } from '../view/app/surfaces.js';
import { RootModel } from './root-model.js';

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

/**
 * How long opening a session may skip an over-long line at once before the
 * rest of the skip goes to the background (the app's load slices); ordinary
 * lines are always read at once, so a normal log opens in the same step.
 */
export const OPEN_SKIP_MS = 16;

/** Opens `session`'s log to read its turns (a large log's index brought up to it, at once for a moment, then in the background): its version. */
function openLog(session: Session): string {
  if (usesIndex(session)) {
    const ix = turnIndexOf(session);
    if (!ix?.current && indexProgress(session) === undefined) {
      try {
        indexStep(session, pauseAfter(OPEN_INDEX_MS));
      } catch {
        /* said by the source, where the index is missing */
      }
    }
    if (!turnIndexOf(session)?.current) indexing.add(session); // the app steps it (openStep) while it is shown
  }
  return `${session.length}|${session.log.consumed}|${session.diagnostics.length}|${session.gone}|${session.isLoaded}`;
}

/** The offset index `session`'s log is read through now (a large log). */
const logIndex = (session: Session): unknown => (usesIndex(session) ? turnIndexOf(session)?.index : undefined);

/** What `session`'s turns are read from now: its events in memory, or its offset index (a large log); a load or an index under way says how far. */
function turnSource(session: Session): TurnSource {
  if (usesIndex(session)) {
    // a large log: its tree from its offset index, a turn's events read when a row needs them
    const index = turnIndexOf(session);
    if (!index) {
      const loading = indexProgress(session);
      if (loading) return { ok: false, loading };
      indexStep(session); // (not under way and no index: it failed, and says why again)
      return turnSource(session);
    }
    const ix = index.index;
    const partial = index.partial; // (the last turns only, while the rest is indexed)
    return {
      ok: true,
      tree: ix.tree,
      index: ix,
      event: (seq) => ix.event(seq),
      partial: () => (partial ? indexProgress(session) : undefined),
      history(upTo, textMax, keep) {
        // read in the background (the app's slices, as the index): nothing until it is read
        let h = historyOf(session, upTo);
        try {
          if (!h && historyProgress(session) === undefined && historyStep(session, upTo, pauseAfter(OPEN_INDEX_MS), textMax, keep)) h = historyOf(session, upTo);
        } catch {
          return []; // the log cannot be read now (deleted, replaced): the follower says so; no error in a frame
        }
        if (h) return h.entries;
        indexing.add(session);
        return undefined;
      },
      hidden: (upTo) => historyOf(session, upTo)?.hidden ?? 0,
      historyLoading: () => historyProgress(session),
    };
  }
  // a load under way goes on in the background slices, not here (this is asked several times a frame)
  const loading = session.loading ?? (session.load(pauseWhileSkipping(() => session.loadJob, OPEN_SKIP_MS)) ? undefined : session.loading);
  if (loading) return { ok: false, loading };
  const events = session.events;
  return {
    ok: true,
    tree: buildTurnTree(events),
    event: (seq) => eventAtSeq(events, seq),
    partial: () => undefined,
    history: (upTo) => modelHistory(events, upTo),
    hidden: () => 0,
    historyLoading: () => historyProgress(session),
  };
}

/** sessions whose index is being brought up to a grown log while the last one is shown (the app steps them: openStep) */
const indexing = new WeakSet<Session>();

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
    done = historyOn(session, pause) && done; // (a history being read goes on beside the index)
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
  const snap: Snapshot = {
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
    openLog,
    logIndex,
    turnSource,
    asked(session, loading) {
      if (loading || opening(session)) opts.onLoading?.(session);
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

