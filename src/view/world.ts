// The world the app reducer reads: one snapshot of the store (sessions, their
// list items, the lineage layout, each session's turn rows) at one version.
// Derived data is computed lazily and memoised, so a key press costs only what
// it reads; a new snapshot is taken after every store change.
import { resolveParents } from '../session/lineage.js';
import { isSessionForkError, SessionForkError } from '../session/errors.js';
import { buildTurnTree, type TreeNode } from '../session/replay.js';
import type { Session } from '../session/session.js';
import { SessionStore } from '../session/store.js';
import { diagnosticCount, type RootIndex } from '../storage/load-root.js';
import { layoutLineage, type LineageLayout } from './lineage-layout.js';
import { lineageNodes } from './lineage-model.js';
import { listItemOf, sessionRows, type SessionListItem, type SessionRow, type SortOrder } from './session-list.js';
import { buildTurnRows, historyRows, rowsContext, type Expansion, type TurnRow, type TurnRowsModel } from './turn-rows.js';

/** A session's turn tree, or why it cannot be read (a file deleted before it was opened). */
export type TurnsData =
  | { ok: true; session: Session; tree: readonly TreeNode[]; rows(expansion: Expansion): TurnRowsModel; history(upTo: number): TurnRow[] }
  | { ok: false; session: Session; error: string };

export interface World {
  /** bumps on every store change */
  readonly version: number;
  readonly root: string;
  /** the clock for ages (fixed per snapshot) */
  readonly now: number;
  readonly items: readonly SessionListItem[];
  readonly diagnostics: number;
  /** the first scan of the root is still running: an empty list is not the final word */
  readonly scanning: boolean;
  session(key: string): Session | undefined;
  /** Sessions rows for a filter and order (memoised). */
  rows(filter: string, order: SortOrder): readonly SessionRow[];
  lineage(): LineageLayout;
  turns(session: Session): TurnsData;
  /** A fresh child id for the fork dialog. */
  newChildId(): string;
  /** Why forking `session` cut at `boundary` (inclusive; undefined = whole log) is refused, or null. */
  forkError(session: Session, boundary?: number): SessionForkError | null;
}

interface TurnsMemo {
  sig: string;
  data: TurnsData;
}

/** Turn data survives snapshots: it is rebuilt only when its session's log changed. */
const turnsMemo = new WeakMap<Session, TurnsMemo>();

function turnsOf(session: Session, now: number): TurnsData {
  const sig = `${session.length}|${session.log.consumed}|${session.diagnostics.length}|${session.gone}`;
  const hit = turnsMemo.get(session);
  if (hit && hit.sig === sig) return hit.data;
  let data: TurnsData;
  try {
    const events = session.events;
    const tree = buildTurnTree(events);
    const ctx = rowsContext(session, now);
    let last: { e: Expansion; m: TurnRowsModel } | undefined;
    let lastHistory: { upTo: number; rows: TurnRow[] } | undefined;
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
    };
  } catch (e) {
    data = { ok: false, session, error: e instanceof Error ? e.message : String(e) };
  }
  turnsMemo.set(session, { sig, data });
  return data;
}

/** A snapshot of the index's store. */
export function snapshotWorld(index: RootIndex, version: number, now: number, newChildId: () => string): World {
  const store = index.store;
  let sessions: Session[] | undefined;
  const all = () => (sessions ??= store.list());
  let items: SessionListItem[] | undefined;
  let lineage: LineageLayout | undefined;
  let rowsMemo: { filter: string; order: SortOrder; rows: SessionRow[] } | undefined;
  let diagnostics: number | undefined;
  return {
    version,
    root: index.root,
    now,
    get items() {
      if (!items) {
        const parents = resolveParents(all());
        const perId = new Map<string, number>();
        for (const s of all()) perId.set(s.id, (perId.get(s.id) ?? 0) + 1);
        items = all().map((s) => {
          const item = listItemOf(s);
          if (perId.get(s.id)! > 1) item.duplicateId = true;
          const link = parents.get(item.key);
          if (link?.kind === 'resolved') item.parentKey = link.key;
          else if (link?.kind === 'ambiguous') item.parentAmbiguous = true;
          return item;
        });
      }
      return items;
    },
    get diagnostics() {
      return (diagnostics ??= diagnosticCount(index));
    },
    scanning: index.scan !== undefined && !index.scan.finished,
    session: (key) => store.byFile(key),
    rows(filter, order) {
      if (!rowsMemo || rowsMemo.filter !== filter || rowsMemo.order !== order) rowsMemo = { filter, order, rows: sessionRows(this.items, { filter, order, now }) };
      return rowsMemo.rows;
    },
    lineage: () => (lineage ??= layoutLineage(lineageNodes(all()))),
    turns: (session) => turnsOf(session, now),
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

export const keyOf = SessionStore.keyOf;
