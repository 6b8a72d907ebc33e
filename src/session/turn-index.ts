// The offset index of a log's turns: what the Turns view needs to
// draw a session of any size without holding its events. One streaming pass
// cuts the log into segments (a turn/start up to the next; the events before
// the first turn are one too: no tree state crosses a turn/start, replay.ts)
// and keeps per segment its byte range, its seqs and its top-level nodes, with
// a turn's or step's children left on disk: they are read again by byte range
// when a row needs them, and kept in a cache with a byte budget. What a turn's
// row shows (its usage, the time of its last event) is kept with it. Pure: the
// read of a byte range is passed in (storage/indexed-turns.ts).
//
// A huge turn (an agent left running for hours: hundreds of MB) is cut into
// pieces of a few MB at its step/starts (turn-pieces.ts has the rule), so
// that neither the pass nor a read of its rows ever holds it whole: its node
// keeps its steps (their children on disk, each read with its piece).
import { firstNotBefore } from './sorted.js';
import type { SessionEvent } from './events.js';
import { safeStringify } from './json-safe.js';
import { buildTurnTree, openRowCount, type ParentNode, type ToolCounts, type TreeNode } from './replay.js';
import { lastAtOrBefore } from './sorted.js';
import { PieceCuts } from './turn-pieces.js';
import { treeSubagents, type TreeSubagents } from './subagent-calls.js';
import { addUsage, usageOfSeqs, type TokenUsage } from './usage.js';

/** One segment of the log: where to read it again, and its top-level nodes. */
export interface IndexedSegment {
  /** seqs of its first and last event */
  readonly seq: number;
  readonly lastSeq: number;
  /** bytes [from, to): from the start of its first event's line (skipped lines before it included) to the end of its last event's line */
  readonly from: number;
  readonly to: number;
  /** the seq the reader expects at `from` (the one after the last event before it) */
  readonly nextSeq: number;
  /** its events */
  readonly count: number;
  /** set when it starts inside a turn (at a step/start: a piece of a huge turn); the turn's number */
  readonly within?: number;
}

/** What a turn's row shows that is not in its node: the usage of its events, the times of its first and last one. */
export interface TurnFacts {
  usage: TokenUsage;
  time?: number;
  start?: number;
}

/** A segment's events and full nodes, read again from disk. */
export interface SegmentBody {
  events: readonly SessionEvent[];
  nodes: readonly TreeNode[];
}

/** Reads a segment's events again: bytes [from, to) from nextSeq, the events with seqs seq..lastSeq. */
export type SegmentReader = (seg: IndexedSegment) => SessionEvent[];

/**
 * The segments read again, least recently used dropped first once their
 * bytes pass the budget (the one in use is kept whatever its size). One for
 * all sessions: the budget bounds what browsing holds, whichever is open.
 */
export class SegmentCache {
  private readonly map = new Map<IndexedSegment, SegmentBody>();
  private bytes = 0;
  constructor(readonly budget: number) {}

  get(seg: IndexedSegment, read: () => readonly SessionEvent[]): SegmentBody {
    let body = this.map.get(seg);
    if (body) {
      this.map.delete(seg);
      this.map.set(seg, body);
      return body;
    }
    const events = read();
    body = { events, nodes: buildTurnTree(events, seg.within) };
    this.map.set(seg, body);
    this.bytes += seg.to - seg.from;
    for (const [old] of this.map) {
      if (this.bytes <= this.budget || old === seg) break;
      this.map.delete(old);
      this.bytes -= old.to - old.from;
    }
    return body;
  }

  /** bytes of the segments held (a test reads it) */
  get held(): number {
    return this.bytes;
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }
}

/** ~12 MB of log text held for rows, the reader and the detail pane (their parsed form is a few times that). */
export const segmentCache = new SegmentCache(12 * 1024 * 1024);

const NO_BODY: SegmentBody = { events: [], nodes: [] };
const UNREAD: ParentNode = { kind: 'step', seq: -1, lastSeq: -1, turn: 0, step: 0, open: false, children: [] };

/** A prompt or end reason longer than this stays on disk (read with its segment); a row shows its first line. */
const KEEP_TEXT = 4096;

/**
 * The index itself: the segments in order, the top-level nodes of all of
 * them (the tree the rows are built from; parents read their children on
 * demand) and each turn's facts.
 */
export class TurnIndex {
  readonly segments: IndexedSegment[];
  readonly tree: TreeNode[];
  /** events indexed */
  events: number;

  constructor(
    private readonly read: SegmentReader,
    private readonly cache: SegmentCache = segmentCache,
    /** an index to go on from (appends): its segments and nodes but its last segment, which is read again */
    from?: TurnIndex,
  ) {
    const keep = from ? from.segments.length - 1 : 0;
    this.segments = from ? from.segments.slice(0, keep) : [];
    this.tree = from ? from.tree.slice(0, from.treeLengthBefore(keep)) : [];
    this.events = from ? from.events - from.segments[keep].count : 0;
    this.starts = from ? from.starts.slice(0, keep) : [];
    // the segment read again is a piece of the last turn: that turn without it (a new node: the old index still shows the old one)
    const last = this.tree.length - 1;
    if (from && from.segments[keep].within !== undefined) this.tree[last] = (this.tree[last] as unknown as PiecedTurn).without(from.segments[keep]) as unknown as ParentNode;
  }
  /** index in `tree` of each segment's first node */
  private readonly starts: number[];

  private treeLengthBefore(segment: number): number {
    return segment < this.starts.length ? this.starts[segment] : this.tree.length;
  }

  /**
   * Adds a segment with its events (the builder's; they are not kept).
   * `cut`: it ends inside its last turn, which the next segment goes on with.
   */
  add(seg: IndexedSegment, events: readonly SessionEvent[], cut = false): void {
    this.segments.push(seg);
    this.starts.push(this.tree.length);
    this.events += seg.count;
    const nodes = buildTurnTree(events, seg.within);
    let pos = 0;
    if (seg.within !== undefined) {
      // the rest of the turn the segment before cut: one more piece of its node (or, a tail read from inside a turn, its first)
      const last = this.tree.length - 1;
      const p = piece(nodes[0] as TurnNode, seg, events, this);
      if (last < 0) this.tree.push(new PiecedTurn([p], this, { seq: seg.seq, turn: seg.within }) as unknown as ParentNode);
      else this.tree[last] = (this.tree[last] as unknown as PiecedTurn).with(p) as unknown as ParentNode;
      pos = 1;
    }
    for (; pos < nodes.length; pos++) {
      const n = nodes[pos];
      if (cut && n.kind === 'turn' && pos === nodes.length - 1) this.tree.push(new PiecedTurn([piece(n, seg, events, this)], this, n) as unknown as ParentNode);
      else this.tree.push(n.kind === 'turn' || n.kind === 'step' ? (new LazyParent(n, this, seg, pos, n.kind === 'turn' ? turnFactsOf(n, events) : undefined) as unknown as ParentNode) : n);
    }
  }

  /**
   * A segment's events and full nodes (from the cache, or read again); none
   * when its file cannot be read now (deleted or replaced under us: the
   * follower says so and the session is read again), never an error thrown
   * into a frame being drawn.
   */
  body(seg: IndexedSegment): SegmentBody {
    try {
      return this.cache.get(seg, () => this.read(seg));
    } catch {
      return NO_BODY;
    }
  }

  /** The segment that holds `seq`, if any. */
  segmentOf(seq: number): IndexedSegment | undefined {
    const s = this.segments;
    const i = firstNotBefore(s.length, (j) => s[j].lastSeq < seq);
    return i < s.length && s[i].seq <= seq ? s[i] : undefined;
  }

  /** The event with this seq, read with its segment. */
  event(seq: number): SessionEvent | undefined {
    const seg = this.segmentOf(seq);
    if (!seg) return undefined;
    const events = this.body(seg).events;
    const i = seq - seg.seq;
    if (events[i]?.seq === seq) return events[i];
    return events.find((e) => e.seq === seq);
  }

  /**
   * The latest turn/start at or before `seq`: the first event of the last
   * segment from it back that does not start inside a turn (every other
   * segment but the log's first starts at one). Null: none in the log;
   * undefined: the index does not reach back to it (the tail only).
   */
  turnStartAtOrBefore(seq: number): SessionEvent | null | undefined {
    const s = this.segments;
    for (let i = lastAtOrBefore(s.length, (k) => s[k].seq, seq); i >= 0; i--) {
      if (s[i].within !== undefined) continue;
      const e = this.event(s[i].seq);
      if (e === undefined) return undefined;
      return e.type === 'turn/start' ? e : null;
    }
    return undefined;
  }

  /** A turn node's usage and last event time. */
  turnFacts(n: TreeNode): TurnFacts | undefined {
    return n instanceof LazyParent || n instanceof PiecedTurn ? n.facts : undefined;
  }
}

/** The usage of a turn node's events and the time of its last one, from the events of its segment. */
function turnFactsOf(n: TurnNode, events: readonly SessionEvent[]): TurnFacts {
  const at = events.findIndex((e) => e.seq === n.lastSeq);
  const from = events.findIndex((e) => e.seq === n.seq);
  return { usage: usageOfSeqs(events, n.seq, n.lastSeq), time: at < 0 ? undefined : events[at].time, start: from < 0 ? undefined : events[from].time };
}

/**
 * A turn's or step's node as the index keeps it: its fields but its children,
 * which (with a prompt or end reason over KEEP_TEXT) are read again with its
 * segment when asked for; a turn's facts with it. A class with its reads on
 * the prototype: made lazy with defineProperty and two closures, a node was a
 * dictionary-mode object of ~700 bytes (40 of the 10 GB log's 66 MB of index).
 */
class LazyParent {
  readonly kind: ParentNode['kind'];
  readonly seq: number;
  readonly lastSeq: number;
  readonly turn: number;
  readonly open: boolean;
  readonly childCount: number;
  /** a step's number and tool counts; a turn's end reason */
  readonly step?: number;
  readonly tools?: ToolCounts;
  /** the subagent calls and catalog events among its children (kept: its children are on disk) */
  readonly subagents: TreeSubagents;
  /** its rows with everything expanded */
  readonly allRows: number;
  readonly reason?: string;
  /** a prompt or end reason data kept (short), or undefined with `long` telling which is on disk */
  private readonly keptPrompt?: string;
  private readonly keptReasonData?: unknown;
  private readonly long: number;

  constructor(
    n: ParentNode,
    private readonly index: TurnIndex,
    private readonly seg: IndexedSegment,
    /** its place in the segment's top-level nodes, or (inner) among its first node's children: a step of a pieced turn */
    private readonly pos: number,
    readonly facts?: TurnFacts,
    private readonly inner = false,
  ) {
    this.kind = n.kind;
    this.seq = n.seq;
    this.lastSeq = n.lastSeq;
    this.turn = n.turn;
    this.open = n.open;
    this.childCount = n.children.length;
    this.allRows = openRowCount(n);
    this.subagents = treeSubagents(n.children, n.kind === 'turn' ? n.seq : -1);
    let long = 0;
    if (n.kind === 'step') {
      this.step = n.step;
      let calls = 0;
      let results = 0;
      for (const c of n.children) {
        if (c.kind !== 'tool') continue;
        calls++;
        if (c.result) results++;
      }
      this.tools = { calls, results };
    } else {
      this.reason = n.reason;
      if (n.prompt !== undefined && n.prompt.length > KEEP_TEXT) long |= LONG_PROMPT;
      else this.keptPrompt = n.prompt;
      if (n.reasonData !== undefined && typeof n.reasonData === 'object' && safeStringify(n.reasonData).length > KEEP_TEXT) long |= LONG_REASON;
      else this.keptReasonData = n.reasonData;
    }
    this.long = long;
  }

  get children(): TreeNode[] {
    return this.full().children;
  }
  get prompt(): string | undefined {
    return this.long & LONG_PROMPT ? (this.full() as TurnNode).prompt : this.keptPrompt;
  }
  get reasonData(): unknown {
    return this.long & LONG_REASON ? (this.full() as TurnNode).reasonData : this.keptReasonData;
  }

  /** the node read again with its segment (a segment that cannot be read now, its file gone: no children rather than an error in a frame) */
  private full(): ParentNode {
    const nodes = this.index.body(this.seg).nodes;
    const n = this.inner ? (nodes[0] as ParentNode | undefined)?.children[this.pos] : nodes[this.pos];
    return (n as ParentNode | undefined) ?? UNREAD;
  }
}

/** What a pieced turn keeps of one piece: its steps (children on disk) and other children, how far it got, its facts. */
interface TurnPiece {
  readonly seg: IndexedSegment;
  readonly children: readonly TreeNode[];
  readonly lastSeq: number;
  readonly open: boolean;
  readonly reason?: string;
  /** the piece's first human prompt and its end reason's data when short; `long` tells which is on disk */
  readonly prompt?: string;
  readonly hasPrompt: boolean;
  readonly reasonData?: unknown;
  readonly long: number;
  readonly facts: TurnFacts;
  /** its children's rows with everything expanded */
  readonly allRows: number;
}

/** A turn node built from one piece of it (the first: from its turn/start; else from a step/start). */
function piece(n: TurnNode, seg: IndexedSegment, events: readonly SessionEvent[], index: TurnIndex): TurnPiece {
  const longPrompt = n.prompt !== undefined && n.prompt.length > KEEP_TEXT;
  const longReason = n.reasonData !== undefined && typeof n.reasonData === 'object' && safeStringify(n.reasonData).length > KEEP_TEXT;
  const children = n.children.map((c, i) => (c.kind === 'step' ? (new LazyParent(c, index, seg, i, undefined, true) as unknown as ParentNode) : c));
  return {
    seg,
    children,
    allRows: children.reduce((sum, c) => sum + openRowCount(c), 0),
    lastSeq: n.lastSeq,
    open: n.open,
    reason: n.reason,
    prompt: longPrompt ? undefined : n.prompt,
    hasPrompt: n.prompt !== undefined,
    reasonData: longReason ? undefined : n.reasonData,
    long: (longPrompt ? LONG_PROMPT : 0) | (longReason ? LONG_REASON : 0),
    facts: turnFactsOf(n, events),
  };
}

/**
 * A turn cut into pieces: its children are its pieces' (a step's own read
 * with its piece), its prompt the first piece's that has one, its end and
 * reason the last piece's, its usage their sum. Immutable: a piece added or
 * dropped makes a new node (an index being extended shares the old one).
 */
class PiecedTurn {
  readonly kind = 'turn' as const;
  readonly seq: number;
  readonly lastSeq: number;
  readonly turn: number;
  readonly open: boolean;
  readonly reason?: string;
  readonly childCount: number;
  readonly allRows: number;
  readonly facts: TurnFacts;
  private kids?: TreeNode[];

  constructor(
    private readonly pieces: readonly TurnPiece[],
    private readonly index: TurnIndex,
    /** its turn/start's seq and turn number */
    head: { seq: number; turn: number },
    facts?: TurnFacts,
  ) {
    const last = pieces[pieces.length - 1];
    this.seq = head.seq;
    this.turn = head.turn;
    this.lastSeq = last.lastSeq;
    this.open = last.open;
    this.reason = last.reason;
    this.childCount = pieces.reduce((sum, p) => sum + p.children.length, 0);
    this.allRows = pieces.reduce((sum, p) => sum + p.allRows, 1);
    this.facts = facts ?? last.facts;
  }

  with(p: TurnPiece): PiecedTurn {
    return new PiecedTurn([...this.pieces, p], this.index, this, { usage: addUsage(this.facts.usage, p.facts.usage), time: p.facts.time, start: this.facts.start });
  }
  /** the node without the piece in `seg` (its last) */
  without(seg: IndexedSegment): PiecedTurn {
    const kept = this.pieces.filter((p) => p.seg !== seg);
    let usage = kept[0].facts.usage;
    for (const p of kept.slice(1)) usage = addUsage(usage, p.facts.usage);
    return new PiecedTurn(kept, this.index, this, { usage, time: kept[kept.length - 1].facts.time, start: kept[0].facts.start });
  }

  get children(): TreeNode[] {
    return (this.kids ??= this.pieces.flatMap((p) => p.children));
  }
  get prompt(): string | undefined {
    const p = this.pieces.find((x) => x.hasPrompt);
    return p && p.long & LONG_PROMPT ? (this.read(p)?.prompt ?? undefined) : p?.prompt;
  }
  get reasonData(): unknown {
    const p = this.pieces[this.pieces.length - 1];
    return p.long & LONG_REASON ? this.read(p)?.reasonData : p.reasonData;
  }
  private read(p: TurnPiece): TurnNode | undefined {
    return this.index.body(p.seg).nodes[0] as TurnNode | undefined;
  }
}

const LONG_PROMPT = 1;
const LONG_REASON = 2;
type TurnNode = Extract<TreeNode, { kind: 'turn' }>;

/**
 * Cuts events into segments as a log is read: `add` takes each batch with the
 * byte offset just after the line that held each event; `finish` closes the
 * last segment. Starts at `from` (a line start) where the reader expects
 * `nextSeq`; `within` a turn when `from` is a piece's start (a turn cut there).
 */
export class TurnIndexBuilder {
  private seg: SessionEvent[] = [];
  private segFrom = 0;
  private segNext = 0;
  private segTo = 0;
  /** the turn the segment being built starts inside, if any */
  private segWithin: number | undefined;
  /** the end of the last event's line, where that line started, and the seq the reader expected there */
  private lastEnd: number;
  private lineStart: number;
  private lineNext: number;
  private next: number;
  /** where a piece may end */
  private readonly cuts: PieceCuts;

  /**
   * A read from the middle of a log (the tail) passes over the events before
   * the first turn/start ('turn'), or before the first turn/start or
   * step/start ('step': the last steps of a turn too long to read whole).
   */
  private skipping: 'turn' | 'step' | false;

  constructor(
    readonly index: TurnIndex,
    from: number,
    nextSeq: number,
    skip: 'turn' | 'step' | false = false,
    within?: number,
  ) {
    this.lastEnd = this.lineStart = from;
    this.next = this.lineNext = nextSeq;
    this.skipping = skip;
    this.segWithin = within;
    this.cuts = new PieceCuts(within);
  }

  add(events: readonly SessionEvent[], ends: readonly number[]): void {
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      const end = ends[i];
      if (end !== this.lastEnd) {
        // a new line (a packed row's events share one): it starts where the last event's line ended
        this.lineStart = this.lastEnd;
        this.lineNext = this.next;
        this.lastEnd = end;
      }
      if (this.skipping && e.type !== 'turn/start' && !(this.skipping === 'step' && e.type === 'step/start')) {
        this.next = e.seq + 1;
        continue;
      }
      if (this.skipping && e.type === 'step/start') {
        // inside a turn whose start is not read: its steps from here (the step says which turn)
        const n = (e.data ?? {}).turn;
        this.segWithin = this.cuts.turn = typeof n === 'number' ? n : 0;
      }
      this.skipping = false;
      if (this.seg.length > 0) {
        if (e.type === 'turn/start') this.close(false);
        else if (this.cuts.before(e, this.segTo - this.segFrom)) this.close(true);
      }
      if (this.seg.length === 0) {
        this.segFrom = this.lineStart;
        this.segNext = this.lineNext;
      }
      this.seg.push(e);
      this.segTo = end;
      this.next = e.seq + 1;
      this.cuts.track(e);
    }
  }

  finish(): TurnIndex {
    if (this.seg.length > 0) this.close(false);
    return this.index;
  }

  private close(cut: boolean): void {
    const seg = this.seg;
    this.index.add({ seq: seg[0].seq, lastSeq: seg[seg.length - 1].seq, from: this.segFrom, to: this.segTo, nextSeq: this.segNext, count: seg.length, within: this.segWithin }, seg, cut);
    this.segWithin = cut ? this.cuts.turn : undefined;
    this.seg = [];
  }
}
