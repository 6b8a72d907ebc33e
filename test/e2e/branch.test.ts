// Compare and the action menu in a real pseudo-terminal (100x30).
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys, killAllPtys, settled, spawnPty } from './pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
let dir: string;

beforeAll(() => {
  if (!fs.existsSync(BIN) || process.env.DSH_E2E_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-branch-e2e-'));
  fs.cpSync(path.join(ROOT, 'sample-sessions'), dir, { recursive: true });
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('branch workflows in a terminal', () => {
  it('m, c: two sibling forks side by side from their common ancestor; Enter opens a turn, Esc returns; a lists the actions', async () => {
    const s = spawnPty(process.execPath, [BIN, dir], { cols: 110, rows: 30 });
    await s.waitFor(/· live/, 15_000);
    await settled(s);
    s.write('/spy-random\r');
    await s.waitFor('filter "spy-random"');
    s.write('m\x1b/review-pr\r');
    await s.waitFor('filter "review-pr"');
    s.write('c'); // unrelated sessions
    await s.waitFor('no common ancestor');
    s.write('\x1b\x1b/bisect\rc');
    await s.waitFor('fix-flaky-retry-test.spy-random');
    s.write('\x1b\x1b/issue-writeup.gh\rc');
    const cmp = await s.waitFor((scr) => scr.includes('common ancestor fix-flaky-retry-test, logs agree through seq 43') && /total/.test(scr));
    expect(cmp).toMatch(/fix-flaky-retry-test\.spy-random +│ fix-flaky-retry-test\.issue-writeup\.gh/);
    s.write(keys.enter);
    await s.waitFor(/Turns: fix-flaky-retry-test\.spy-random/);
    s.write(keys.esc);
    await s.waitFor('common ancestor fix-flaky-retry-test');
    s.write(keys.esc);
    await s.waitFor(/STATE +ID/);
    s.write('a');
    // (a frame can arrive in pieces: wait for the menu's last entry, not its title)
    const menu = await s.waitFor((scr) => scr.includes('Actions: fix-flaky-retry-test.issue-writeup.gh') && scr.includes('resume in the harness'));
    expect(menu).toContain('compare with the marked session');
    expect(menu).toContain('❯ Enter  open in Turns');
    s.write('j');
    await s.waitFor('❯ f      fork at the head');
    s.write(keys.esc);
    await s.waitFor((scr) => !scr.includes('Actions:'));
    s.write('q');
    expect((await s.exited).exitCode).toBe(0);
  });
});
