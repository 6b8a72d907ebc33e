// Small charts in text: a sparkline (one row of block heights) and a bar
// chart (a few rows of them). Shape by glyph height, never by colour alone,
// so NO_COLOR reads the same. Pure.

const LEVELS = '▁▂▃▄▅▆▇█';
/** a cell with nothing (0, or no value) */
export const EMPTY_CELL = '·';

/** Values squeezed into `width` cells: each cell the largest of the values it covers (a spike stays visible). */
export function buckets(values: readonly (number | undefined)[], width: number): { cells: Array<number | undefined>; per: number } {
  const w = Math.max(0, Math.floor(width));
  if (values.length <= w) return { cells: [...values], per: 1 };
  const per = Math.ceil(values.length / Math.max(1, w));
  const cells: Array<number | undefined> = [];
  for (let i = 0; i < values.length; i += per) {
    let top: number | undefined;
    for (let j = i; j < Math.min(values.length, i + per); j++) {
      const v = values[j];
      if (v !== undefined && (top === undefined || v > top)) top = v;
    }
    cells.push(top);
  }
  return { cells, per };
}

function peak(cells: readonly (number | undefined)[]): number {
  let max = 0;
  for (const v of cells) if (v !== undefined && v > max) max = v;
  return max;
}

/** One row: `▁▃█▂·` — each value's height against the largest; any value above 0 shows at least ▁. */
export function sparkline(values: readonly (number | undefined)[], width: number): string {
  const { cells } = buckets(values, width);
  const max = peak(cells);
  let out = '';
  for (const v of cells) out += v === undefined || v <= 0 || max <= 0 ? EMPTY_CELL : LEVELS[Math.min(7, Math.max(0, Math.ceil((v / max) * 8) - 1))];
  return out;
}

/**
 * `height` rows of vertical bars, top row first: each value's height in
 * eighths of a row against the largest. A cell with nothing is `·` on the
 * bottom row.
 */
export function barChart(values: readonly (number | undefined)[], width: number, height: number): string[] {
  const { cells } = buckets(values, width);
  const max = peak(cells);
  const rows: string[] = [];
  for (let r = height - 1; r >= 0; r--) {
    let line = '';
    for (const v of cells) {
      if (v === undefined || v <= 0 || max <= 0) {
        line += r === 0 ? EMPTY_CELL : ' ';
        continue;
      }
      const eighths = Math.max(1, Math.round((v / max) * height * 8));
      const here = eighths - r * 8;
      line += here >= 8 ? '█' : here <= 0 ? ' ' : LEVELS[here - 1];
    }
    rows.push(line);
  }
  return rows;
}
