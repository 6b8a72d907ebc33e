// What each branch did, in a real pseudo-terminal (120x36): on the real v3
// workspace, a subagent call row names its child with its state; Enter steps
// into the child's turns and Esc comes back to the call; C lists the files
// the session changed and Enter reads a diff.
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
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-subagents-e2e-'));
  fs.cpSync(path.join(ROOT, 'test/fixtures/real-sessions-v2v4/zdsh-vfs-workspace'), dir, { recursive: true });
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('subagents and changes in a terminal', () => {
  it('a subagent call names its child; Enter steps in, Esc comes back to the call; C reads a diff', async () => {
    const s = spawnPty(process.execPath, [BIN, dir, '--all'], { cols: 120, rows: 36 });
    await s.waitFor(/· live/, 15_000);
    await settled(s);
    s.write('/id:preview-showcase\r');
    await s.waitFor('filter "id:preview-showcase"');
    s.write(keys.enter);
    await s.waitFor(/Turns: preview-showcase/);
    // the last turn, all open: the two subagent calls
    s.write('Ge');
    const calls = await s.waitFor((scr) => scr.includes('tool subagent ok → child preview-follow-up-builder: at-boundary, 1 turn') && scr.includes('tool subagent_fork ok → child preview-architecture-review: at-boundary, 1 turn'));
    expect(calls).toContain('Enter steps in');
    // up to the subagent call, then into its child
    for (let i = 0; i < 40 && !/›\s*188\s+▾ tool subagent /.test(s.screen()); i++) {
      s.write('k');
      await settled(s);
    }
    expect(s.screen()).toMatch(/›\s*188\s+▾ tool subagent /);
    s.write(keys.enter);
    await s.waitFor((scr) => /Turns: preview-follow-up-builder/.test(scr) && scr.includes('spawned by preview-showcase'));
    s.write(keys.esc);
    await s.waitFor((scr) => /Turns: preview-showcase/.test(scr) && /›\s*188\s+▾ tool subagent /.test(scr));
    // the session's changes: src/preview.ts, written; Enter reads its diff
    s.write('\x1b\x1b');
    await s.waitFor(/STATE +ID/);
    s.write('C');
    await s.waitFor((scr) => scr.includes('Changes · preview-showcase · the session') && /▶ M src\/preview\.ts +\+3 −1/.test(scr));
    s.write(keys.enter);
    await s.waitFor((scr) => scr.includes("+export const previewStatus = 'ready'") && scr.includes("-export const previewStatus = 'draft'"));
    s.write('q');
    await s.waitFor('Changes · preview-showcase');
    s.write('qq');
    expect((await s.exited).exitCode).toBe(0);
  });
});
