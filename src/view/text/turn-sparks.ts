// The line of sparklines a session's turns get (the Turns header, each side
// of Compare): tokens per turn and time per turn, each with its peak (past a column a turn, a cell is the largest of N turns: N/cell), fitted
// to a width. Narrower, the time's goes first, then the peaks; too narrow
// for a readable sparkline, the line is empty. Pure.
import type { TurnPoint } from '../../session/turn-series.js';
import { compact } from '../../session/usage.js';
import { durationText } from './duration.js';
import { buckets, sparkline } from './sparkline.js';

/** Fewer cells than this say nothing. */
const MIN_CELLS = 4;

const peakOf = (xs: ReadonlyArray<number | undefined>): number => xs.reduce<number>((m, v) => (v !== undefined && v > m ? v : m), 0);

/** `tokens/turn ▁▃█▂ peak 2.3k · time/turn ▂█▁▃ peak 4.0s`, at most `width` columns ('' when none fits). */
export function turnSparks(series: readonly TurnPoint[], width: number): string {
  if (series.length === 0) return '';
  const tokens = series.map((p) => p.tokens);
  const times = series.map((p) => p.ms);
  const tokenPeak = `peak ${compact(peakOf(tokens))}`;
  const timePeak = `peak ${durationText(peakOf(times))}`;
  const per = (cells: number) => {
    const n = buckets(tokens, cells).per;
    return n > 1 ? ` (${n}/cell)` : '';
  };
  const both = (cells: number) => `tokens/turn ${sparkline(tokens, cells)} ${tokenPeak} · time/turn ${sparkline(times, cells)} ${timePeak}${per(cells)}`;
  const alone = (cells: number) => `tokens/turn ${sparkline(tokens, cells)} ${tokenPeak}${per(cells)}`;
  // the widest that fits: both with their peaks, else the tokens alone (a cell is one column)
  for (const line of [both, alone]) {
    const words = line(0).length;
    const each = line === both ? 2 : 1;
    for (let cells = Math.min(series.length, Math.floor((width - words) / each)); cells >= Math.min(MIN_CELLS, series.length); cells--) {
      const text = line(cells);
      if (cells > 0 && text.length <= width) return text;
    }
  }
  return '';
}
