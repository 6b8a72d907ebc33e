// The world the app reducer reads: one snapshot of the store (sessions, their
// list items, the lineage layout, each session's turn rows) at one version.
// The views only read it, through this interface: the snapshot is built
// outside src/view (src/world/world.ts), which reads the store and the disk.
import type { Session, LoadProgress } from '../../session/session.js';
import type { SessionEvent } from '../../session/events.js';
import type { SessionForkError } from '../../session/errors.js';
import type { ProblemRow, SeedDivergence } from '../../session/problems.js';
import type { TreeNode } from '../../session/replay.js';
import type { LineageLayout } from '../lineage/lineage-layout.js';
import type { SessionListItem, SessionRow, SortOrder } from '../sessions/session-list.js';
import type { Expansion, TurnRow, TurnRowsModel } from '../turns/turn-rows.js';
import type { RowSeq } from './window.js';

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

export interface World {
  /** bumps on every store change */
  readonly version: number;
  readonly root: string;
  /** what the title bar calls the root (e.g. `dsh root ~/.dsh/sessions`) */
  readonly rootLabel: string;
  /** the clock for ages (fixed per snapshot) */
  readonly now: number;
  readonly items: readonly SessionListItem[];
  /** how many items (items.length, without building the array) */
  readonly total: number;
  /** how many sessions have this id */
  sameId(id: string): number;
  readonly diagnostics: number;
  /** why rc.8's session list fails for a whole root under this one, by root folder (title bar ⚠, a Problems row each) */
  readonly listRefusals: ReadonlyMap<string, { readonly file: string; readonly reason: string }>;
  /** the first scan of the root is still running: an empty list is not the final word */
  readonly scanning: boolean;
  session(key: string): Session | undefined;
  /** every live session (compare and export read lineage from them) */
  sessions(): readonly Session[];
  /** Sessions rows for a filter and order, in the project scope unless `all` (memoised). */
  rows(filter: string, order: SortOrder, all?: boolean): RowSeq<SessionRow>;
  /** the Sessions filter's query is still being answered in the background */
  filterSearching(filter: string): boolean;
  /** the current project's scope (dsh's own root), when the app was started with one */
  readonly scope?: { readonly cwd: string };
  /** the session is in the project scope (always, without one) */
  inScope(session: Session): boolean;
  /** Why `dsh --resume` would refuse the session, or undefined when it would resume it. */
  resumeRefusal(session: Session): string | undefined;
  /** the session's cwd is a folder on this machine (R runs dsh there); read once per snapshot */
  cwdExists(session: Session): boolean;
  /** older generation files beside the session's current one (listed, never read), highest first */
  olderGenerations(session: Session): readonly string[];
  /** the lineage graph with the subtrees of `collapsed` (keys) hidden */
  lineage(collapsed?: ReadonlySet<string>): LineageLayout;
  turns(session: Session): TurnsData;
  /** a large log: read through its offset index, by turn, never whole (its export or comparison runs in the background) */
  indexed(session: Session): boolean;
  /** Every diagnostic and audit finding known so far, worst first (the audit runs in the background). */
  problems(): readonly ProblemRow[];
  /** A fresh child id for the fork dialog. */
  newChildId(): string;
  /** Why forking `session` cut at `boundary` (inclusive; undefined = whole log) is refused, or null. */
  forkError(session: Session, boundary?: number): SessionForkError | null;
}
