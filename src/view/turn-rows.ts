// The Turns view's model: the turn tree (src/session/replay.ts) flattened to
// the rows that are visible under an expansion state, with a marker row at
// every fork boundary and dividers around a fork child's inherited seed.
// Pure: no Ink, no I/O. Every string from a file is sanitised (turn-row-text).
import type { SessionForkError } from '../session/errors.js';
import type { SessionEvent } from '../session/events.js';
import { isBoundary, nearestBoundaries, type LogFacts } from '../session/log-facts.js';
import { modelHistory, type HistoryEntry, type TreeNode } from '../session/replay.js';
import type { Session } from '../session/session.js';
import type { SessionStore } from '../session/store.js';
import * as label from './turn-row-text.js';
import type { RowColor, Segment } from './turn-row-text.js';

export type { RowColor, Segment } from './turn-row-text.js';
export { turnsReducer, initialTurnsState, type TurnsState, type TurnsAction, type Cursor, type RowsView } from './turns-state.js';

export type RowKind = 'turn' | 'step' | 'message' | 'tool' | 'chunks' | 'event' | 'boundary' | 'inherited-divider';

export interface TurnRow {
  /** stable across rebuilds and live appends (derived from the node's kind and first seq) */
  key: string;
  depth: number;
  kind: RowKind;
  seq: number;
  /** last seq the row covers (a fork at this row cuts here); -1 for the seed header */
  lastSeq: number;
  /** the one-line label, sanitised: the segments joined */
  text: string;
  segments: Segment[];
  expandable: boolean;
  expanded: boolean;
  /** the row stands for seed events of a fork child (seq < seedLength) */
  inherited: boolean;
  /** main colour hint of the row */
  color: RowColor;
  /** turn rows: the end reason (`open` for an open turn) */
  reason?: string;
  /** index of the parent row, -1 at the top level */
  parent: number;
  /** the tree node the row shows (not for boundary/divider rows) */
  node?: TreeNode;
  /** tool rows: 'args' / 'result' for the lines of an expanded call */
  part?: 'args' | 'result';
  /** history rows: the entry */
  entry?: HistoryEntry;
}

export interface TurnRowsModel {
  rows: TurnRow[];
  /** row key -> index */
  index: Map<string, number>;
}

/** Expansion: a mode and the keys flipped relative to the mode's default. */
export interface Expansion {
  mode: 'auto' | 'all' | 'none';
  toggled: ReadonlySet<string>;
}

export const defaultExpansion: Expansion = { mode: 'auto', toggled: new Set() };

export interface RowsContext {
  facts: LogFacts;
  /** for event times (the age of an open turn) */
  events: readonly SessionEvent[];
  fork?: { parent: string; seedLength: number };
  now: number;
}

export function rowsContext(session: Session, now = Date.now()): RowsContext {
  const ctx: RowsContext = { facts: session.facts, events: session.events, now };
  if (session.kind === 'fork') ctx.fork = { parent: session.parentSession!, seedLength: session.seedLength! };
  return ctx;
}

export const nodeKey = (n: TreeNode): string => `${n.kind[0]}${n.kind === 'tool' ? 'x' : ''}${n.seq}`;

function defaultExpanded(n: TreeNode, mode: Expansion['mode'], isLastOpen: boolean): boolean {
  if (mode !== 'auto') return mode === 'all';
  if (n.kind === 'turn') return isLastOpen;
  return n.kind === 'step';
}

const hasChildren = (n: TreeNode): boolean => (n.kind === 'turn' || n.kind === 'step' ? n.children.length > 0 : n.kind === 'tool');

/**
 * Flattens the turn tree to the visible rows. O(visible rows + top-level
 * nodes): collapsed subtrees are skipped, not walked.
 */
export function buildTurnRows(tree: readonly TreeNode[], expansion: Expansion, ctx: RowsContext): TurnRowsModel {
  const rows: TurnRow[] = [];
  const seed = ctx.fork?.seedLength;
  let ownShown = seed === undefined;
  const last = tree[tree.length - 1];
  const lastOpen = last?.kind === 'turn' && last.open ? last : undefined;

  const push = (r: Omit<TurnRow, 'text' | 'inherited'> & { inherited?: boolean }): number => {
    if (!ownShown && r.seq >= seed! && r.kind !== 'inherited-divider') {
      ownShown = true;
      pushOwnDivider(r.depth, r.parent);
    }
    rows.push({ ...r, text: label.segmentsText(r.segments), inherited: r.inherited ?? (seed !== undefined && r.seq < seed) });
    return rows.length - 1;
  };
  const pushOwnDivider = (depth: number, parent: number) => {
    const s = seed!;
    const segments: Segment[] = [{ text: `── own events from seq ${s} ──`, color: 'cyan', bold: true }];
    rows.push({ key: 'd-own', depth, kind: 'inherited-divider', seq: s, lastSeq: s - 1, text: label.segmentsText(segments), segments, expandable: false, expanded: false, inherited: false, color: 'cyan', parent });
  };

  const visit = (n: TreeNode, depth: number, parent: number): void => {
    const key = nodeKey(n);
    const expandable = hasChildren(n);
    const expanded = expandable && defaultExpanded(n, expansion.mode, n === lastOpen) !== expansion.toggled.has(key);
    const base = { key, depth, kind: n.kind, seq: n.seq, lastSeq: n.lastSeq, expandable, expanded, parent, node: n };
    let at: number;
    switch (n.kind) {
      case 'turn': {
        const reason = n.open ? 'open' : n.reason ?? '?';
        at = push({ ...base, segments: label.turnSegments(n, ctx.events[n.lastSeq]?.time, ctx.now), color: n.open ? 'yellow' : label.reasonColor(reason), reason });
        break;
      }
      case 'step':
        at = push({ ...base, segments: label.stepSegments(n), color: undefined });
        break;
      case 'message':
        at = push({ ...base, segments: label.messageSegments(n), color: label.roleColor(n.role) });
        break;
      case 'tool':
        at = push({ ...base, segments: label.toolSegments(n), color: label.resultBadge(n).color });
        break;
      case 'chunks':
        at = push({ ...base, segments: label.chunksSegments(n), color: 'gray' });
        break;
      case 'event':
        at = push({ ...base, segments: label.eventSegments(n), color: 'gray' });
        break;
    }
    if (!expanded) return;
    if (n.kind === 'turn' || n.kind === 'step') for (const c of n.children) visit(c, depth + 1, at);
    else if (n.kind === 'tool') {
      const child = { depth: depth + 1, kind: 'tool' as const, expandable: false, expanded: false, parent: at, node: n };
      push({ ...child, key: `${key}a`, part: 'args', seq: n.seq, lastSeq: n.seq, segments: label.toolArgsSegments(n), color: undefined });
      if (n.result) push({ ...child, key: `${key}r`, part: 'result', seq: n.result.seq, lastSeq: n.result.seq, segments: label.toolResultSegments(n), color: label.resultBadge(n).color });
    }
  };

  if (ctx.fork) {
    const segments: Segment[] = [{ text: `── inherited from ${label.clip(ctx.fork.parent, 120)}, seedLength ${ctx.fork.seedLength} ──`, color: 'cyan', bold: true }];
    rows.push({ key: 'd-inherited', depth: 0, kind: 'inherited-divider', seq: -1, lastSeq: -1, text: label.segmentsText(segments), segments, expandable: false, expanded: false, inherited: true, color: 'cyan', parent: -1 });
  }
  for (let i = 0; i < tree.length; i++) {
    const n = tree[i];
    visit(n, 0, -1);
    if (!isBoundary(ctx.facts, n.lastSeq)) continue;
    // One marker after every turn/end, and after the last of a run of standalone
    // events between turns (each of those rows is forkable itself).
    const next = tree[i + 1];
    if (n.kind !== 'turn' && next !== undefined && next.kind !== 'turn' && isBoundary(ctx.facts, next.lastSeq)) continue;
    const segments: Segment[] = [{ text: `── fork here · seq ${n.lastSeq} ──`, color: 'green', bold: true }];
    push({ key: `b${n.lastSeq}`, depth: 0, kind: 'boundary', seq: n.lastSeq, lastSeq: n.lastSeq, segments, expandable: false, expanded: false, color: 'green', parent: -1 });
  }
  if (!ownShown) pushOwnDivider(0, -1);
  return { rows, index: indexRows(rows) };
}

export function indexRows(rows: readonly TurnRow[]): Map<string, number> {
  const index = new Map<string, number>();
  rows.forEach((r, i) => index.set(r.key, i));
  return index;
}

/** Every expandable key of the tree (for tests and for "expand all" in a keyed state). */
export function expandableKeys(tree: readonly TreeNode[]): string[] {
  const out: string[] = [];
  const walk = (n: TreeNode) => {
    if (hasChildren(n)) out.push(nodeKey(n));
    if (n.kind === 'turn' || n.kind === 'step') n.children.forEach(walk);
  };
  tree.forEach(walk);
  return out;
}

/**
 * The row to select for `seq`: its fork-boundary marker when there is one,
 * else the deepest visible row covering it, else the last row before it.
 */
export function rowIndexForSeq(rows: readonly TurnRow[], seq: number): number {
  let best = -1;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (r.kind === 'boundary' && r.seq === seq) return i;
    if (r.kind === 'inherited-divider') continue;
    if (r.seq <= seq && seq <= r.lastSeq) {
      if (best < 0 || r.depth >= rows[best].depth) best = i;
    } else if (r.seq > seq && best >= 0) break;
  }
  if (best >= 0) return best;
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i].seq <= seq && rows[i].kind !== 'inherited-divider') return i;
  return rows.length ? 0 : -1;
}

export type ForkTarget = { boundary: number } | { error: SessionForkError };

/**
 * What `f` on this row means: a boundary marker forks at its seq; any other
 * row at its last seq when that is a boundary (a closed turn: its turn/end);
 * otherwise the store's own refusal (OPEN_TURN, INVALID_BOUNDARY …).
 */
export function forkTargetAt(row: TurnRow, session: Session, store: SessionStore): ForkTarget {
  const cut = row.kind === 'boundary' ? row.seq : row.lastSeq;
  const error = store.boundaryError(session, cut);
  return error ? { error } : { boundary: cut };
}

/** The fork boundary closest to `seq` (ties go to the earlier one), if the log has any. */
export function nearestBoundary(session: Session, seq: number): number | undefined {
  const { before, after } = nearestBoundaries(session.facts, seq);
  if (before === undefined) return after;
  if (after === undefined) return before;
  return seq - before <= after - seq ? before : after;
}

/** The model history after events [0, upTo] as rows (one per transcript entry). */
export function historyRows(events: readonly SessionEvent[], upTo: number): TurnRow[] {
  return modelHistory(events, upTo).map((entry, i) => {
    const color = label.roleColor(entry.role);
    const segments: Segment[] = [{ text: `${label.clip(entry.role, 20)}: `, color, bold: true }];
    if (entry.text.trim()) segments.push({ text: label.clip(entry.text.trim()) });
    for (const c of entry.toolCalls ?? []) segments.push({ text: ' → ', dim: true }, { text: label.clip(c, 80), dim: true });
    if (segments.length === 1) segments.push({ text: '(no text)', dim: true });
    return { key: `h${i}`, depth: 0, kind: 'message', seq: entry.seq, lastSeq: entry.seq, text: label.segmentsText(segments), segments, expandable: false, expanded: false, inherited: false, color, parent: -1, entry };
  });
}
