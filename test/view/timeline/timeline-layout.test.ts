// The timeline's layout as a pure function: overlapping calls, a zero-length
// call, an open call, clock skew, and every width from 20 to 200 columns
// (rows never wider than their columns, every bar inside its axis); the rows
// of a turn as a snapshot.
import { describe, expect, it } from 'vitest';
import type { TurnTimeline } from '../../../src/session/timeline.js';
import { coverageBar, GLYPH, spanBar, timelineColumns, timelineRows, timelineSummary } from '../../../src/view/timeline/timeline-layout.js';
import { displayWidth } from '../../../src/view/text/sanitize.js';
import { barChart, buckets, sparkline } from '../../../src/view/text/sparkline.js';
import { turnSparks } from '../../../src/view/text/turn-sparks.js';
import { FIRST_STEP, T0, call, result, turn } from '../../support/timeline-turn.js';

/** Two steps: a request, two overlapping calls (one failed), a zero-length call; a second request; the turn ends 10 s in. */
const FULL = () =>
  turn([
    ...FIRST_STEP,
    ['step/start', T0 + 7500, { turn: 3, step: 2 }],
    ['assistant/message', T0 + 9500, {}],
    ['step/end', T0 + 9500, { turn: 3, step: 2 }],
    ['turn/end', T0 + 10_000, { turn: 3 }],
  ]);

const lines = (t: TurnTimeline, width: number) => {
  const l = timelineRows(t, width);
  return l.rows.map((r) => (r.kind === 'note' ? r.text : `${r.label.padEnd(l.labelWidth).slice(0, l.labelWidth)} ${r.bar} ${r.dur}`));
};

describe('timelineRows', () => {
  it('draws a turn at 80 columns', () => {
    expect(lines(FULL(), 80)).toMatchSnapshot();
    expect(timelineSummary(timelineRows(FULL(), 80).totals, FULL())).toEqual({ times: 'wall 10.0s · model 4.0s · tools 5.0s · gaps 1.0s', longest: 'longest call: bash npm test · 5.0s · seq 3' });
  });

  it('overlaps parallel calls on the same cells', () => {
    const l = timelineRows(FULL(), 80);
    const bars = l.rows.filter((r) => r.kind === 'span' && r.span.kind === 'tool').map((r) => (r as { bar: string }).bar);
    const first = (b: string) => b.search(/\S/);
    expect(first(bars[0])).toBe(first(bars[1]));
    expect(bars[0].trimEnd().length).toBeGreaterThan(bars[1].trimEnd().length);
  });

  it('draws a zero-length call as a tick, an open call open to the end, a skewed one as a tick with a note', () => {
    const open = turn([
      ['turn/start', T0, { turn: 1 }],
      ['step/start', T0, { turn: 1, step: 1 }],
      ['tool/call', T0 + 1000, call('a', 'bash', { command: 'sleep 9' })],
      ['tool/call', T0 + 1500, call('s', 'skewed')],
      ['tool/result', T0 + 500, result('s')],
      ['assistant/chunk', T0 + 4000, {}],
    ]);
    expect(lines(open, 60)).toMatchSnapshot();
    const rows = timelineRows(open, 60).rows;
    const bash = rows.find((r) => r.kind === 'span' && r.span.label === 'bash') as { bar: string; dur: string };
    expect(bash.bar.trimEnd().endsWith(GLYPH.openEnd)).toBe(true);
    expect(bash.bar).toContain(GLYPH.open);
    expect(bash.dur).toBe('3.0s…');
    const skewed = rows.find((r) => r.kind === 'span' && r.span.label === 'skewed') as { bar: string; dur: string };
    expect(skewed.bar.trim()).toBe(GLYPH.tick);
    expect(skewed.dur).toBe('0ms⚠');
    expect(rows.some((r) => r.kind === 'note' && r.text === '⚠ time goes back 1.0s at seq 4')).toBe(true);
    const zero = timelineRows(FULL(), 60).rows.find((r) => r.kind === 'span' && r.span.label === 'noop') as { bar: string };
    expect(zero.bar.trim()).toBe(GLYPH.tick);
  });

  it('says a turn without times has none, and draws no bar', () => {
    const t = turn([
      ['turn/start', 0, { turn: 1 }],
      ['step/start', 0, { turn: 1, step: 1 }],
    ]);
    const l = timelineRows(t, 40);
    expect(l.rows[0]).toMatchObject({ kind: 'axis', dur: 'no time' });
    expect(l.rows.at(-1)).toEqual({ kind: 'note', text: '2 events without a time (not placed)' });
  });

  it('fits every width from 20 to 200: each bar exactly its cells, each row inside the width', () => {
    for (let width = 20; width <= 200; width++) {
      const l = timelineRows(FULL(), width);
      const cols = timelineColumns(width);
      expect(cols.labelWidth + cols.barWidth + cols.durWidth + 2).toBeLessThanOrEqual(width);
      for (const r of l.rows) {
        if (r.kind === 'note') continue;
        expect(displayWidth(r.bar)).toBe(cols.barWidth);
        expect(displayWidth(r.dur)).toBeLessThanOrEqual(cols.durWidth);
      }
      // the coverage row's model cells are where some request ran
      expect(coverageBar(FULL(), cols.barWidth)).toMatch(new RegExp(`^${GLYPH.model}`));
    }
  });

  it('puts the end of the longest call on the last cell', () => {
    const t = FULL();
    const bash = t.spans.find((s) => s.label === 'bash')!;
    const bar = spanBar(bash, t, 100);
    expect(bar.lastIndexOf(GLYPH.tool)).toBe(69);
    expect(bar.indexOf(GLYPH.tool)).toBe(20);
  });
});

describe('sparkline and barChart', () => {
  it('scales each value against the largest; nothing is a dot', () => {
    expect(sparkline([0, 1, 4, 8, undefined], 10)).toBe('·▁▄█·');
  });

  it('squeezes more values than cells into cells of the largest value each', () => {
    const b = buckets([1, 9, 2, 2, 5, 1, 0], 3);
    expect(b).toEqual({ cells: [9, 5, 0], per: 3 });
    expect(sparkline([1, 9, 2, 2, 5, 1, 0], 3)).toBe('█▅·');
  });

  it('draws bars rows high, top row first', () => {
    expect(barChart([1, 2, 4, 0], 10, 2)).toEqual(['  █ ', '▄██·']);
    expect(barChart([1, 3, 4], 10, 1)).toEqual(['▂▆█']);
    // 100 values in 40 cells: 3 a cell, so 34 cells (never wider than asked)
    for (const [w, cells] of [[1, 1], [5, 5], [40, 34], [100, 100]]) for (const row of barChart(Array.from({ length: 100 }, (_, i) => i), w, 3)) expect(displayWidth(row)).toBe(cells);
  });
});

describe('turnSparks', () => {
  const series = (n: number) => Array.from({ length: n }, (_, i) => ({ turn: i + 1, seq: i * 10, tokens: (i % 5) * 100, ms: i % 3 === 0 ? undefined : i * 1000, open: false }));

  it('draws tokens and time per turn with their peaks', () => {
    expect(turnSparks(series(5), 120)).toBe('tokens/turn ·▂▄▆█ peak 400 · time/turn ·▂▄·█ peak 4.0s');
  });

  it('squeezes many turns into cells and says how many a cell holds', () => {
    const line = turnSparks(series(1000), 100);
    expect(line).toMatch(/\(\d+\/cell\)$/);
    expect(displayWidth(line)).toBeLessThanOrEqual(100);
  });

  it('drops the time, then everything, as the width narrows; never wider than asked', () => {
    for (let w = 0; w <= 160; w++) expect(displayWidth(turnSparks(series(200), w))).toBeLessThanOrEqual(w);
    expect(turnSparks(series(200), 40)).toMatch(/^tokens\/turn \S+ peak 400/);
    expect(turnSparks(series(200), 40)).not.toContain('time/turn');
    expect(turnSparks(series(200), 12)).toBe('');
    expect(turnSparks([], 100)).toBe('');
  });
});
