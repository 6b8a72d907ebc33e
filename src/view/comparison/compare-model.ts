// A comparison's rows: a Comparison -> rows the Compare view and the `diff`
// command draw, each as terminal-safe lines of an exact width. Pure (no Ink,
// no fs).
//
// Rows, top to bottom:
//   shared   the turns both logs share up to the common ancestor's seq (one row)
//   equal    a run of aligned turns equal on both sides, folded into one row
//   pair     one turn of each branch side by side (either side may be empty)
//   totals   turns, tools (errors), tokens and time per side, and their sparklines
//   files    the files each branch changed on its own (a heading), then
//   file     one file side by side: which branch changed it, +n −m, and
//            for a file both changed whether they ended the same
import type { FilePair, FileVerdict } from '../../session/branch-files.js';
import type { FileChanges } from '../../session/changes.js';
import type { Comparison } from '../../session/compare.js';
import type { TurnSummary } from '../../session/turn-summary.js';
import { compact, spentTokens, usageText, type TokenUsage } from '../../session/usage.js';
import type { TurnPoint } from '../../session/turn-series.js';
import { turnSparks } from '../text/turn-sparks.js';
import { durationText } from '../text/duration.js';
import { fit, sanitizeInline, truncate } from '../text/sanitize.js';

export type CompareRow =
  | { kind: 'shared'; key: string; turns: TurnSummary[]; lastSeq: number }
  | { kind: 'equal'; key: string; left: TurnSummary[]; right: TurnSummary[] }
  | { kind: 'pair'; key: string; left?: TurnSummary; right?: TurnSummary }
  | { kind: 'totals'; key: string }
  | { kind: 'files'; key: string }
  | { kind: 'file'; key: string; pair: FilePair };

export type Side = 'left' | 'right';

/** Rows of a comparison. Keys are stable for memoising (they name turn seqs). */
export function compareRows(c: Comparison): CompareRow[] {
  const rows: CompareRow[] = [];
  if (c.prefix > 0) rows.push({ kind: 'shared', key: 'shared', turns: c.sharedTurns, lastSeq: c.prefix - 1 });
  let run: { left: TurnSummary[]; right: TurnSummary[] } | undefined;
  const close = () => {
    if (run) rows.push({ kind: 'equal', key: `eq:${run.left[0].seq}:${run.right[0].seq}`, ...run });
    run = undefined;
  };
  for (const p of c.pairs) {
    if (p.equal && p.left && p.right) {
      run ??= { left: [], right: [] };
      run.left.push(p.left);
      run.right.push(p.right);
      continue;
    }
    close();
    rows.push({ kind: 'pair', key: `p:${p.left?.seq ?? '-'}:${p.right?.seq ?? '-'}`, ...(p.left ? { left: p.left } : {}), ...(p.right ? { right: p.right } : {}) });
  }
  close();
  rows.push({ kind: 'totals', key: 'totals' });
  rows.push({ kind: 'files', key: 'files' });
  for (const pair of c.files) rows.push({ kind: 'file', key: `f:${pair.path}`, pair });
  return rows;
}

const VERDICT_TEXT: Record<FileVerdict, string> = {
  'only left': '',
  'only right': '',
  'same text': '= same final text',
  'different text': '≠ different final text',
  'same edits': '= same edits',
  'different edits': '≠ different edits',
};

/** One side's cell of a file row: created or modified, the path, +n −m (or that this side left it alone). */
function fileCell(f: FileChanges | undefined, path: string, verdict: string): string {
  if (!f) return `  ${sanitizeInline(path)}: not changed`;
  const failed = f.edits.filter((e) => !e.inherited && e.failed).length;
  return `${f.created ? 'A' : 'M'} ${sanitizeInline(path)}  +${f.added} −${f.removed}${failed ? ` (${failed} failed)` : ''}${verdict ? `  ${verdict}` : ''}`;
}

/**
 * What Enter on a row opens: the session (by side) and the turn's first seq.
 * `shared` opens the left session at the ancestor's seq; `totals` nothing.
 */
export function rowTarget(c: Comparison, row: CompareRow, side: Side): { session: Comparison['left']['session']; seq: number } | undefined {
  const s = side === 'left' ? c.left.session : c.right.session;
  switch (row.kind) {
    case 'shared':
      return { session: s, seq: row.lastSeq };
    case 'equal':
      return { session: s, seq: (side === 'left' ? row.left : row.right)[0].seq };
    case 'pair': {
      const t = side === 'left' ? row.left : row.right;
      return t ? { session: s, seq: t.seq } : undefined;
    }
    default:
      return undefined;
  }
}

function tokens(u: TokenUsage): string {
  return u.messages ? usageText(u) : 'no usage';
}

/** The lines of one turn cell (sanitised, not yet fitted). */
export function turnCellLines(t: TurnSummary): string[] {
  const head = `T${t.turn} ${sanitizeInline(t.reason)}  ${durationText(t.ms)}  ${tokens(t.usage)}`;
  const prompt = `› ${sanitizeInline(t.prompt) || '(no prompt)'}`;
  const tools = t.tools.length
    ? t.tools.map((x) => `${sanitizeInline(x.name)}(${sanitizeInline(x.args)})${x.error ? ' ✗' : x.pending ? ' …' : ''}`).join(', ')
    : '(no tool calls)';
  return [head, prompt, `  ${tools}`];
}

const SEP = ' │ ';

/** A side's turns as the series its sparklines draw. */
const sideSeries = (turns: readonly TurnSummary[]): TurnPoint[] => turns.map((t) => ({ turn: t.turn, seq: t.seq, tokens: spentTokens(t.usage), ms: t.ms, open: t.open }));

/** Splits a width into the two column widths of a side-by-side row. */
export function columnWidths(width: number): [number, number] {
  const inner = Math.max(2, width - SEP.length);
  const l = Math.floor(inner / 2);
  return [l, inner - l];
}

/** The two columns of a side-by-side row, each line fitted to its column width. */
export function sideCells(left: string[], right: string[], width: number): { left: string[]; right: string[] } {
  const [lw, rw] = columnWidths(width);
  const n = Math.max(left.length, right.length);
  const out = { left: [] as string[], right: [] as string[] };
  for (let i = 0; i < n; i++) {
    out.left.push(fit(left[i] ?? '', lw));
    out.right.push(fit(right[i] ?? '', rw));
  }
  return out;
}

function sideBySide(left: string[], right: string[], width: number): string[] {
  const cells = sideCells(left, right, width);
  return cells.left.map((l, i) => fit(l + SEP + cells.right[i], width));
}

export const COLUMN_SEPARATOR = SEP;

/** The cells of a pair row (for a view that highlights one side), or undefined for other rows. */
export function pairCells(row: CompareRow, width: number): { left: string[]; right: string[] } | undefined {
  if (row.kind !== 'pair') return undefined;
  return sideCells(row.left ? turnCellLines(row.left) : ['(no turn)'], row.right ? turnCellLines(row.right) : ['(no turn)'], width);
}

/** Lines a row takes (what renderCompareRow returns), without rendering it. */
export function rowHeight(row: CompareRow): number {
  return row.kind === 'pair' || row.kind === 'totals' ? 3 : 1;
}

/**
 * The rows [from, to) to show in `height` lines with the cursor row visible:
 * the window moves only as far as needed to keep it in view (pass the last
 * window's `from` as `prevFrom` to keep it steady while the cursor moves inside).
 */
export function compareWindow(rows: readonly CompareRow[], cursor: number, height: number, prevFrom = 0): { from: number; to: number } {
  if (rows.length === 0 || height <= 0) return { from: 0, to: 0 };
  const cur = Math.max(0, Math.min(cursor, rows.length - 1));
  let from = Math.max(0, Math.min(prevFrom, cur));
  const fill = (f: number) => {
    let used = 0;
    let t = f;
    while (t < rows.length && used + rowHeight(rows[t]) <= height) used += rowHeight(rows[t++]);
    return Math.max(t, f + 1); // a row taller than the window still shows (clipped)
  };
  let to = fill(from);
  while (cur >= to && from < cur) to = fill(++from);
  return { from, to };
}

function turnRange(ts: TurnSummary[]): string {
  return ts.length === 1 ? `T${ts[0].turn}` : `T${ts[0].turn}–T${ts[ts.length - 1].turn}`;
}

/** The lines of a row, each exactly `width` columns (terminal-safe). */
export function renderCompareRow(c: Comparison, row: CompareRow, width: number): string[] {
  switch (row.kind) {
    case 'shared': {
      const what = c.ancestor ? `common ancestor ${sanitizeInline(c.ancestor.session.id)}` : 'no common ancestor; equal first events';
      return [fit(`≡ ${row.turns.length} shared turn(s), seq 0–${row.lastSeq} (${truncate(what, Math.max(10, width - 40))})`, width)];
    }
    case 'equal': {
      const l = row.left;
      const first = l[0];
      const label = `= ${l.length} equal turn(s) ${turnRange(row.left)} | ${turnRange(row.right)}: `;
      return [fit(label + `${sanitizeInline(first.reason)} › ${sanitizeInline(first.prompt) || '(no prompt)'}`, width)];
    }
    case 'pair':
      return sideBySide(row.left ? turnCellLines(row.left) : ['(no turn)'], row.right ? turnCellLines(row.right) : ['(no turn)'], width);
    case 'totals': {
      const side = (t: Comparison['left']['totals']) => [
        `total ${t.turns} turn(s), ${t.tools} tool call(s)${t.toolErrors ? `, ${t.toolErrors} error(s)` : ''}`,
        `${tokens(t.usage)}${t.usage.reasoning ? ` (reasoning ${compact(t.usage.reasoning)})` : ''}  ${durationText(t.ms)}`,
      ];
      // and where each branch's tokens and time went, turn by turn
      const [lw, rw] = columnWidths(width);
      return sideBySide([...side(c.left.totals), turnSparks(sideSeries(c.left.turns), lw)], [...side(c.right.totals), turnSparks(sideSeries(c.right.turns), rw)], width);
    }
    case 'files': {
      const both = c.files.filter((f) => f.left && f.right).length;
      const text = c.files.length
        ? `files each branch changed on its own: ${c.files.length} (${c.files.length - both} by one branch, ${both} by both)`
        : 'files each branch changed on its own: none';
      return [fit(text, width)];
    }
    case 'file': {
      const v = VERDICT_TEXT[row.pair.verdict];
      return sideBySide([fileCell(row.pair.left, row.pair.path, v)], [fileCell(row.pair.right, row.pair.path, v)], width);
    }
  }
}

/** The header lines: the two sessions and what they share. */
export function compareHeader(c: Comparison, width: number): string[] {
  const [lw, rw] = columnWidths(width);
  const name = (s: Comparison['left']['session'], w: number) => truncate(sanitizeInline(s.id), w);
  const anc = c.ancestor
    ? `common ancestor ${sanitizeInline(c.ancestor.session.id)}, logs agree through seq ${c.ancestor.seq}`
    : c.prefix > 0
      ? `no common ancestor; the first ${c.prefix} event(s) are equal`
      : 'no common ancestor';
  return [fit(anc, width), fit(fit(name(c.left.session, lw), lw) + SEP + name(c.right.session, rw), width)];
}
