import { forkVerdict, type ForkVerdict } from '../../src/view/app/verdicts.js';
import { firstNotBefore } from '../../src/session/sorted.js';
import { APP } from '../../src/view/app/surfaces.js';
import path from 'node:path';
// The Turns view: the selected session's turn tree with fork boundaries, a
// detail pane and the model-history toggle. Renders only the visible window.
// Presentational: its cursor, expansion and toggles live in the app state.
import React from 'react';
import { Box, Text } from 'ink';
import type { Session } from '../../src/session/session.js';
import { addUsage, emptyUsage, usageText, withSplit, type TokenUsage } from '../../src/session/usage.js';
import { resumeAddsMarker } from '../../src/storage/resume.js';
import { upgradeRefusal, upgradeVerdict } from '../../src/session/upgrade.js';
import { textOf } from '../../src/session/json-safe.js';
import { AUTO_DETAIL_HEIGHT, turnsLayout } from '../../src/view/turns/turns-layout.js';
import { turnSparks } from '../../src/view/text/turn-sparks.js';
import type { AppState } from '../../src/view/app/state.js';
import { turnsView } from '../../src/view/turns/turns-slice.js';
import { displayWidth, sanitizeInline, truncate } from '../../src/view/text/sanitize.js';
import { caretParts } from '../../src/view/text/text-field.js';
import { detailLines, fitDetail } from '../../src/view/turns/turn-detail.js';
import { loadingLines, partialLine } from '../../src/view/turns/turn-loading.js';
import { clip, fitSegments, type Segment } from '../../src/view/turns/turn-row-text.js';
import type { TurnRow } from '../../src/view/turns/turn-rows.js';
import { cursorWindow, type TurnsState } from '../../src/view/turns/turns-state.js';
import { visibleWindow } from '../../src/view/app/window.js';
import type { World } from '../../src/view/app/world.js';
import { useTone } from '../app/theme.js';

export interface TurnsViewProps {
  state: AppState;
  world: World;
  session: Session;
  turns: TurnsState;
  width: number;
  height: number;
}

const INSIDE_HINT = ' fork: inside turn';

type LineProps = { segments: Segment[]; width: number; inverse?: boolean };

/** Rows are built again as read (TurnRows keeps a few blocks); compare their content so unchanged rows skip React's work. */
const sameLine = (a: LineProps, b: LineProps): boolean =>
  a.width === b.width &&
  a.inverse === b.inverse &&
  a.segments.length === b.segments.length &&
  a.segments.every((s, i) => {
    const t = b.segments[i];
    return s.text === t.text && s.color === t.color && s.bold === t.bold && s.dim === t.dim;
  });

const Line = React.memo(LineView, sameLine);

function LineView({ segments, width, inverse }: LineProps): React.JSX.Element {
  const tone = useTone(); // NO_COLOR: no colour names reach Ink
  const fitted = fitSegments(segments, width);
  if (inverse) {
    const used = fitted.reduce((w, s) => w + displayWidth(s.text), 0);
    if (used < width) fitted.push({ text: ' '.repeat(width - used) });
  }
  return (
    <Text wrap="truncate-end" inverse={inverse}>
      {fitted.length === 0 ? ' ' : fitted.map((s, i) => (
        <Text key={i} color={tone(s.color)} bold={s.bold} dimColor={s.dim}>
          {s.text}
        </Text>
      ))}
    </Text>
  );
}

/** `›` marks the selection even where inverse video is lost (no colour support); `┊` marks inherited rows. */
/** Whether any of the sorted `seqs` lies in [from, to]. */
function anyIn(seqs: readonly number[], from: number, to: number): boolean {
  const i = firstNotBefore(seqs.length, (j) => seqs[j] < from);
  return i < seqs.length && seqs[i] <= to;
}

/**
 * `›` marks the selection even where inverse video is lost (no colour support);
 * `┊` marks inherited rows; `◉` a row holding a search match; `≠` the row where
 * a fork child's seed first differs from its parent's log.
 */
function rowSegments(row: TurnRow, gutter: number, selected: boolean, matches?: readonly number[], divergence?: number): Segment[] {
  const marker = row.kind === 'boundary' || row.kind === 'inherited-divider';
  const seq = marker ? '' : String(row.seq);
  const glyph = row.expandable ? (row.expanded ? '▾ ' : '▸ ') : '  ';
  const hit = !marker && matches !== undefined && anyIn(matches, row.seq, row.lastSeq);
  const differs = !marker && divergence !== undefined && row.seq <= divergence && divergence <= row.lastSeq;
  return [
    { text: selected ? '›' : ' ', bold: true },
    { text: seq.padStart(gutter) + (row.inherited ? '┊' : ' '), color: row.inherited ? 'cyan' : 'gray', dim: true },
    ...(hit ? [{ text: '◉ ', color: 'yellow' as const, bold: true }] : []),
    ...(differs ? [{ text: '≠ seed differs from the parent here (o: both versions) ', color: 'red' as const, bold: true }] : []),
    { text: '  '.repeat(row.depth) + glyph },
    ...row.segments,
  ];
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const STATE_BADGES = { empty: { text: 'empty', color: 'gray' }, 'at-boundary': { text: 'at boundary', color: 'green' }, 'open-turn': { text: 'open turn', color: 'yellow' } } as const;

function headerSegments(session: Session, history: { upTo: number; entries: number; hidden: number } | undefined, duplicates = 0, older: readonly string[] = [], subagents?: TokenUsage): Segment[] {
  const badge = session.gone ? ({ text: 'file deleted', color: 'red' } as const) : STATE_BADGES[session.state];
  const out: Segment[] = [{ text: clip(session.id, 80), bold: true }, { text: '  ' }, { text: `[${badge.text}]`, color: badge.color, bold: true }];
  if (duplicates > 1) out.push({ text: `  [DUPLICATE_ID: ${duplicates} sessions share this id]`, color: 'yellow', bold: true });
  // what a current harness would make of it after migrating it (the reason: the Problems tab's UPGRADE_REFUSED row)
  if (upgradeRefusal(session) !== undefined) {
    const v = upgradeVerdict(session);
    out.push({ text: `  [⇡ format v${v.to} refuses it on upgrade, at ${v.edge}: see Problems]`, color: 'yellow' });
  }
  if (session.kind === 'fork') out.push({ text: `  ${session.header.origin === 'subagent' ? 'subagent fork of' : 'inherited from'} ${clip(session.parentSession, 80)}, seedLength ${session.seedLength}`, color: 'cyan' });
  // a cut inside a turn: the harness's own fork closes that turn with results it writes itself (harness: rows)
  const cut = session.kind === 'fork' ? session.facts.forkCut : undefined;
  if (cut)
    out.push(
      cut.state === 'closed'
        ? { text: `, cut inside turn ${clip(textOf(cut.turn), 20)}; the harness closed it (${plural(cut.results, 'result')} of its own, turn/end forked)`, color: 'cyan' }
        : { text: `, cut inside turn ${clip(textOf(cut.turn), 20)}, not closed as the harness's fork closes it`, color: 'red', bold: true },
    );
  else if (session.kind === 'spawn') out.push({ text: `  spawned by ${clip(session.parentSession, 80)}`, color: 'cyan' });
  // rc.8 header facts the harness shows, the log format (v0-v4) and the older generations kept beside this one
  const h = session.header;
  const rc8 = [h.version > 0 ? `format v${h.version}` : '', older.length ? `older: ${older.map((f) => clip(path.basename(f), 40)).join(', ')}` : '', h.origin !== undefined ? `origin ${clip(h.origin, 20)}` : '', typeof h.delegationDepth === 'number' ? `depth ${h.delegationDepth}` : '', h.agentPreset !== undefined ? `preset ${clip(h.agentPreset, 30)}` : ''].filter(Boolean);
  if (rc8.length) out.push({ text: `  · ${rc8.join(' · ')}`, dim: true });
  if (history)
    out.push({
      text: `  · model history up to seq ${history.upTo}: ${history.hidden > 0 ? `the last ${history.entries} of ${history.entries + history.hidden} entries (t on an earlier row: the history there)` : `${history.entries} entries`} (t: tree)`,
      color: 'magenta',
      bold: true,
    });
  else {
    out.push({ text: `  · ${plural(session.facts.turns, 'turn')} · ${plural(session.length, 'event')}`, dim: true });
    // tokens, and for a fork child what the seed inherited and what it spent itself
    const u = session.facts.usage ? withSplit(session.facts.usage, session.seedLength) : undefined;
    if (u && u.messages > 0) out.push({ text: u.own ? ` · own ${usageText(u.own) || 'no usage'} · inherited ${usageText(u.inherited) || 'no usage'}` : ` · ${usageText(u)}`, color: 'blue', dim: true });
    // its own tokens with what the children its subagent calls started spent (theirs included)
    if (subagents && subagents.messages > 0) out.push({ text: ` · incl. subagents ${usageText(addUsage(u?.own ?? u ?? emptyUsage(), subagents))}`, color: 'magenta', dim: true });
  }
  // what the harness adds on resume (the live session has one event more than its file)
  const adds = resumeAddsMarker(session);
  if (adds) out.push({ text: `  · ${adds}`, color: 'cyan', dim: true });
  return out;
}

/** The status line: what `f` does here, in the words of its key binding (app/verdicts.ts). */
function statusSegments(fork: ForkVerdict): Segment[] {
  const keys: Segment = { text: '  ·  ←/→ fold  e/E all  b boundary  t history  d detail  T timeline  ? help', dim: true };
  if (!fork.disabled) return [{ text: `f ${fork.label}`, color: 'green', bold: true }, keys];
  return [{ text: `f ${fork.label} (disabled: ${clip(fork.disabled, 160)})`, color: 'gray', dim: true }, keys];
}

export function TurnsView(props: TurnsViewProps): React.JSX.Element {
  const { state, world, session, turns: t, width, height } = props;
  const w = Math.max(1, width);
  const data = world.turns(session);
  const lines: React.JSX.Element[] = [];
  if (!data.ok) {
    lines.push(<Line key="header" width={w} segments={headerSegments(session, undefined)} />);
    if (data.loading) loadingLines(data.loading).forEach((text, i) => lines.push(<Line key={`loading${i}`} width={w} segments={[{ text, color: i === 0 ? 'yellow' : undefined, bold: i === 0, dim: i === 2 }]} />));
    else lines.push(<Line key="err" width={w} segments={[{ text: `cannot read this session: ${sanitizeInline(data.error)}`, color: 'red' }]} />);
    return (
      <Box flexDirection="column" width={w} height={Math.max(0, height)} overflow="hidden">
        {lines.slice(0, Math.max(0, height))}
      </Box>
    );
  }
  const auto = height >= AUTO_DETAIL_HEIGHT;
  const detailShown = t.showDetail ?? auto;
  const lay = turnsLayout(height, detailShown);
  const active = turnsView(state, data, APP)(t);
  const sel = cursorWindow(t.showHistory ? t.history : t.tree, active);
  const selectedRow: TurnRow | undefined = active.rows.at(sel.index);
  const fork = forkVerdict(state, world, APP);
  const gutter = Math.max(2, String(Math.max(0, session.length - 1)).length);
  const visible = visibleWindow(active.rows, sel.index, lay.list, sel.top);
  const detail = detailShown ? detailLines(selectedRow, data.event) : [];

  const search = state.turnSearch?.key === state.selection ? state.turnSearch : undefined;
  const duplicates = world.sameId(session.id);
  lines.push(<Line key="header" width={w} segments={headerSegments(session, t.showHistory ? { upTo: t.historyUpTo, entries: active.rows.length, hidden: data.historyHidden(t.historyUpTo) } : undefined, duplicates, world.olderGenerations(session), world.subagents(session).total)} />);
  // where the tokens and the time went, turn by turn (T on a row: that turn's timeline)
  if (lay.header > 1) lines.push(<Line key="sparks" width={w} segments={[{ text: turnSparks(data.series, w), color: 'blue' }]} />);
  visible.rows.forEach((row, i) => {
    const isSel = visible.top + i === sel.index;
    let segs = rowSegments(row, gutter, isSel, search && !search.editing ? search.seqs : undefined, data.divergence?.seq);
    if (isSel && !t.showHistory && fork.disabled?.startsWith('OPEN_TURN:') && w > INSIDE_HINT.length + 8) {
      const room = w - INSIDE_HINT.length;
      const body = fitSegments(segs, room);
      const used = body.reduce((n, s) => n + displayWidth(s.text), 0);
      segs = [...body, { text: ' '.repeat(room - used) }, { text: INSIDE_HINT, dim: true }];
    }
    lines.push(<Line key={row.key} width={w} segments={segs} inverse={isSel} />);
  });
  if (active.rows.length === 0 && lay.list > 0) {
    const empty = t.showHistory ? '(the model sees nothing up to this point)' : '(no events: an empty session)';
    lines.push(<Line key="empty" width={w} segments={[{ text: empty, dim: true }]} />);
  }
  while (lines.length < lay.header + lay.list) lines.push(<Text key={`pad${lines.length}`}> </Text>);
  if (lay.pane > 0) {
    lines.push(<Line key="sep" width={w} segments={[{ text: truncate('── detail ' + '─'.repeat(w), w), dim: true }]} />);
    fitDetail(detail, w, lay.pane).forEach((l, i) => lines.push(<Line key={`d${i}`} width={w} segments={[{ text: l.text, color: l.color, bold: l.heading, dim: l.heading && !l.color }]} />));
    while (lines.length < lay.header + 1 + lay.list + lay.pane) lines.push(<Text key={`dpad${lines.length}`}> </Text>);
  }
  if (search?.editing) {
    const { before, at, after } = caretParts(search.field);
    lines.push(<Line key="status" width={w} segments={[{ text: '/', color: 'yellow', bold: true }, { text: sanitizeInline(before) }, { text: sanitizeInline(at), color: 'yellow', bold: true }, { text: sanitizeInline(after) }, { text: '   Enter search · Esc cancel · tool:NAME is:error reason:KIND "words" -word', dim: true }]} />);
  } else {
    const partial = data.partial; // a large log shows its last turns while the earlier ones are indexed
    const scanning = search?.scanning; // a large log being searched
    const lead: Segment[] = [];
    if (scanning) lead.push({ text: `searching ${clip(sanitizeInline(search!.query ?? ''), 40)}: ${scanning.total > 0 ? Math.min(100, Math.floor((100 * scanning.seen) / scanning.total)) : 0}% (Esc cancels)  `, color: 'yellow', bold: true });
    if (partial) lead.push({ text: partialLine(partial) + '  ', color: 'yellow' });
    const reading = t.showHistory ? data.historyLoading : undefined; // a large log's history being read
    if (reading) lead.push({ text: `reading the history ${reading.of > 0 ? Math.min(100, Math.floor((100 * reading.seen) / reading.of)) : 0}%  `, color: 'yellow' });
    lines.push(<Line key="status" width={w} segments={[...lead, ...statusSegments(fork)]} />);
  }

  return (
    <Box flexDirection="column" width={w} height={Math.max(0, height)} overflow="hidden">
      {lines.slice(0, Math.max(0, height))}
    </Box>
  );
}
