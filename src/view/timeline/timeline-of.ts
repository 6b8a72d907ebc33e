// A session's turn as a timeline, from the World: the turn's events read
// through its turn data (in memory, or by byte range through the offset
// index) and folded once. A log that grows makes a new node for its last
// turn with a later last seq: the fold goes on from where it stopped, so a
// live turn's timeline grows at the cost of its new events.
import type { SessionEvent } from '../../session/events.js';
import type { TreeNode } from '../../session/replay.js';
import type { Session } from '../../session/session.js';
import { TimelineFold, type TurnTimeline } from '../../session/timeline.js';
import type { World } from '../app/world.js';
import { timelineRows, type TimelineLayout, type TimelineRow } from './timeline-layout.js';

export type TimelineRead = { ok: true; timeline: TurnTimeline; dropped: number; upTo: number } | { ok: false; error: string };

/** Each session's turns folded so far: a log only grows, so a live turn's fold goes on from where it stopped. */
const folds = new WeakMap<Session, Map<number, TurnFold>>();
const laidOut = new WeakMap<TurnTimeline, { width: number; upTo: number; layout: TimelineLayout }>();

/** A turn's fold and the last seq in it. */
export interface TurnFold {
  fold: TimelineFold;
  upTo: number;
}

type TurnNode = Extract<TreeNode, { kind: 'turn' }>;
type TurnsOk = Extract<ReturnType<World['turns']>, { ok: true }>;

/** The turn starting at `turnSeq` in the session's turn data, or why there is none. */
export function turnNode(world: World, session: Session, turnSeq: number): { node: TurnNode; data: TurnsOk } | { error: string } {
  const data = world.turns(session);
  if (data.loading) return { error: 'the session is still loading' };
  if (!data.ok) return { error: data.error };
  const node = data.tree.find((n): n is TurnNode => n.kind === 'turn' && n.seq === turnSeq);
  return node ? { node, data } : { error: 'the turn is no longer in the log' };
}

/** The turn around `seq` (the row a key was pressed on), if any. */
export function turnAround(world: World, session: Session, seq: number): TurnNode | undefined {
  const data = world.turns(session);
  if (!data.ok) return undefined;
  return data.tree.find((n): n is TurnNode => n.kind === 'turn' && seq >= n.seq && seq <= n.lastSeq);
}

/**
 * The timeline of the session's turn at `turnSeq`. Folded once: a turn that
 * grew is folded on from its last seq (a live turn costs its new events); one
 * that shrank (the log was replaced) is folded again.
 */
export function timelineOf(world: World, session: Session, turnSeq: number): TimelineRead {
  const found = turnNode(world, session, turnSeq);
  if ('error' in found) return { ok: false, error: found.error };
  const { node, data } = found;
  const f = foldOn(session, node, data.event);
  return { ok: true, timeline: f.fold.result(), dropped: f.fold.dropped, upTo: f.upTo };
}

/** The fold of `node` brought up to its last seq (`event` reads the events it has not seen). */
export function foldOn(session: Session, node: TurnNode, event: (seq: number) => SessionEvent | undefined, from?: TurnFold): TurnFold {
  let turns = folds.get(session);
  if (!turns) folds.set(session, (turns = new Map()));
  let f = from ?? turns.get(node.seq);
  if (!f || f.upTo > node.lastSeq) f = { fold: new TimelineFold(node.turn, node.seq), upTo: node.seq - 1 };
  for (let seq = f.upTo + 1; seq <= node.lastSeq; seq++) {
    const e = event(seq);
    if (e) f.fold.add(e);
  }
  f.upTo = node.lastSeq;
  turns.set(node.seq, f);
  return f;
}

/** A turn with more events than this not yet folded is folded in the background (T answers at once meanwhile). */
export const FOLD_AT_ONCE = 20_000;

/** How many of the turn's events its fold has not seen. */
export function unfolded(session: Session, node: TurnNode): number {
  const f = folds.get(session)?.get(node.seq);
  return node.lastSeq - (f && f.upTo <= node.lastSeq ? f.upTo : node.seq - 1);
}

/**
 * The fold of a large turn in slices: yields how many of its events are read
 * whenever `spent` says the slice is over; the fold is kept as timelineOf's.
 */
export function* foldSteps(session: Session, node: TurnNode, event: (seq: number) => SessionEvent | undefined, spent: () => boolean): Generator<number, void> {
  const f: TurnFold = { fold: new TimelineFold(node.turn, node.seq), upTo: node.seq - 1 };
  for (let seq = node.seq; seq <= node.lastSeq; seq++) {
    const e = event(seq);
    if (e) f.fold.add(e);
    f.upTo = seq;
    if ((seq & 1023) === 0 && spent()) yield seq - node.seq;
  }
  foldOn(session, node, event, f);
}

/** Its rows at `width` columns (laid out again when the width or the turn changed). */
export function timelineLayout(read: Extract<TimelineRead, { ok: true }>, width: number): TimelineLayout {
  const hit = laidOut.get(read.timeline);
  if (hit && hit.width === width && hit.upTo === read.upTo) return hit.layout;
  const layout = timelineRows(read.timeline, width, read.dropped);
  laidOut.set(read.timeline, { width, upTo: read.upTo, layout });
  return layout;
}

/** The seq a row opens in the reader: a span's opening event, a note's event, the turn's turn/start. */
export function rowSeq(row: TimelineRow | undefined, turnSeq: number): number | undefined {
  if (!row) return undefined;
  if (row.kind === 'span') return row.span.seq;
  if (row.kind === 'note') return row.seq;
  return turnSeq;
}
