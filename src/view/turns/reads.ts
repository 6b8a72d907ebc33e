// What the Turns view reads of the store (a part of the World): a session's
// turn tree and its rows, or why it cannot be read. Built from the session's
// log (the snapshot's openLog and turnSource) and kept across snapshots until
// the log changes; the rows' clock moves to each snapshot's time.
import type { SessionEvent } from '../../session/events.js';
import { catalogEntries, childFacts, ownUsage, subagentLinks, type ChildFacts, type SubagentLink } from '../../session/subagents.js';
import { treeSubagents } from '../../session/subagent-calls.js';
import { addUsage, emptyUsage, type TokenUsage } from '../../session/usage.js';
import { seedDivergence, type SeedDivergence } from '../../session/problems.js';
import type { TreeNode } from '../../session/replay.js';
import { turnSeries, type TurnPoint } from '../../session/turn-series.js';
import type { LoadProgress, Session } from '../../session/session.js';
import type { RowSeq } from '../app/window.js';
import type { Snapshot } from '../app/world.js';
import { LABEL_CAP } from './turn-row-text.js';
import { buildTurnRows, HistoryRows, indexedContext, rowsContext, type Expansion, type RowsContext, type TurnRow, type TurnRowsModel } from './turn-rows.js';

/** A session's turn tree, or why it cannot be read (a file deleted before it was opened). */
export type TurnsData =
  | {
      ok: true;
      session: Session;
      tree: readonly TreeNode[];
      rows(expansion: Expansion): TurnRowsModel;
      history(upTo: number): RowSeq<TurnRow>;
      /** how many earlier entries of that history are not among its rows (a large log keeps its last HISTORY_KEEP) */
      historyHidden(upTo: number): number;
      /** a fork child whose seed differs from its parent's log: where, with both versions (null: it does not) */
      readonly divergence: SeedDivergence | null;
      /** each turn's tokens and duration, in order (read from the tree and the turns' facts: no turn is read from disk) */
      readonly series: readonly TurnPoint[];
      /** the event with this seq (in memory, or read through the offset index) */
      event(seq: number): SessionEvent | undefined;
      /** the rows come from the offset index (a large log): its events are read by turn, never all at once */
      indexed: boolean;
      /** the rows are the log's last turns only, while the whole log is indexed: how far that has got */
      readonly partial?: LoadProgress;
      /** a large log's history being read (its rows are empty meanwhile): events read of those up to the cut */
      readonly historyLoading?: { seen: number; of: number };
      loading?: undefined;
    }
  | { ok: false; session: Session; error: string; loading?: undefined }
  /** its events are still being read in the background (a huge over-long line is being skipped) */
  | { ok: false; session: Session; error?: undefined; loading: LoadProgress };

export interface TurnsReads {
  turns(session: Session): TurnsData;
  /** the children a session's subagent calls started, and their usage (subagents.ts) */
  subagents(session: Session): SubagentView;
}

/** A session's subagent calls linked to their children, and what those spent. */
export interface SubagentView {
  /** by the call's seq */
  links: ReadonlyMap<number, SubagentLink>;
  /** the linked children's usage (theirs included), by the seq of the turn that called them */
  byTurn: ReadonlyMap<number, TokenUsage>;
  total: TokenUsage;
}

const NO_SUBAGENTS: SubagentView = { links: new Map(), byTurn: new Map(), total: emptyUsage() };

/** Each session's subagent view, as last built: rebuilt on a new snapshot (a child may have come, or grown). */
const subagentsBuilt = new WeakMap<Session, { version: number; view: SubagentView }>();
/** Each child's first own events, as last read (a log only grows: read again while its prompt is not yet in it). */
const childRead = new WeakMap<Session, { length: number; facts: ChildFacts }>();

function factsOfChild(child: Session): ChildFacts {
  const hit = childRead.get(child);
  if (hit && (hit.length === child.length || hit.facts.prompt !== undefined)) return hit.facts;
  const facts = childFacts(child);
  childRead.set(child, { length: child.length, facts });
  return facts;
}

function subagentsOf(snap: Snapshot, session: Session, depth = 0): SubagentView {
  const hit = subagentsBuilt.get(session);
  if (hit && hit.version === snap.version) return hit.view;
  // (a placeholder while building: a cycle of children reads it as none)
  subagentsBuilt.set(session, { version: snap.version, view: NO_SUBAGENTS });
  let view = NO_SUBAGENTS;
  try {
    view = buildSubagents(snap, session, depth);
  } catch {
    view = NO_SUBAGENTS; // a child that cannot be read now links nothing
  }
  subagentsBuilt.set(session, { version: snap.version, view });
  return view;
}

function buildSubagents(snap: Snapshot, session: Session, depth: number): SubagentView {
  const data = turnsOf(snap, session);
  if (!data.ok || depth > 8) return NO_SUBAGENTS;
  // (an indexed turn keeps its calls: no turn is read from disk here)
  const { calls, catalogSeqs } = treeSubagents(data.tree);
  if (calls.length === 0) return NO_SUBAGENTS;
  const catalog = catalogEntries(catalogSeqs.map((seq) => data.event(seq)).filter((e): e is SessionEvent => e !== undefined));
  const links = subagentLinks(session, calls, catalog, snap.sessions(), factsOfChild);
  const byTurn = new Map<number, TokenUsage>();
  let total = emptyUsage();
  for (const c of calls) {
    const link = links.get(c.seq);
    if (link?.kind !== 'linked') continue;
    const u = addUsage(ownUsage(link.child), subagentsOf(snap, link.child, depth + 1).total);
    byTurn.set(c.turnSeq, addUsage(byTurn.get(c.turnSeq) ?? emptyUsage(), u));
    total = addUsage(total, u);
  }
  return { links, byTurn, total };
}


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

/** A session's turn data, as last built. */
interface Built {
  /** the log's version it was built from */
  version: string;
  data: TurnsData;
  /** the rows' clock: moved to each snapshot's now, so open turns' ages follow it without a rebuild */
  ctx?: RowsContext;
  /** the offset index it was built from (a large log) */
  index: unknown;
}

/** Turn data survives snapshots: it is rebuilt only when its session's log changed. */
const built = new WeakMap<Session, Built>();

function turnsOf(snap: Snapshot, session: Session): TurnsData {
  const version = snap.openLog(session);
  const hit = built.get(session);
  if (hit && hit.version === version && hit.index === snap.logIndex(session)) {
    if (hit.ctx) {
      hit.ctx.now = snap.now;
      hit.ctx.subagents = () => subagentsOf(snap, session);
    }
    return hit.data;
  }
  let data: TurnsData;
  let clock: RowsContext | undefined;
  try {
    const src = snap.turnSource(session);
    if (!src.ok) return { ok: false, session, loading: src.loading };
    const { tree, index } = src;
    const ctx = (clock = index ? indexedContext(session, index, snap.now) : rowsContext(session, snap.now));
    ctx.subagents = () => subagentsOf(snap, session);
    let last: { e: Expansion; m: TurnRowsModel } | undefined;
    let lastHistory: { upTo: number; rows: RowSeq<TurnRow> } | undefined;
    let divergence: SeedDivergence | null | undefined;
    let series: TurnPoint[] | undefined;
    data = {
      ok: true,
      session,
      tree,
      indexed: index !== undefined,
      event: (seq) => src.event(seq),
      get series() {
        return (series ??= turnSeries(tree, (n) => ctx.turnFacts(n)));
      },
      get partial() {
        return src.partial();
      },
      rows(e) {
        if (last?.e !== e) last = { e, m: buildTurnRows(tree, e, ctx) };
        return last.m;
      },
      history(upTo) {
        if (lastHistory?.upTo !== upTo) {
          const entries = src.history(upTo, HISTORY_TEXT_MAX, HISTORY_KEEP);
          if (!entries) return []; // (not kept: asked again until read)
          lastHistory = { upTo, rows: new HistoryRows(entries) };
        }
        return lastHistory.rows;
      },
      historyHidden: (upTo) => src.hidden(upTo),
      get historyLoading() {
        return src.historyLoading();
      },
      get divergence() {
        if (divergence === undefined) {
          try {
            divergence = session.kind === 'fork' ? seedDivergence(session, snap.sessions()) : null;
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
  built.set(session, { version, data, ctx: clock, index: snap.logIndex(session) });
  return data;
}

export function turnsReads(snap: Snapshot): TurnsReads {
  return {
    turns(session) {
      const data = turnsOf(snap, session);
      snap.asked(session, data.loading !== undefined);
      return data;
    },
    subagents: (session) => subagentsOf(snap, session),
  };
}
