// SessionStore: create / snapshot / fork and every SessionForkError code, in
// memory and on disk (docs/formats.md, "Fork semantics"). Real files in temp
// dirs, no mocks.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionForkError, type SessionForkErrorCode } from '../../src/session/errors.js';
import type { SessionEvent } from '../../src/session/events.js';
import { Session } from '../../src/session/session.js';
import { memorySession, SessionStore, type ForkSessionOptions } from '../../src/session/store.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { openSessionFile } from '../../src/storage/session-file.js';
import { cleanupTmp, evs, forkError, hdr, sha256, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterEach(cleanupTmp);

const codeOf = (fn: () => unknown): SessionForkErrorCode => forkError(fn).code;

/** A memory store holding the given sessions (id -> events), cwd optional per session. */
function memStore(sessions: Record<string, { events: SessionEvent[]; cwd?: string }>, gen?: () => string): SessionStore {
  const store = new SessionStore(undefined, gen);
  for (const [id, s] of Object.entries(sessions)) store.add(memorySession(hdr(id, s.cwd !== undefined ? { cwd: s.cwd } : {}), s.events));
  return store;
}

const TWO_TURNS = evs(...turnRows(1), ...turnRows(2)); // 14 events, boundaries at 6 and 13
const OPEN = evs(...turnRows(1), ['turn/start', { turn: 2 }], ['user/message', { content: [{ type: 'text', text: 'q' }] }], ['step/start', { turn: 2, step: 1 }], ['tool/call', { turn: 2, step: 1, callId: 'c1', name: 'bash', arguments: '{}' }]);

describe('SessionStore in memory: create()', () => {
  it('creates a live session seeded with the events and stamped meta', () => {
    const store = new SessionStore();
    const s = store.create('a', { seed: TWO_TURNS, meta: { parentSession: 'p', seedLength: 14, cwd: '/w' } });
    expect(store.get('a')).toBe(s);
    expect(store.isLive(s)).toBe(true);
    expect(s.length).toBe(14);
    expect(s.header).toMatchObject({ type: 'session', version: 0, id: 'a', parentSession: 'p', seedLength: 14, cwd: '/w' });
    expect(typeof s.header.createdAt).toBe('number');
    expect(s.kind).toBe('fork');
  });

  it('leaves optional header keys out (never undefined/null)', () => {
    const s = new SessionStore().create('plain');
    expect(Object.keys(s.header).sort()).toEqual(['createdAt', 'id', 'type', 'version']);
    expect(s.state).toBe('empty');
  });

  it('refuses a duplicate id with SESSION_ALREADY_EXISTS', () => {
    const store = new SessionStore();
    store.create('dup');
    const e = forkError(() => store.create('dup'));
    expect(e.code).toBe('SESSION_ALREADY_EXISTS');
    expect(e.message).toBe('session "dup" already exists');
  });

  it('refuses a seed with non-contiguous seqs with INVALID_SEED', () => {
    const store = new SessionStore();
    const bad = evs(...turnRows(1));
    bad[3] = { ...bad[3], seq: 7 };
    expect(codeOf(() => store.create('x', { seed: bad }))).toBe('INVALID_SEED');
    const notFromZero = evs(...turnRows(1)).map((e) => ({ ...e, seq: e.seq + 1 }));
    expect(codeOf(() => store.create('y', { seed: notFromZero }))).toBe('INVALID_SEED');
    expect(store.size).toBe(0);
  });
});

describe('SessionStore in memory: error codes', () => {
  it('SESSION_NOT_FOUND for an unknown id, with the exact message', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    const e = forkError(() => store.fork({ source: 'nope' }));
    expect(e.code).toBe('SESSION_NOT_FOUND');
    expect(e.message).toBe('session "nope" not found');
    expect(codeOf(() => store.snapshot('nope'))).toBe('SESSION_NOT_FOUND');
  });

  it('SESSION_NOT_FOUND for a Session object whose id is not live', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    const stranger = memorySession(hdr('ghost'), TWO_TURNS);
    const e = forkError(() => store.fork({ source: stranger }));
    expect(e.code).toBe('SESSION_NOT_FOUND');
    expect(e.message).toBe('session "ghost" not found');
    const a = store.get('a')!;
    store.remove(a);
    expect(codeOf(() => store.snapshot(a))).toBe('SESSION_NOT_FOUND');
  });

  it('SESSION_NOT_LIVE for a stale Session object after add() of a fresh instance', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    const stale = store.get('a')!;
    const fresh = memorySession(hdr('a'), TWO_TURNS);
    store.add(fresh);
    expect(store.get('a')).toBe(fresh);
    expect(store.getAll('a')).toEqual([fresh]);
    const e = forkError(() => store.fork({ source: stale, sessionId: 'child' }));
    expect(e.code).toBe('SESSION_NOT_LIVE');
    expect(e.message).toBe('session "a" is not the live store instance');
    expect(codeOf(() => store.snapshot(stale))).toBe('SESSION_NOT_LIVE');
    expect(store.get('child')).toBeUndefined();
    // the live one still forks
    expect(store.fork({ source: fresh, sessionId: 'child' }).seedLength).toBe(14);
  });

  it.each([-1, 1.5, 14, 15, Number.NaN, Infinity])('INVALID_BOUNDARY for %s on a 14-event log, naming the boundary and length', (b) => {
    const store = memStore({ a: { events: TWO_TURNS } });
    const e = forkError(() => store.fork({ source: 'a', boundary: b }));
    expect(e.code).toBe('INVALID_BOUNDARY');
    expect(e.message).toContain(String(b));
    expect(e.message).toContain('14');
    expect(codeOf(() => store.snapshot('a', { boundary: b }))).toBe('INVALID_BOUNDARY');
  });

  it('INVALID_BOUNDARY for any boundary on an empty log', () => {
    const store = memStore({ e: { events: [] } });
    const e = forkError(() => store.fork({ source: 'e', boundary: 0 }));
    expect(e.code).toBe('INVALID_BOUNDARY');
    expect(e.message).toMatch(/empty|length 0/);
  });

  it('OPEN_TURN with the exact message shape for a log ending inside a turn', () => {
    const store = memStore({ live: { events: OPEN } });
    const e = forkError(() => store.fork({ source: 'live' }));
    expect(e.code).toBe('OPEN_TURN');
    expect(e.message).toBe('cannot fork session "live" inside an open turn (last event: tool/call)');
    expect(forkError(() => store.snapshot('live')).message).toBe('cannot fork session "live" inside an open turn (last event: tool/call)');
  });

  it('OPEN_TURN names the type of the event at a mid-log cut', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    for (const [b, type] of [
      [0, 'turn/start'],
      [3, 'assistant/chunk'],
      [4, 'assistant/message'],
      [5, 'step/end'],
      [12, 'step/end'],
    ] as const) {
      const e = forkError(() => store.fork({ source: 'a', boundary: b }));
      expect(e.code).toBe('OPEN_TURN');
      expect(e.message).toBe(`cannot fork session "a" inside an open turn (last event: ${type})`);
    }
  });

  it('never clips silently: a refused fork creates nothing', () => {
    const store = memStore({ live: { events: OPEN } });
    expect(() => store.fork({ source: 'live', sessionId: 'c' })).toThrow(SessionForkError);
    expect(store.get('c')).toBeUndefined();
    expect(store.size).toBe(1);
  });
});

describe('SessionStore: check order of the fork errors', () => {
  const store = () => memStore({ live: { events: OPEN }, done: { events: TWO_TURNS }, taken: { events: [] } });

  it('existing child id beats an open turn', () => {
    expect(codeOf(() => store().fork({ source: 'live', sessionId: 'taken' }))).toBe('SESSION_ALREADY_EXISTS');
  });
  it('existing child id beats an invalid boundary', () => {
    expect(codeOf(() => store().fork({ source: 'done', sessionId: 'taken', boundary: -1 }))).toBe('SESSION_ALREADY_EXISTS');
  });
  it('existing child id beats an unknown source', () => {
    expect(codeOf(() => store().fork({ source: 'missing', sessionId: 'taken' }))).toBe('SESSION_ALREADY_EXISTS');
  });
  it('existing child id beats a stale source object', () => {
    const s = store();
    const stale = s.get('done')!;
    s.add(memorySession(hdr('done'), TWO_TURNS));
    expect(codeOf(() => s.fork({ source: stale, sessionId: 'taken' }))).toBe('SESSION_ALREADY_EXISTS');
  });
  it('SESSION_NOT_FOUND beats an invalid boundary', () => {
    expect(codeOf(() => store().fork({ source: 'missing', boundary: 1.5 }))).toBe('SESSION_NOT_FOUND');
  });
  it('SESSION_NOT_LIVE beats an invalid boundary and an open turn', () => {
    const s = store();
    const stale = s.get('live')!;
    s.add(memorySession(hdr('live'), OPEN));
    expect(codeOf(() => s.fork({ source: stale, boundary: 99 }))).toBe('SESSION_NOT_LIVE');
    expect(codeOf(() => s.fork({ source: stale }))).toBe('SESSION_NOT_LIVE');
  });
  it('INVALID_BOUNDARY beats OPEN_TURN', () => {
    expect(codeOf(() => store().fork({ source: 'live', boundary: 1.5 }))).toBe('INVALID_BOUNDARY');
  });
  it('the child id may equal the source id only if not live: it is live, so ALREADY_EXISTS', () => {
    expect(codeOf(() => store().fork({ source: 'done', sessionId: 'done' }))).toBe('SESSION_ALREADY_EXISTS');
  });
});

describe('SessionStore: the boundary rule', () => {
  const REASONS: unknown[] = [
    { kind: 'completed' },
    { kind: 'aborted' },
    { kind: 'aborted', reason: 'session/cancel' },
    { kind: 'error', step: 1, message: 'boom', code: 'AUTH' },
    { kind: 'error', error: { message: 'boom', code: 'AUTH' } },
    { kind: 'disposed' },
    { kind: 'max-tokens' },
    { kind: 'rejected' },
    { kind: 'blocked' },
    { kind: 'interrupted' },
    { kind: 'merged-into-future-reason', extra: 1 },
    'completed', // reason as a bare string
    undefined, // no reason at all: still structurally a turn/end
  ];

  it.each(REASONS.map((r) => [JSON.stringify(r) ?? 'undefined', r]))('turn/end with reason %s is a fork boundary', (_label, reason) => {
    const events = evs(...turnRows(1, reason));
    if (reason === undefined) delete events[6].data.reason;
    const store = memStore({ a: { events } });
    const a = store.get('a')!;
    expect(a.state).toBe('at-boundary');
    expect(a.facts.boundaries).toEqual([6]);
    const child = store.fork({ source: 'a', sessionId: 'c' });
    expect(child.seedLength).toBe(7);
    expect(child.events.map((e) => e.type)).toEqual(events.map((e) => e.type));
    expect(store.snapshot('a', { boundary: 6 }).meta.seedLength).toBe(7);
  });

  it('an empty log is forkable (seedLength 0)', () => {
    const store = memStore({ e: { events: [], cwd: '/x' } });
    expect(store.get('e')!.state).toBe('empty');
    const snap = store.snapshot('e');
    expect(snap.seed).toEqual([]);
    expect(snap.meta).toEqual({ parentSession: 'e', seedLength: 0, cwd: '/x' });
    const child = store.fork({ source: 'e', sessionId: 'e2' });
    expect(child.seedLength).toBe(0);
    expect(child.length).toBe(0);
    expect(child.parentSession).toBe('e');
    expect(child.kind).toBe('fork');
  });

  it('boundary at seq 0 when seq 0 is a turn/end: forkable with a one-event seed', () => {
    const events = evs(['turn/end', { turn: 1, reason: { kind: 'interrupted' } }], ...turnRows(2).slice(0, 3));
    const store = memStore({ a: { events } });
    expect(store.get('a')!.facts.boundaries).toEqual([0]);
    const snap = store.snapshot('a', { boundary: 0 });
    expect(snap.meta.seedLength).toBe(1);
    expect(snap.seed.map((e) => e.type)).toEqual(['turn/end']);
  });

  it('boundary at seq 0 when seq 0 is a standalone event before any turn: not after a turn/end, so OPEN_TURN (the RFC rule read literally)', () => {
    const events = evs(['user/message', { content: [{ type: 'text', text: 'hi' }] }], ...turnRows(1));
    const store = memStore({ a: { events } });
    const e = forkError(() => store.fork({ source: 'a', boundary: 0 }));
    expect(e.code).toBe('OPEN_TURN');
    expect(e.message).toBe('cannot fork session "a" inside an open turn (last event: user/message)');
    // the end of its first turn is a boundary
    expect(store.fork({ source: 'a', boundary: 7, sessionId: 'c' }).seedLength).toBe(8);
  });

  it('rc8: standalone events after turn/end and before the next turn/start are boundaries', () => {
    const events = evs(
      ...turnRows(1), // 0..6
      ['session/title', { title: 'T' }], // 7
      ['user/message', { content: [{ type: 'text', text: 'queued' }] }], // 8
      ['agent/inbox/spliced', { target: 'next-turn' }], // 9
      ['turn/start', { turn: 2 }], // 10
      ['step/start', { turn: 2, step: 1 }], // 11
    );
    const store = memStore({ a: { events } });
    const a = store.get('a')!;
    expect(a.facts.boundaries).toEqual([6, 7, 8, 9]);
    for (const b of [6, 7, 8, 9]) expect(store.snapshot('a', { boundary: b }).meta.seedLength).toBe(b + 1);
    expect(codeOf(() => store.snapshot('a', { boundary: 10 }))).toBe('OPEN_TURN');
    expect(forkError(() => store.fork({ source: 'a' })).message).toBe('cannot fork session "a" inside an open turn (last event: step/start)');
    // a log that ends on such standalone events is at a boundary as a whole
    const store2 = memStore({ b: { events: events.slice(0, 10) } });
    expect(store2.get('b')!.state).toBe('at-boundary');
    expect(store2.fork({ source: 'b', sessionId: 'c' }).seedLength).toBe(10);
  });

  it('rc8: session/end-seed right after a seed that ends in turn/end is a boundary', () => {
    const events = evs(...turnRows(1), ['session/end-seed', { seedLength: 7 }], ...turnRows(2));
    const store = memStore({ a: { events } });
    expect(store.get('a')!.facts.boundaries).toEqual([6, 7, 14]);
  });
});

describe('SessionStore: snapshot()', () => {
  it('returns a deep clone: mutating the seed does not touch the source', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    const a = store.get('a')!;
    const before = JSON.stringify(a.events);
    const snap = store.snapshot('a');
    expect(snap.source).toBe(a);
    expect(snap.seed).toEqual(a.events);
    expect(snap.seed).not.toBe(a.events);
    snap.seed[4].data.content[0].text = 'MUTATED';
    snap.seed[0].type = 'mutated';
    snap.seed.pop();
    (snap.seed[1].data as any).extra = { deep: true };
    expect(JSON.stringify(a.events)).toBe(before);
    expect(a.events[4].data.content[0].text).toBe('answer 1');
    expect(a.length).toBe(14);
  });

  it('a second snapshot is independent of the first', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    const s1 = store.snapshot('a');
    s1.seed[1].data.content[0].text = 'x';
    expect(store.snapshot('a').seed[1].data.content[0].text).toBe('prompt 1');
  });

  it('meta: cwd only when the source has one', () => {
    const store = memStore({ withCwd: { events: TWO_TURNS, cwd: '/home/u/proj' }, noCwd: { events: TWO_TURNS } });
    expect(store.snapshot('withCwd').meta).toStrictEqual({ parentSession: 'withCwd', seedLength: 14, cwd: '/home/u/proj' });
    const m = store.snapshot('noCwd').meta;
    expect(m).toStrictEqual({ parentSession: 'noCwd', seedLength: 14 });
    expect('cwd' in m).toBe(false);
  });

  it('meta.seedLength follows the boundary', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    const snap = store.snapshot('a', { boundary: 6 });
    expect(snap.meta.seedLength).toBe(7);
    expect(snap.seed).toHaveLength(7);
    expect(snap.seed.at(-1)!.type).toBe('turn/end');
  });

  it('accepts a Session object as well as an id', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    expect(store.snapshot(store.get('a')!).meta.parentSession).toBe('a');
  });

  it('does not register anything', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    store.snapshot('a');
    expect(store.size).toBe(1);
  });
});

describe('SessionStore in memory: fork()', () => {
  it('creates a live child with parentSession, seedLength, cwd and a fresh createdAt', () => {
    const store = memStore({ a: { events: TWO_TURNS, cwd: '/w' } });
    const t0 = Date.now();
    const child = store.fork({ source: 'a', sessionId: 'kid', boundary: 6 });
    expect(store.get('kid')).toBe(child);
    expect(store.isLive(child)).toBe(true);
    expect(child.header).toMatchObject({ id: 'kid', parentSession: 'a', seedLength: 7, cwd: '/w' });
    expect(child.header.createdAt).toBeGreaterThanOrEqual(t0);
    expect(child.events).toEqual(TWO_TURNS.slice(0, 7));
    expect(store.get('a')!.length).toBe(14);
  });

  it('the child of a source without cwd has no cwd key', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    const child = store.fork({ source: 'a', sessionId: 'kid' });
    expect('cwd' in child.header).toBe(false);
  });

  it('the child is independent of the parent: mutating child events does not touch the parent', () => {
    const store = memStore({ a: { events: evs(...turnRows(1)) } });
    const a = store.get('a')!;
    const before = JSON.stringify(a.events);
    const child = store.fork({ source: 'a', sessionId: 'kid' });
    (child.events[1].data as any).content[0].text = 'MUTATED';
    expect(JSON.stringify(a.events)).toBe(before);
  });

  it('generates a nanoid when sessionId is omitted, unique per fork', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    const c1 = store.fork({ source: 'a' });
    const c2 = store.fork({ source: 'a' });
    expect(c1.id).toMatch(/^[A-Za-z0-9_-]{21}$/);
    expect(c2.id).toMatch(/^[A-Za-z0-9_-]{21}$/);
    expect(c1.id).not.toBe(c2.id);
    expect(store.get(c1.id)).toBe(c1);
  });

  it('a generated id never collides with a live id', () => {
    const ids = ['a', 'a', 'fresh'];
    const store = memStore({ a: { events: TWO_TURNS } }, () => ids.shift()!);
    expect(store.fork({ source: 'a' }).id).toBe('fresh');
  });

  it('a fork of a fork chains parentSession', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    store.fork({ source: 'a', sessionId: 'b', boundary: 6 });
    const c = store.fork({ source: 'b', sessionId: 'c' });
    expect(c.parentSession).toBe('b');
    expect(c.seedLength).toBe(7);
  });

  it('notifies subscribers on fork', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    let n = 0;
    store.subscribe(() => n++);
    store.fork({ source: 'a', sessionId: 'b' });
    expect(n).toBe(1);
  });

  it('hold() keeps add and remove from emitting until the last release(), which emits once (only when something changed)', () => {
    const store = new SessionStore();
    let n = 0;
    store.subscribe(() => n++);
    store.hold();
    store.hold();
    store.add(memorySession(hdr('a'), TWO_TURNS));
    store.add(memorySession(hdr('b'), TWO_TURNS));
    store.remove(store.get('a')!);
    expect(n).toBe(0);
    expect(store.release()).toBe(false); // still held once
    expect(n).toBe(0);
    expect(store.release()).toBe(true);
    expect(n).toBe(1);
    expect(store.list().map((s) => s.id)).toEqual(['b']);
    store.hold();
    expect(store.release()).toBe(false); // nothing changed: no emit
    expect(n).toBe(1);
    expect(store.release()).toBe(false); // an extra release is harmless
    store.hold();
    store.hold();
    expect(store.release(true)).toBe(false); // `always`, but still held once: no emit
    expect(store.release(true)).toBe(true); // `always`: emits though nothing changed
    expect(n).toBe(2);
    store.add(memorySession(hdr('c'), TWO_TURNS));
    expect(n).toBe(3); // not held: at once
  });

  it('fork options type allows source as id or Session', () => {
    const store = memStore({ a: { events: TWO_TURNS } });
    const opts: ForkSessionOptions = { source: store.get('a')!, sessionId: 'x' };
    expect(store.fork(opts).id).toBe('x');
  });
});

describe('SessionStore on disk (DiskPersistence)', () => {
  function root(): { dir: string; parent: string } {
    const dir = tmpDir();
    const parent = writeLog(path.join(dir, 'parent.jsonl'), hdr('parent', { cwd: '/w' }), TWO_TURNS);
    writeLog(path.join(dir, 'live.jsonl'), hdr('live'), OPEN);
    return { dir, parent };
  }

  it('fork writes a child file and registers it live', () => {
    const { dir, parent } = root();
    const index = loadRootSync(dir);
    const child = index.store.fork({ source: 'parent', sessionId: 'kid', boundary: 6 });
    expect(child.file).toBe(path.join(dir, 'kid.jsonl'));
    expect(fs.existsSync(child.file!)).toBe(true);
    expect(index.store.get('kid')).toBe(child);
    expect(index.store.get(child.file!)).toBe(child);
    expect(child.events).toEqual(index.store.get(parent)!.events.slice(0, 7));
  });

  it('SESSION_ALREADY_EXISTS when the child file exists on disk but is not live', () => {
    const { dir } = root();
    const index = loadRootSync(dir);
    // appears after the load: not live, but the name is taken
    const squatter = path.join(dir, 'later.jsonl');
    fs.writeFileSync(squatter, 'not even a session\n');
    const hash = sha256(squatter);
    expect(index.store.get('later')).toBeUndefined();
    const e = forkError(() => index.store.fork({ source: 'parent', sessionId: 'later' }));
    expect(e.code).toBe('SESSION_ALREADY_EXISTS');
    expect(e.message).toBe('session "later" already exists');
    expect(sha256(squatter)).toBe(hash);
  });

  it('SESSION_ALREADY_EXISTS for a refused file (version 3) occupying the child name, checked before OPEN_TURN', () => {
    const { dir } = root();
    const v3 = writeLog(path.join(dir, 'v3.jsonl'), { type: 'session', version: 3, id: 'v3', createdAt: 1 }, []);
    const hash = sha256(v3);
    const index = loadRootSync(dir);
    expect(index.store.get('v3')).toBeUndefined();
    expect(codeOf(() => index.store.fork({ source: 'live', sessionId: 'v3' }))).toBe('SESSION_ALREADY_EXISTS');
    expect(codeOf(() => index.store.fork({ source: 'parent', sessionId: 'v3' }))).toBe('SESSION_ALREADY_EXISTS');
    expect(sha256(v3)).toBe(hash);
  });

  it('SESSION_NOT_LIVE for a stale disk Session after add() of a fresh instance for the same file', () => {
    const { dir, parent } = root();
    const index = loadRootSync(dir);
    const stale = index.store.get(parent)!;
    const fresh = openSessionFile(parent).session!;
    expect(fresh).toBeInstanceOf(Session);
    index.store.add(fresh);
    expect(index.store.get(parent)).toBe(fresh);
    const e = forkError(() => index.store.fork({ source: stale }));
    expect(e.code).toBe('SESSION_NOT_LIVE');
    expect(e.message).toBe('session "parent" is not the live store instance');
    expect(fs.readdirSync(dir).sort()).toEqual(['live.jsonl', 'parent.jsonl']);
    expect(index.store.fork({ source: fresh, sessionId: 'ok' }).seedLength).toBe(14);
  });

  it('OPEN_TURN on disk: exact message, nothing written', () => {
    const { dir } = root();
    const index = loadRootSync(dir);
    const e = forkError(() => index.store.fork({ source: 'live', sessionId: 'kid' }));
    expect(e.code).toBe('OPEN_TURN');
    expect(e.message).toBe('cannot fork session "live" inside an open turn (last event: tool/call)');
    expect(fs.readdirSync(dir).sort()).toEqual(['live.jsonl', 'parent.jsonl']);
  });

  it('INVALID_BOUNDARY on disk for -1, 1.5, length; nothing written', () => {
    const { dir } = root();
    const index = loadRootSync(dir);
    for (const b of [-1, 1.5, 14]) expect(codeOf(() => index.store.fork({ source: 'parent', boundary: b }))).toBe('INVALID_BOUNDARY');
    expect(fs.readdirSync(dir).sort()).toEqual(['live.jsonl', 'parent.jsonl']);
  });

  it('generated ids on disk avoid names taken on disk', () => {
    const { dir } = root();
    fs.writeFileSync(path.join(dir, 'taken.jsonl'), 'x\n');
    const ids = ['taken', 'free'];
    const index = loadRootSync(dir);
    const store = new SessionStore(index.store.persistence, () => ids.shift()!);
    for (const s of index.store.list()) store.add(s);
    expect(store.fork({ source: 'parent' }).id).toBe('free');
    expect(fs.readFileSync(path.join(dir, 'taken.jsonl'), 'utf8')).toBe('x\n');
  });
});
