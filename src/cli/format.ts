// Plain-text output helpers for people: aligned columns, colour only on a TTY and never under NO_COLOR.
import { ageText } from '../view/text/age.js';
import { displayWidth, sanitizeInline, truncate } from '../view/text/sanitize.js';

export function useColor(stream: NodeJS.WriteStream): boolean {
  return Boolean(stream.isTTY) && !('NO_COLOR' in process.env && process.env.NO_COLOR !== '');
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1, dim: 2 } as const;
export type Color = keyof typeof CODES;

export function painter(enabled: boolean): (c: Color, s: string) => string {
  return (c, s) => (enabled ? `\x1b[${CODES[c]}m${s}\x1b[0m` : s);
}

/** Aligns rows of already-sanitised cells; the last column is not padded. */
export function table(rows: string[][], widths?: number[]): string {
  const w = widths ?? rows.reduce<number[]>((acc, r) => r.map((c, i) => Math.max(acc[i] ?? 0, displayWidth(stripAnsi(c)))), []);
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(Math.max(0, w[i] - displayWidth(stripAnsi(c)))))).join('  ').trimEnd())
    .join('\n');
}

export const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

/** A file-derived string made safe and short for one cell. */
export const cell = (s: string | undefined, width = 60): string => truncate(sanitizeInline(s ?? ''), width);

export const age = (ms: number | undefined, now = Date.now()): string => ageText(ms, now);
