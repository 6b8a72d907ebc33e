// A per-turn bar chart as an inline SVG for the HTML export: a bar a turn
// (tokens, or time), its height against the largest, its value in its
// <title>. A session of thousands of turns is drawn in at most CHART_BARS
// bars, each the largest of the turns it stands for (buckets, as the
// terminal's sparklines squeeze them). Pure: a function of the series and a
// width.
import { escHtml } from './escape.js';
import { buckets } from '../view/text/sparkline.js';

export const CHART_BARS = 240;

const LEFT = 56;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 18;
/** a bar's widest: a few turns draw as bars, not as blocks across the page */
const WIDEST = 40;

/** What a chart shows and how it says its values. */
export interface ChartText {
  /** a value in full, for a bar's <title>: `12345 tokens` */
  value: (v: number) => string;
  /** a value short, for the axis: `12k` */
  short: (v: number) => string;
  /** what a turn without a value has: `no usable time` */
  none: string;
  /** what the chart shows, for a screen reader */
  label: string;
}

export interface ChartBar {
  x: number;
  w: number;
  y: number;
  h: number;
  /** `turn 3: 12345 tokens`, `turns 3–5: at most 4.2s` */
  title: string;
  /** no value (a turn without a usable time) or 0: a mark on the base line */
  none: boolean;
}

export interface ChartGeometry {
  width: number;
  height: number;
  /** the plot's base line and top */
  base: number;
  top: number;
  left: number;
  right: number;
  bars: ChartBar[];
  /** turns per bar */
  per: number;
  /** the axis's words: the largest value, and the first and last turn */
  maxText: string;
  firstTurn?: number;
  lastTurn?: number;
}

const round = (x: number): number => Math.round(x * 10) / 10;

/** `turns[i]` is the number of the turn whose value is `values[i]`. */
export function turnChartGeometry(turns: readonly number[], values: readonly (number | undefined)[], width: number, height: number, text: ChartText): ChartGeometry {
  const { cells, per } = buckets(values, CHART_BARS);
  let max = 0;
  for (const v of cells) if (v !== undefined && v > max) max = v;
  const left = LEFT;
  const right = width - RIGHT;
  const top = TOP;
  const base = height - BOTTOM;
  const slot = cells.length ? Math.min(WIDEST, (right - left) / cells.length) : 0;
  const bars: ChartBar[] = cells.map((v, i) => {
    const a = i * per;
    const b = Math.min(turns.length, a + per) - 1;
    const which = a === b ? `turn ${turns[a]}` : `turns ${turns[a]}–${turns[b]}`;
    const title = `${which}: ${v === undefined ? text.none : (a === b ? '' : 'at most ') + text.value(v)}`;
    const w = round(Math.max(1, slot - (slot >= 4 ? 1 : 0)));
    const x = round(left + i * slot);
    if (v === undefined || v <= 0 || max <= 0) return { x, w, y: base - 1, h: 1, title, none: true };
    const h = round(Math.max(1, (v / max) * (base - top)));
    return { x, w, y: round(base - h), h, title, none: false };
  });
  const end = round(left + cells.length * slot);
  // as wide as its bars (and room for the axis's words): a few turns make a small picture
  return { width: Math.min(width, Math.max(160, end + RIGHT)), height, base, top, left, right: end, bars, per, maxText: text.short(max), ...(turns.length ? { firstTurn: turns[0], lastTurn: turns[turns.length - 1] } : {}) };
}

/** The chart as `<svg>` markup. */
export function turnChartSvg(turns: readonly number[], values: readonly (number | undefined)[], width: number, height: number, text: ChartText): string {
  const g = turnChartGeometry(turns, values, width, height, text);
  const out: string[] = [
    `<svg class="chart" viewBox="0 0 ${g.width} ${g.height}" width="${g.width}" height="${g.height}" role="img" aria-label="${escHtml(text.label, true)}">`,
    `<line class="axis" x1="${g.left}" y1="${g.base}" x2="${g.right}" y2="${g.base}"/><line class="axis" x1="${g.left}" y1="${g.top}" x2="${g.left}" y2="${g.base}"/>`,
    `<text class="y" x="${g.left - 4}" y="${g.top + 8}">${escHtml(g.maxText, true)}</text><text class="y" x="${g.left - 4}" y="${g.base}">0</text>`,
  ];
  if (g.firstTurn !== undefined) out.push(`<text x="${g.left}" y="${g.height - 4}">turn ${g.firstTurn}</text>`);
  if (turns.length > 1) out.push(`<text class="d" x="${g.right}" y="${g.height - 4}">turn ${g.lastTurn}</text>`);
  for (const b of g.bars) out.push(`<rect class="${b.none ? 'none' : 'v'}" x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}"><title>${escHtml(b.title, true)}</title></rect>`);
  out.push('</svg>');
  return out.join('\n');
}
