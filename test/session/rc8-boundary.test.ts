// rc.8's boundary rule for rc.8 sessions (the latest turn/start or turn/end in
// the prefix must not be an unmatched turn/start), the RFC rule for RFC-era
// ones; refusals keep our codes, with rc.8's wording for rc.8 sessions.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, evs, forkError, hdr, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterEach(cleanupTmp);

const RC8 = { delegationDepth: 0, cwd: '/a' };
const SPLICE: [string, unknown] = ['agent/inbox/spliced', { items: [] }];

function load(header: object, events: ReturnType<typeof evs>) {
  const root = tmpDir();
  const file = writeLog(path.join(root, 's.jsonl'), header, events);
  const idx = loadRootSync(root);
  return { idx, s: idx.store.get(file)! };
}

describe('rc.8 sessions', () => {
  it('a standalone event before the first turn (agent/inbox/spliced at seq 0) is a boundary, and forkable', () => {
    const { idx, s } = load(hdr('s', RC8), evs(SPLICE, ...turnRows(1)));
    expect(s.facts.boundaries).toEqual([0, 7]);
    expect(idx.store.boundaryError(s, 0)).toBeNull();
    const c = idx.store.fork({ source: s, boundary: 0, sessionId: 'c' });
    expect(c.seedLength).toBe(1);
    expect(c.events.map((e) => e.type)).toEqual(['agent/inbox/spliced', 'session/end-seed']);
  });

  it('a log that is only [session/end-seed] is at a boundary and forkable (the marker is not repeated)', () => {
    const { idx, s } = load(hdr('s', RC8), evs(['session/end-seed', {}]));
    expect(s.state).toBe('at-boundary');
    expect(s.facts.boundaries).toEqual([0]);
    const c = idx.store.fork({ source: s, sessionId: 'c' });
    expect(c.events.map((e) => e.type)).toEqual(['session/end-seed']);
    expect(c.seedLength).toBe(1);
  });

  it('standalone events between turns are boundaries; inside a turn is OPEN_TURN in rc.8 wording', () => {
    const { idx, s } = load(hdr('s', RC8), evs(...turnRows(1), ['user/message', { role: 'user', content: [] }], ...turnRows(2)));
    expect(s.facts.boundaries).toEqual([6, 7, 14]);
    const e = forkError(() => idx.store.fork({ source: s, boundary: 9 }));
    expect(e.code).toBe('OPEN_TURN');
    expect(e.message).toBe('fork boundary 9 in session "s" ends inside open turn 2');
  });

  it('an open last turn: OPEN_TURN naming the turn; nothing written', () => {
    const { idx, s } = load(hdr('s', RC8), evs(...turnRows(1), ...turnRows(2).slice(0, 4)));
    const e = forkError(() => idx.store.fork({ source: s }));
    expect(e.code).toBe('OPEN_TURN');
    expect(e.message).toBe('fork boundary 10 in session "s" ends inside open turn 2');
  });

  it('codes keep their order: INVALID_BOUNDARY before OPEN_TURN', () => {
    const { idx, s } = load(hdr('s', RC8), evs(...turnRows(1)));
    expect(forkError(() => idx.store.fork({ source: s, boundary: 7 })).code).toBe('INVALID_BOUNDARY');
    expect(forkError(() => idx.store.fork({ source: s, boundary: -1 })).code).toBe('INVALID_BOUNDARY');
  });

  it('the rc.8 layout alone selects the rule (a header without delegationDepth in --project--/<id>/session.jsonl)', () => {
    const root = tmpDir();
    const file = writeLog(path.join(root, '--a--', 's', 'session.jsonl'), hdr('s', { cwd: '/a' }), evs(SPLICE, ...turnRows(1)));
    expect(loadRootSync(root).store.get(file)!.facts.boundaries).toEqual([0, 7]);
  });
});

describe('RFC-era sessions keep the RFC rule', () => {
  it('a standalone event before the first turn is not a boundary: OPEN_TURN with our wording', () => {
    const { idx, s } = load(hdr('s', { cwd: '/a' }), evs(SPLICE, ...turnRows(1)));
    expect(s.facts.boundaries).toEqual([7]);
    const e = forkError(() => idx.store.fork({ source: s, boundary: 0 }));
    expect(e.code).toBe('OPEN_TURN');
    expect(e.message).toBe('cannot fork session "s" inside an open turn (last event: agent/inbox/spliced)');
  });

  it('the child of an RFC-era parent has no end-seed marker and no delegationDepth', () => {
    const { idx, s } = load(hdr('s', { cwd: '/a' }), evs(...turnRows(1)));
    const c = idx.store.fork({ source: s, sessionId: 'c' });
    expect(c.length).toBe(7);
    expect(c.header).not.toHaveProperty('delegationDepth');
  });
});
