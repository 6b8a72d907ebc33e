// What the Turns view reads of the store (a part of the World): a session's
// turn tree, or why it cannot be read.
import type { SessionEvent } from '../../session/events.js';
import type { SeedDivergence } from '../../session/problems.js';
import type { TreeNode } from '../../session/replay.js';
import type { LoadProgress, Session } from '../../session/session.js';
import type { RowSeq } from '../app/window.js';
import type { Expansion, TurnRow, TurnRowsModel } from './turn-rows.js';

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
}
