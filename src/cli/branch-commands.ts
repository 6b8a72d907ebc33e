// The headless `diff` and `export` commands.
import { compareSessions, comparisonJson } from '../session/compare.js';
import { safeStringify } from '../session/json-safe.js';
import type { Session } from '../session/session.js';
import type { RootIndex } from '../storage/load-root.js';
import { compareHeader, compareRows, renderCompareRow } from '../view/comparison/compare-model.js';
import { exportText, isExportFormat, EXPORT_FORMATS } from '../export/export.js';
import { jsonSafe } from '../export/escape.js';
import { UsageError, writeFromLog, type Out } from './commands.js';
import { painter } from './format.js';
import { batched } from './batched.js';
import { jsonWithStreamedArray } from './json-out.js';

export const DIFF_HELP = `dsh-browse diff [--dir DIR] A B [--json]
  Compares two sessions (ids or files) from their common ancestor: the nearest
  session both descend from through fork edges, and the last seq where their
  logs agree. Then each branch's own turns side by side (prompt, tool calls,
  end reason, tokens, duration), equal turns folded into one row, totals, and
  the files each branch wrote or edited on its own: only one branch, or both
  and whether they ended the same (see dsh-browse changes --help).
  --json: {ancestor: {id, file, seq} | null, prefix, sharedTurns, files: [{path, verdict}],
           left: {id, file, turns: [{turn, prompt, tools: [{name, args, error}], reason, usage, ms, …}], totals,
                  changes: {files, commands, unknown}},
           right: {…}}`;

export const EXPORT_HELP = `dsh-browse export [--dir DIR] --session ID [--at SEQ] [--format md|html|json]
  Writes a readable transcript of the session (up to seq SEQ inclusive) to
  stdout: the lineage line, prompts, assistant text, tool calls with their
  results, turn end reasons and fork boundaries, then the changes: the files
  it wrote or edited with their diffs, and the commands it ran. Default
  format: md. HTML is one self-contained file (no scripts, no network);
  every string from the log is escaped for its format.`;

export async function cmdDiff(index: RootIndex, a: Session, b: Session, out: Out, width = 120): Promise<number> {
  // the logs are read inside the pieces, so a read that fails is a ReadFailure (exit 1) like export's
  await writeFromLog(out, b, batched(diffText(index, a, b, out, width)));
  return 0;
}

/** The diff, written a row (or a turn of the JSON) at a time: the comparison holds a summary per turn, the output is never one string. */
function* diffText(index: RootIndex, a: Session, b: Session, out: Out, width: number): Generator<string> {
  const c = compareSessions(a, b, index.store.list());
  if (out.json) {
    const stringify = (v: unknown) => jsonSafe(safeStringify(v, 2));
    const { left, right, ...head } = comparisonJson(c);
    const top = stringify(head);
    yield top.slice(0, -2) + ',\n  "left": ';
    for (const piece of jsonWithStreamedArray(left, 'turns', left.turns, stringify)) yield piece.replace(/\n/g, '\n  ');
    yield ',\n  "right": ';
    for (const piece of jsonWithStreamedArray(right, 'turns', right.turns, stringify)) yield piece.replace(/\n/g, '\n  ');
    yield '\n}\n';
    return;
  }
  const p = painter(out.color);
  const w = Math.max(40, width);
  const [anc, names] = compareHeader(c, w);
  yield p('bold', anc.trimEnd()) + '\n' + p('bold', names.trimEnd()) + '\n' + '─'.repeat(w) + '\n';
  for (const row of compareRows(c)) {
    const lines = renderCompareRow(c, row, w).map((l) => l.trimEnd());
    const color = row.kind === 'equal' || row.kind === 'shared' ? 'gray' : row.kind === 'totals' ? 'bold' : undefined;
    if (row.kind === 'totals') yield '─'.repeat(w) + '\n';
    yield lines.map((l) => (color ? p(color, l) : l)).join('\n') + '\n';
  }
}

export async function cmdExport(index: RootIndex, s: Session, at: number | undefined, format: string | undefined, out: Out): Promise<number> {
  const f = format ?? 'md';
  if (!isExportFormat(f)) throw new UsageError(`--format expects one of ${EXPORT_FORMATS.join(', ')}, got ${JSON.stringify(f)}`);
  if (at !== undefined && (at < 0 || at >= s.length)) throw new UsageError(`--at ${at} is outside the log (seqs 0–${s.length - 1})`);
  await writeFromLog(out, s, exportText(s, index.store.list(), f, at));
  return 0;
}
