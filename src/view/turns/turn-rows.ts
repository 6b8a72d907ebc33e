// The Turns view's model: the turn tree (src/session/replay.ts) flattened to
// the rows that are visible under an expansion state, with a marker row at
// every fork boundary and dividers around a fork child's inherited seed.
// The rows are a sequence that builds only the rows read (a 10 GB log has
// 58,495 turns: its whole row list took ~40 MB, twice that while an expansion
// was rebuilt), from the size of each top-level node's block of rows.
// Pure: no Ink, no I/O. Every string from a file is sanitised (turn-row-text).
import { emptyUsage, usageOfSeqs } from '../../session/usage.js';
import { eventAtSeq } from '../../session/turn-summary.js';
import type { TurnIndex } from '../../session/turn-index.js';
import type { SessionForkError } from '../../session/errors.js';
import type { SessionEvent } from '../../session/events.js';
import { isBoundary, nearestBoundaries } from '../../session/log-facts.js';
import { childCount, modelHistory, type HistoryEntry, type TreeNode } from '../../session/replay.js';
import type { Session } from '../../session/session.js';
import type { SessionStore } from '../../session/store.js';
import type { RowSeq } from '../app/window.js';
import * as label from './turn-row-text.js';
import type { Segment } from './turn-row-text.js';
import { marker, nodeColor, nodeKey, nodeLabel, Row, type RowKind, type RowsContext, type TurnRow } from './turn-row.js';

export type { RowColor, Segment } from './turn-row-text.js';
export { nodeKey, type RowKind, type RowsContext, type TurnRow } from './turn-row.js';
export { turnsReducer, initialTurnsState, type TurnsState, type TurnsAction, type Cursor, type RowsView, type ViewOf } from './turns-state.js';

export interface TurnRowsModel {
  rows: TurnRows;
  /** row key -> index */
  index: { get(key: string): number | undefined };
}

/** Expansion: a mode and the keys flipped relative to the mode's default. */
export interface Expansion {
  mode: 'auto' | 'all' | 'none';
  toggled: ReadonlySet<string>;
}

export const defaultExpansion: Expansion = { mode: 'auto', toggled: new Set() };

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

function defaultExpanded(n: TreeNode, mode: Expansion['mode'], isLastOpen: boolean): boolean {
  if (mode !== 'auto') return mode === 'all';
  if (n.kind === 'turn') return isLastOpen;
  return n.kind === 'step';
}

const hasChildren = (n: TreeNode): boolean => (n.kind === 'turn' || n.kind === 'step' ? childCount(n) > 0 : n.kind === 'tool');

/** How many top-level nodes' blocks of rows are kept built; a block read again after that is built again (a few µs). */
const KEPT_BLOCKS = 1024;

/**
 * The visible rows of a tree under an expansion: the row list of
 * `RowSeq`, built a block at a time. A top-level node's block is its row,
 * its visible descendants (built at once when it is expanded: they are
 * counted), the own-events divider when it falls there, and its boundary
 * marker. Only the blocks' first indexes are kept for every node (4 bytes
 * each); a block is built when a row of it is read, and a few are kept.
 */
export class TurnRows implements RowSeq<TurnRow> {
  readonly length: number;
  /** starts[i]: the index of top-level node i's first row; starts[n]: the end of the last block */
  private readonly starts: Int32Array;
  private readonly head?: TurnRow;
  private readonly tail?: TurnRow;
  /** the block the own-events divider is drawn in (-1: none, or after every block) */
  private readonly ownBlock: number;
  /** the top-level nodes are in seq order and disjoint (as replay builds them): a seq is in one block */
  private readonly ordered: boolean;
  private readonly lastOpen?: TreeNode;
  private readonly blocks = new Map<number, TurnRow[]>();

  constructor(
    private readonly tree: readonly TreeNode[],
    private readonly expansion: Expansion,
    private readonly ctx: RowsContext,
  ) {
    const n = tree.length;
    const last = tree[n - 1];
    this.lastOpen = last?.kind === 'turn' && last.open ? last : undefined;
    const seed = ctx.fork?.seedLength;
    let at = 0;
    if (ctx.fork) {
      const text = `── inherited from ${label.clip(ctx.fork.parent, 120)}, seedLength ${ctx.fork.seedLength} ──`;
      this.head = new Row('d-inherited', 0, 'inherited-divider', 0, ctx.fork.seedLength - 1, false, false, true, 'cyan', -1, undefined, undefined, undefined, marker(text, 'cyan'));
      at = 1;
    }
    this.starts = new Int32Array(n + 1);
    let pending = seed !== undefined; // the own-events divider is not placed yet
    let ownBlock = -1;
    let ordered = true;
    for (let i = 0; i < n; i++) {
      const node = tree[i];
      if (node.lastSeq < node.seq || (i > 0 && node.seq <= tree[i - 1].lastSeq)) ordered = false;
      this.starts[i] = at;
      // A collapsed node's block is its row and its marker; an expanded one, and the one the
      // divider may fall in (the first with a row at or past the seed), is built to be counted.
      if (this.expanded(node) || (pending && node.lastSeq >= seed!)) {
        const rows = this.build(i, at, pending);
        if (pending && rows.some((r) => r.kind === 'inherited-divider')) {
          pending = false;
          ownBlock = i;
        }
        at += rows.length;
      } else at += this.marked(i) ? 2 : 1;
    }
    this.starts[n] = at;
    if (pending) {
      this.tail = ownDivider(seed!, 0, -1);
      at++;
    }
    this.ownBlock = ownBlock;
    this.ordered = ordered;
    this.length = at;
  }

  at(i: number): TurnRow | undefined {
    i = atIndex(i, this.length);
    if (i < 0) return undefined;
    const n = this.tree.length;
    if (i < this.starts[0]) return this.head;
    if (i >= this.starts[n]) return this.tail;
    const b = this.blockAt(i);
    return this.block(b)[i - this.starts[b]];
  }

  slice(start?: number, end?: number): TurnRow[] {
    return sliceOf(this, start, end);
  }

  /** The index of the row with this key (a node's kind letter and first seq, `b` and a boundary's seq, a divider's name). */
  indexOfKey(key: string): number | undefined {
    if (key === 'd-inherited') return this.head ? 0 : undefined;
    if (key === 'd-own') return this.tail ? this.length - 1 : this.ownBlock >= 0 ? this.findInBlock(this.ownBlock, key) : undefined;
    const m = /^[a-z](\d+)[ar]?$/.exec(key);
    if (!m) return undefined;
    if (!this.ordered) return this.scan(key);
    const b = this.blockOfSeq(Number(m[1]));
    return b < 0 ? undefined : this.findInBlock(b, key);
  }

  /** rowIndexForSeq over these rows: only the block holding `seq` can hold its row. */
  indexForSeq(seq: number): number {
    if (!this.ordered) return indexForSeqIn(this.slice(), seq, 0);
    const b = this.blockOfSeq(seq);
    if (b < 0) return this.length ? 0 : -1;
    return indexForSeqIn(this.block(b), seq, this.starts[b]);
  }

  private expanded(n: TreeNode): boolean {
    const { mode, toggled } = this.expansion;
    return hasChildren(n) && defaultExpanded(n, mode, n === this.lastOpen) !== (toggled.size > 0 && toggled.has(nodeKey(n)));
  }

  /** One marker after every turn/end, and after the last of a run of standalone events between turns (each of those rows is forkable itself). */
  private marked(i: number): boolean {
    const n = this.tree[i];
    if (!isBoundary(this.ctx.facts, n.lastSeq)) return false;
    const next = this.tree[i + 1];
    return !(n.kind !== 'turn' && next !== undefined && next.kind !== 'turn' && isBoundary(this.ctx.facts, next.lastSeq));
  }

  /** the block holding row i (a binary search of the blocks' first rows) */
  private blockAt(i: number): number {
    let lo = 0;
    let hi = this.tree.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** the last top-level node starting at or before `seq` (-1: none) */
  private blockOfSeq(seq: number): number {
    let lo = -1;
    let hi = this.tree.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.tree[mid].seq <= seq) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private findInBlock(b: number, key: string): number | undefined {
    const at = this.block(b).findIndex((r) => r.key === key);
    return at < 0 ? undefined : this.starts[b] + at;
  }

  private scan(key: string): number | undefined {
    for (let i = 0; i < this.length; i++) if (this.at(i)!.key === key) return i;
    return undefined;
  }

  private block(b: number): TurnRow[] {
    let rows = this.blocks.get(b);
    if (!rows) rows = this.build(b, this.starts[b], b === this.ownBlock);
    return rows;
  }

  /** Builds (and keeps) block b, its first row at index `offset`. */
  private build(b: number, offset: number, dividerHere: boolean): TurnRow[] {
    const rows: TurnRow[] = [];
    const { ctx } = this;
    const seed = ctx.fork?.seedLength;
    let ownShown = !dividerHere;
    const push = (key: string, depth: number, kind: RowKind, seq: number, lastSeq: number, expandable: boolean, expanded: boolean, parent: number, node: TreeNode | undefined, part: Row['part'], segs: Row['label'], color: Row['color']): number => {
      if (!ownShown && seq >= seed!) {
        ownShown = true;
        rows.push(ownDivider(seed!, depth, parent));
      }
      const reason = kind === 'turn' && node?.kind === 'turn' ? (node.open ? 'open' : node.reason ?? '?') : undefined;
      rows.push(new Row(key, depth, kind, seq, lastSeq, expandable, expanded, seed !== undefined && seq < seed, color, parent, node, part, reason, segs, ctx));
      return offset + rows.length - 1;
    };
    const visit = (n: TreeNode, depth: number, parent: number): void => {
      const key = nodeKey(n);
      const expandable = hasChildren(n);
      const expanded = expandable && this.expanded(n);
      const at = push(key, depth, n.kind, n.seq, n.lastSeq, expandable, expanded, parent, n, undefined, nodeLabel, nodeColor(n));
      if (!expanded) return;
      if (n.kind === 'turn' || n.kind === 'step') for (const c of n.children) visit(c, depth + 1, at);
      else if (n.kind === 'tool') {
        push(`${key}a`, depth + 1, 'tool', n.seq, n.seq, false, false, at, n, 'args', nodeLabel, undefined);
        if (n.result) push(`${key}r`, depth + 1, 'tool', n.result.seq, n.result.seq, false, false, at, n, 'result', nodeLabel, nodeColor(n));
      }
    };
    const n = this.tree[b];
    visit(n, 0, -1);
    if (this.marked(b)) push(`b${n.lastSeq}`, 0, 'boundary', n.lastSeq, n.lastSeq, false, false, -1, undefined, undefined, marker(`── fork here · seq ${n.lastSeq} ──`, 'green'), 'green');
    if (this.blocks.size >= KEPT_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!);
    this.blocks.set(b, rows);
    return rows;
  }
}

/** The divider before a fork child's first own event, at the depth of the row it comes before. */
function ownDivider(seed: number, depth: number, parent: number): TurnRow {
  return new Row('d-own', depth, 'inherited-divider', seed, seed - 1, false, false, false, 'cyan', parent, undefined, undefined, undefined, marker(`── own events from seq ${seed} ──`, 'cyan'));
}

/**
 * Flattens the turn tree to the visible rows. O(top-level nodes + the rows
 * of expanded ones): collapsed subtrees are skipped, not walked; rows are
 * built when read, and labels when drawn.
 */
export function buildTurnRows(tree: readonly TreeNode[], expansion: Expansion, ctx: RowsContext): TurnRowsModel {
  const rows = new TurnRows(tree, expansion, ctx);
  return { rows, index: { get: (key) => rows.indexOfKey(key) } };
}

/**
 * The row to select for `seq`, among the rows of the top-level node it falls
 * in: its fork-boundary marker when there is one, else the deepest visible
 * row covering it, else the last row before it. (A tool call answered after
 * its turn ended covers the events between, but they are another node's.)
 */
export function rowIndexForSeq(rows: RowSeq<TurnRow>, seq: number): number {
  return rows instanceof TurnRows ? rows.indexForSeq(seq) : indexForSeqIn(rows.slice(), seq, 0);
}

/** rowIndexForSeq over `rows`, the first of them at index `offset` of their list. */
function indexForSeqIn(rows: readonly TurnRow[], seq: number, offset: number): number {
  let best = -1;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (r.kind === 'boundary' && r.seq === seq) return offset + i;
    if (r.kind === 'inherited-divider') continue;
    if (r.seq <= seq && seq <= r.lastSeq) {
      if (best < 0 || r.depth >= rows[best].depth) best = i;
    }
  }
  if (best >= 0) return offset + best;
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i].seq <= seq && rows[i].kind !== 'inherited-divider') return offset + i;
  return rows.length ? offset : -1;
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

/** Array.prototype.at's index: from the end when negative; -1 when out of the list. */
function atIndex(i: number, length: number): number {
  i = Math.trunc(i) || 0;
  if (i < 0) i += length;
  return i >= 0 && i < length ? i : -1;
}

/** Array.prototype.slice over a list read a row at a time. */
function sliceOf<T>(rows: RowSeq<T>, start = 0, end = rows.length): T[] {
  const len = rows.length;
  const clamp = (x: number): number => {
    const t = Math.trunc(x) || 0;
    return t < 0 ? Math.max(len + t, 0) : Math.min(t, len);
  };
  const out: T[] = [];
  for (let i = clamp(start), e = clamp(end); i < e; i++) out.push(rows.at(i)!);
  return out;
}

/** The model history after events [0, upTo] as rows (one per transcript entry). */
export function historyRows(events: readonly SessionEvent[], upTo: number): HistoryRows {
  return new HistoryRows(modelHistory(events, upTo));
}

/**
 * History entries as rows, each built when read: a large log's history keeps
 * its last 20,000 entries, and a row each (its label's segments and text)
 * held as much again for as long as the history was open or kept.
 */
export class HistoryRows implements RowSeq<TurnRow> {
  constructor(readonly entries: readonly HistoryEntry[]) {}
  get length(): number {
    return this.entries.length;
  }
  at(i: number): TurnRow | undefined {
    i = atIndex(i, this.entries.length);
    return i < 0 ? undefined : historyRow(this.entries[i], i);
  }
  slice(start?: number, end?: number): TurnRow[] {
    return sliceOf(this, start, end);
  }
}

/** The row of history entry `i`. */
function historyRow(entry: HistoryEntry, i: number): TurnRow {
  const color = label.roleColor(entry.role);
  const segments: Segment[] = [{ text: `${label.clip(entry.role, 20)}: `, color, bold: true }];
  if (entry.text.trim()) segments.push({ text: label.clip(entry.text.trim()) });
  for (const c of entry.toolCalls ?? []) segments.push({ text: segments.length > 1 ? ' → ' : '→ ', dim: true }, { text: label.clip(c, 80), dim: true });
  if (segments.length === 1) segments.push({ text: '(no text)', dim: true });
  return { key: `h${i}`, depth: 0, kind: 'message', seq: entry.seq, lastSeq: entry.seq, text: label.segmentsText(segments), segments, expandable: false, expanded: false, inherited: false, color, parent: -1, entry };
}
