// A turn's timeline as rows of text: each step, model request and tool call
// a bar on one time axis scaled to the width, under a row that shows where
// the turn's time went (model, tools, gaps). Pure, and the one owner of what
// each glyph means (timelineLegend says it on screen):
//   █ a model request   ▒ a tool call   ─ a step   · a gap (neither)
//   ░…▸ open: no closing event yet, drawn to the turn's latest time
//   │ no length (zero, or its end is before its start: the clock went back)
// Colour only helps; the glyphs alone tell the kinds apart (NO_COLOR).
import { spanLength, timeTotals, type Span, type TimeTotals, type TurnTimeline } from '../../session/timeline.js';
import { durationText } from '../text/duration.js';

export type TimelineRow =
  | { kind: 'axis'; label: string; bar: string; dur: string }
  | { kind: 'span'; span: Span; label: string; bar: string; dur: string }
  | { kind: 'note'; text: string; seq?: number };

export interface TimelineLayout {
  rows: TimelineRow[];
  /** columns of the label, the bar and the duration (the view pads to them) */
  labelWidth: number;
  barWidth: number;
  durWidth: number;
  totals: TimeTotals;
}

export const GLYPH = { model: '█', tool: '▒', step: '─', gap: '·', open: '░', openEnd: '▸', tick: '│' } as const;

export const timelineLegend = `${GLYPH.model} model  ${GLYPH.tool} tool  ${GLYPH.step} step  ${GLYPH.gap} gap  ${GLYPH.open}${GLYPH.openEnd} open  ${GLYPH.tick} no length`;

const DUR = 7;

/** The columns for a terminal width: the bar takes what a label and a duration leave (at least 4). */
export function timelineColumns(width: number): { labelWidth: number; barWidth: number; durWidth: number } {
  const labelWidth = Math.max(6, Math.min(30, Math.floor(width * 0.28)));
  const barWidth = Math.max(4, width - labelWidth - DUR - 4);
  return { labelWidth, barWidth, durWidth: DUR };
}

/** A span's label: a step's number; a request; a call's tool and what it worked on (indented under its step). */
export function spanLabel(s: Span): string {
  if (s.kind === 'step') return s.label;
  if (s.kind === 'model') return '  model';
  return `  ${s.label}${s.detail ? ' ' + s.detail : ''}`;
}

/** What a span's duration column says: its length, `open` and its time so far, or why it has none. */
export function spanDuration(s: Span, t: TurnTimeline): string {
  if (s.start === undefined) return 'no time';
  const ms = spanLength(s, t.end);
  const text = durationText(ms);
  if (s.end === undefined) return `${text}…`;
  if (s.skew) return `${text}⚠`;
  return s.failed ? `${text}✗` : text;
}

/** The cell a time falls in, on `cells` cells from `from` over `wall` ms. */
function cellOf(x: number, from: number, wall: number, cells: number): number {
  if (wall <= 0) return 0;
  return Math.min(cells - 1, Math.max(0, Math.floor(((x - from) / wall) * cells)));
}

/** A span's bar: blank up to its start, its glyph over its length (at least one cell), then blank. */
export function spanBar(s: Span, t: TurnTimeline, cells: number): string {
  if (s.start === undefined || t.start === undefined || t.end === undefined) return ' '.repeat(cells);
  const wall = t.end - t.start;
  const a = cellOf(s.start, t.start, wall, cells);
  const open = s.end === undefined;
  const end = s.end ?? t.end;
  // the last cell it reaches: a length that ends exactly on a cell's edge does not reach into the next
  const b = wall <= 0 ? a : Math.max(a, Math.min(cells - 1, Math.ceil(((end - t.start) / wall) * cells) - 1));
  let body: string;
  if (open) body = b > a ? GLYPH.open.repeat(b - a) + GLYPH.openEnd : GLYPH.openEnd;
  else if (end <= s.start || s.skew) body = GLYPH.tick;
  else body = (s.kind === 'model' ? GLYPH.model : s.kind === 'tool' ? GLYPH.tool : GLYPH.step).repeat(b - a + 1);
  return ' '.repeat(a) + body + ' '.repeat(Math.max(0, cells - a - body.length));
}

/** The turn's row: per cell, what ran there — model █, a tool ▒ (where both, the model), nothing ·. */
export function coverageBar(t: TurnTimeline, cells: number): string {
  if (t.start === undefined || t.end === undefined) return ' '.repeat(cells);
  const wall = t.end - t.start;
  const what = new Uint8Array(cells); // 0 gap, 1 tool, 2 model
  for (const s of t.spans) {
    if (s.kind === 'step' || s.start === undefined) continue;
    const a = cellOf(s.start, t.start, wall, cells);
    const end = s.end ?? t.end;
    const b = wall <= 0 ? a : Math.max(a, Math.min(cells - 1, Math.ceil(((end - t.start) / wall) * cells) - 1));
    const v = s.kind === 'model' ? 2 : 1;
    for (let i = a; i <= b; i++) if (what[i] < v) what[i] = v;
  }
  let out = '';
  for (const v of what) out += v === 2 ? GLYPH.model : v === 1 ? GLYPH.tool : GLYPH.gap;
  return out;
}

/** The rows of `t` at `width` columns: the turn's row, every span, then the notes (time going back, events without a time, spans not kept). */
export function timelineRows(t: TurnTimeline, width: number, dropped = 0): TimelineLayout {
  const cols = timelineColumns(width);
  const totals = timeTotals(t);
  const rows: TimelineRow[] = [{ kind: 'axis', label: `turn ${t.turn}`, bar: coverageBar(t, cols.barWidth), dur: t.start === undefined ? 'no time' : durationText(totals.wall) + (t.open ? '…' : '') }];
  for (const s of t.spans) rows.push({ kind: 'span', span: s, label: spanLabel(s), bar: spanBar(s, t, cols.barWidth), dur: spanDuration(s, t) });
  rows.push(...timelineNotes(t));
  if (dropped > 0) rows.push({ kind: 'note', text: `${dropped} later spans not drawn (a turn keeps its first ${t.spans.length})` });
  return { rows, ...cols, totals };
}

/** The notes under a turn's bars: each place its time goes back, and its events without a time (the export's pictures say the same). */
export function timelineNotes(t: TurnTimeline): Array<Extract<TimelineRow, { kind: 'note' }>> {
  const notes: Array<Extract<TimelineRow, { kind: 'note' }>> = [];
  for (const k of t.skews) notes.push({ kind: 'note', text: `⚠ time goes back ${durationText(k.back)} at seq ${k.seq}`, seq: k.seq });
  if (t.skewCount > t.skews.length) notes.push({ kind: 'note', text: `⚠ and ${t.skewCount - t.skews.length} more places where time goes back` });
  if (t.untimed > 0) notes.push({ kind: 'note', text: `${t.untimed} event${t.untimed === 1 ? '' : 's'} without a time (not placed)` });
  return notes;
}

/** The summary over the rows: where the time went; and the longest call, if any. */
export function timelineSummary(totals: TimeTotals, t: TurnTimeline): { times: string; longest?: string } {
  const times = [`wall ${durationText(totals.wall)}`, `model ${durationText(totals.model)}`, `tools ${durationText(totals.tool)}`, `gaps ${durationText(totals.gaps)}`].join(' · ');
  const l = totals.longest;
  if (!l) return { times };
  return { times, longest: `longest call: ${l.label}${l.detail ? ' ' + l.detail : ''} · ${durationText(spanLength(l, t.end))}${l.end === undefined ? ' so far (open)' : ''} · seq ${l.seq}` };
}
