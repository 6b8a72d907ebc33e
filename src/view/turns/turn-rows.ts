// The Turns view's model: the turn tree (src/session/replay.ts) flattened to
// the rows that are visible under an expansion state, with a marker row at
// every fork boundary and dividers around a fork child's inherited seed.
// Pure: no Ink, no I/O. Every string from a file is sanitised (turn-row-text).
import { emptyUsage, usageOfSeqs, usageText } from '../../session/usage.js';
import { eventAtSeq } from '../../session/turn-summary.js';
import type { TurnFacts, TurnIndex } from '../../session/turn-index.js';
import type { SessionForkError } from '../../session/errors.js';
import type { SessionEvent } from '../../session/events.js';
import { isBoundary, nearestBoundaries, type LogFacts } from '../../session/log-facts.js';
import { childCount, modelHistory, type HistoryEntry, type TreeNode } from '../../session/replay.js';
import type { Session } from '../../session/session.js';
import type { SessionStore } from '../../session/store.js';
import * as label from './turn-row-text.js';
import type { RowColor, Segment } from './turn-row-text.js';

export type { RowColor, Segment } from './turn-row-text.js';
export { turnsReducer, initialTurnsState, type TurnsState, type TurnsAction, type Cursor, type RowsView, type ViewOf } from './turns-state.js';

export type RowKind = 'turn' | 'step' | 'message' | 'tool' | 'chunks' | 'event' | 'boundary' | 'inherited-divider';

export interface TurnRow {
  /** stable across rebuilds and live appends (derived from the node's kind and first seq) */
  key: string;
  depth: number;
  kind: RowKind;
  seq: number;
  /** last seq the row covers (a fork at this row cuts here; both seed dividers: seedLength - 1) */
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
  /** a turn's usage and the time of its last event (the age of an open turn) */
  turnFacts(n: TurnNode): TurnFacts;
  fork?: { parent: string; seedLength: number };
  /** the clock ages are told from; the owner moves it on (rows relabel by themselves: Row) */
  now: number;
}

type TurnNode = Extract<TreeNode, { kind: 'turn' }>;

/** The context of rows built from the session's events in memory. */
export function rowsContext(session: Session, now = Date.now()): RowsContext {
  const events = session.events;
  return withFork(session, { facts: session.facts, turnFacts: (n) => ({ usage: usageOfSeqs(events, n.seq, n.lastSeq), time: eventAtSeq(events, n.lastSeq)?.time }), now });
}

/** The context of rows built from an offset index (the turn facts it keeps). */
export function indexedContext(session: Session, index: TurnIndex, now = Date.now()): RowsContext {
  return withFork(session, { facts: session.facts, turnFacts: (n) => index.turnFacts(n) ?? { usage: emptyUsage() }, now });
}

function withFork(session: Session, ctx: RowsContext): RowsContext {
  if (session.kind === 'fork') ctx.fork = { parent: session.parentSession!, seedLength: session.seedLength! };
  return ctx;
}

export const nodeKey = (n: TreeNode): string => `${n.kind === 'tool' ? 'x' : n.kind[0]}${n.seq}`;

function defaultExpanded(n: TreeNode, mode: Expansion['mode'], isLastOpen: boolean): boolean {
  if (mode !== 'auto') return mode === 'all';
  if (n.kind === 'turn') return isLastOpen;
  return n.kind === 'step';
}

const hasChildren = (n: TreeNode): boolean => (n.kind === 'turn' || n.kind === 'step' ? childCount(n) > 0 : n.kind === 'tool');

/**
 * A row whose label is built on first use: flattening 50k events makes cheap
 * objects of one shape, and only the rows Ink shows pay for sanitising. The
 * label is kept as long as its clock stamp holds, so an open turn's age follows
 * `ctx.now` (the world's clock) and only that row is relabelled as it moves.
 */
class Row implements TurnRow {
  private segs?: Segment[];
  private stamp = '';
  private joined?: { of: Segment[]; text: string };
  constructor(
    readonly key: string,
    readonly depth: number,
    readonly kind: RowKind,
    readonly seq: number,
    readonly lastSeq: number,
    readonly expandable: boolean,
    readonly expanded: boolean,
    readonly inherited: boolean,
    readonly color: RowColor,
    readonly parent: number,
    readonly node: TreeNode | undefined,
    readonly part: 'args' | 'result' | undefined,
    readonly reason: string | undefined,
    private readonly label: Segment[] | ((r: Row) => Segment[]),
    readonly ctx?: RowsContext,
  ) {}
  get segments(): Segment[] {
    const stamp = clockStamp(this);
    if (this.segs === undefined || stamp !== this.stamp) {
      this.stamp = stamp;
      this.segs = typeof this.label === 'function' ? this.label(this) : this.label;
    }
    return this.segs;
  }
  get text(): string {
    const segs = this.segments;
    if (this.joined?.of !== segs) this.joined = { of: segs, text: label.segmentsText(segs) };
    return this.joined.text;
  }
}

/** The part of a row's label that moves with the clock: an open turn's age as drawn ('' for every other row). */
function clockStamp(r: Row): string {
  const n = r.node;
  if (n?.kind !== 'turn' || !n.open || !r.ctx || r.part !== undefined) return '';
  return label.ageText(r.ctx.turnFacts(n).time, r.ctx.now);
}

function nodeLabel(r: Row): Segment[] {
  const n = r.node!;
  switch (n.kind) {
    case 'turn': {
      const f = r.ctx?.turnFacts(n);
      return label.turnSegments(n, f?.time, r.ctx?.now ?? Date.now(), f ? usageText(f.usage) : '');
    }
    case 'step':
      return label.stepSegments(n);
    case 'message':
      return label.messageSegments(n);
    case 'tool':
      return r.part === 'args' ? label.toolArgsSegments(n) : r.part === 'result' ? label.toolResultSegments(n) : label.toolSegments(n);
    case 'chunks':
      return label.chunksSegments(n);
    case 'event':
      return label.eventSegments(n);
  }
}

function nodeColor(n: TreeNode): RowColor {
  switch (n.kind) {
    case 'turn':
      return n.open ? 'yellow' : label.reasonColor(n.reason ?? '?');
    case 'message':
      return label.roleColor(n.role);
    case 'tool':
      return label.resultBadge(n).color;
    case 'chunks':
    case 'event':
      return 'gray';
    default:
      return undefined;
  }
}

const marker = (text: string, color: RowColor): Segment[] => [{ text, color, bold: true }];

/**
 * Flattens the turn tree to the visible rows. O(visible rows + top-level
 * nodes): collapsed subtrees are skipped, not walked; labels are lazy.
 */
export function buildTurnRows(tree: readonly TreeNode[], expansion: Expansion, ctx: RowsContext): TurnRowsModel {
  const rows: TurnRow[] = [];
  const seed = ctx.fork?.seedLength;
  let ownShown = seed === undefined;
  const last = tree[tree.length - 1];
  const lastOpen = last?.kind === 'turn' && last.open ? last : undefined;
  const { mode, toggled } = expansion;

  const push = (key: string, depth: number, kind: RowKind, seq: number, lastSeq: number, expandable: boolean, expanded: boolean, parent: number, node: TreeNode | undefined, part: Row['part'], segs: Row['label'], color: RowColor): number => {
    if (!ownShown && seq >= seed!) {
      ownShown = true;
      rows.push(new Row('d-own', depth, 'inherited-divider', seed!, seed! - 1, false, false, false, 'cyan', parent, undefined, undefined, undefined, marker(`── own events from seq ${seed} ──`, 'cyan')));
    }
    const reason = kind === 'turn' && node?.kind === 'turn' ? (node.open ? 'open' : node.reason ?? '?') : undefined;
    rows.push(new Row(key, depth, kind, seq, lastSeq, expandable, expanded, seed !== undefined && seq < seed, color, parent, node, part, reason, segs, ctx));
    return rows.length - 1;
  };

  const visit = (n: TreeNode, depth: number, parent: number): void => {
    const key = nodeKey(n);
    const expandable = hasChildren(n);
    const expanded = expandable && defaultExpanded(n, mode, n === lastOpen) !== toggled.has(key);
    const at = push(key, depth, n.kind, n.seq, n.lastSeq, expandable, expanded, parent, n, undefined, nodeLabel, nodeColor(n));
    if (!expanded) return;
    if (n.kind === 'turn' || n.kind === 'step') for (const c of n.children) visit(c, depth + 1, at);
    else if (n.kind === 'tool') {
      push(`${key}a`, depth + 1, 'tool', n.seq, n.seq, false, false, at, n, 'args', nodeLabel, undefined);
      if (n.result) push(`${key}r`, depth + 1, 'tool', n.result.seq, n.result.seq, false, false, at, n, 'result', nodeLabel, nodeColor(n));
    }
  };

  if (ctx.fork) {
    const text = `── inherited from ${label.clip(ctx.fork.parent, 120)}, seedLength ${ctx.fork.seedLength} ──`;
    rows.push(new Row('d-inherited', 0, 'inherited-divider', 0, ctx.fork.seedLength - 1, false, false, true, 'cyan', -1, undefined, undefined, undefined, marker(text, 'cyan')));
  }
  for (let i = 0; i < tree.length; i++) {
    const n = tree[i];
    visit(n, 0, -1);
    if (!isBoundary(ctx.facts, n.lastSeq)) continue;
    // One marker after every turn/end, and after the last of a run of standalone
    // events between turns (each of those rows is forkable itself).
    const next = tree[i + 1];
    if (n.kind !== 'turn' && next !== undefined && next.kind !== 'turn' && isBoundary(ctx.facts, next.lastSeq)) continue;
    push(`b${n.lastSeq}`, 0, 'boundary', n.lastSeq, n.lastSeq, false, false, -1, undefined, undefined, marker(`── fork here · seq ${n.lastSeq} ──`, 'green'), 'green');
  }
  if (!ownShown) rows.push(new Row('d-own', 0, 'inherited-divider', seed!, seed! - 1, false, false, false, 'cyan', -1, undefined, undefined, undefined, marker(`── own events from seq ${seed} ──`, 'cyan')));
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
    }
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
  return historyEntryRows(modelHistory(events, upTo));
}

/** History entries as rows. */
export function historyEntryRows(entries: readonly HistoryEntry[]): TurnRow[] {
  return entries.map((entry, i) => {
    const color = label.roleColor(entry.role);
    const segments: Segment[] = [{ text: `${label.clip(entry.role, 20)}: `, color, bold: true }];
    if (entry.text.trim()) segments.push({ text: label.clip(entry.text.trim()) });
    for (const c of entry.toolCalls ?? []) segments.push({ text: segments.length > 1 ? ' → ' : '→ ', dim: true }, { text: label.clip(c, 80), dim: true });
    if (segments.length === 1) segments.push({ text: '(no text)', dim: true });
    return { key: `h${i}`, depth: 0, kind: 'message', seq: entry.seq, lastSeq: entry.seq, text: label.segmentsText(segments), segments, expandable: false, expanded: false, inherited: false, color, parent: -1, entry };
  });
}
