// `dsh-browse` with no folder in a real terminal, with a temporary HOME and
// DSH_HOME: it opens dsh's own root (the title says so), the Sessions list
// starts with the current project only (as dsh's /resume), p shows all
// projects, and --all starts with all of them.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { projectKey } from '../../src/storage/layout.js';
import { killAllPtys, settled, spawnPty } from './pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
const T = 1795990000000;
let base: string;
let home: string;
let here: string;

const line = (o: unknown) => JSON.stringify(o) + '\n';
function rc8Session(root: string, id: string, cwd: string): void {
  const dir = path.join(root, projectKey(cwd), id);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'session.jsonl'),
    line({ type: 'session', version: 0, id, createdAt: T, cwd, delegationDepth: 0 }) +
      line({ type: 'turn/start', seq: 0, time: T, data: { turn: 1, trigger: 'user' } }) +
      line({ type: 'user/message', seq: 1, time: T, data: { role: 'user', content: [{ type: 'text', text: `work in ${id}` }] } }) +
      line({ type: 'turn/end', seq: 2, time: T, data: { turn: 1, reason: { kind: 'completed' } } }),
  );
}

beforeAll(() => {
  if (!fs.existsSync(BIN) || process.env.DSH_E2E_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-home-')));
  home = path.join(base, 'home');
  here = path.join(base, 'projects', 'here');
  fs.mkdirSync(here, { recursive: true });
  const sessions = path.join(home, 'dsh', 'sessions');
  rc8Session(sessions, 'here-one', here);
  rc8Session(sessions, 'here-two', here);
  rc8Session(sessions, 'elsewhere', path.join(base, 'projects', 'other'));
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('the default root', () => {
  it('opens DSH_HOME/sessions scoped to the current project; p toggles all projects', async () => {
    const s = spawnPty(process.execPath, [BIN], { cols: 120, rows: 24, cwd: here, env: { HOME: home, DSH_HOME: path.join(home, 'dsh') } });
    await s.waitFor(/· live/, 15_000);
    await settled(s);
    let scr = s.screen();
    expect(scr).toContain('dsh root ~/dsh/sessions');
    expect(scr).toMatch(/2 of 3 sessions|2 sessions/);
    expect(scr).toContain('here-one');
    expect(scr).not.toContain('elsewhere');
    expect(scr).toContain(`project ${here} (p: all)`);
    s.write('p');
    scr = await s.waitFor('elsewhere');
    expect(scr).toContain('all projects (p: this one)');
    s.write('q');
    expect((await s.exited).exitCode).toBe(0);
  });

  it('--all starts with every project', async () => {
    const s = spawnPty(process.execPath, [BIN, '--all'], { cols: 120, rows: 24, cwd: here, env: { HOME: home, DSH_HOME: path.join(home, 'dsh') } });
    await s.waitFor(/· live/, 15_000);
    await s.waitFor('elsewhere');
    expect(s.screen()).toContain('all projects (p: this one)');
  });
});
