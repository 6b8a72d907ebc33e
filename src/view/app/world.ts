// The world the app reducer reads: one snapshot of the store (sessions, their
// list items, the lineage layout, each session's turn rows) at one version.
// Derived data is computed lazily and memoised, so a key press costs only what
// it reads; a new snapshot is taken after every store change.
import { AuditIndex } from '../../session/audit-index.js';
import { isQueryError, parseQuery } from '../../session/query.js';
import { filterByQuery, searching, type FilterAnswers } from '../sessions/session-filter.js';
import { isDirectory } from '../../storage/is-directory.js';
import { layoutOf } from '../../storage/layout.js';
import { inProjectScope, type ProjectScope } from '../../storage/project-scope.js';
import { resumeVerdict } from '../../storage/resume.js';
import { resolveParents } from '../../session/lineage.js';
import { problemRows, seedDivergence, worstBySession, type ProblemRow, type SeedDivergence } from '../../session/problems.js';
import { isSessionForkError, SessionForkError } from '../../session/errors.js';
import { buildTurnTree, type TreeNode } from '../../session/replay.js';
import type { Session } from '../../session/session.js';
import { SessionStore } from '../../session/store.js';
import { rootRefusalOf } from '../../storage/root-refusals.js';
import { diagnosticCount, olderGenerations, type RootIndex } from '../../storage/load-root.js';
import { layoutLineage, type LineageLayout } from '../lineage/lineage-layout.js';
import { lineageNodes } from '../lineage/lineage-model.js';
import { listItemOf, sessionRows, type SessionListItem, type SessionRow, type SortOrder } from '../sessions/session-list.js';
import { buildTurnRows, historyRows, rowsContext, type Expansion, type RowsContext, type TurnRow, type TurnRowsModel } from '../turns/turn-rows.js';

/** A session's turn tree, or why it cannot be read (a file deleted before it was opened). */
export type TurnsData =
  | {
      ok: true;
      session: Session;
      tree: readonly TreeNode[];
      rows(expansion: Expansion): TurnRowsModel;
      history(upTo: number): TurnRow[];
      /** a fork child whose seed differs from its parent's log: where, with both versions (null: it does not) */
      readonly divergence: SeedDivergence | null;
    }
  | { ok: false; session: Session; error: string };

export interface World {
  /** bumps on every store change */
  readonly version: number;
  readonly root: string;
  /** what the title bar calls the root (e.g. `dsh root ~/.dsh/sessions`) */
  readonly rootLabel: string;
  /** the clock for ages (fixed per snapshot) */
  readonly now: number;
  readonly items: readonly SessionListItem[];
  readonly diagnostics: number;
  /** the first scan of the root is still running: an empty list is not the final word */
  readonly scanning: boolean;
  session(key: string): Session | undefined;
  /** every live session (compare and export read lineage from them) */
  sessions(): readonly Session[];
  /** Sessions rows for a filter and order, in the project scope unless `all` (memoised). */
  rows(filter: string, order: SortOrder, all?: boolean): readonly SessionRow[];
  /** the Sessions filter's query is still being answered in the background */
  filterSearching(filter: string): boolean;
  /** the current project's scope (dsh's own root), when the app was started with one */
  readonly scope?: ProjectScope;
  /** Why `dsh --resume` would refuse the session, or undefined when it would resume it. */
  resumeRefusal(session: Session): string | undefined;
  /** the session's cwd is a folder on this machine (R runs dsh there); read once per snapshot */
  cwdExists(session: Session): boolean;
  /** older generation files beside the session's current one (listed, never read), highest first */
  olderGenerations(session: Session): readonly string[];
  /** the lineage graph with the subtrees of `collapsed` (keys) hidden */
  lineage(collapsed?: ReadonlySet<string>): LineageLayout;
  turns(session: Session): TurnsData;
  /** Every diagnostic and audit finding known so far, worst first (the audit runs in the background). */
  problems(): readonly ProblemRow[];
  /** A fresh child id for the fork dialog. */
  newChildId(): string;
  /** Why forking `session` cut at `boundary` (inclusive; undefined = whole log) is refused, or null. */
  forkError(session: Session, boundary?: number): SessionForkError | null;
}

interface TurnsMemo {
  sig: string;
  data: TurnsData;
  /** the rows' clock: moved to each snapshot's now, so open turns' ages follow it without a rebuild */
  ctx?: RowsContext;
}

const NONE: ReadonlySet<string> = new Set();
const keyOf = SessionStore.keyOf;

/** Turn data survives snapshots: it is rebuilt only when its session's log changed. */
const turnsMemo = new WeakMap<Session, TurnsMemo>();

function turnsOf(session: Session, now: number, sessions: () => readonly Session[]): TurnsData {
  const sig = `${session.length}|${session.log.consumed}|${session.diagnostics.length}|${session.gone}`;
  const hit = turnsMemo.get(session);
  if (hit && hit.sig === sig) {
    if (hit.ctx) hit.ctx.now = now;
    return hit.data;
  }
  let data: TurnsData;
  let clock: RowsContext | undefined;
  try {
    const events = session.events;
    const tree = buildTurnTree(events);
    const ctx = (clock = rowsContext(session, now));
    let last: { e: Expansion; m: TurnRowsModel } | undefined;
    let lastHistory: { upTo: number; rows: TurnRow[] } | undefined;
    let divergence: SeedDivergence | null | undefined;
    data = {
      ok: true,
      session,
      tree,
      rows(e) {
        if (last?.e !== e) last = { e, m: buildTurnRows(tree, e, ctx) };
        return last.m;
      },
      history(upTo) {
        if (lastHistory?.upTo !== upTo) lastHistory = { upTo, rows: historyRows(events, upTo) };
        return lastHistory.rows;
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
  }
  turnsMemo.set(session, { sig, data, ctx: clock });
  return data;
}

/** What a session's list item holds from the whole root (its row is rebuilt when one of these changes). */
interface Marks {
  problem?: SessionListItem['problem'];
  notResumable?: string;
  parentKey?: string;
  parentAmbiguous: boolean;
}

interface ItemMemo {
  /** what the item was built from: the log's extent, its damage, its title (settled from the parent), deletion */
  length: number;
  consumed: number;
  diagnostics: number;
  title?: string;
  gone?: boolean;
  marks: Marks;
  item: SessionListItem;
  /** the resume verdict, and what it was computed from */
  verdict?: { length: number; consumed: number; refusal?: string; sameId: number; reason?: string; flat: boolean };
}

/**
 * List items survive snapshots: one per session instance, rebuilt only when
 * its log, title or marks changed. A snapshot after a background slice then
 * costs a lookup per session, not a new item (and its row) for each.
 */
const itemMemo = new WeakMap<Session, ItemMemo>();

const sameBadge = (a: Marks['problem'], b: Marks['problem']): boolean =>
  a === b || (a !== undefined && b !== undefined && a.severity === b.severity && a.code === b.code && a.count === b.count);

function itemOf(s: Session, marks: Marks): SessionListItem {
  const m = itemMemo.get(s);
  if (
    m &&
    m.length === s.length &&
    m.consumed === s.log.consumed &&
    m.diagnostics === s.diagnostics.length &&
    m.title === s.facts.title &&
    m.gone === s.gone &&
    sameBadge(m.marks.problem, marks.problem) &&
    m.marks.notResumable === marks.notResumable &&
    m.marks.parentKey === marks.parentKey &&
    m.marks.parentAmbiguous === marks.parentAmbiguous
  )
    return m.item;
  const item = listItemOf(s);
  if (marks.problem) item.problem = marks.problem;
  if (marks.notResumable !== undefined) item.notResumable = marks.notResumable;
  if (marks.parentKey !== undefined) item.parentKey = marks.parentKey;
  if (marks.parentAmbiguous) item.parentAmbiguous = true;
  itemMemo.set(s, { length: s.length, consumed: s.log.consumed, diagnostics: s.diagnostics.length, title: s.facts.title, gone: s.gone, marks, item, verdict: m?.verdict });
  return item;
}

const NO_REFUSALS: ReadonlyMap<string, string> = new Map();

/**
 * Why `dsh --resume` would refuse `s` (undefined: it would resume it), and
 * whether its file is outside any harness layout (flat: no badge, it would be
 * noise there). Kept per session instance while its log, its root's refusal
 * and the count of its id hold.
 */
function resumeVerdictOf(s: Session, store: SessionStore, refusals: ReadonlyMap<string, string>): { reason?: string; flat: boolean } {
  const m = itemMemo.get(s);
  const refusal = rootRefusalOf(refusals, s);
  const sameId = store.idCount(s.id);
  const v = m?.verdict;
  // several sessions with one id: the reason names another file, which may change: not kept
  if (v && v.length === s.length && v.consumed === s.log.consumed && v.refusal === refusal && v.sameId === sameId && sameId === 1) return v;
  const reason = verdictReason(resumeVerdict(s, store.getAll(s.id), refusal));
  const verdict = { length: s.length, consumed: s.log.consumed, refusal, sameId, reason, flat: s.file === undefined || layoutOf(s.file) === 'flat' };
  if (m) m.verdict = verdict;
  return verdict;
}

const verdictReason = (v: { resumable: boolean; reason?: string }): string | undefined => (v.resumable ? undefined : v.reason);

/** A snapshot of the index's store. */
export interface WorldOptions {
  audit?: AuditIndex;
  /** the project scope the Sessions view can narrow to (p) */
  scope?: ProjectScope;
  /** why rc.8 refuses whole roots, by root folder (rc8RootRefusalsOf: the caller keeps it across snapshots) */
  rootRefusals?: ReadonlyMap<string, string>;
  rootLabel?: string;
  /** the background answers of the Sessions filter's query (its event terms) */
  filterAnswers?: FilterAnswers;
  /** a snapshot of the same store contents (only the filter's answers moved on): its derived data is reused */
  base?: World;
}

export function snapshotWorld(index: RootIndex, version: number, now: number, newChildId: () => string, opts: WorldOptions = {}): World {
  const audit = opts.audit ?? new AuditIndex();
  const refusals = opts.rootRefusals ?? NO_REFUSALS;
  const verdict = (s: Session) => resumeVerdictOf(s, store, refusals);
  const store = index.store;
  let sessions: Session[] | undefined;
  const all = () => (sessions ??= store.list());
  let items: SessionListItem[] | undefined;
  let lineage: { collapsed: ReadonlySet<string>; layout: LineageLayout } | undefined;
  let nodes: ReturnType<typeof lineageNodes> | undefined;
  let rowsMemo: { filter: string; order: SortOrder; all: boolean; rows: SessionRow[] } | undefined;
  let diagnostics: number | undefined;
  let problems: ProblemRow[] | undefined;
  const cwds = new Map<string, boolean>();
  /** The filter as a query (a text that does not parse filters as plain text, as before). */
  const filteredRows = (items: readonly SessionListItem[], filter: string, order: SortOrder): SessionRow[] => {
    const q = filter.trim() ? parseQuery(filter) : undefined;
    if (!q || isQueryError(q)) return sessionRows(items, { filter, order, now });
    const answers = opts.filterAnswers?.text === filter ? opts.filterAnswers : undefined;
    const kept = filterByQuery(items, q, (k) => store.byFile(k), answers);
    return sessionRows(kept.items, { filter: '', order, now }).map((r) => {
      const n = kept.counts.get(r.key);
      return n === undefined ? r : { ...r, title: `[${n} match${n === 1 ? '' : 'es'}] ${r.title}` };
    });
  };
  const problemRowsNow = (): ProblemRow[] => {
    if (!problems) {
      const refused = [...index.files.values()].flatMap((f) => f.refused ?? []);
      problems = problemRows({ sessions: all(), refused, findings: audit.findings(all(), refused) });
    }
    return problems;
  };
  return {
    version,
    root: index.root,
    rootLabel: opts.rootLabel ?? index.root,
    now,
    get items() {
      if (!items && opts.base) items = opts.base.items as SessionListItem[];
      if (!items) {
        const parents = resolveParents(all());
        const worst = worstBySession(problemRowsNow());
        items = all().map((s) => {
          const key = keyOf(s);
          const link = parents.get(key);
          const v = verdict(s);
          return itemOf(s, {
            problem: worst.get(key),
            notResumable: v.flat ? undefined : v.reason,
            parentKey: link?.kind === 'resolved' ? link.key : undefined,
            parentAmbiguous: link?.kind === 'ambiguous',
          });
        });
      }
      return items;
    },
    get diagnostics() {
      return (diagnostics ??= opts.base ? opts.base.diagnostics : diagnosticCount(index));
    },
    scanning: index.scan !== undefined && !index.scan.finished,
    session: (key) => store.byFile(key),
    sessions: all,
    rows(filter, order, allProjects = true) {
      const all = allProjects || !opts.scope;
      if (!rowsMemo || rowsMemo.filter !== filter || rowsMemo.order !== order || rowsMemo.all !== all) {
        const scope = opts.scope;
        const items = all || !scope ? this.items : this.items.filter((i) => inProjectScope({ file: i.key, cwd: i.cwd }, scope));
        rowsMemo = { filter, order, all, rows: filteredRows(items, filter, order) };
      }
      return rowsMemo.rows;
    },
    filterSearching: (filter) => opts.filterAnswers?.text === filter && searching(opts.filterAnswers),
    scope: opts.scope,
    resumeRefusal: (s) => verdict(s).reason,
    cwdExists(s) {
      if (s.cwd === undefined) return true; // no cwd: dsh runs where the browser was started
      let hit = cwds.get(s.cwd);
      if (hit === undefined) cwds.set(s.cwd, (hit = isDirectory(s.cwd)));
      return hit;
    },
    olderGenerations: (s) => olderGenerations(index, s.file),
    problems: () => (opts.base ? opts.base.problems() : problemRowsNow()),
    lineage(collapsed = NONE) {
      if (opts.base) return opts.base.lineage(collapsed);
      if (!lineage || lineage.collapsed !== collapsed) lineage = { collapsed, layout: layoutLineage((nodes ??= lineageNodes(all())), { collapsed }) };
      return lineage.layout;
    },
    turns: (session) => turnsOf(session, now, all),
    newChildId,
    forkError(session, boundary) {
      try {
        store.resolve(session); // a deleted or re-read instance: SESSION_NOT_FOUND / SESSION_NOT_LIVE
        return store.boundaryError(session, boundary);
      } catch (e) {
        if (isSessionForkError(e)) return e;
        // the OPEN_TURN message reads the last event's type: a vanished file cannot
        return new SessionForkError('READ_FAILED', `could not read session ${JSON.stringify(session.id)}: ${(e as Error).message}`);
      }
    },
  };
}

export { keyOf };
