// pieceTrees: the tree of a log read in batches, one turn at a time, is the
// tree of the whole log (what lets `tree --json` and `export` stream a 10 GB
// session), for any events in any batches: turns left open, results without
// calls, results of an earlier turn's calls, steps outside turns, chunk runs.
// A turn cut in pieces at its step/starts (turn-pieces.ts) is the whole
// turn again when its pieces' rests are put back on it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/session/events.js';
import { buildTurnTree, type TreeNode } from '../../src/session/replay.js';
import { pieceTrees, setPieceBytes } from '../../src/session/turn-pieces.js';
import { PROPERTY_TIMEOUT, runs } from '../support/property.js';

const TYPES = ['turn/start', 'turn/end', 'step/start', 'step/end', 'assistant/chunk', 'tool/call', 'tool/result', 'user/message', 'assistant/message', 'session/title'] as const;

const eventsArb = fc.array(fc.record({ type: fc.constantFrom(...TYPES), call: fc.integer({ min: 0, max: 3 }) }), { maxLength: 80 }).map((raw) =>
  raw.map(
    (r, seq): SessionEvent => ({
      type: r.type,
      seq,
      time: 1000 + seq * 7,
      data:
        r.type === 'tool/call' || r.type === 'tool/result'
          ? { callId: `c${r.call}`, name: 'bash', arguments: '{}', content: [{ type: 'tool-result', content: 'ok' }] }
          : r.type === 'user/message' || r.type === 'assistant/message'
            ? { content: [{ type: 'text', text: `m${seq}` }], source: { kind: 'user' } }
            : { turn: r.call, reason: { kind: 'completed' } },
    }),
  ),
);

/** `events` cut into batches at the given points. */
function cut(events: SessionEvent[], points: number[]): SessionEvent[][] {
  const at = [...new Set(points.map((p) => p % (events.length + 1)))].sort((a, b) => a - b);
  const out: SessionEvent[][] = [];
  let from = 0;
  for (const p of [...at, events.length]) {
    out.push(events.slice(from, p));
    from = p;
  }
  return out;
}

type TurnNode = Extract<TreeNode, { kind: 'turn' }>;

/** The tree of a log's pieces: each piece's rest of a turn put back on the turn it goes on with. */
function joined(pieces: ReturnType<typeof pieceTrees>): TreeNode[] {
  const out: TreeNode[] = [];
  for (const p of pieces) {
    let nodes = p.nodes;
    if (p.within !== undefined) {
      const rest = nodes[0] as TurnNode;
      const turn = out[out.length - 1] as TurnNode;
      turn.children.push(...rest.children);
      turn.lastSeq = rest.lastSeq;
      turn.open = rest.open;
      if (!rest.open) Object.assign(turn, { reason: rest.reason, reasonData: rest.reasonData });
      if (turn.prompt === undefined && rest.prompt !== undefined) turn.prompt = rest.prompt;
      nodes = nodes.slice(1);
    }
    out.push(...nodes);
  }
  return out;
}

describe('pieceTrees', () => {
  it('cut in pieces at every step/start it may be, gives the whole log’s tree again', () => {
    setPieceBytes(0);
    try {
      fc.assert(
        fc.property(eventsArb, fc.array(fc.nat(), { maxLength: 6 }), (events, points) => {
          const pieces = [...pieceTrees(cut(events, points))];
          expect(joined(pieces)).toEqual(buildTurnTree(events));
          expect(pieces.flatMap((s) => s.events)).toEqual(events);
          // a piece starts at a turn/start, the log's start, or a step/start inside a turn
          for (const s of pieces) if (s.index > 0) expect(s.events[0].type).toBe(s.within === undefined ? 'turn/start' : 'step/start');
        }),
        { numRuns: runs(400) },
      );
    } finally {
      setPieceBytes(4 * 1024 * 1024);
    }
  }, PROPERTY_TIMEOUT);

  it('gives the whole log’s tree, split anywhere into batches', () => {
    fc.assert(
      fc.property(eventsArb, fc.array(fc.nat(), { maxLength: 6 }), (events, points) => {
        const segs = [...pieceTrees(cut(events, points))];
        expect(segs.flatMap((s) => s.nodes)).toEqual(buildTurnTree(events));
        // every event in exactly one segment, in order, each segment from a turn/start (or the log's start)
        expect(segs.flatMap((s) => s.events)).toEqual(events);
        for (const s of segs) {
          expect(s.events[0]).toBe(events[s.index]);
          if (s.index > 0) expect(s.events[0].type).toBe('turn/start');
        }
      }),
      { numRuns: runs(400) },
    );
  }, PROPERTY_TIMEOUT);

  it('pairs a result with a call of its own turn only', () => {
    const ev = (seq: number, type: string, data: Record<string, unknown> = {}): SessionEvent => ({ type, seq, time: seq, data });
    const events = [ev(0, 'turn/start', { turn: 1 }), ev(1, 'tool/call', { callId: 'a', name: 'bash' }), ev(2, 'turn/end', { reason: { kind: 'cancelled' } }), ev(3, 'turn/start', { turn: 2 }), ev(4, 'tool/result', { callId: 'a', content: [] })];
    const [t1, t2] = buildTurnTree(events);
    expect(t1.kind === 'turn' && t1.children[0]).toMatchObject({ kind: 'tool', name: 'bash' });
    expect(t1.kind === 'turn' && t1.children[0].kind === 'tool' && t1.children[0].result).toBeUndefined();
    expect(t2.kind === 'turn' && t2.children[0]).toMatchObject({ kind: 'tool', name: '(result without call)' });
  });
});
