// The audit's fold (event-audit.ts): kept by each log's reader as it reads,
// kept in the fact cache, and carried on by appends to a reader rebuilt from
// it, always equal to the audit of the events read again.
import { describe, expect, it } from 'vitest';
import { auditFromJson, auditStructure, auditToJson, expand, START, UNKNOWN } from '../../src/session/event-audit.js';
import type { SessionEvent } from '../../src/session/events.js';
import { LogReader } from '../../src/storage/log-reader.js';

const ev = (type: string, seq: number, data: Record<string, unknown> = {}): SessionEvent => ({ type, seq, time: 1_700_000_000_000 + seq, data });
const header = JSON.stringify({ type: 'session', version: 0, id: 's', createdAt: 1_700_000_000_000 });
const lines = (events: SessionEvent[]) => events.map((e) => JSON.stringify(e) + '\n').join('');

/** A log that ends mid-turn with a call pending, after a turn with findings. */
const first: SessionEvent[] = [
  ev('turn/start', 0, { turn: 1 }),
  ev('tool/call', 1, { callId: 'c1' }),
  ev('tool/result', 2, { callId: 'zz' }),
  ev('turn/end', 3, { turn: 1 }),
  ev('turn/start', 4, { turn: 3 }),
  ev('step/start', 5),
  ev('tool/call', 6, { callId: 'c2' }),
];
const then: SessionEvent[] = [ev('step/end', 7), ev('turn/end', 8), ev('step/end', 9), ev('turn/start', 10, { turn: 4 }), ev('turn/end', 11)];

function read(text: string, retain = false): LogReader {
  const r = new LogReader('/x/s.jsonl', { retain });
  r.feed(Buffer.from(text));
  return r;
}

describe('the audit fold', () => {
  it('a reader folds as it reads: the audit of its events, facts-only or retaining', () => {
    const text = header + '\n' + lines([...first, ...then]);
    const expected = auditStructure([...first, ...then]);
    expect(expected.map((f) => f.code)).toEqual(['UNMATCHED_TOOL_RESULT', 'UNANSWERED_TOOL_CALL', 'TURN_NUMBERING', 'UNANSWERED_TOOL_CALL', 'TURN_ENCLOSURE']);
    expect(read(text).structure()).toEqual(expected);
    expect(read(text, true).structure()).toEqual(expected);
  });

  it('readers fed in turns keep their own folds (a read that ends mid-turn keeps the fold it was given)', () => {
    const x = read(header + '\n' + lines(first)); // ends mid-turn: its fold is its own
    const y = read(header + '\n' + lines([...first, ...then])); // another read between two of x's
    x.feed(Buffer.from(lines(then)));
    const z = read(header + '\n' + lines(then.slice(3))); // from the usual end state again
    expect(x.structure()).toEqual(auditStructure([...first, ...then]));
    expect(y.structure()).toEqual(auditStructure([...first, ...then]));
    expect(z.structure()).toEqual(auditStructure(then.slice(3)));
  });

  it('kept through the fact cache mid-turn: appends to the rebuilt reader fold on from where it was', () => {
    const before = read(header + '\n' + lines(first));
    const snap = JSON.parse(JSON.stringify(before.snapshot())) as ReturnType<LogReader['snapshot']>;
    const rebuilt = LogReader.restore('/x/s.jsonl', snap);
    expect(rebuilt.structure()).toEqual(auditStructure(first));
    rebuilt.feed(Buffer.from(lines(then)));
    expect(rebuilt.structure()).toEqual(auditStructure([...first, ...then]));
  });

  it('a snapshot without a fold, or with one that does not read back, leaves the structure unknown (the audit reads the log)', () => {
    const snap = read(header + '\n' + lines(first)).snapshot();
    for (const audit of [undefined, 'x', [1, 2], [null, 'no', 1, [], []], [null, false, 1, [['c', 'seq']], []], [null, false, 1, [], [[1, 'X', 'fatal', 'm']]], -2, 1.5]) {
      const r = LogReader.restore('/x/s.jsonl', { ...snap, audit });
      expect(r.structure()).toBeUndefined();
      r.feed(Buffer.from(lines(then)));
      expect(r.structure()).toBeUndefined(); // unknown stays unknown: appends do not make it look whole
    }
  });

  it('the usual end state is a small number; a turn written as an object is not kept', () => {
    expect(auditToJson(START)).toBe(1);
    expect(auditFromJson(7)).toBe(7);
    const odd = expand(START)!;
    odd.turn = { n: 1 };
    expect(auditToJson(odd)).toBe(UNKNOWN);
    const mid = expand(START)!;
    mid.turn = 2;
    mid.pending = new Map([['c', 4]]);
    expect(auditFromJson(JSON.parse(JSON.stringify(auditToJson(mid))))).toEqual(mid);
  });
});
