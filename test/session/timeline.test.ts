// A turn's timeline from its events: steps, model requests (from the step's
// start or what last settled to the message), tool calls to their results,
// parallel calls, open calls, clock skew, untimed rows; the totals (model,
// tool wall time, gaps, the longest call); and every real log's turns fold
// without a span that ends before it starts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/session/events.js';
import { spanLength, timeTotals, turnTimeline, TimelineFold, SPANS_KEPT } from '../../src/session/timeline.js';
import { turnSeries } from '../../src/session/turn-series.js';
import { buildTurnTree } from '../../src/session/replay.js';
import { usageOfSeqs } from '../../src/session/usage.js';
import { REPO } from '../support/fixtures.js';

/** Events from [type, time, data] triples, seqs from 0. */
function log(rows: Array<[string, number, object?]>): SessionEvent[] {
  return rows.map(([type, time, data], seq) => ({ type, seq, time, data: data ?? {} }));
}

const call = (callId: string, name: string, args: object = {}) => ({ callId, name, arguments: JSON.stringify(args) });
const result = (callId: string, isError = false) => ({ callId, content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: 'x' }], isError }], isError });

const T0 = 1_700_000_000_000;

describe('turnTimeline', () => {
  it('draws steps, model requests and parallel tool calls with their times', () => {
    const t = turnTimeline(
      log([
        ['turn/start', T0, { turn: 1 }],
        ['user/message', T0 + 5, {}],
        ['step/start', T0 + 10, { turn: 1, step: 1 }],
        ['assistant/message', T0 + 1010, { usage: { inputTokens: 10, outputTokens: 5 } }],
        ['tool/call', T0 + 1011, call('a', 'bash', { command: 'npm test\nmore' })],
        ['tool/call', T0 + 1012, call('b', 'read', { path: 'src/a.ts' })],
        ['tool/result', T0 + 1500, result('b')],
        ['tool/result', T0 + 4011, result('a', true)],
        ['step/end', T0 + 4012, { turn: 1, step: 1 }],
        ['step/start', T0 + 4020, { turn: 1, step: 2 }],
        ['assistant/message', T0 + 5020, {}],
        ['step/end', T0 + 5021, { turn: 1, step: 2 }],
        ['turn/end', T0 + 5030, { turn: 1, reason: { kind: 'completed' } }],
      ]),
    )!;
    expect(t.open).toBe(false);
    expect(t.start).toBe(T0);
    expect(t.end).toBe(T0 + 5030);
    expect(t.spans.map((s) => [s.kind, s.label, s.detail, s.start! - T0, s.end! - T0, s.failed ?? false])).toEqual([
      ['step', 'step 1', undefined, 10, 4012, false],
      ['model', 'model', undefined, 10, 1010, false],
      ['tool', 'bash', 'npm test more', 1011, 4011, true],
      ['tool', 'read', 'src/a.ts', 1012, 1500, false],
      ['step', 'step 2', undefined, 4020, 5021, false],
      ['model', 'model', undefined, 4020, 5020, false],
    ]);
    const totals = timeTotals(t);
    expect(totals.wall).toBe(5030);
    expect(totals.model).toBe(1000 + 1000);
    // the two calls overlap: tool time is the wall time some tool ran, toolCalls their sum
    expect(totals.tool).toBe(3000);
    expect(totals.toolCalls).toBe(3000 + 488);
    expect(totals.gaps).toBe(5030 - 2000 - 3000);
    expect(totals.longest?.label).toBe('bash');
  });

  it('starts a second request in a step at what last settled (a result)', () => {
    const t = turnTimeline(
      log([
        ['turn/start', T0, { turn: 2 }],
        ['step/start', T0, { turn: 2, step: 1 }],
        ['assistant/message', T0 + 100, {}],
        ['tool/call', T0 + 100, call('a', 'bash')],
        ['tool/result', T0 + 300, result('a')],
        ['assistant/message', T0 + 700, {}],
      ]),
    )!;
    const models = t.spans.filter((s) => s.kind === 'model');
    expect(models.map((s) => [s.start! - T0, s.end! - T0])).toEqual([
      [0, 100],
      [300, 700],
    ]);
    expect(t.turn).toBe(2);
  });

  it('leaves an unanswered call and a step without its end open, running to the latest time', () => {
    const t = turnTimeline(
      log([
        ['turn/start', T0, { turn: 1 }],
        ['step/start', T0 + 1, { turn: 1, step: 1 }],
        ['assistant/message', T0 + 2, {}],
        ['tool/call', T0 + 3, call('a', 'bash', { command: 'sleep 100' })],
        ['assistant/chunk', T0 + 900, {}],
      ]),
    )!;
    expect(t.open).toBe(true);
    const tool = t.spans.find((s) => s.kind === 'tool')!;
    expect(tool.end).toBeUndefined();
    expect(spanLength(tool, t.end)).toBe(897);
    expect(t.spans.find((s) => s.kind === 'step')!.end).toBeUndefined();
    expect(timeTotals(t).longest).toBe(tool);
  });

  it('notes where time goes back, and draws a span whose end is before its start with no length', () => {
    const t = turnTimeline(
      log([
        ['turn/start', T0 + 1000, { turn: 1 }],
        ['step/start', T0 + 1000, { turn: 1, step: 1 }],
        ['tool/call', T0 + 1500, call('a', 'bash')],
        ['tool/result', T0 + 200, result('a')],
        ['turn/end', T0 + 2000, { turn: 1 }],
      ]),
    )!;
    expect(t.skewCount).toBe(1);
    expect(t.skews).toEqual([{ seq: 3, back: 1300 }]);
    const tool = t.spans.find((s) => s.kind === 'tool')!;
    expect(tool.skew).toBe(true);
    expect(spanLength(tool, t.end)).toBe(0);
    expect(t.start).toBe(T0 + 200);
  });

  it('counts rows without a time (0 or none) and places nothing by them', () => {
    const t = turnTimeline(
      log([
        ['turn/start', 0, { turn: 1 }],
        ['step/start', 0, { turn: 1, step: 1 }],
        ['assistant/message', 0, {}],
      ]),
    )!;
    expect(t.untimed).toBe(3);
    expect(t.start).toBeUndefined();
    expect(t.spans.every((s) => s.start === undefined)).toBe(true);
    expect(timeTotals(t).wall).toBe(0);
  });

  it('ignores a result for a call never started (the harness settles those) and a zero-length call has no length', () => {
    const t = turnTimeline(
      log([
        ['turn/start', T0, { turn: 1 }],
        ['step/start', T0, { turn: 1, step: 1 }],
        ['tool/result', T0 + 5, result('ghost')],
        ['tool/call', T0 + 6, call('z', 'noop')],
        ['tool/result', T0 + 6, result('z')],
      ]),
    )!;
    const tools = t.spans.filter((s) => s.kind === 'tool');
    expect(tools).toHaveLength(1);
    expect(spanLength(tools[0], t.end)).toBe(0);
    expect(tools[0].skew).toBeUndefined();
  });

  it(`keeps at most ${SPANS_KEPT} spans and counts the rest`, () => {
    const fold = new TimelineFold(1, 0);
    fold.add({ type: 'turn/start', seq: 0, time: T0, data: { turn: 1 } });
    for (let i = 0; i < SPANS_KEPT + 10; i++) fold.add({ type: 'tool/call', seq: i + 1, time: T0 + i, data: call(`c${i}`, 'x') });
    expect(fold.result().spans).toHaveLength(SPANS_KEPT);
    expect(fold.dropped).toBe(10);
  });
});

describe('turnSeries', () => {
  it("gives each turn's tokens and its duration, none where a time is missing or goes back", () => {
    const events = log([
      ['turn/start', T0, { turn: 1 }],
      ['assistant/message', T0 + 100, { usage: { inputTokens: 10, outputTokens: 5 } }],
      ['turn/end', T0 + 200, { turn: 1 }],
      ['turn/start', T0 + 300, { turn: 2 }],
      ['assistant/message', 0, { usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 50 } }],
      ['turn/start', T0 + 900, { turn: 3 }],
      ['turn/end', T0 + 800, { turn: 3 }],
    ]);
    const tree = buildTurnTree(events);
    const at = (seq: number) => events.find((e) => e.seq === seq);
    const series = turnSeries(tree, (n) => ({ usage: usageOfSeqs(events, n.seq, n.lastSeq), start: at(n.seq)?.time, time: at(n.lastSeq)?.time }));
    expect(series.map((p) => [p.turn, p.tokens, p.ms, p.open])).toEqual([
      [1, 15, 200, false],
      [2, 2, undefined, true],
      [3, 0, undefined, false],
    ]);
  });
});

describe('real logs', () => {
  it('fold every turn of every real log with spans that never end before they start', () => {
    const dirs = [path.join(REPO, 'test/fixtures'), path.join(REPO, 'sample-sessions')];
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.jsonl$/.test(e.name)) files.push(p);
      }
    };
    dirs.forEach(walk);
    let turns = 0;
    let tools = 0;
    for (const f of files) {
      const events = fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => { try { return JSON.parse(l); } catch { return undefined; } })
        .filter((v) => v && v.type !== 'session' && typeof v.seq === 'number') as SessionEvent[];
      let fold: TimelineFold | undefined;
      const check = () => {
        if (!fold) return;
        const t = fold.result();
        turns++;
        for (const s of t.spans) {
          if (s.kind === 'tool') tools++;
          if (s.start !== undefined && s.end !== undefined) expect(s.end).toBeGreaterThanOrEqual(s.start);
        }
        const totals = timeTotals(t);
        expect(totals.gaps).toBeLessThanOrEqual(totals.wall);
        expect(totals.tool).toBeLessThanOrEqual(totals.toolCalls);
      };
      for (const e of events) {
        if (e.type === 'turn/start') {
          check();
          fold = new TimelineFold(e.data?.turn ?? 0, e.seq);
        }
        fold?.add(e);
      }
      check();
    }
    expect(files.length).toBeGreaterThan(30);
    expect(turns).toBeGreaterThan(100);
    expect(tools).toBeGreaterThan(50);
  });
});
