// The Turns view's model: the turn tree (src/session/replay.ts) flattened to
// the rows that are visible under an expansion state, with a marker row at
// every fork boundary and dividers around a fork child's inherited seed.
// The rows are a sequence that builds only the rows read (a 10 GB log has
// 58,495 turns: its whole row list took ~40 MB, twice that while an expansion
// was rebuilt), from the size of each top-level node's block of rows.
// Pure: no Ink, no I/O. Every string from a file is sanitised (turn-row-text).
import { firstNotBefore } from '../../session/sorted.js';
import { emptyUsage, usageOfSeqs } from '../../session/usage.js';
import { eventAtSeq } from '../../session/turn-summary.js';
import { lastAtOrBefore } from '../../session/sorted.js';
import type { TurnIndex } from '../../session/turn-index.js';
import type { SessionForkError } from '../../session/errors.js';
import type { SessionEvent } from '../../session/events.js';
import { isBoundary, nearestBoundaries } from '../../session/log-facts.js';
import { childCount, modelHistory, type HistoryEntry, type ParentNode, type TreeNode } from '../../session/replay.js';
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
  return withFork(session, { facts: session.facts, turnFacts: (n) => ({ usage: usageOfSeqs(events, n.seq, n.lastSeq), time: eventAtSeq(events, n.lastSeq)?.time, start: eventAtSeq(events, n.seq)?.time }), now });
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
 * An expanded top-level node with more children than this is a wide block:
 * its rows are built a child at a time (a 10 GB turn has 160,000 steps, and
 * each row holds its node's text). Set lower by tests (setWideChildren).
 */
let wideChildren = 200;
export const setWideChildren = (n: number): void => {
  wideChildren = n;
};

/** The children of a wide block whose rows are kept built. */
const KEPT_CHILDREN = 64;

/** A wide block: where each child's rows start in it (its own row first: 1), its size, and the children's rows built. */
interface Wide {
  readonly node: ParentNode;
  readonly childStarts: Int32Array;
  readonly size: number;
  readonly built: Map<number, TurnRow[]>;
  /** its node's row and its marker, once built */
  head?: TurnRow;
  mark?: TurnRow;
}

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
  private readonly wide = new Map<number, Wide>();
  /** the seqs of the toggled keys, in order: a step with none of them inside counts its rows from its counts */
  private readonly toggledSeqs: number[];

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
    this.toggledSeqs = [...expansion.toggled].map((k) => Number(/\d+/.exec(k)?.[0] ?? -1)).sort((a, b) => a - b);
    this.starts = new Int32Array(n + 1);
    let pending = seed !== undefined; // the own-events divider is not placed yet
    let ownBlock = -1;
    let ordered = true;
    for (let i = 0; i < n; i++) {
      const node = tree[i];
      if (node.lastSeq < node.seq || (i > 0 && node.seq <= tree[i - 1].lastSeq)) ordered = false;
      this.starts[i] = at;
      // A node's block is its rows (counted, not built: an indexed node knows how many it
      // shows expanded) and its marker; the one the divider may fall in (the first with a
      // row at or past the seed) is built to be counted. A wide one is built a child at a time.
      if (pending && node.lastSeq >= seed!) {
        const rows = this.build(i, at, pending);
        if (rows.some((r) => r.kind === 'inherited-divider')) {
          pending = false;
          ownBlock = i;
        }
        at += rows.length;
      } else if (this.expanded(node) && (node.kind === 'turn' || node.kind === 'step') && childCount(node) > wideChildren) at += this.widen(i, node);
      else at += this.countRows(node) + (this.marked(i) ? 1 : 0);
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
    const w = this.wide.get(b);
    return w ? this.wideRow(b, w, i - this.starts[b]) : this.block(b)[i - this.starts[b]];
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
    const w = this.wide.get(b);
    return w ? this.wideIndexForSeq(b, w, seq) : indexForSeqIn(this.block(b), seq, this.starts[b]);
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
    return Math.max(0, lastAtOrBefore(this.tree.length, (k) => this.starts[k], i));
  }

  /** the last top-level node starting at or before `seq` (-1: none) */
  private blockOfSeq(seq: number): number {
    return lastAtOrBefore(this.tree.length, (i) => this.tree[i].seq, seq);
  }

  private findInBlock(b: number, key: string): number | undefined {
    const w = this.wide.get(b);
    if (w) return this.findInWide(b, w, key);
    const at = this.block(b).findIndex((r) => r.key === key);
    return at < 0 ? undefined : this.starts[b] + at;
  }

  // ---- wide blocks: an expanded node's rows a child at a time ----

  /** The rows a node shows under the expansion, counted without building them (a step's from its counts, when no toggled key falls inside it). */
  private countRows(n: TreeNode): number {
    if (!this.expanded(n)) return 1;
    if (n.kind === 'tool') return n.result ? 3 : 2;
    if (n.kind !== 'turn' && n.kind !== 'step') return 1;
    if (n.allRows !== undefined && this.expansion.mode === 'all' && !this.toggledInside(n)) return n.allRows;
    if (n.kind === 'step' && n.tools && !this.toggledInside(n)) return 1 + childCount(n) + (this.expansion.mode === 'all' ? n.tools.calls + n.tools.results : 0);
    let sum = 1;
    for (const c of n.children) sum += this.countRows(c);
    return sum;
  }

  /** whether a toggled key other than the node's own has a seq in its range */
  private toggledInside(n: TreeNode): boolean {
    const t = this.toggledSeqs;
    const i = firstNotBefore(t.length, (j) => t[j] <= n.seq);
    return i < t.length && t[i] <= n.lastSeq;
  }

  /** Makes top-level node b a wide block; its size. */
  private widen(b: number, node: ParentNode): number {
    const kids = node.children;
    const childStarts = new Int32Array(kids.length + 1);
    let at = 1;
    for (let c = 0; c < kids.length; c++) {
      childStarts[c] = at;
      at += this.countRows(kids[c]);
    }
    childStarts[kids.length] = at;
    const size = at + (this.marked(b) ? 1 : 0);
    this.wide.set(b, { node, childStarts, size, built: new Map() });
    return size;
  }

  /** Row `o` of wide block b: its node's row, a child's, or its marker. */
  private wideRow(b: number, w: Wide, o: number): TurnRow {
    const base = this.starts[b];
    const kids = w.childStarts.length - 1;
    if (o === 0) return (w.head ??= this.emitter(base, false).visit(w.node, 0, -1, true));
    if (o >= w.childStarts[kids]) return (w.mark ??= this.emitter(base + o, false).mark(b));
    const c = Math.max(0, lastAtOrBefore(kids, (k) => w.childStarts[k], o));
    return this.childRows(b, w, c)[o - w.childStarts[c]];
  }

  /** the rows of child c of wide block b (built, and a few kept) */
  private childRows(b: number, w: Wide, c: number): TurnRow[] {
    let rows = w.built.get(c);
    if (rows) return rows;
    const e = this.emitter(this.starts[b] + w.childStarts[c], false);
    e.visit(w.node.children[c], 1, this.starts[b]);
    rows = e.rows;
    fit(rows, w.childStarts[c + 1] - w.childStarts[c], this.starts[b] + w.childStarts[c], 1, this.starts[b]);
    if (w.built.size >= KEPT_CHILDREN) w.built.delete(w.built.keys().next().value!);
    w.built.set(c, rows);
    return rows;
  }

  /** A key's row in a wide block: its node's, its marker, or one in the last child starting at or before the key's seq. */
  private findInWide(b: number, w: Wide, key: string): number | undefined {
    const base = this.starts[b];
    if (key === nodeKey(w.node)) return base;
    if (key === `b${w.node.lastSeq}` && this.marked(b)) return base + w.size - 1;
    const seq = Number(/\d+/.exec(key)![0]);
    const kids = w.node.children;
    const lo = lastAtOrBefore(kids.length, (i) => kids[i].seq, seq);
    if (lo < 0) return undefined;
    const at = this.childRows(b, w, lo).findIndex((r) => r.key === key);
    return at < 0 ? undefined : base + w.childStarts[lo] + at;
  }

  /** indexForSeqIn over a wide block, reading only the children that cover `seq` (or, past its node, the last rows). */
  private wideIndexForSeq(b: number, w: Wide, seq: number): number {
    const base = this.starts[b];
    const n = w.node;
    if (seq === n.lastSeq && this.marked(b)) return base + w.size - 1;
    let best = n.seq <= seq && seq <= n.lastSeq ? base : -1;
    let bestDepth = 0;
    const kids = n.children;
    for (let c = 0; c < kids.length && kids[c].seq <= seq; c++) {
      if (kids[c].lastSeq < seq) continue;
      const rows = this.childRows(b, w, c);
      for (let k = 0; k < rows.length; k++) {
        const r = rows[k];
        if (r.kind !== 'inherited-divider' && r.seq <= seq && seq <= r.lastSeq && (best < 0 || r.depth >= bestDepth)) {
          best = base + w.childStarts[c] + k;
          bestDepth = r.depth;
        }
      }
    }
    if (best >= 0) return best;
    // past the node and every child: the last row at or before it
    for (let o = w.size - 1; o >= 0; o--) if (this.wideRow(b, w, o).seq <= seq) return base + o;
    return base;
  }

  private scan(key: string): number | undefined {
    for (let i = 0; i < this.length; i++) if (this.at(i)!.key === key) return i;
    return undefined;
  }

  private block(b: number): TurnRow[] {
    let rows = this.blocks.get(b);
    if (!rows) rows = this.build(b, this.starts[b], b === this.ownBlock, this.starts[b + 1] - this.starts[b]);
    return rows;
  }

  /** Builds (and keeps) block b, its first row at index `offset`. */
  private build(b: number, offset: number, dividerHere: boolean, want?: number): TurnRow[] {
    const e = this.emitter(offset, dividerHere);
    e.visit(this.tree[b], 0, -1);
    if (want !== undefined) fit(e.rows, want - (this.marked(b) ? 1 : 0), offset, 1, offset);
    if (this.marked(b)) e.mark(b);
    if (this.blocks.size >= KEPT_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!);
    this.blocks.set(b, e.rows);
    return e.rows;
  }

  /**
   * Rows made in order from index `offset` on: `visit` adds a node's row
   * (and its visible descendants', unless `alone`) and returns its row,
   * `mark` top-level node b's boundary marker; the own-events divider goes
   * before the first row at or past the seed when `dividerHere`.
   */
  private emitter(offset: number, dividerHere: boolean) {
    const rows: TurnRow[] = [];
    const { ctx } = this;
    const seed = ctx.fork?.seedLength;
    let ownShown = !dividerHere;
    const push = (key: string, depth: number, kind: RowKind, seq: number, lastSeq: number, expandable: boolean, expanded: boolean, parent: number, node: TreeNode | undefined, part: Row['part'], segs: Row['label'], color: Row['color']): TurnRow => {
      if (!ownShown && seq >= seed!) {
        ownShown = true;
        rows.push(ownDivider(seed!, depth, parent));
      }
      const reason = kind === 'turn' && node?.kind === 'turn' ? (node.open ? 'open' : node.reason ?? '?') : undefined;
      const row = new Row(key, depth, kind, seq, lastSeq, expandable, expanded, seed !== undefined && seq < seed, color, parent, node, part, reason, segs, ctx);
      rows.push(row);
      return row;
    };
    const visit = (n: TreeNode, depth: number, parent: number, alone = false): TurnRow => {
      const key = nodeKey(n);
      const expandable = hasChildren(n);
      const expanded = expandable && this.expanded(n);
      const row = push(key, depth, n.kind, n.seq, n.lastSeq, expandable, expanded, parent, n, undefined, nodeLabel, nodeColor(n));
      if (!expanded || alone) return row;
      const at = offset + rows.length - 1;
      if (n.kind === 'turn' || n.kind === 'step') for (const c of n.children) visit(c, depth + 1, at);
      else if (n.kind === 'tool') {
        push(`${key}a`, depth + 1, 'tool', n.seq, n.seq, false, false, at, n, 'args', nodeLabel, undefined);
        if (n.result) push(`${key}r`, depth + 1, 'tool', n.result.seq, n.result.seq, false, false, at, n, 'result', nodeLabel, nodeColor(n));
      }
      return row;
    };
    const mark = (b: number): TurnRow => {
      const n = this.tree[b];
      return push(`b${n.lastSeq}`, 0, 'boundary', n.lastSeq, n.lastSeq, false, false, -1, undefined, undefined, marker(`── fork here · seq ${n.lastSeq} ──`, 'green'), 'green');
    };
    return { rows, visit, mark };
  }
}

/**
 * Rows as many as were counted for them: an indexed node counts its rows
 * from what the index kept, and builds them from its events read again; a
 * log that cannot be read now (deleted or replaced under us: the follower
 * reads it again) has fewer, shown as a row that says so, never a hole.
 */
function fit(rows: TurnRow[], want: number, offset: number, depth: number, parent: number): void {
  if (rows.length > want) rows.length = Math.max(0, want);
  for (let k = rows.length; k < want; k++) rows.push(new Row(`u${offset + k}`, depth, 'event', -1, -1, false, false, false, 'gray', parent, undefined, undefined, undefined, [{ text: '(cannot be read now: the log changed)', dim: true }]));
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
