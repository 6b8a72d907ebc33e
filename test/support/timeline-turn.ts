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

/**
 * Turn 3's first step, from T0 to 7 s: a request (2 s), two calls run at
 * once (`bash npm test`, failed, 5 s; `read src/app.ts`, 1 s), and a call of
 * no length. Each test adds its own second step.
 */
export const FIRST_STEP: Array<[string, number, object?]> = [
  ['turn/start', T0, { turn: 3 }],
  ['step/start', T0, { turn: 3, step: 1 }],
  ['assistant/message', T0 + 2000, {}],
  ['tool/call', T0 + 2000, call('a', 'bash', { command: 'npm test' })],
  ['tool/call', T0 + 2000, call('b', 'read', { path: 'src/app.ts' })],
  ['tool/call', T0 + 2500, call('z', 'noop')],
  ['tool/result', T0 + 2500, result('z')],
  ['tool/result', T0 + 3000, result('b')],
  ['tool/result', T0 + 7000, result('a', true)],
  ['step/end', T0 + 7000, { turn: 3, step: 1 }],
];
