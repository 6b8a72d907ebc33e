// The world the app reducer reads: one snapshot of the store (sessions, their
// list items, the lineage layout, each session's turn rows) at one version.
// The views only read it, through this interface: its core here, each
// view's reads in its folder (reads.ts), composed by the registry. The
// snapshot is taken outside src/view (src/world/world.ts), which reads the
// store and the disk; each view builds its reads from it (its `reads` hook).
import type { SessionEvent } from '../../session/events.js';
import type { HistoryEntry, TreeNode } from '../../session/replay.js';
import type { LoadProgress, Session } from '../../session/session.js';
import type { TurnIndex } from '../../session/turn-index.js';
import type { SessionForkError } from '../../session/errors.js';
import type { ProblemRow } from '../../session/problems.js';
import type { FilterAnswers } from '../../session/search-index.js';
import type { FlatOrder, ItemStats, SessionListItem } from '../../session/list-item.js';
import type { World } from './surfaces.js';

export type { World };

/**
 * The store at one snapshot, as src/world/world.ts takes it: the core every
 * surface reads, and the sources a view builds its reads from (its `reads`
 * hook, which the registry composes into the World).
 */
export interface Snapshot extends CoreWorld {
  /** the items in a flat order, in the project scope when `scoped` (kept sorted by the root model) */
  sortedBy(order: FlatOrder, scoped: boolean): readonly SessionListItem[];
  /** the stats `make` makes of that order, kept through its changes */
  statsOf<S extends ItemStats>(order: FlatOrder, scoped: boolean, make: () => S): S;
  /** the item is in the project scope (always, without one) */
  itemInScope(item: SessionListItem): boolean;
  /** the background answers of the Sessions filter's query (its event terms) */
  readonly filterAnswers?: FilterAnswers;
  /** the snapshot this one was taken on (only the clock or the filter's answers moved): its derived data is reused */
  readonly base?: World;
  /**
   * Opens a session's log to read its turns (a large log's index is started
   * or brought up to it): its version, which changes when what the log reads
   * as changes (it grew, it was re-read, it went).
   */
  openLog(session: Session): string;
  /** the offset index a session's log is read through now (a large log; changes as the index does) */
  logIndex(session: Session): unknown;
  /** what a session's turns read from now; throws what the read threw */
  turnSource(session: Session): TurnSource;
  /** a session's turns were read (`loading`: its events still are): the app goes on opening it in the background */
  asked(session: Session, loading: boolean): void;
}

/** A session's turns at the source: a tree and its events, in memory or through the offset index, or still loading. */
export type TurnSource =
  | { ok: false; loading: LoadProgress }
  | {
      ok: true;
      tree: readonly TreeNode[];
      /** the event with this seq */
      event(seq: number): SessionEvent | undefined;
      /** the offset index the tree comes from (a large log: its events are read by turn); undefined: the log is in memory */
      index?: TurnIndex;
      /** the tree is the log's last turns only, while the rest is indexed: how far that has got */
      partial(): LoadProgress | undefined;
      /** the model history after events [0, upTo], each entry's text cut at `textMax`, its last `keep` entries; undefined: still being read */
      history(upTo: number, textMax: number, keep: number): readonly HistoryEntry[] | undefined;
      /** how many earlier entries of that history were not kept */
      hidden(upTo: number): number;
      /** a large log's history being read: events read of those up to the cut */
      historyLoading(): { seen: number; of: number } | undefined;
    };

/** What every surface reads of the store. */
export interface CoreWorld {
  /** bumps on every store change */
  readonly version: number;
  readonly root: string;
  /** what the title bar calls the root (e.g. `dsh root ~/.dsh/sessions`) */
  readonly rootLabel: string;
  /** the clock for ages (fixed per snapshot) */
  readonly now: number;
  /** the list items (the root model's): a session as the list keeps it */
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
  /** the current project's scope (dsh's own root), when the app was started with one */
  readonly scope?: { readonly cwd: string };
  /** the session is in the project scope (always, without one) */
  inScope(session: Session): boolean;
  /** Why `dsh --resume` would refuse the session, or undefined when it would resume it. */
  resumeRefusal(session: Session): string | undefined;
  /** the session's cwd is a folder on this machine (R runs dsh there); read once per snapshot */
  cwdExists(session: Session): boolean;
  /** every diagnostic and audit finding known so far, worst first (the audit runs in the background): the Problems rows */
  problems(): readonly ProblemRow[];
  /** older generation files beside the session's current one (listed, never read), highest first */
  olderGenerations(session: Session): readonly string[];
  /** a large log: read through its offset index, by turn, never whole (its export or comparison runs in the background) */
  indexed(session: Session): boolean;
  /** A fresh child id for the fork dialog. */
  newChildId(): string;
  /** Why forking `session` cut at `boundary` (inclusive; undefined = whole log) is refused, or null. */
  forkError(session: Session, boundary?: number): SessionForkError | null;
}
