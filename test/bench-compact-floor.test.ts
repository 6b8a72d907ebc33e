// The bench's compact-store floor (bench/compact-floor.ts) reads the fact cache the
// browser wrote and checks every file as the cache does: its counts must be the
// root's, a changed file must fail its check, and the newest session comes first.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compactStart, writeColumns } from '../bench/compact-floor.js';
import { idleCorpus } from '../bench/idle.js';
import { loadRootSync } from '../src/storage/load-root.js';
import { cleanupTmp, tmpDir } from './support/fixtures.js';

afterAll(cleanupTmp);

describe('compact-store floor', () => {
  it('turns the fact cache into columns, verifies every file and puts the newest first', () => {
    const base = tmpDir('dsh-floor-');
    const { dir } = idleCorpus(base, 250);
    const cacheDir = path.join(base, 'cache');
    // a clock a minute ahead: the files just written are not "racy", so the cache keeps them
    const index = loadRootSync(dir, { cache: { dir: cacheDir, now: () => Date.now() + 60_000 } });
    expect(index.store.list()).toHaveLength(250);
    const facts = fs.readdirSync(cacheDir).filter((f) => f.endsWith('.facts'));
    expect(facts).toHaveLength(1);
    const cols = path.join(base, 'cols');
    expect(writeColumns(path.join(cacheDir, facts[0]), cols)).toBe(250);

    expect(compactStart(cols, dir)).toEqual({ sessions: 250, verified: 250, first: 'idle-249' });

    // a file that changed since the cache was written fails its check (size), as the cache's own lookup would
    fs.appendFileSync(path.join(dir, 'cwd-000000000001', 'idle-120.jsonl'), '\n');
    expect(compactStart(cols, dir).verified).toBe(249);
  });

  it('gives no columns for a cache it does not read', () => {
    const base = tmpDir('dsh-floor-');
    const other = path.join(base, 'x.facts');
    fs.writeFileSync(other, '{"dshBrowseCache":"3/0.0.1"}\n');
    expect(writeColumns(other, path.join(base, 'cols'))).toBeUndefined();
    fs.writeFileSync(other, 'not json\n');
    expect(writeColumns(other, path.join(base, 'cols'))).toBeUndefined();
  });
});
