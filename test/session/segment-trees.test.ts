// segmentTrees: the tree of a log read in batches, one turn at a time, is the
// tree of the whole log (what lets `tree --json` and `export` stream a 10 GB
// session), for any events in any batches: turns left open, results without
// calls, results of an earlier turn's calls, steps outside turns, chunk runs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/session/events.js';
import { buildTurnTree, segmentTrees } from '../../src/session/replay.js';
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

describe('segmentTrees', () => {
  it('gives the whole log’s tree, split anywhere into batches', () => {
    fc.assert(
      fc.property(eventsArb, fc.array(fc.nat(), { maxLength: 6 }), (events, points) => {
        const segs = [...segmentTrees(cut(events, points))];
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
