// Folder listings kept in the fact cache (src/storage/folder-listings.ts): the
// rules a random-change property cannot reach (same-tick changes, names that
// are not UTF-8), checked on the class itself.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FolderListings } from '../../src/storage/folder-listings.js';
import { RACY_MS } from '../../src/storage/fact-cache.js';
import { folderStat, iterateSessionFiles, readFolder, defaultIsSessionFile } from '../../src/storage/walk.js';
import { cleanupTmp, tmpDir } from '../support/fixtures.js';

afterAll(cleanupTmp);

const HOUR = 3_600_000;

/** The lines one run writes, loaded by the next (as the cache file carries them). */
function reload(root: string, from: FolderListings, complete = true, stamp = Date.now()): FolderListings {
  const next = new FolderListings(root, -Infinity, Date.now(), RACY_MS);
  next.load(from.lines(complete).lines, stamp);
  return next;
}

describe('FolderListings', () => {
  it('recalls a listing only for the very stat it was taken with', () => {
    const root = tmpDir();
    fs.writeFileSync(path.join(root, 'a.jsonl'), '');
    fs.mkdirSync(path.join(root, 'sub'));
    const st = { ...folderStat(root)!, mtimeMs: Date.now() - HOUR };
    const first = new FolderListings(root, -Infinity, Date.now(), RACY_MS);
    first.remember(root, st, readFolder(root, defaultIsSessionFile));
    const warm = reload(root, first);
    expect(warm.recall(root, st)).toEqual(readFolder(root, defaultIsSessionFile));
    for (const k of ['dev', 'ino', 'mtimeMs', 'ctimeMs'] as const) expect(warm.recall(root, { ...st, [k]: st[k] + 1 })).toBeUndefined();
    expect(warm.hits).toBe(1);
  });

  it('a folder changed less than RACY_MS before the run that listed it: not kept, and not trusted when found', () => {
    const root = tmpDir();
    const now = Date.now();
    const racy = { ...folderStat(root)!, mtimeMs: now - RACY_MS / 2 };
    const run = new FolderListings(root, -Infinity, now, RACY_MS);
    run.remember(root, racy, readFolder(root, defaultIsSessionFile));
    expect(run.lines(true).lines).toEqual([]);
    // a line written by a run that started within RACY_MS of the folder's mtime (a cache from elsewhere): ignored
    const old = { ...racy, mtimeMs: now - HOUR };
    const writer = new FolderListings(root, -Infinity, now, RACY_MS);
    writer.remember(root, old, readFolder(root, defaultIsSessionFile));
    expect(reload(root, writer, true, old.mtimeMs + RACY_MS / 2).recall(root, old)).toBeUndefined();
    expect(reload(root, writer, true, old.mtimeMs + RACY_MS).recall(root, old)).toBeDefined();
  });

  it.skipIf(process.platform !== 'linux')('a folder holding a name that is not UTF-8 is listed every run (its real bytes are not kept)', () => {
    const root = tmpDir();
    fs.writeFileSync(Buffer.concat([Buffer.from(root + '/bad-'), Buffer.from([0xff]), Buffer.from('.jsonl')]), '');
    const st = { ...folderStat(root)!, mtimeMs: Date.now() - HOUR };
    const run = new FolderListings(root, -Infinity, Date.now(), RACY_MS);
    const listing = readFolder(root, defaultIsSessionFile);
    expect(listing.files).toHaveLength(1);
    run.remember(root, st, listing);
    expect(run.lines(true).lines).toEqual([]);
  });

  it('keeps the folders a cut walk did not reach, and drops those a complete walk did not find', () => {
    const root = tmpDir();
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    for (const d of [a, b]) fs.mkdirSync(d);
    // one stat each, taken once: a second Date.now() a millisecond later is another mtime (this test flaked so)
    const at = Date.now() - HOUR;
    const stats = new Map([a, b].map((d) => [d, { ...folderStat(d)!, mtimeMs: at }]));
    const old = (d: string) => stats.get(d)!;
    const first = new FolderListings(root, -Infinity, Date.now(), RACY_MS);
    for (const d of [a, b]) first.remember(d, old(d), readFolder(d, defaultIsSessionFile));
    const cut = reload(root, first);
    cut.recall(a, old(a));
    expect(cut.lines(false)).toMatchObject({ changed: false });
    expect(cut.lines(false).lines).toHaveLength(2);
    expect(cut.lines(true)).toMatchObject({ changed: true });
    expect(cut.lines(true).lines).toHaveLength(1);
  });

  it('a walk with listings yields what a walk without them does, and lists no unchanged folder', () => {
    const root = tmpDir();
    for (const f of ['x.jsonl', 'p/s1/session.jsonl', 'p/s2/session.jsonl', 'p/s2/session.v1.jsonl']) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      fs.writeFileSync(path.join(root, f), '');
    }
    const t = (Date.now() - HOUR) / 1000;
    for (const d of ['p/s1', 'p/s2', 'p', '']) fs.utimesSync(path.join(root, d), t, t);
    const first = new FolderListings(root, -Infinity, Date.now(), RACY_MS);
    const plain = [...iterateSessionFiles(root)];
    expect([...iterateSessionFiles(root, undefined, undefined, first)]).toEqual(plain);
    const warm = reload(root, first);
    const real = fs.readdirSync;
    let listed = 0;
    (fs as { readdirSync: unknown }).readdirSync = (...a: unknown[]) => {
      listed++;
      return (real as (...x: unknown[]) => unknown)(...a);
    };
    try {
      expect([...iterateSessionFiles(root)]).toEqual(plain);
      expect(listed).toBe(4); // the spy sees the walk's listings
      listed = 0;
      expect([...iterateSessionFiles(root, undefined, undefined, warm)]).toEqual(plain);
    } finally {
      (fs as { readdirSync: unknown }).readdirSync = real;
    }
    expect(listed).toBe(0);
    expect(warm.hits).toBe(4);
  });
});
