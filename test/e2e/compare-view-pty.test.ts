// The Compare view in a REAL pseudo-terminal: a small program (bundled here
// from test/e2e/fixtures/compare-entry.tsx) renders CompareView driven by the
// compare-state reducer on two real sample forks.
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTmp, REPO, SAMPLE_DIR, tmpDir } from '../support/fixtures.js';
import { keys, killAllPtys, spawnPty } from './pty-harness.js';

let entry = '';
beforeAll(async () => {
  entry = path.join(tmpDir(), 'compare-entry.mjs');
  await build({
    entryPoints: [path.join(REPO, 'test/e2e/fixtures/compare-entry.tsx')],
    outfile: entry,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    alias: { 'react-devtools-core': path.join(REPO, 'scripts/devtools-stub.mjs') },
    banner: { js: "import { createRequire as __cr } from 'node:module';\nconst require = __cr(import.meta.url);" },
    logLevel: 'error',
  });
}, 60_000);
afterAll(() => {
  killAllPtys();
  cleanupTmp();
});

describe('CompareView in a terminal (80x24)', () => {
  it('draws inside the screen, moves with the arrows, switches side, opens the turn on Enter', async () => {
    const s = spawnPty(process.execPath, [entry, SAMPLE_DIR, 'fix-flaky-retry-test', 'fix-flaky-retry-test.spy-random'], { cols: 80, rows: 24 });
    const first = await s.waitFor('common ancestor fix-flaky-retry-test, logs agree through seq 78', 15_000);
    expect(first).toMatch(/▶ T3 completed/); // starts on the first differing turn
    for (const l of s.lines()) expect(l.length).toBeLessThanOrEqual(80);
    s.write(keys.down);
    await s.waitFor(/▶ T4 completed/);
    s.write(keys.right);
    await s.waitFor('side: right (fix-flaky-retry-test.spy-random)');
    s.write(keys.enter);
    await s.waitFor(/OPEN fix-flaky-retry-test\.spy-random \d+/);
    const exit = await s.exited;
    expect(exit.exitCode).toBe(0);
  });

  it('keys read together act in order on the latest state: → and Enter in one write open the right side', async () => {
    // Ink reads both keys in one chunk and emits them back to back, before React has
    // re-bound a useInput handler to the state the first key made: Enter must not
    // act on the state from before → (the program once opened the left side while
    // its footer said "side: right")
    const s = spawnPty(process.execPath, [entry, SAMPLE_DIR, 'fix-flaky-retry-test', 'fix-flaky-retry-test.spy-random'], { cols: 80, rows: 24 });
    await s.waitFor('common ancestor fix-flaky-retry-test, logs agree through seq 78', 15_000);
    s.write(keys.down + keys.right + keys.enter);
    await s.waitFor(/OPEN fix-flaky-retry-test\.spy-random 113/, 15_000);
    expect((await s.exited).exitCode).toBe(0);
  });

  it('a resize redraws within the new size', async () => {
    const s = spawnPty(process.execPath, [entry, SAMPLE_DIR, 'fix-flaky-retry-test.spy-random', 'fix-flaky-retry-test.issue-writeup.gh'], { cols: 100, rows: 24 });
    await s.waitFor('logs agree through seq 43', 15_000);
    s.resize(50, 12);
    // redrawn for 50 columns: the column separator moves to column 2 + 22 + 1
    await s.waitFor((screen) => screen.split('\n').some((l) => l.indexOf('│') === 25 && l.includes('T2')));
    const lines = s.lines();
    expect(lines.filter((l) => l.includes('common ancestor')).length).toBe(1); // one frame, not a pile
    expect(lines.filter((l) => l.includes('side: left')).length).toBe(1);
    s.write('q');
    expect((await s.exited).exitCode).toBe(0);
  });
});
