// What the Sessions detail pane (d) says of the selected session: its line
// (id, state, turns, events), its tokens (a fork child's own and inherited),
// and its tokens per turn as a small bar chart with its axis. Pure: the
// series comes from its turn data (the same the Turns header draws).
import type { TurnPoint } from '../../session/turn-series.js';
import { compact, usageText, withSplit } from '../../session/usage.js';
import type { Session } from '../../session/session.js';
import { barChart, buckets } from '../text/sparkline.js';
import { durationText } from '../text/duration.js';
import { sanitizeInline } from '../text/sanitize.js';

/** Rows of the chart. */
export const CHART_ROWS = 3;

export interface DetailLine {
  text: string;
  tone?: 'blue' | 'yellow' | 'red';
  dim?: boolean;
}

/** What the pane can read of the session's turns now. */
export type DetailTurns = { series: readonly TurnPoint[]; partial?: boolean } | { loading: string } | { error: string };

export function sessionDetailLines(session: Session, turns: DetailTurns, width: number): DetailLine[] {
  const f = session.facts;
  const lines: DetailLine[] = [{ text: `${sanitizeInline(session.id)} · ${session.state} · ${f.turns} turn${f.turns === 1 ? '' : 's'} · ${session.length} event${session.length === 1 ? '' : 's'}` }];
  const u = f.usage ? withSplit(f.usage, session.seedLength) : undefined;
  lines.push({ text: !u || u.messages === 0 ? 'no token usage in the log' : u.own ? `own ${usageText(u.own) || 'none'} · inherited ${usageText(u.inherited) || 'none'}` : usageText(u), tone: 'blue' });
  if ('loading' in turns) return [...lines, { text: `tokens per turn: ${turns.loading}`, tone: 'yellow' }];
  if ('error' in turns) return [...lines, { text: `tokens per turn: cannot read its turns: ${sanitizeInline(turns.error)}`, tone: 'red' }];
  const series = turns.series;
  if (series.length === 0) return [...lines, { text: 'tokens per turn: no turn yet', dim: true }];
  const tokens = series.map((p) => p.tokens);
  if (tokens.every((t) => t === 0)) return [...lines, { text: `tokens per turn: none recorded in ${series.length === 1 ? 'its turn' : `its ${series.length} turns`}`, dim: true }];
  const room = Math.max(1, width - 2);
  const chart = barChart(tokens, room, CHART_ROWS);
  for (const row of chart) lines.push({ text: row, tone: 'blue' });
  lines.push({ text: chartAxis(series, room, turns.partial), dim: true });
  return lines;
}

/** Under the chart: what it shows, its peak and where, and how many turns a column holds. */
function chartAxis(series: readonly TurnPoint[], width: number, partial?: boolean): string {
  let peak = series[0];
  for (const p of series) if (p.tokens > peak.tokens) peak = p;
  const { per } = buckets(series.map((p) => p.tokens), width);
  const first = series[0].turn;
  const last = series[series.length - 1].turn;
  const time = series.reduce((sum, p) => sum + (p.ms ?? 0), 0);
  const parts = [`tokens per turn, ${first === last ? `turn ${first}` : `turn ${first}–${last}`}`, `peak ${compact(peak.tokens)} at turn ${peak.turn}`, `${durationText(time)} in turns`];
  if (per > 1) parts.push(`${per} turns a column`);
  if (partial) parts.push('the turns read so far');
  return parts.join(' · ');
}
