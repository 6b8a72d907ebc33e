// The browser and the fact cache: its first scan writes the cache, a second
// start reads it and shows the same list, --no-cache neither reads nor writes it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cacheFileFor } from '../../src/storage/fact-cache.js';
import { killAllPtys, press, settled, spawnPty } from '../e2e/pty-harness.js';
import { agedSampleRoot, cleanupTmp, tmpDir } from '../support/fixtures.js';
import { BIN } from '../support/run-cli.js';

afterEach(killAllPtys);
afterAll(cleanupTmp);


/** The Sessions view's rows (the AGE column masked: the clock moves). */
const rows = (screen: string) => screen.split('\n').filter((l) => /at-boundary|open|empty/.test(l)).map((l) => l.replace(/\d+[smhd]\b/g, ''));

async function browse(root: string, xdg: string, ...args: string[]): Promise<string> {
  const s = spawnPty(process.execPath, [BIN, root, ...args], { cols: 120, rows: 40, env: { XDG_CACHE_HOME: xdg, NO_COLOR: '1' } });
  await s.waitFor(/ live\b/); // the scan ended (and the cache was saved): following now
  // a frame can arrive in several reads: wait for the rows, then for the output to settle
  await s.waitFor((screen) => rows(screen).length > 3);
  await settled(s, 300);
  const screen = s.screen();
  await press(s, 'q');
  expect((await s.exited).exitCode).toBe(0);
  return screen;
}

describe('the browser and the fact cache', () => {
  it('the first scan writes it; a warm start shows the same sessions; --no-cache writes nothing', async () => {
    const root = agedSampleRoot();
    const none = tmpDir('dsh-xdg-');
    const plain = await browse(root, none, '--no-cache');
    expect(fs.existsSync(path.join(none, 'dsh-browse'))).toBe(false);

    const xdg = tmpDir('dsh-xdg-');
    await browse(root, xdg);
    const file = cacheFileFor(root, path.join(xdg, 'dsh-browse'))!;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const written = fs.statSync(file).mtimeMs;
    const warm = await browse(root, xdg);
    // the list is the same
    expect(rows(warm).length).toBeGreaterThan(3);
    expect(rows(warm)).toEqual(rows(plain));
    // nothing changed: not rewritten
    expect(fs.statSync(file).mtimeMs).toBe(written);
  });
});
