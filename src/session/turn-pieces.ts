// A huge turn in pieces: where a turn may be cut (the offset index
// and the commands share the rule), the log's tree a piece at a time, and the
// summary of a cut turn read ahead, so that `tree` and `export` write a turn
// of any size as they read it and print what it is (its end, usage, time)
// before its children, the same text as a turn read whole.
import { spanMs, type SessionEvent } from './events.js';
import { buildTurnTree, callIdOf, type TreeNode } from './replay.js';
import { foldUsage, emptyUsage, type TokenUsage } from './usage.js';

type TurnNode = Extract<TreeNode, { kind: 'turn' }>;

/**
 * A turn longer than this is cut into pieces at its step/starts: a third of
 * the segment cache (turn-index.ts), so that reading one holds a piece at a
 * time. Set lower by tests (setPieceBytes) to cut random logs everywhere.
 */
let pieceBytes = 4 * 1024 * 1024;
export const setPieceBytes = (bytes: number): void => {
  pieceBytes = bytes;
};

/**
 * Where a piece may end: before a step/start inside a turn, once the piece
 * weighs pieceBytes, and only where no tool call of the turn waits for its
 * result (a result pairs with a call of its turn: the one tree state that
 * crosses a step/start, replay.ts). Fed every event in order (`track`).
 */
export class PieceCuts {
  private readonly waiting = new Set<string>();
  /** the turn the events are in, as replay sees it (its number) */
  turn: number | undefined;

  constructor(within?: number) {
    this.turn = within;
  }

  /** whether a piece weighing `weight` may end before `e` */
  before(e: SessionEvent, weight: number): boolean {
    return e.type === 'step/start' && this.turn !== undefined && this.waiting.size === 0 && weight >= pieceBytes;
  }

  track(e: SessionEvent): void {
    switch (e.type) {
      case 'turn/start': {
        const n = (e.data ?? {}).turn;
        this.turn = typeof n === 'number' ? n : 0;
        this.waiting.clear();
        break;
      }
      case 'turn/end':
        this.turn = undefined;
        break;
      case 'tool/call':
        this.waiting.add(callIdOf(e));
        break;
      case 'tool/result':
        this.waiting.delete(callIdOf(e));
        break;
    }
  }
}

/**
 * About how much memory an event's data takes: its strings' length, plus a
 * little per event (a read in batches has no byte offsets). Bounded walk.
 */
export function weightOf(e: SessionEvent): number {
  let sum = 64;
  const stack: unknown[] = [e.data];
  for (let n = 0; stack.length > 0 && n < 10_000; n++) {
    const v = stack.pop();
    if (typeof v === 'string') sum += v.length;
    else if (v !== null && typeof v === 'object') for (const k in v) stack.push((v as Record<string, unknown>)[k]);
  }
  return sum;
}

/** A piece of a log's tree: its events (the first `index` in the log) and their nodes. */
export interface TreePiece {
  events: SessionEvent[];
  index: number;
  /** a continuation's first node is its turn's rest (buildTurnTree within) */
  nodes: TreeNode[];
  /** it starts inside this turn */
  within?: number;
  /** its last node is a turn the next piece goes on with */
  cut: boolean;
}

/** The log's tree a piece at a time: a turn/start starts one (no state crosses it), and a huge turn is cut (PieceCuts). */
export function* pieceTrees(batches: Iterable<readonly SessionEvent[]>): Generator<TreePiece> {
  const cuts = new PieceCuts();
  let seg: SessionEvent[] = [];
  let index = 0;
  let weight = 0;
  let within: number | undefined;
  const close = (cut: boolean): TreePiece => {
    const p: TreePiece = { events: seg, index, nodes: buildTurnTree(seg, within), cut, ...(within !== undefined ? { within } : {}) };
    index += seg.length;
    within = cut ? cuts.turn : undefined;
    seg = [];
    weight = 0;
    return p;
  };
  for (const batch of batches) {
    for (const e of batch) {
      if (seg.length > 0) {
        if (e.type === 'turn/start') yield close(false);
        else if (cuts.before(e, weight)) yield close(true);
      }
      seg.push(e);
      weight += weightOf(e);
      cuts.track(e);
    }
  }
  if (seg.length > 0) yield close(false);
}

/** What is shown of a turn before its children: its end as its last piece tells it, its prompt, usage and time. */
export interface TurnWhole {
  lastSeq: number;
  open: boolean;
  reason?: string;
  reasonData?: unknown;
  prompt?: string;
  usage: TokenUsage;
  /** from its turn/start to its last event */
  ms: number;
}

/** A top-level node of the log, with the piece it is in; or a turn in pieces: its first piece's node, what it is whole, and its children as they are read. */
export type TopNode = { node: TreeNode; seg: TreePiece } | { turn: TurnNode; whole: TurnWhole; children: Iterable<TreeNode> };

/**
 * The log's top-level nodes in order, a turn of any size among them: a turn
 * cut in pieces comes as its summary (read ahead by a second read of the
 * log, `openAhead`) and its children, read as they are iterated.
 * Iterate a turn's children before the next node (they are skipped if not).
 */
export function* topNodes(open: () => Iterable<readonly SessionEvent[]>, openAhead: () => Iterable<readonly SessionEvent[]> = open): Generator<TopNode> {
  const pieces = pieceTrees(open())[Symbol.iterator]();
  const ahead = new LookAhead(openAhead);
  try {
    let r = pieces.next();
    while (!r.done) {
      let seg = r.value;
      let pos = 0;
      for (; pos < seg.nodes.length; pos++) {
        const n = seg.nodes[pos];
        if (!(seg.cut && pos === seg.nodes.length - 1 && n.kind === 'turn')) {
          yield { node: n, seg };
          continue;
        }
        // a turn in pieces: its children from this piece and the next ones, up to the one not cut
        const whole = ahead.whole(seg.index, n.turn);
        let last = seg;
        let done = false;
        const children = (function* () {
          yield* n.children;
          while (last.cut) {
            const x = pieces.next();
            if (x.done) break;
            last = x.value;
            yield* (last.nodes[0] as TurnNode).children;
          }
          done = true;
        })();
        yield { turn: n, whole, children };
        if (!done) for (const _ of children);
        // the nodes after the turn in its last piece are the log's again
        seg = last;
        pos = 0;
      }
      r = pieces.next();
    }
  } finally {
    ahead.close();
  }
}

/** How many events (and how much weight) a summary folds at once. */
const AHEAD_EVENTS = 4096;
const AHEAD_WEIGHT = 4 * 1024 * 1024;

/**
 * A second read of the log, kept ahead of the first: a cut turn's summary is
 * folded from its events before its children are written. It moves forward
 * only, so the log is read at most twice, and holds a chunk of events.
 */
class LookAhead {
  private it?: Iterator<readonly SessionEvent[]>;
  private buf: readonly SessionEvent[] = [];
  private at = 0;
  /** the log index of buf[at] */
  private pos = 0;

  constructor(private readonly open: () => Iterable<readonly SessionEvent[]>) {}

  private peek(): SessionEvent | undefined {
    while (this.at >= this.buf.length) {
      this.it ??= this.open()[Symbol.iterator]();
      const r = this.it.next();
      if (r.done) return undefined;
      this.buf = r.value;
      this.at = 0;
    }
    return this.buf[this.at];
  }

  private take(): SessionEvent {
    this.peek();
    this.pos++;
    return this.buf[this.at++];
  }

  /** The summary of the turn whose turn/start is the log's event `index` (turn number `turn`). */
  whole(index: number, turn: number): TurnWhole {
    while (this.pos < index && this.peek()) this.take();
    const first = this.take();
    const usage = emptyUsage();
    foldUsage(usage, first);
    let node = buildTurnTree([first])[0] as TurnNode;
    let prompt = node.prompt;
    let last = first;
    for (let ended = false; !ended; ) {
      const chunk: SessionEvent[] = [];
      let weight = 0;
      for (let e = this.peek(); e && e.type !== 'turn/start' && chunk.length < AHEAD_EVENTS && weight < AHEAD_WEIGHT; e = this.peek()) {
        chunk.push(this.take());
        weight += weightOf(e);
        foldUsage(usage, e);
        if (e.type === 'turn/end') break;
      }
      if (chunk.length === 0) break;
      // the turn's fields as replay leaves them, from this chunk read inside it
      const rest = buildTurnTree(chunk, turn)[0] as TurnNode;
      last = chunk[chunk.length - 1];
      prompt ??= rest.prompt;
      node = { ...rest, seq: node.seq, turn: node.turn, children: [] };
      ended = !rest.open;
    }
    return { lastSeq: node.lastSeq, open: node.open, reason: node.reason, reasonData: node.reasonData, prompt, usage, ms: spanMs(first, last) };
  }

  close(): void {
    this.it?.return?.(undefined);
  }
}
