// A turn built from [type, time, data] rows and folded into its timeline:
// what the timeline's layout tests and the export's pictures tests draw.
import type { SessionEvent } from '../../src/session/events.js';
import { turnTimeline, type TurnTimeline } from '../../src/session/timeline.js';

export const T0 = 1_700_000_000_000;

export const call = (callId: string, name: string, args: object = {}) => ({ callId, name, arguments: JSON.stringify(args) });
export const result = (callId: string, isError = false) => ({ callId, content: [], isError });

/** The timeline of the events these rows stand for (seqs from 0). */
export function turn(rows: Array<[string, number, object?]>): TurnTimeline {
  return turnTimeline(rows.map(([type, time, data], seq) => ({ type, seq, time, data: data ?? {} }) as SessionEvent))!;
}
