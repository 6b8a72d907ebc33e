// The export's pictures: a turn's timeline as SVG (parallel calls on their own
// overlapping rows, a zero-length call as a tick, an open call drawn dashed to
// the turn's end, the clock going back noted, rows capped for a huge turn),
// every log string escaped in its text and <title>; the per-turn charts; and
// the per-turn series as each format writes it (the Markdown sparklines, the
// HTML charts, the JSON totals), reckoned as turnSeries reckons it.
import { afterAll, describe, expect, it } from 'vitest';
import { timeTotals, turnTimeline } from '../../src/session/timeline.js';
import { timelineGeometry, timelineSvg, SVG_ROWS } from '../../src/export/timeline-svg.js';
import { CHART_BARS, turnChartGeometry, turnChartSvg } from '../../src/export/turn-chart-svg.js';
import { exportSession } from '../../src/export/export.js';
import { buildTurnTree } from '../../src/session/replay.js';
import { turnSeries } from '../../src/session/turn-series.js';
import { usageOfSeqs } from '../../src/session/usage.js';
import { sparkline } from '../../src/view/text/sparkline.js';
import { durationText } from '../../src/view/text/duration.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, copyDir, SAMPLE_DIR, tmpDir } from '../support/fixtures.js';
import { HOSTILE_PROMPT, HOSTILE_TOOL, PWN, writeHostile } from './hostile-log.js';
import { FIRST_STEP, T0, call, result, turn } from '../support/timeline-turn.js';

afterAll(cleanupTmp);

/**
 * 10 s: a request, two overlapping calls (one failed), a zero-length call;
 * a second step whose call never ends and whose request ends before it
 * starts (the clock went back 1 s).
 */
const SYNTH = () =>
  turn([
    ...FIRST_STEP,
    ['step/start', T0 + 8000, { turn: 3, step: 2 }],
    ['tool/call', T0 + 8500, call('o', 'bash', { command: 'sleep 100' })],
    ['assistant/message', T0 + 7500, {}],
    ['turn/end', T0 + 10_000, { turn: 3, reason: { kind: 'completed' } }],
  ]);

const W = 900;

describe('a turn timeline as SVG', () => {
  const t = SYNTH();
  const g = timelineGeometry(t, W);
  const scale = (g.x1 - g.x0) / 10_000;
  const row = (label: string) => g.rows.find((r) => r.label === label)!;

  it('scales each bar to the turn: x at its start, width its length', () => {
    expect(g.x0).toBeLessThan(g.x1);
    expect(g.x1).toBeLessThanOrEqual(W);
    const bash = row('bash npm test');
    expect(bash.bar).toEqual({ x: g.x0 + 2000 * scale, w: 5000 * scale, shape: 'bar' });
    expect(row('model').bar).toEqual({ x: g.x0, w: 2000 * scale, shape: 'bar' });
    for (const r of g.rows) if (r.bar) expect(r.bar.x + r.bar.w).toBeLessThanOrEqual(g.x1 + 0.05);
  });

  it('parallel calls overlap in time on rows of their own', () => {
    const a = row('bash npm test');
    const b = row('read src/app.ts');
    expect(a.y).not.toBe(b.y);
    expect(b.bar!.x).toBeLessThan(a.bar!.x + a.bar!.w);
    expect(a.bar!.x).toBeLessThan(b.bar!.x + b.bar!.w);
    expect(new Set(g.rows.map((r) => r.y)).size).toBe(g.rows.length);
  });

  it('a zero-length call is a tick; an open call runs dashed to the turn’s end; a request that ends before it starts is a tick and a note', () => {
    expect(row('noop').bar).toMatchObject({ x: g.x0 + 2500 * scale, shape: 'tick' });
    const open = row('bash sleep 100');
    expect(open.bar).toMatchObject({ x: g.x0 + 8500 * scale, shape: 'open' });
    expect(open.bar!.x + open.bar!.w).toBeCloseTo(g.x1, 1);
    expect(open.dur).toBe('1.5s…');
    const skewed = g.rows.filter((r) => r.span.skew);
    expect(skewed.map((r) => [r.label, r.bar?.shape])).toEqual([['model', 'tick']]);
    expect(g.notes.map((n) => n.text)).toContain('⚠ time goes back 1.0s at seq 12');
    const svg = timelineSvg(t, W);
    expect(svg).toMatch(/<rect class="t open" [^>]*\/>/);
    expect(svg).toMatch(/<rect class="m tick skew" [^>]*width="2"/);
    expect(svg).toContain('<text class="note" x="0"');
  });

  it('tells model from tool by more than colour: a legend, each row’s label, and a <title> saying what, how long and how it ended', () => {
    const svg = timelineSvg(t, W);
    for (const word of ['model request', 'tool call', 'failed call', 'step', 'open: no end in the log', 'no length']) expect(svg).toContain(`>${word}</text>`);
    expect(svg).toContain('<title>bash npm test 5.0s (failed) · seq 3</title>');
    expect(svg).toContain('<rect class="t fail"');
    expect(svg).toContain('<title>model 2.0s · seq 2</title>');
    expect(svg).toMatch(/<title>bash sleep 100 1\.5s \(open: no end in the log[^<]*\) · seq 11<\/title>/);
    expect(svg).toMatch(/>bash npm test<\/text>\n<text class="d" x="900" y="\d+">5\.0s✗<\/text>/);
  });

  it('has a time axis from 0 to the turn’s wall time, and a row of what ran when', () => {
    expect(g.ticks[0]).toEqual({ x: g.x0, text: '0ms' });
    expect(g.ticks.map((k) => k.text)).toEqual(['0ms', '2.0s', '4.0s', '6.0s', '8.0s', '10.0s']);
    for (const k of g.ticks) expect(k.x).toBeLessThanOrEqual(g.x1);
    expect(g.cover.dur).toBe(durationText(timeTotals(t).wall));
    // tools ran from 2 s to 7 s and from 8.5 s on; the model from 0 to 2 s (the skewed request has no length)
    expect(g.cover.tool).toEqual([
      [g.x0 + 2000 * scale, g.x0 + 7000 * scale],
      [g.x0 + 8500 * scale, g.x1],
    ]);
    expect(g.cover.model).toEqual([[g.x0, g.x0 + 2000 * scale]]);
  });

  it('draws a huge turn’s first rows and says how many it leaves out', () => {
    const rows: Array<[string, number, object?]> = [['turn/start', T0, { turn: 1 }], ['step/start', T0, { step: 1 }]];
    for (let i = 0; i < 5000; i++) rows.push(['tool/call', T0 + i, call(`c${i}`, 'bash', { command: `echo ${i}` })], ['tool/result', T0 + i + 3, result(`c${i}`)]);
    const big = turn(rows);
    const gb = timelineGeometry(big, W, 7);
    expect(gb.rows.length).toBe(SVG_ROWS);
    expect(gb.notes[0].text).toBe(`${5001 - SVG_ROWS + 7} more spans not drawn (the first ${SVG_ROWS} are)`);
    // the turn's row still covers every call: at most a range a pixel
    expect(gb.cover.tool.length).toBeLessThanOrEqual(W);
    expect(timelineSvg(big, W, 7).length).toBeLessThan(100_000);
  });

  it('a turn without times or of no length draws no NaN: ticks and notes instead', () => {
    const flat = turn([
      ['turn/start', T0, { turn: 1 }],
      ['step/start', T0, { step: 1 }],
      ['tool/call', T0, call('a', 'bash')],
      ['tool/result', T0, result('a')],
      ['turn/end', T0, {}],
    ]);
    const gf = timelineGeometry(flat, W);
    // the step has no step/end (open, drawn as a stub at its start); the call took no time
    expect(gf.rows.map((r) => r.bar?.shape)).toEqual(['open', 'tick']);
    const untimed = turn([
      ['turn/start', 0, { turn: 1 }],
      ['step/start', 0, { step: 1 }],
      ['tool/call', 0, call('a', 'bash')],
    ]);
    const gu = timelineGeometry(untimed, W);
    expect(gu.rows.every((r) => r.bar === undefined && r.dur === 'no time')).toBe(true);
    expect(gu.notes.map((n) => n.text)).toContain('no event of this turn has a time: nothing is placed');
    for (const x of [flat, untimed]) expect(timelineSvg(x, W)).not.toMatch(/NaN|Infinity|undefined/);
  });
});

/** Every tag in `svg` is one of the drawing's own, with only its own attributes, and no attribute value holds a quote or an angle bracket. */
function onlyOwnMarkup(svg: string): void {
  for (const [tag] of svg.matchAll(/<[^>]*>/g))
    expect(tag, tag).toMatch(/^<\/?(svg|g|rect|line|text|title)((\s+(class|x|y|x1|y1|x2|y2|width|height|viewBox|role|aria-label)="[^"<>]*")*)\s*\/?>$/);
}

describe('escaping in the SVG', () => {
  const hostile = turn([
    ['turn/start', T0, { turn: 1 }],
    ['step/start', T0, { step: 1 }],
    ['tool/call', T0 + 10, call('h', HOSTILE_TOOL, { command: `"'><svg onload=alert(1)>${PWN}` })],
    ['tool/call', T0 + 20, call('p', 'bash', { command: HOSTILE_PROMPT })],
    ['tool/result', T0 + 30, result('p', true)],
  ]);

  it('a hostile tool name and command stay text in the label and the <title>', () => {
    const svg = timelineSvg(hostile, W);
    onlyOwnMarkup(svg);
    expect(svg).not.toMatch(/<(script|img|svg onload|\/?i>)/);
    const titles = [...svg.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1]);
    expect(titles.some((x) => x.startsWith('sh&quot;&gt;&lt;/text&gt;&lt;/title&gt;&lt;/svg&gt;&lt;img src=x onerror=&quot;document'))).toBe(true);
    expect(titles.some((x) => x.includes('&quot;&#39;&gt;&lt;svg onload=alert(1)&gt;&lt;script&gt;'))).toBe(true);
    // the label is cut, but escaped after the cut: no half an entity
    expect(svg).toMatch(/<text x="12" y="\d+">sh&quot;&gt;&lt;\/text&gt;&lt;\/title&gt;&lt;\/svg&gt;&lt;img…<\/text>/);
    // controls made visible (the file may be printed on a terminal); a command's first line only
    expect(svg).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
  });

  it('the per-turn chart escapes what it is told too', () => {
    const svg = turnChartSvg([1, 2], [5, undefined], W, 120, { value: (v) => `${v} <b>tokens</b>`, short: String, none: 'none"<', label: 'x"><script>' });
    onlyOwnMarkup(svg);
    expect(svg).toContain('aria-label="x&quot;&gt;&lt;script&gt;"');
    expect(svg).toContain('<title>turn 1: 5 &lt;b&gt;tokens&lt;/b&gt;</title>');
    expect(svg).toContain('<title>turn 2: none&quot;&lt;</title>');
  });
});

describe('the per-turn chart', () => {
  const text = { value: (v: number) => `${v} tokens`, short: String, none: 'no tokens', label: 'tokens per turn' };

  it('a bar a turn, its height against the largest, a missing value a mark on the base line', () => {
    const g = turnChartGeometry([1, 2, 3], [10, 40, undefined], W, 120, text);
    expect(g.per).toBe(1);
    expect(g.bars.map((b) => [b.h, b.none, b.title])).toEqual([
      [(g.base - g.top) / 4, false, 'turn 1: 10 tokens'],
      [g.base - g.top, false, 'turn 2: 40 tokens'],
      [1, true, 'turn 3: no tokens'],
    ]);
    for (const b of g.bars) expect(b.y + b.h).toBe(g.base);
    expect(g.maxText).toBe('40');
  });

  it(`thousands of turns: at most ${CHART_BARS} bars, each the largest of the turns it stands for`, () => {
    const n = 1000;
    const turns = Array.from({ length: n }, (_, i) => i + 1);
    const values = turns.map((i) => (i === 500 ? 9999 : i % 7));
    const g = turnChartGeometry(turns, values, W, 120, text);
    expect(g.bars.length).toBeLessThanOrEqual(CHART_BARS);
    expect(g.per).toBe(Math.ceil(n / CHART_BARS));
    expect(g.bars[0].title).toBe(`turns 1–${g.per}: at most ${Math.max(...values.slice(0, g.per))} tokens`);
    const from = Math.floor(499 / g.per) * g.per + 1;
    expect(g.bars.filter((b) => b.h === g.base - g.top).map((b) => b.title)).toEqual([`turns ${from}–${from + g.per - 1}: at most 9999 tokens`]);
    for (const b of g.bars) expect(b.x + b.w).toBeLessThanOrEqual(W);
  });
});

describe('the per-turn series in each format', () => {
  const dir = copyDir(SAMPLE_DIR, tmpDir());
  const index = loadRootSync(dir);
  const s = index.store.getAll('fix-flaky-retry-test')[0];
  const events = s.events;
  const at = (seq: number) => events.find((e) => e.seq === seq)?.time;
  // the owner's series, from the tree and each turn's events
  const series = turnSeries(buildTurnTree(events), (n) => ({ usage: usageOfSeqs(events, n.seq, n.lastSeq), start: at(n.seq), time: at(n.lastSeq) }));

  it('md: sparklines of tokens and time per turn, as turnSeries reckons them', () => {
    const md = exportSession(s, index.store.list(), 'md');
    expect(series.length).toBe(s.facts.turns);
    const section = md.slice(md.indexOf('## Tokens and time per turn'), md.indexOf('## Changes'));
    expect(section).toContain(`- tokens (input + output): \`${sparkline(series.map((p) => p.tokens), 60)}\` (${series.length} turns · `);
    expect(section).toContain(`- time (turn start to its last event): \`${sparkline(series.map((p) => p.ms), 60)}\` (`);
    expect(section).toMatch(/`[▁▂▃▄▅▆▇█·]{5}`/);
  });

  it('html: a timeline per turn with calls, placed in its turn, and a chart with a bar a turn', () => {
    const html = exportSession(s, index.store.list(), 'html');
    const sections = html.split('<section class="turn"').slice(1);
    expect(sections.length).toBe(series.length);
    for (const sec of sections) {
      const body = sec.slice(0, sec.indexOf('</section>'));
      expect(body).toMatch(/<figure class="timeline"><figcaption>timeline · wall [^<]+<\/figcaption>\n<svg class="tl"/);
      expect(body.indexOf('<figure class="timeline">')).toBeLessThan(body.indexOf('<div class="end">'));
    }
    const charts = html.slice(html.indexOf('<section class="series">'));
    const tokenBars = [...charts.matchAll(/<title>turn (\d+): (\d+) tokens<\/title>/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(tokenBars).toEqual(series.map((p) => [p.turn, p.tokens]));
    const timeBars = [...charts.matchAll(/<title>turn (\d+): ([^<]+)<\/title>/g)].filter((m) => !m[2].endsWith('tokens')).map((m) => m[2]);
    expect(timeBars).toEqual(series.map((p) => (p.ms === undefined ? 'no usable time' : durationText(p.ms))));
  });

  it('json: each turn block ends with its timeline’s totals', () => {
    const json = JSON.parse(exportSession(s, index.store.list(), 'json'));
    const turns = json.blocks.filter((b: { kind: string }) => b.kind === 'turn');
    expect(turns.length).toBe(series.length);
    for (const b of turns) {
      const t = turnTimeline(events.filter((e) => e.seq >= b.seq && e.seq <= b.lastSeq))!;
      const x = timeTotals(t);
      expect(Object.keys(b).slice(-2)).toEqual(['items', 'timeline']);
      expect(b.timeline).toMatchObject({ wall: x.wall, model: x.model, tool: x.tool, gaps: x.gaps, toolCalls: x.toolCalls, spans: t.spans.length, skews: t.skewCount });
    }
  });

  it('a hostile log: its tool names reach the timeline as text only', () => {
    const hd = tmpDir();
    writeHostile(hd);
    const hi = loadRootSync(hd);
    const html = exportSession(hi.store.list()[0], hi.store.list(), 'html');
    const svg = html.slice(html.indexOf('<svg class="tl"'), html.indexOf('</svg>') + 6);
    onlyOwnMarkup(svg);
    expect(svg).toContain('<title>sh&quot;&gt;&lt;/text&gt;&lt;/title&gt;&lt;/svg&gt;&lt;img src=x onerror=');
    expect(svg).toContain('<title>&lt;i&gt;tool&lt;/i&gt; echo &#39;&lt;script&gt;document.title=&#39;PWNED&#39;');
  });
});
