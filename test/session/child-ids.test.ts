// Ids the harness can use: an empty id, or one whose encoded file name the
// harness could not have, is refused with INVALID_SESSION_ID before anything
// is written; generated ids never start with '-'.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newChildId } from '../../src/session/ids.js';
import { SessionStore } from '../../src/session/store.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, evs, forkError, hdr, listTree, REPO, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterEach(cleanupTmp);
const EVENTS = evs(...turnRows(1));
const CLI = path.join(REPO, 'dist', 'dsh-browse.mjs');

describe('newChildId', () => {
  it('skips ids starting with "-" (nanoid draws one in 64)', () => {
    const draws = ['-abc', '--x', 'ok-1'];
    expect(newChildId(() => draws.shift()!)).toBe('ok-1');
  });
  it('10,000 real draws: none starts with "-", all 21 characters of nanoid\'s alphabet', () => {
    for (let i = 0; i < 10_000; i++) {
      const id = newChildId();
      expect(id.startsWith('-')).toBe(false);
      expect(id).toMatch(/^[A-Za-z0-9_-]{21}$/);
    }
  });
  it('the store generates with it by default', () => {
    const store = new SessionStore(undefined, undefined);
    store.create('p', { seed: EVENTS });
    for (let i = 0; i < 300; i++) expect(store.fork({ source: 'p' }).id.startsWith('-')).toBe(false);
  });
});

describe('INVALID_SESSION_ID, before anything is written', () => {
  const layouts: Array<[string, (root: string) => string]> = [
    ['flat', (r) => writeLog(path.join(r, 'p.jsonl'), hdr('p', { cwd: '/a' }), EVENTS)],
    ['v0', (r) => writeLog(path.join(r, 'cwd-0123456789ab', 'p.jsonl'), hdr('p', { cwd: '/a' }), EVENTS)],
    ['rc8', (r) => writeLog(path.join(r, '--a--', 'p', 'session.jsonl'), hdr('p', { cwd: '/a', delegationDepth: 0 }), EVENTS)],
  ];
  it.each(layouts)('%s: an empty id', (_n, make) => {
    const root = tmpDir();
    const parent = make(root);
    const before = listTree(root);
    const idx = loadRootSync(root);
    const e = forkError(() => idx.store.fork({ source: idx.store.get(parent)!, sessionId: '' }));
    expect(e.code).toBe('INVALID_SESSION_ID');
    expect(e.message).toMatch(/^invalid session id "": /);
    expect(listTree(root)).toEqual(before);
  });

  it('the empty id is refused even for a parent that does not exist (checked first)', () => {
    const idx = loadRootSync(tmpDir());
    expect(forkError(() => idx.store.fork({ source: 'nope', sessionId: '' })).code).toBe('INVALID_SESSION_ID');
  });

  it.each(layouts.slice(1))('%s: an id whose encoded name is over 255 bytes (the harness keeps the whole name)', (_n, make) => {
    const root = tmpDir();
    const parent = make(root);
    const before = listTree(root);
    const idx = loadRootSync(root);
    const e = forkError(() => idx.store.fork({ source: idx.store.get(parent)!, sessionId: '日'.repeat(60) }));
    expect(e.code).toBe('INVALID_SESSION_ID');
    expect(e.message).toMatch(/over the 255-byte limit/);
    expect(listTree(root)).toEqual(before);
    // 250 plain characters still fit (v0 adds ".jsonl": 256 would not)
    expect(idx.store.fork({ source: idx.store.get(parent)!, sessionId: 'x'.repeat(249) }).id).toHaveLength(249);
  });

  it('"." and ".." are not refused: they are encoded', () => {
    const root = tmpDir();
    const parent = layouts[2][1](root);
    const idx = loadRootSync(root);
    expect(idx.store.fork({ source: idx.store.get(parent)!, sessionId: '.' }).file).toBe(path.join(root, '--a--', '~002E', 'session.jsonl'));
    expect(idx.store.fork({ source: idx.store.get(parent)!, sessionId: '..' }).file).toBe(path.join(root, '--a--', '~002E~002E', 'session.jsonl'));
  });

  it.skipIf(!fs.existsSync(CLI))('CLI: fork --id "" exits 1 with the typed error and writes nothing (it used to write <project>/session.jsonl)', () => {
    const root = tmpDir();
    layouts[2][1](root);
    const before = listTree(root);
    const r = spawnSync(process.execPath, [CLI, 'fork', '--dir', root, '--session', 'p', '--id', '', '--json'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ name: 'SessionForkError', code: 'INVALID_SESSION_ID' });
    expect(listTree(root)).toEqual(before);
  });
});
