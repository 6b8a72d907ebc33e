// The headless `stats` command: where each session's time and tokens went,
// and the total, from its log read once (src/session/session-stats.ts).
// Each session is written when its log has been read: a root of many
// sessions, or one of any size, holds one session's figures at a time.
import { safeStringify } from '../session/json-safe.js';
import type { Session } from '../session/session.js';
import { sessionStats, statsJson, StatsTotal, type SessionStats, type StatsPart, type TokenStats, type ToolStats } from '../session/session-stats.js';
import { SPANS_KEPT } from '../session/timeline.js';
import { compact } from '../session/usage.js';
import { jsonSafe } from '../export/escape.js';
import { durationText } from '../view/text/duration.js';
import { displayWidth } from '../view/text/sanitize.js';
import { asReadFailure, kindLabel, writePieces, type Out } from './commands.js';
import { cell, painter, stripAnsi } from './format.js';
import { batched } from './batched.js';

export const STATS_HELP = `dsh-browse stats [--dir DIR] [SESSION] [--json]
  Where each session's time and tokens went, from its log: its turns; their
  wall time split into model requests, tool calls (the wall time some call
  ran) and gaps (neither: hooks, the harness, the person); its slowest tools
  (calls, failed, total time, the longest call and its seq); its tokens in,
  out and cached; and its failed calls (tool results flagged as errors). A
  fork child's seed is set apart as inherited. SESSION (an id or a file):
  that session only; without it every session under DIR, then the total,
  where every event counts once (a fork child adds its own part only).
  --json: {sessions: [{id, file, kind, seedLength?, turns, time: {wall, model,
           tool, gaps, toolCalls}, calls, failed, tokens: {input, output,
           cacheRead, spent, messages}, tools: [{name, calls, failed, ms,
           longest, longestSeq}], inherited?, own?}],
           total: {sessions, turns, time, calls, failed, tokens, tools}}`;

/** The tools a text block lists, slowest call first. */
const TOOLS_SHOWN = 5;

/** `sessions`: the root's (the total follows them) or the one asked for (`total` false: text without it). */
export async function cmdStats(sessions: readonly Session[], out: Out, total = true): Promise<number> {
  await writePieces(out, batched(out.json ? statsJsonText(sessions) : statsText(sessions, out, total)));
  return 0;
}

/** The session's stats, its log read once; a log that could not be read is a ReadFailure naming it. */
function readStats(s: Session): SessionStats {
  try {
    return sessionStats(s);
  } catch (e) {
    throw asReadFailure(e, s);
  }
}

const where = (s: Session) => ({ session: s.id, ...(s.file !== undefined ? { file: s.file } : {}) });

/** `{sessions: [...], total}` laid out as JSON.stringify(…, null, 2) would, a session at a time. */
function* statsJsonText(sessions: readonly Session[]): Generator<string> {
  const total = new StatsTotal();
  const json = (v: unknown, indent: string) => jsonSafe(safeStringify(v, 2)).replace(/\n/g, '\n' + indent);
  yield '{\n  "sessions": [';
  let first = true;
  for (const s of sessions) {
    const st = readStats(s);
    total.add(st, where(s));
    yield `${first ? '' : ','}\n    ${json(statsJson({ id: s.id, file: s.file, kind: s.kind, seedLength: s.kind === 'fork' ? s.seedLength : undefined }, st), '    ')}`;
    first = false;
  }
  yield `${first ? ']' : '\n  ]'},\n  "total": ${json(total.result(), '  ')}\n}\n`;
}

type Paint = ReturnType<typeof painter>;

function* statsText(sessions: readonly Session[], out: Out, withTotal: boolean): Generator<string> {
  const p = painter(out.color);
  const total = new StatsTotal();
  // a blank line between blocks
  let gap = '';
  for (const s of sessions) {
    const st = readStats(s);
    total.add(st, where(s));
    yield gap + sessionBlock(s, st, p);
    gap = '\n';
  }
  if (!withTotal) return;
  const t = total.result();
  const head = `${p('bold', 'total')}  ${t.sessions} session${t.sessions === 1 ? '' : 's'}, ${counts(t, p)}`;
  yield gap + [head, p('gray', "  (each event once: a fork child adds its own part, not its seed)"), ...figures(t), ...toolLines(t.tools, p, true)].join('\n') + '\n';
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function counts(x: StatsPart, p: Paint, inheritedTurns?: number): string {
  const turns = plural(x.turns, 'turn') + (inheritedTurns ? ` (${inheritedTurns} inherited)` : '');
  return `${turns}, ${plural(x.calls, 'call')}${x.failed ? `, ${p('red', `${x.failed} failed`)}` : ''}`;
}

function sessionBlock(s: Session, st: SessionStats, p: Paint): string {
  const kind = s.kind === 'root' ? '' : `  ${kindLabel(s)}${s.kind === 'fork' ? `@${s.seedLength}` : ''}`;
  const split = st.own && st.inherited ? [tokenRow('  own', st.own.tokens), tokenRow('  inherited', st.inherited.tokens)] : [];
  const name = `${p('bold', cell(s.id, 40))}${kind}`;
  const said = counts(st, p, st.inherited?.turns);
  // the counts beside the name when the line fits in 80 columns, else under it
  const lines = displayWidth(stripAnsi(name + said)) + 2 <= 80 ? [`${name}  ${said}`] : [name, `  ${said}`];
  // a log with no turn and no message (a header only) has nothing more to say
  if (st.turns > 0 || st.tokens.messages > 0) lines.push(...figures(st, split));
  if (st.clockBack) lines.push(p('yellow', `  the log's time goes back in ${plural(st.clockBack, 'turn')}: their times are not to be trusted`));
  if (st.notTimed) lines.push(p('yellow', `  ${plural(st.notTimed, 'span')} past a turn's first ${SPANS_KEPT} not timed`));
  lines.push(...toolLines(st.tools, p, false));
  return lines.join('\n') + '\n';
}

/** The time and tokens lines (and `more` rows of tokens: a fork child's parts), their columns aligned. */
function figures(x: StatsPart, more: string[][] = []): string[] {
  const t = x.time;
  const time = ['  time', `wall ${durationText(t.wall)}`, `model ${durationText(t.model)}`, `tool ${durationText(t.tool)}`, `gaps ${durationText(t.gaps)}`];
  return aligned([time, tokenRow('  tokens', x.tokens), ...more], Infinity);
}

const tokenRow = (label: string, t: TokenStats): string[] => [label, `in ${compact(t.input)}`, `out ${compact(t.output)}`, `cached ${compact(t.cacheRead)}`];

/** The slowest tools as a table (in a total, with the session of the longest call). */
function toolLines(tools: readonly ToolStats[], p: Paint, total: boolean): string[] {
  if (tools.length === 0) return [];
  const rows = [['  slowest', 'calls', 'failed', 'total', 'longest', total ? 'in' : 'at'].map((h, i) => (i === 0 ? h : p('gray', h)))];
  for (const t of tools.slice(0, TOOLS_SHOWN)) {
    const at = total ? `${cell(t.session, 24)} #${t.longestSeq}` : `#${t.longestSeq}`;
    rows.push([`  ${cell(t.name, total ? 16 : 24)}`, String(t.calls), t.failed ? p('red', String(t.failed)) : '0', durationText(t.ms), durationText(t.longest), at]);
  }
  const more = tools.length > TOOLS_SHOWN ? [p('gray', `  … ${plural(tools.length - TOOLS_SHOWN, 'more tool')}`)] : [];
  return [...aligned(rows, 1, 5), ...more];
}

/**
 * Rows of already-sanitised cells, aligned by display width: the columns from
 * `rightFrom` (up to `rightTo`, exclusive) to the right, the others to the left;
 * the last column is not padded.
 */
function aligned(rows: readonly string[][], rightFrom: number, rightTo = Infinity): string[] {
  const w: number[] = [];
  for (const r of rows) r.forEach((c, i) => (w[i] = Math.max(w[i] ?? 0, displayWidth(stripAnsi(c)))));
  return rows.map((r) =>
    r
      .map((c, i) => {
        const pad = ' '.repeat(Math.max(0, w[i] - displayWidth(stripAnsi(c))));
        if (i >= rightFrom && i < rightTo) return pad + c;
        return i === r.length - 1 ? c : c + pad;
      })
      .join('  ')
      .trimEnd(),
  );
}
