// The store's sessions by id: one session per id is kept as itself, several
// as a list (docs/performance.md, "Memory"); what the store answers must not
// depend on which form an id is in.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Session } from '../../src/session/session.js';
import { SessionStore } from '../../src/session/store.js';
import { openSessionFile } from '../../src/storage/session-file.js';
import { parentLink } from '../../src/session/lineage.js';
import { cleanupTmp, evs, hdr, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterEach(cleanupTmp);

function sessionAt(dir: string, name: string, id: string, extra: object = {}): Session {
  const f = writeLog(path.join(dir, name), hdr(id, extra), evs(...turnRows(1)));
  const { session } = openSessionFile(f);
  return session!;
}

describe('sessions by id', () => {
  it('one, two, then one again: get, withId, getAll and idCount agree in every form, in the order added', () => {
    const dir = tmpDir();
    const store = new SessionStore();
    const a = sessionAt(dir, 'a.jsonl', 'same');
    const b = sessionAt(dir, 'b.jsonl', 'same');
    const c = sessionAt(dir, 'c.jsonl', 'same');
    store.add(a);
    expect(store.withId('same')).toEqual([a]);
    expect(store.idCount('same')).toBe(1);
    expect(store.get('same')).toBe(a);
    store.add(b);
    store.add(c);
    expect(store.withId('same')).toEqual([a, b, c]);
    expect(store.getAll('same')).toEqual([a, b, c]);
    expect(store.idCount('same')).toBe(3);
    store.remove(a);
    expect(store.get('same')).toBe(b);
    store.remove(c);
    expect(store.withId('same')).toEqual([b]);
    expect(store.idCount('same')).toBe(1);
    store.remove(b);
    expect(store.withId('same')).toEqual([]);
    expect(store.idCount('same')).toBe(0);
    expect(store.get('same')).toBeUndefined();
    store.add(c);
    expect(store.withId('same')).toEqual([c]);
  });

  it('a re-read of the only session of an id replaces it (no second entry)', () => {
    const dir = tmpDir();
    const store = new SessionStore();
    const a = sessionAt(dir, 'a.jsonl', 'x');
    store.add(a);
    const again = openSessionFile(a.file!).session!;
    store.add(again);
    expect(store.withId('x')).toEqual([again]);
    expect(store.withId('x')[0]).toBe(again);
    expect(store.idCount('x')).toBe(1);
  });

  it('a child resolves its parent through the store, single or ambiguous', () => {
    const dir = tmpDir();
    const store = new SessionStore();
    const p1 = sessionAt(dir, 'p1.jsonl', 'p');
    const kid = sessionAt(dir, 'k.jsonl', 'k', { parentSession: 'p' });
    store.add(p1);
    store.add(kid);
    const groups = { get: (id: string) => store.withId(id) } as ReadonlyMap<string, readonly Session[]>;
    expect(parentLink(kid, groups)).toEqual({ kind: 'resolved', key: SessionStore.keyOf(p1) });
    store.add(sessionAt(dir, 'p2.jsonl', 'p'));
    expect(parentLink(kid, groups).kind).toBe('ambiguous');
  });
});

describe('what a facts-only session holds itself', () => {
  it('none of the fields few sessions set: loaded events, a load, a failure, gone, forkedFrom', () => {
    const s = sessionAt(tmpDir(), 'a.jsonl', 'a');
    expect(Object.keys(s).filter((k) => ['loaded', 'job', 'failed', 'gone', 'forkedFrom'].includes(k))).toEqual([]);
    expect(s.gone).toBe(false);
    expect(s.isLoaded).toBe(false);
    expect(s.events).toHaveLength(7);
    expect(s.isLoaded).toBe(true);
    s.unload();
    expect(s.isLoaded).toBe(false);
    s.gone = true;
    expect(s.gone).toBe(true);
  });
});
