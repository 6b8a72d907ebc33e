// A current-release harness root in a real pseudo-terminal: v4 logs,
// compressed (session.v4.jsonl.zstd, a frame for the header line then frames
// of rows), in the harness layout <root>/--<project>--/<id>/. Built in setup
// from the real v3 workspace by the v3 -> v4 rules (test/support/v3-to-v4.ts).
// It opens, a turn folds out, a fork lands in the child's own folder as a
// compressed v4 generation file, and y copies the resume command.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readZstdText } from '../../src/storage/zstd-log.js';
import { hasZstd, zstdFrames } from '../support/real-roots.js';
import { logV3toV4 } from '../support/v3-to-v4.js';
import { keys, killAllPtys, press, settled, spawnPty } from './pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
const WS = path.join(ROOT, 'test', 'fixtures', 'real-sessions-v2v4', 'zdsh-vfs-workspace', '--dsh-workspace--');
let base: string;
let root: string;

beforeAll(() => {
  if (!fs.existsSync(BIN) || process.env.DSH_E2E_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-v4-e2e-'));
  root = path.join(base, 'sessions');
  if (!hasZstd) return;
  for (const id of fs.readdirSync(WS)) {
    const dir = path.join(root, '--dsh-workspace--', id);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'session.v4.jsonl.zstd'), zstdFrames(logV3toV4(fs.readFileSync(path.join(WS, id, 'session.v3.jsonl'), 'utf8'))));
  }
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('a compressed v4 harness root in a terminal', () => {
  it.skipIf(!hasZstd)('opens, folds out a turn, forks into <root>/--project--/<child>/session.v4.jsonl.zstd, and y copies dsh --resume (skipped without the zstd tool)', async () => {
    const s = spawnPty(process.execPath, [BIN, root, '--all'], { cols: 110, rows: 30 });
    await s.waitFor('3 sessions', 15_000);
    await settled(s);
    await press(s, '/', 'preview-showcase', keys.enter);
    await s.waitFor('filter "preview-showcase"');
    await press(s, keys.tab);
    const turns = await s.waitFor((x) => x.includes('Turns: preview-showcase') && x.includes('29 turns · 199 events'));
    expect(turns).toContain('format v4');
    expect(turns).toMatch(/▸ turn 1 +completed +History checkpoint 01/);
    await press(s, keys.right);
    await s.waitFor(/▾ turn 1[\s\S]*user: History checkpoint 01[\s\S]*assistant: Checkpoint 01 is recorded\./);
    await press(s, 'b');
    await s.waitFor('f fork here (seq 6)');
    await press(s, 'f');
    const dialog = await s.waitFor((x) => x.includes('Fork session') && /child id +\S+/.test(x));
    expect(dialog).toMatch(/source +preview-showcase/);
    expect(dialog).toMatch(/seedLength +7/);
    const childId = /child id +(\S+)/.exec(dialog)![1];
    await press(s, keys.enter);
    await s.waitFor(`forked preview-showcase -> ${childId}`);
    await s.waitFor('4 sessions');
    const file = path.join(root, '--dsh-workspace--', childId, 'session.v4.jsonl.zstd');
    expect(fs.existsSync(file)).toBe(true);
    const lines = readZstdText(file).toString('utf8').split('\n').slice(0, -1);
    expect(JSON.parse(lines[0])).toMatchObject({ type: 'session', version: 4, id: childId, parentSession: 'preview-showcase', isSeeded: true, delegationDepth: 0 });
    expect(lines).toHaveLength(1 + 7 + 1);
    expect(JSON.parse(lines[8])).toMatchObject({ type: 'session/end-seed', seq: 7, data: { inherited: true } });
    // the fork brings the Sessions list back with the child selected: y copies the command that
    // resumes it in the current release (no Esc first: sent close behind it, Esc and y are one
    // read on a loaded machine, Alt-y as a terminal sends it, and the copy never came)
    await s.waitFor(/STATE +ID/);
    await press(s, 'y');
    const expected = `cd /dsh/workspace && dsh --resume=${childId}`;
    await s.waitFor(`copied: ${expected}`);
    const osc = /\x1b\]52;c;([A-Za-z0-9+/=]+)\x07/.exec(s.rawOutput());
    expect(Buffer.from(osc![1], 'base64').toString('utf8')).toBe(expected);
    await press(s, 'q');
    expect((await s.exited).exitCode).toBe(0);
  });
});
