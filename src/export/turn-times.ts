// Each turn's time facts as the transcript reads its log: its timeline
// (src/session/timeline.ts) and the times of its first and last event, folded
// from the very batches its blocks are made of. A format takes a turn's facts
// once it has written the turn's items (a turn of any size has been read by
// then) and they are dropped: what is held is the turns read ahead of the
// writer (one batch's worth) with at most SPANS_KEPT spans each, never the log.
import type { SessionEvent } from '../session/events.js';
import { TimelineFold, type TurnTimeline } from '../session/timeline.js';
import { turnPoint, type TurnPoint } from '../session/turn-series.js';
import type { TokenUsage } from '../session/usage.js';

export interface TurnTimes {
  timeline: TurnTimeline;
  /** spans past SPANS_KEPT: counted, not kept */
  dropped: number;
  /** its tokens and duration (turnPoint: the one reckoning of both) */
  point: TurnPoint;
}

interface Reading {
  fold: TimelineFold;
  start?: number;
  time?: number;
}

export class TurnTimesFold {
  /** by the seq of the turn/start, in log order */
  private readonly turns = new Map<number, Reading>();
  private cur?: Reading;

  /** Feeds the log's next event (in order, each once). */
  add(e: SessionEvent): void {
    if (e.type === 'turn/start') {
      const n = (e.data ?? {}).turn;
      this.cur = { fold: new TimelineFold(typeof n === 'number' ? n : 0, e.seq), start: e.time };
      this.turns.set(e.seq, this.cur);
    }
    if (!this.cur) return; // between turns: no turn's time
    this.cur.fold.add(e);
    this.cur.time = e.time;
    if (e.type === 'turn/end') this.cur = undefined;
  }

  /**
   * The facts of the turn whose block this is (read up to its last event),
   * dropped here with those of any turn before it no format asked for.
   */
  take(b: { turn: number; seq: number; open: boolean; usage: TokenUsage }): TurnTimes | undefined {
    const r = this.turns.get(b.seq);
    for (const seq of this.turns.keys()) {
      if (seq > b.seq) break;
      this.turns.delete(seq);
    }
    if (!r) return undefined;
    return { timeline: r.fold.result(), dropped: r.fold.dropped, point: turnPoint(b, { usage: b.usage, start: r.start, time: r.time }) };
  }
}
