// The offset index of a log's turns (issue 23): what the Turns view needs to
// draw a session of any size without holding its events. One streaming pass
// cuts the log into segments (a turn/start up to the next; the events before
// the first turn are one too: no tree state crosses a turn/start, replay.ts)
// and keeps per segment its byte range, its seqs and its top-level nodes, with
// a turn's or step's children left on disk: they are read again by byte range
// when a row needs them, and kept in a cache with a byte budget. What a turn's
// row shows (its usage, the time of its last event) is kept with it. Pure: the
// read of a byte range is passed in (storage/indexed-turns.ts).
import type { SessionEvent } from './events.js';
import { safeStringify } from './json-safe.js';
import { buildTurnTree, type ParentNode, type TreeNode } from './replay.js';
import { usageOfSeqs, type TokenUsage } from './usage.js';

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
}

/** What a turn's row shows that is not in its node: the usage of its events and the time of its last one. */
export interface TurnFacts {
  usage: TokenUsage;
  time?: number;
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
    body = { events, nodes: buildTurnTree(events) };
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
  }
  /** index in `tree` of each segment's first node */
  private readonly starts: number[];

  private treeLengthBefore(segment: number): number {
    return segment < this.starts.length ? this.starts[segment] : this.tree.length;
  }

  /** Adds a segment with its events (the builder's; they are not kept). */
  add(seg: IndexedSegment, events: readonly SessionEvent[]): void {
    this.segments.push(seg);
    this.starts.push(this.tree.length);
    this.events += seg.count;
    buildTurnTree(events).forEach((n, pos) => {
      let facts: TurnFacts | undefined;
      if (n.kind === 'turn') {
        const at = events.findIndex((e) => e.seq === n.lastSeq);
        facts = { usage: usageOfSeqs(events, n.seq, n.lastSeq), time: at < 0 ? undefined : events[at].time };
      }
      this.tree.push(n.kind === 'turn' || n.kind === 'step' ? (new LazyParent(n, this, seg, pos, facts) as unknown as ParentNode) : n);
    });
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
    let lo = 0;
    let hi = s.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid].lastSeq < seq) lo = mid + 1;
      else if (s[mid].seq > seq) hi = mid - 1;
      else return s[mid];
    }
    return undefined;
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

  /** A turn node's usage and last event time. */
  turnFacts(n: TreeNode): TurnFacts | undefined {
    return n instanceof LazyParent ? n.facts : undefined;
  }
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
  /** a step's number; a turn's end reason */
  readonly step?: number;
  readonly reason?: string;
  /** a prompt or end reason data kept (short), or undefined with `long` telling which is on disk */
  private readonly keptPrompt?: string;
  private readonly keptReasonData?: unknown;
  private readonly long: number;

  constructor(
    n: ParentNode,
    private readonly index: TurnIndex,
    private readonly seg: IndexedSegment,
    private readonly pos: number,
    readonly facts?: TurnFacts,
  ) {
    this.kind = n.kind;
    this.seq = n.seq;
    this.lastSeq = n.lastSeq;
    this.turn = n.turn;
    this.open = n.open;
    this.childCount = n.children.length;
    let long = 0;
    if (n.kind === 'step') this.step = n.step;
    else {
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
    return (this.index.body(this.seg).nodes[this.pos] as ParentNode | undefined) ?? UNREAD;
  }
}

const LONG_PROMPT = 1;
const LONG_REASON = 2;
type TurnNode = Extract<TreeNode, { kind: 'turn' }>;

/**
 * Cuts events into segments as a log is read: `add` takes each batch with the
 * byte offset just after the line that held each event; `finish` closes the
 * last segment. Starts at `from` (a line start) where the reader expects `nextSeq`.
 */
export class TurnIndexBuilder {
  private seg: SessionEvent[] = [];
  private segFrom = 0;
  private segNext = 0;
  private segTo = 0;
  /** the end of the last event's line, where that line started, and the seq the reader expected there */
  private lastEnd: number;
  private lineStart: number;
  private lineNext: number;
  private next: number;

  /** the events before the first turn/start are passed over (a read from the middle of a log: the tail) */
  private skipping: boolean;

  constructor(
    readonly index: TurnIndex,
    from: number,
    nextSeq: number,
    fromTurn = false,
  ) {
    this.lastEnd = this.lineStart = from;
    this.next = this.lineNext = nextSeq;
    this.skipping = fromTurn;
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
      if (this.skipping && e.type !== 'turn/start') {
        this.next = e.seq + 1;
        continue;
      }
      this.skipping = false;
      if (e.type === 'turn/start' && this.seg.length > 0) this.close();
      if (this.seg.length === 0) {
        this.segFrom = this.lineStart;
        this.segNext = this.lineNext;
      }
      this.seg.push(e);
      this.segTo = end;
      this.next = e.seq + 1;
    }
  }

  finish(): TurnIndex {
    if (this.seg.length > 0) this.close();
    return this.index;
  }

  private close(): void {
    const seg = this.seg;
    this.index.add({ seq: seg[0].seq, lastSeq: seg[seg.length - 1].seq, from: this.segFrom, to: this.segTo, nextSeq: this.segNext, count: seg.length }, seg);
    this.seg = [];
  }
}
