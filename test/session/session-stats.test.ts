// A session's stats folded from its events: each turn's times (the
// timeline's), the slowest tools, the failed calls and the tokens, a fork
// child's seed set apart; the same figures whatever batches the log comes in;
// and the total, where a fork child adds its own part only.
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/session/events.js';
import { statsJson, statsOf, StatsTotal, TOOL_NAMES_KEPT, type SessionStats } from '../../src/session/session-stats.js';
import { SPANS_KEPT } from '../../src/session/timeline.js';

const T0 = 1_700_000_000_000;

/** Events from [type, ms after T0, data] triples, seqs from 0. */
function log(rows: Array<[string, number, object?]>): SessionEvent[] {
  return rows.map(([type, at, data], seq) => ({ type, seq, time: T0 + at, data: data ?? {} }));
}

const call = (callId: string, name: string) => ({ callId, name, arguments: '{}' });
const result = (callId: string, isError = false) => ({ callId, content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: 'x' }], isError }], isError });
const usage = (inputTokens: number, outputTokens: number, cacheReadTokens?: number) => ({ usage: { inputTokens, outputTokens, ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}) } });

/** Two turns; the first has two calls in parallel, one failing; a title between them; a fork child's seed ends at 13. */
const LOG = log([
  ['turn/start', 0, { turn: 1 }],
  ['user/message', 5],
  ['step/start', 10, { turn: 1, step: 1 }],
  ['assistant/message', 1010, usage(100, 20, 50)],
  ['tool/call', 1011, call('a', 'bash')],
  ['tool/call', 1012, call('b', 'read')],
  ['tool/result', 1500, result('b')],
  ['tool/result', 4011, result('a', true)],
  ['step/end', 4012, { turn: 1, step: 1 }],
  ['step/start', 4020, { turn: 1, step: 2 }],
  ['assistant/message', 5020, usage(200, 30)],
  ['step/end', 5021, { turn: 1, step: 2 }],
  ['turn/end', 5030, { turn: 1, reason: { kind: 'completed' } }],
  // between the turns: in no turn, so the first turn's wall time stays 5030
  ['session/title', 9000, { title: 'x' }],
  ['turn/start', 10_000, { turn: 2 }],
  ['step/start', 10_010, { turn: 2, step: 1 }],
  ['assistant/message', 10_510, usage(300, 40, 100)],
  ['tool/call', 10_511, call('c', 'bash')],
  ['tool/result', 12_511, result('c')],
  ['assistant/message', 13_011, usage(400, 50)],
  ['step/end', 13_012, { turn: 2, step: 1 }],
  ['turn/end', 13_020, { turn: 2, reason: { kind: 'completed' } }],
]);
const SEED = 13;

const TURN1 = { wall: 5030, model: 2000, tool: 3000, gaps: 30, toolCalls: 3488 };
// turn 2: requests 10010→10510 and 12511→13011, the call 10511→12511
const TURN2 = { wall: 3020, model: 1000, tool: 2000, gaps: 20, toolCalls: 2000 };
const sum = (a: typeof TURN1, b: typeof TURN1) => ({ wall: a.wall + b.wall, model: a.model + b.model, tool: a.tool + b.tool, gaps: a.gaps + b.gaps, toolCalls: a.toolCalls + b.toolCalls });

/** The log in batches of `n` events. */
function batches(events: readonly SessionEvent[], n: number): SessionEvent[][] {
  const out: SessionEvent[][] = [];
  for (let i = 0; i < events.length; i += n) out.push(events.slice(i, i + n));
  return out;
}

describe('statsOf', () => {
  it('sums the turns\' times, lists the tools by longest call, counts the failed calls and the tokens', () => {
    const s = statsOf([LOG]);
    expect(s.turns).toBe(2);
    expect(s.time).toEqual(sum(TURN1, TURN2));
    expect([s.calls, s.failed]).toEqual([3, 1]);
    expect(s.tools).toEqual([
      { name: 'bash', calls: 2, failed: 1, ms: 3000 + 2000, longest: 3000, longestSeq: 4 },
      { name: 'read', calls: 1, failed: 0, ms: 488, longest: 488, longestSeq: 5 },
    ]);
    expect(s.tokens).toEqual({ input: 1000, output: 140, cacheRead: 150, spent: 1140, messages: 4 });
    expect(s.inherited).toBeUndefined();
    expect(s.own).toBeUndefined();
    expect(s.notTimed).toBeUndefined();
    expect(s.clockBack).toBeUndefined();
  });

  it('a fork child: what its seed inherited and what it did itself, each figure split at the seed\'s end', () => {
    const s = statsOf([LOG], SEED);
    expect(s.turns).toBe(2);
    expect(s.tokens.spent).toBe(1140);
    expect(s.inherited).toEqual({
      turns: 1,
      time: TURN1,
      calls: 2,
      failed: 1,
      tokens: { input: 300, output: 50, cacheRead: 50, spent: 350, messages: 2 },
      tools: [
        { name: 'bash', calls: 1, failed: 1, ms: 3000, longest: 3000, longestSeq: 4 },
        { name: 'read', calls: 1, failed: 0, ms: 488, longest: 488, longestSeq: 5 },
      ],
    });
    expect(s.own).toEqual({
      turns: 1,
      time: TURN2,
      calls: 1,
      failed: 0,
      tokens: { input: 700, output: 90, cacheRead: 100, spent: 790, messages: 2 },
      tools: [{ name: 'bash', calls: 1, failed: 0, ms: 2000, longest: 2000, longestSeq: 17 }],
    });
  });

  it('gives the same figures whatever batches the log is read in', () => {
    const whole = statsOf([LOG], SEED);
    for (const n of [1, 2, 3, 7, 13]) expect(statsOf(batches(LOG, n), SEED)).toEqual(whole);
  });

  it('a turn with no turn/end ends at the next turn/start; one still open at the end counts as it stands', () => {
    const s = statsOf([
      log([
        ['turn/start', 0, { turn: 1 }],
        ['step/start', 0, { turn: 1, step: 1 }],
        ['assistant/message', 100],
        ['turn/start', 1000, { turn: 2 }],
        ['step/start', 1000, { turn: 2, step: 1 }],
        ['tool/call', 1100, call('a', 'bash')],
        ['assistant/chunk', 1600],
      ]),
    ]);
    expect(s.turns).toBe(2);
    // turn 1: 0→100; turn 2: 1000→1600, its call open to the turn's latest time
    expect(s.time).toEqual({ wall: 100 + 600, model: 100, tool: 500, gaps: 100, toolCalls: 500 });
    expect(s.tools).toEqual([{ name: 'bash', calls: 1, failed: 0, ms: 500, longest: 500, longestSeq: 5 }]);
  });

  it('counts a failed result for a call never started, which spent no time; notes a clock that went back', () => {
    const s = statsOf([
      log([
        ['turn/start', 0, { turn: 1 }],
        ['tool/result', 10, result('never', true)],
        ['assistant/message', 5],
        ['turn/end', 20, { turn: 1 }],
      ]),
    ]);
    expect([s.calls, s.failed, s.tools.length, s.clockBack]).toEqual([0, 1, 0, 1]);
  });

  it('keeps TOOL_NAMES_KEPT names apart and counts the rest together; a turn past SPANS_KEPT says how many spans it did not time', () => {
    const rows: Array<[string, number, object?]> = [['turn/start', 0, { turn: 1 }]];
    for (let i = 0; i < TOOL_NAMES_KEPT + 2; i++) rows.push(['tool/call', 1, call(`c${i}`, `tool${i}`)], ['tool/result', 2 + (i % 3), result(`c${i}`)]);
    const s = statsOf([log(rows)]);
    expect(s.tools).toHaveLength(TOOL_NAMES_KEPT + 1);
    const other = s.tools.find((t) => t.other)!;
    expect([other.name, other.calls]).toEqual(['(other tools)', 2]);
    expect(s.tools.reduce((n, t) => n + t.calls, 0)).toBe(TOOL_NAMES_KEPT + 2);

    const many: Array<[string, number, object?]> = [['turn/start', 0, { turn: 1 }]];
    for (let i = 0; i < SPANS_KEPT + 3; i++) many.push(['tool/call', 1, call(`c${i}`, 'bash')]);
    const big = statsOf([log(many)]);
    expect([big.calls, big.tools[0].calls, big.notTimed]).toEqual([SPANS_KEPT + 3, SPANS_KEPT, 3]);
  });
});

describe('StatsTotal', () => {
  it('sums the sessions, a fork child by its own part only; the longest call names its session', () => {
    const parent = statsOf([LOG.slice(0, SEED)]);
    const child = statsOf([LOG], SEED);
    const total = new StatsTotal();
    total.add(parent, { session: 'p', file: '/p.jsonl' });
    total.add(child, { session: 'c' });
    const t = total.result();
    expect(t.sessions).toBe(2);
    // every event once: the parent's log and the child's own events make the whole log
    const whole = statsOf([LOG]);
    expect({ turns: t.turns, time: t.time, calls: t.calls, failed: t.failed, tokens: t.tokens }).toEqual({
      turns: whole.turns,
      time: whole.time,
      calls: whole.calls,
      failed: whole.failed,
      tokens: whole.tokens,
    });
    expect(t.tools).toEqual([
      { name: 'bash', calls: 2, failed: 1, ms: 5000, longest: 3000, longestSeq: 4, session: 'p', file: '/p.jsonl' },
      { name: 'read', calls: 1, failed: 0, ms: 488, longest: 488, longestSeq: 5, session: 'p', file: '/p.jsonl' },
    ]);
  });
});

describe('statsJson', () => {
  it('heads the stats with the session, seedLength only for a fork child', () => {
    const st: SessionStats = statsOf([LOG], SEED);
    expect(Object.keys(statsJson({ id: 'c', file: '/c.jsonl', kind: 'fork', seedLength: SEED }, st))).toEqual(['id', 'file', 'kind', 'seedLength', 'turns', 'time', 'calls', 'failed', 'tokens', 'tools', 'inherited', 'own']);
    expect(statsJson({ id: 'r', kind: 'root' }, statsOf([LOG]))).toMatchObject({ id: 'r', file: null, kind: 'root', turns: 2 });
    expect('seedLength' in statsJson({ id: 'r', kind: 'root' }, statsOf([LOG]))).toBe(false);
  });
});
