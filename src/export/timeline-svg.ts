// A turn's timeline as an inline SVG for the HTML export: a time axis scaled
// to the turn's wall time, a row showing what ran when (model, tools, gaps),
// then one row per step, model request and tool call in the order they open
// (parallel calls overlap on their own rows). Pure: a function of the turn's
// timeline and a width. The glyphs' meanings, labels, durations and notes are
// the terminal's (timeline-layout.ts), so a span reads the same everywhere;
// kinds differ by fill and outline and by their label, legend and <title>,
// never by colour alone. Every string from the log is escaped here.
import { escHtml } from './escape.js';
import { spanLength, timeTotals, type Span, type SpanKind, type TurnTimeline } from '../session/timeline.js';
import { spanDuration, spanLabel, timelineNotes } from '../view/timeline/timeline-layout.js';
import { durationText } from '../view/text/duration.js';

/** Rows drawn per turn: a turn of tens of thousands of calls draws its first ones and says how many it leaves out. */
export const SVG_ROWS = 200;

const ROW = 16;
const BAR = 10;
const STEP_BAR = 4;
const LABEL_W = 220;
const DUR_W = 64;
/** a label's characters (11px monospace: ~6.6px each) */
const LABEL_CHARS = 32;
const CHAR_W = 6.6;
const LEGEND_Y = 12;
const AXIS_Y = 34;
const TOP = AXIS_Y + 6;

export type BarShape = 'bar' | 'open' | 'tick';

export interface SvgBar {
  x: number;
  w: number;
  shape: BarShape;
}

export interface SvgRow {
  span: Span;
  /** the row's top */
  y: number;
  label: string;
  /** a request or call, indented under its step */
  inner: boolean;
  dur: string;
  /** its tooltip: `bash npm test 5.0s (failed) · seq 12` */
  title: string;
  /** none: its opening event has no time */
  bar?: SvgBar;
}

export interface TimelineGeometry {
  width: number;
  height: number;
  /** the bar area: x0 is the turn's first time, x1 its last */
  x0: number;
  x1: number;
  ticks: Array<{ x: number; text: string }>;
  /** the turn's own row: its label, wall time, and the pixel ranges some model request or tool call covers */
  cover: { y: number; label: string; dur: string; model: Array<[number, number]>; tool: Array<[number, number]> };
  rows: SvgRow[];
  notes: Array<{ y: number; text: string }>;
}

/** Nice tick steps in ms: a round number of ms, seconds, minutes, hours, days. */
const STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5];

function tickStep(wall: number, most: number): number {
  const raw = wall / Math.max(1, most);
  for (const s of STEPS) if (s >= raw) return s;
  return Math.ceil(raw / 864e5) * 864e5;
}

const round = (x: number): number => Math.round(x * 10) / 10;

/** Text cut to `n` characters (whole code points), `…` marking the cut. */
function clip(s: string, n: number): string {
  const cps = Array.from(s);
  return cps.length <= n ? s : cps.slice(0, n - 1).join('') + '…';
}

/** Why a span's length reads as it does, for its tooltip. */
function state(s: Span): string {
  if (s.start === undefined) return ' (no time)';
  if (s.end === undefined) return ' (open: no end in the log, drawn to the turn’s last time)';
  if (s.skew) return ' (its end is before its start: the clock went back)';
  return s.failed ? ' (failed)' : '';
}

/** The union of pixel ranges (sorted here), ranges under half a pixel apart joined: at most a range per pixel, whatever the spans. */
function union(ranges: Array<[number, number]>): Array<[number, number]> {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of ranges) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 0.5) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out.map(([a, b]) => [round(a), round(Math.max(b, a + 1))]);
}

/** Where everything goes: pure numbers and raw text (timelineSvg escapes it). */
export function timelineGeometry(t: TurnTimeline, width: number, dropped = 0, maxRows = SVG_ROWS): TimelineGeometry {
  const x0 = LABEL_W;
  const x1 = Math.max(x0 + 40, width - DUR_W);
  const timed = t.start !== undefined && t.end !== undefined;
  const from = t.start ?? 0;
  const wall = timed ? t.end! - from : 0;
  const xOf = (ms: number): number => (wall > 0 ? x0 + ((ms - from) / wall) * (x1 - x0) : x0);
  const ticks: TimelineGeometry['ticks'] = [];
  if (timed) {
    const step = tickStep(wall, Math.floor((x1 - x0) / 90));
    for (let k = 0; k * step <= wall; k++) ticks.push({ x: round(xOf(from + k * step)), text: durationText(k * step) });
  }
  const totals = timeTotals(t);
  const model: Array<[number, number]> = [];
  const tool: Array<[number, number]> = [];
  if (timed)
    for (const s of t.spans) {
      if (s.kind === 'step' || s.start === undefined) continue;
      const len = spanLength(s, t.end);
      if (len > 0) (s.kind === 'model' ? model : tool).push([xOf(s.start), xOf(s.start + len)]);
    }
  const cover = { y: TOP, label: `turn ${t.turn}`, dur: timed ? durationText(totals.wall) + (t.open ? '…' : '') : 'no time', model: union(model), tool: union(tool) };
  const rows: SvgRow[] = [];
  let y = TOP + ROW;
  const drawn = Math.min(t.spans.length, Math.max(0, maxRows));
  for (let i = 0; i < drawn; i++, y += ROW) {
    const s = t.spans[i];
    const label = spanLabel(s).trim();
    const len = spanLength(s, t.end);
    let bar: SvgBar | undefined;
    if (timed && s.start !== undefined) {
      const x = xOf(s.start);
      if (s.end === undefined) bar = { x: round(x), w: round(Math.max(2, xOf(s.start + len) - x)), shape: 'open' };
      else if (s.skew || len <= 0) bar = { x: round(x), w: 0, shape: 'tick' };
      else bar = { x: round(x), w: round(Math.max(1, xOf(s.start + len) - x)), shape: 'bar' };
    }
    const title = s.start === undefined ? `${label}${state(s)} · seq ${s.seq}` : `${label} ${durationText(len)}${state(s)} · seq ${s.seq}`;
    rows.push({ span: s, y, label, inner: s.kind !== 'step', dur: spanDuration(s, t), title, ...(bar ? { bar } : {}) });
  }
  const notes: TimelineGeometry['notes'] = [];
  const note = (text: string) => {
    notes.push({ y, text });
    y += ROW;
  };
  const left = t.spans.length - drawn + dropped;
  if (left > 0) note(`${left} more span${left === 1 ? '' : 's'} not drawn (the first ${drawn} are)`);
  for (const n of timelineNotes(t)) note(n.text);
  if (!timed) note('no event of this turn has a time: nothing is placed');
  return { width, height: y + 4, x0, x1, ticks, cover, rows, notes };
}

const KIND_CLASS: Record<SpanKind, string> = { model: 'm', tool: 't', step: 's' };

/** The class of a span's bar: its kind, and open / failed / skew. */
function barClass(s: Span, shape: BarShape): string {
  const c = [KIND_CLASS[s.kind]];
  if (shape === 'open') c.push('open');
  if (shape === 'tick') c.push('tick');
  if (s.failed) c.push('fail');
  if (s.skew) c.push('skew');
  return c.join(' ');
}

function barRect(cls: string, kind: SpanKind, x: number, w: number, rowY: number): string {
  if (cls.includes('tick')) return `<rect class="${cls}" x="${round(x - 1)}" y="${rowY + 1}" width="2" height="${ROW - 2}"/>`;
  const h = kind === 'step' ? STEP_BAR : BAR;
  return `<rect class="${cls}" x="${x}" y="${rowY + (ROW - h) / 2}" width="${w}" height="${h}"/>`;
}

/** What the shapes mean, drawn as they are drawn: the colours are never the only telling. */
const LEGEND: Array<[string, SpanKind, string]> = [
  ['m', 'model', 'model request'],
  ['t', 'tool', 'tool call'],
  ['t fail', 'tool', 'failed call'],
  ['s', 'step', 'step'],
  ['m open', 'model', 'open: no end in the log'],
  ['t tick', 'tool', 'no length'],
];

function legend(): string {
  const out: string[] = ['<g class="legend">'];
  let x = 0;
  for (const [cls, kind, text] of LEGEND) {
    out.push(barRect(cls, kind, cls.includes('tick') ? x + 7 : x, 14, LEGEND_Y - ROW / 2 - 4), `<text x="${x + 18}" y="${LEGEND_Y}">${text}</text>`);
    x += 18 + Math.ceil(text.length * CHAR_W) + 16;
  }
  out.push('</g>');
  return out.join('');
}

/** The turn's timeline as `<svg>` markup, `width` wide (it scales down with the page), every log string escaped. */
export function timelineSvg(t: TurnTimeline, width: number, dropped = 0, maxRows = SVG_ROWS): string {
  const g = timelineGeometry(t, width, dropped, maxRows);
  const rowsEnd = g.rows.length ? g.rows[g.rows.length - 1].y + ROW : g.cover.y + ROW;
  const text = (x: number, y: number, s: string, cls = '') => `<text${cls ? ` class="${cls}"` : ''} x="${x}" y="${y + 12}">${escHtml(s, true)}</text>`;
  const out: string[] = [
    `<svg class="tl" viewBox="0 0 ${g.width} ${g.height}" width="${g.width}" height="${g.height}" role="img" aria-label="${escHtml(`timeline of turn ${t.turn}: ${g.rows.length} spans drawn`, true)}">`,
    legend(),
    `<g class="axis"><line x1="${g.x0}" y1="${AXIS_Y}" x2="${g.x1}" y2="${AXIS_Y}"/>`,
  ];
  for (const k of g.ticks) out.push(`<line class="grid" x1="${k.x}" y1="${AXIS_Y - 3}" x2="${k.x}" y2="${rowsEnd}"/><text x="${k.x}" y="${AXIS_Y - 6}">${k.text}</text>`);
  out.push('</g>');
  // the turn's row: tools under the model where both ran (as the terminal's)
  out.push(`<g class="cover"><title>${escHtml(`turn ${t.turn}: what ran when (model requests, tool calls; blank: neither)`, true)}</title>`, text(0, g.cover.y, g.cover.label));
  for (const [a, b] of g.cover.tool) out.push(`<rect class="t" x="${a}" y="${g.cover.y + 3}" width="${round(b - a)}" height="${BAR}"/>`);
  for (const [a, b] of g.cover.model) out.push(`<rect class="m" x="${a}" y="${g.cover.y + 3}" width="${round(b - a)}" height="${BAR}"/>`);
  out.push(text(g.width, g.cover.y, g.cover.dur, 'd'), '</g>');
  for (const r of g.rows) {
    const s = r.span;
    out.push(`<g><title>${escHtml(r.title, true)}</title>`);
    if (r.bar) out.push(barRect(barClass(s, r.bar.shape), s.kind, r.bar.x, r.bar.w, r.y));
    out.push(text(r.inner ? 12 : 0, r.y, clip(r.label, r.inner ? LABEL_CHARS - 2 : LABEL_CHARS)), text(g.width, r.y, r.dur, 'd'), '</g>');
  }
  for (const n of g.notes) out.push(text(0, n.y, n.text, 'note'));
  out.push('</svg>');
  return out.join('\n');
}
