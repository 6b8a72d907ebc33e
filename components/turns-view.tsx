// The Turns view: the selected session's turn tree with fork boundaries, a
// detail pane and the model-history toggle. Renders only the visible window.
import React, { useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { Box, Text, useInput } from 'ink';
import type { SessionForkError } from '../src/session/errors.js';
import { buildTurnTree } from '../src/session/replay.js';
import { nearestBoundaries } from '../src/session/log-facts.js';
import type { Session } from '../src/session/session.js';
import type { SessionStore } from '../src/session/store.js';
import { commandFor } from '../src/view/keymap.js';
import { displayWidth, truncate } from '../src/view/sanitize.js';
import { detailLines, fitDetail } from '../src/view/turn-detail.js';
import { clip, fitSegments, type Segment } from '../src/view/turn-row-text.js';
import {
  buildTurnRows,
  forkTargetAt,
  historyRows,
  nearestBoundary,
  rowIndexForSeq,
  rowsContext,
  type ForkTarget,
  type TurnRow,
} from '../src/view/turn-rows.js';
import { cursorWindow, hasSomethingToClose, initialTurnsState, turnsReducer, type RowsView, type TurnsState } from '../src/view/turns-state.js';
import { visibleWindow } from '../src/view/window.js';
import { useTone } from './theme.js';

export interface TurnsViewProps {
  session: Session;
  store: SessionStore;
  width: number;
  height: number;
  focused: boolean;
  version: number;
  jumpTo?: { seq: number; nonce: number };
  onForkRequest(req: { boundary: number } | { error: SessionForkError }): void;
  onBack?(): void;
}

/** Height from which the detail pane shows without being asked for. */
export const AUTO_DETAIL_HEIGHT = 20;
const INSIDE_HINT = ' fork: inside turn';

/** Rows for the list and the detail pane inside `height` (a header and a status line around them). */
export function turnsLayout(height: number, detail: boolean): { list: number; pane: number } {
  const body = Math.max(0, height - 2);
  if (!detail || body < 6) return { list: body, pane: 0 };
  const pane = Math.min(Math.max(3, Math.floor(body * 0.4)), body - 4);
  return { list: body - pane - 1, pane };
}

type LineProps = { segments: Segment[]; width: number; inverse?: boolean };

/** Rows are rebuilt as new arrays each frame; compare their content so unchanged rows skip React's work. */
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
function rowSegments(row: TurnRow, gutter: number, selected: boolean): Segment[] {
  const marker = row.kind === 'boundary' || row.kind === 'inherited-divider';
  const seq = marker ? '' : String(row.seq);
  const glyph = row.expandable ? (row.expanded ? '▾ ' : '▸ ') : '  ';
  return [
    { text: selected ? '›' : ' ', bold: true },
    { text: seq.padStart(gutter) + (row.inherited ? '┊' : ' '), color: row.inherited ? 'cyan' : 'gray', dim: true },
    { text: '  '.repeat(row.depth) + glyph },
    ...row.segments,
  ];
}

const STATE_BADGES = { empty: { text: 'empty', color: 'gray' }, 'at-boundary': { text: 'at boundary', color: 'green' }, 'open-turn': { text: 'open turn', color: 'yellow' } } as const;

function headerSegments(session: Session, history: { upTo: number; entries: number } | undefined): Segment[] {
  const badge = session.gone ? ({ text: 'file deleted', color: 'red' } as const) : STATE_BADGES[session.state];
  const out: Segment[] = [{ text: clip(session.id, 80), bold: true }, { text: '  ' }, { text: `[${badge.text}]`, color: badge.color, bold: true }];
  if (session.kind === 'fork') out.push({ text: `  inherited from ${clip(session.parentSession, 80)}, seedLength ${session.seedLength}`, color: 'cyan' });
  else if (session.kind === 'spawn') out.push({ text: `  spawned by ${clip(session.parentSession, 80)}`, color: 'cyan' });
  if (history) out.push({ text: `  · model history up to seq ${history.upTo}: ${history.entries} entries (t: tree)`, color: 'magenta', bold: true });
  else out.push({ text: `  · ${session.facts.turns} turns · ${session.length} events`, dim: true });
  return out;
}

function statusSegments(target: ForkTarget | undefined): Segment[] {
  const keys: Segment = { text: '  ·  ←/→ fold  e/E all  b boundary  t history  d detail  ? help', dim: true };
  if (!target) return [{ text: 'f fork (disabled: empty session, no seq to cut at)', color: 'gray', dim: true }, keys];
  if ('boundary' in target) return [{ text: `f fork here (seq ${target.boundary})`, color: 'green', bold: true }, keys];
  return [{ text: `f fork (disabled: ${target.error.code} ${clip(target.error.message, 160)})`, color: 'gray', dim: true }, keys];
}

/** Re-renders every 30 s while the session has an open turn (its age grows). */
function useTick(live: boolean): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => setTick((n) => n + 1), 30_000);
    return () => clearInterval(t);
  }, [live]);
  return tick;
}

/** A one-entry cache: the last result for the same arguments (by identity). */
function useLast<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const last = useRef<{ args: A; value: R } | undefined>(undefined);
  return (...args: A) => {
    const l = last.current;
    if (l && l.args.length === args.length && l.args.every((a, i) => a === args[i])) return l.value;
    const value = fn(...args);
    last.current = { args, value };
    return value;
  };
}

export function TurnsView(props: TurnsViewProps): React.JSX.Element {
  const { session, store, width, height, focused, version, jumpTo } = props;
  const [state, dispatch] = useReducer(turnsReducer, undefined, initialTurnsState);
  const tick = useTick(session.state === 'open-turn');
  const tree = useMemo(() => buildTurnTree(session.events), [session, version]);
  const ctx = useMemo(() => rowsContext(session, Date.now()), [session, version, tick]);
  const rowsFor = useLast((t: typeof tree, c: typeof ctx, e: TurnsState['expansion']) => buildTurnRows(t, e, c));
  const historyFor = useLast((_v: number, s: Session, upTo: number) => historyRows(s.events, upTo));

  const autoDetail = height >= AUTO_DETAIL_HEIGHT;
  // The active rows of any state: the reducer resolves keys against the rows
  // that state shows, even when keys come faster than renders.
  const viewOf = (st: TurnsState): RowsView => {
    const list = turnsLayout(height, st.showDetail ?? autoDetail).list;
    if (st.showHistory) return { rows: historyFor(version, session, st.historyUpTo), height: list };
    const m = rowsFor(tree, ctx, st.expansion);
    return { rows: m.rows, index: m.index, height: list };
  };
  const detailShown = state.showDetail ?? autoDetail;
  const lay = turnsLayout(height, detailShown);
  const model = rowsFor(tree, ctx, state.expansion);
  const treeView: RowsView = { rows: model.rows, index: model.index, height: lay.list };
  const active = viewOf(state);
  const history = state.showHistory ? active.rows : [];
  const treeSel = cursorWindow(state.tree, treeView);
  const sel = state.showHistory ? cursorWindow(state.history, active) : treeSel;
  const treeRow: TurnRow | undefined = model.rows[treeSel.index];
  const selectedRow: TurnRow | undefined = active.rows[sel.index];
  const target = useMemo(() => (treeRow ? forkTargetAt(treeRow, session, store) : undefined), [treeRow, session, store, version]);

  // Shell requests and live growth are applied during render (a render-phase
  // update of this component), not in effects: Ink may run passive effects
  // late, and the frame must not show a stale selection meanwhile.
  const seen = useRef({ session, jump: undefined as number | undefined, version, atEnd: false });
  if (seen.current.session !== session) {
    seen.current = { ...seen.current, session, atEnd: false };
    dispatch({ type: 'reset' });
  }
  if (jumpTo && seen.current.jump !== jumpTo.nonce) {
    seen.current.jump = jumpTo.nonce;
    dispatch({ type: 'pick', view: viewOf, pick: (rows) => rowIndexForSeq(rows, jumpTo.seq) });
  }
  if (seen.current.version !== version) {
    seen.current.version = version;
    // tail -f: the selection was on the last row, so it follows the new end
    if (seen.current.atEnd) dispatch({ type: 'bottom', view: viewOf });
  }
  seen.current.atEnd = !state.showHistory && model.rows.length > 0 && treeSel.index === model.rows.length - 1;

  // b: the nearest boundary; on a boundary already, the next one.
  const pickBoundary = (rows: readonly TurnRow[], index: number): number | undefined => {
    const row = rows[index];
    if (!row) return undefined;
    let b = nearestBoundary(session, row.lastSeq);
    if (b !== undefined && rowIndexForSeq(rows, b) === index) b = nearestBoundaries(session.facts, row.lastSeq).after;
    return b === undefined ? undefined : rowIndexForSeq(rows, b);
  };

  // Ink re-subscribes a new handler only when it runs effects: the handler
  // reads this render's values through a ref, never a stale closure.
  const latest = useRef({ props, state, viewOf, target, autoDetail, pickBoundary });
  latest.current = { props, state, viewOf, target, autoDetail, pickBoundary };
  useInput(
    (input, key) => {
      const cur = latest.current;
      const cmd = commandFor('turns', input, key);
      switch (cmd) {
        case 'up':
        case 'down':
        case 'top':
        case 'bottom':
        case 'pageUp':
        case 'pageDown':
        case 'expand':
        case 'collapse':
        case 'collapseAll':
        case 'toggleHistory':
          return dispatch({ type: cmd, view: cur.viewOf });
        case 'expandAll':
          return dispatch({ type: cmd });
        case 'open':
          return dispatch({ type: 'toggle', view: cur.viewOf, autoDetail: cur.autoDetail });
        case 'toggleDetail':
          return dispatch({ type: cmd, autoDetail: cur.autoDetail });
        case 'jumpBoundary':
          return dispatch({ type: 'pick', view: cur.viewOf, pick: cur.pickBoundary });
        case 'fork':
          if (cur.target) cur.props.onForkRequest(cur.target);
          return;
        case 'back':
          if (hasSomethingToClose(cur.state, cur.autoDetail)) return dispatch({ type: 'back', autoDetail: cur.autoDetail });
          cur.props.onBack?.();
          return;
      }
    },
    { isActive: focused },
  );

  const w = Math.max(1, width);
  const gutter = Math.max(2, String(Math.max(0, session.length - 1)).length);
  const visible = visibleWindow(active.rows, sel.index, lay.list, sel.top);
  const detail = useMemo(() => (detailShown ? detailLines(selectedRow, session.events) : []), [detailShown, selectedRow, session, version]);

  const lines: React.JSX.Element[] = [];
  lines.push(<Line key="header" width={w} segments={headerSegments(session, state.showHistory ? { upTo: state.historyUpTo, entries: history.length } : undefined)} />);
  visible.rows.forEach((row, i) => {
    const isSel = visible.top + i === sel.index;
    let segs = rowSegments(row, gutter, isSel);
    if (isSel && !state.showHistory && target && 'error' in target && target.error.code === 'OPEN_TURN' && w > INSIDE_HINT.length + 8) {
      const room = w - INSIDE_HINT.length;
      const body = fitSegments(segs, room);
      const used = body.reduce((n, s) => n + displayWidth(s.text), 0);
      segs = [...body, { text: ' '.repeat(room - used) }, { text: INSIDE_HINT, dim: true }];
    }
    lines.push(<Line key={row.key} width={w} segments={segs} inverse={isSel} />);
  });
  if (active.rows.length === 0 && lay.list > 0) {
    const empty = state.showHistory ? '(the model sees nothing up to this point)' : '(no events: an empty session)';
    lines.push(<Line key="empty" width={w} segments={[{ text: empty, dim: true }]} />);
  }
  while (lines.length < 1 + lay.list) lines.push(<Text key={`pad${lines.length}`}> </Text>);
  if (lay.pane > 0) {
    lines.push(<Line key="sep" width={w} segments={[{ text: truncate('── detail ' + '─'.repeat(w), w), dim: true }]} />);
    fitDetail(detail, w, lay.pane).forEach((l, i) => lines.push(<Line key={`d${i}`} width={w} segments={[{ text: l.text, color: l.color, bold: l.heading, dim: l.heading && !l.color }]} />));
    while (lines.length < 2 + lay.list + lay.pane) lines.push(<Text key={`dpad${lines.length}`}> </Text>);
  }
  lines.push(<Line key="status" width={w} segments={statusSegments(target)} />);

  return (
    <Box flexDirection="column" width={w} height={Math.max(0, height)} overflow="hidden">
      {lines.slice(0, Math.max(0, height))}
    </Box>
  );
}
