// y and R in a real pseudo-terminal: y puts `cd <cwd> && dsh --resume=<id>` on
// the clipboard (OSC 52) and shows it; R leaves the browser (terminal restored)
// and runs the harness's own resume in the session's cwd, here a stub `dsh`
// that records its arguments and working directory; without dsh on the PATH the
// command is printed instead.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAllPtys, settled, spawnPty } from './pty-harness.js';
import { cwdFolder } from '../../src/storage/layout.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
let base: string;
let root: string;
let work: string;
let stubDir: string;
let record: string;

const line = (o: unknown) => JSON.stringify(o) + '\n';

beforeAll(() => {
  if (!fs.existsSync(BIN) || process.env.DSH_E2E_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-resume-'));
  root = path.join(base, 'root');
  work = path.join(base, 'work dir'); // a space: the command must be quoted
  stubDir = path.join(base, 'bin');
  record = path.join(base, 'record.txt');
  for (const d of [root, work, stubDir]) fs.mkdirSync(d);
  // the RFC-era harness layout (<root>/cwd-<hash>/<id>.jsonl): where dsh --resume finds it
  const bucket = path.join(root, cwdFolder(work));
  fs.mkdirSync(bucket);
  const t = 1795990000000;
  fs.writeFileSync(
    path.join(bucket, 'resume-me.jsonl'),
    line({ type: 'session', version: 0, id: 'resume-me', createdAt: t, cwd: work }) +
      line({ type: 'turn/start', seq: 0, time: t, data: { turn: 1, trigger: 'user' } }) +
      line({ type: 'user/message', seq: 1, time: t, data: { content: [{ type: 'text', text: 'hello' }], source: 'user' } }) +
      line({ type: 'turn/end', seq: 2, time: t, data: { turn: 1, reason: { kind: 'completed' } } }),
  );
  fs.writeFileSync(path.join(stubDir, 'dsh'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${record}"\npwd >> "${record}"\necho STUB-DSH-RAN\nexit 7\n`, { mode: 0o755 });
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

async function open(PATH: string) {
  const s = spawnPty(process.execPath, [BIN, root], { cols: 100, rows: 24, env: { PATH } });
  await s.waitFor('resume-me', 15_000);
  await settled(s);
  return s;
}

describe('continue in the harness', () => {
  it('y copies the resume command (OSC 52) and shows it', async () => {
    const s = await open('/usr/bin:/bin');
    s.write('y');
    const expected = `cd '${work}' && dsh --resume=resume-me`;
    await s.waitFor(`copied: ${expected}`);
    const osc = /\x1b\]52;c;([A-Za-z0-9+/=]+)\x07/.exec(s.rawOutput());
    expect(osc).not.toBeNull();
    expect(Buffer.from(osc![1], 'base64').toString('utf8')).toBe(expected);
    s.write('q');
    expect((await s.exited).exitCode).toBe(0);
  });

  it('R leaves the browser, restores the terminal and runs dsh --resume=ID in the session cwd', async () => {
    fs.rmSync(record, { force: true });
    const s = await open(`${stubDir}:/usr/bin:/bin`);
    s.write('R');
    const exit = await s.exited;
    expect(exit.exitCode).toBe(7); // the harness's own exit code
    expect(fs.readFileSync(record, 'utf8').split('\n')).toEqual(['--resume=resume-me', work, '']);
    const raw = s.rawOutput();
    expect(raw.lastIndexOf('\x1b[?1049l')).toBeGreaterThan(-1);
    expect(raw.indexOf('STUB-DSH-RAN')).toBeGreaterThan(raw.lastIndexOf('\x1b[?1049l')); // dsh ran after the screen was restored
  });

  it('R without dsh on the PATH prints the command and exits 0', async () => {
    const s = await open('/usr/bin:/bin');
    s.write('R');
    const exit = await s.exited;
    expect(exit.exitCode).toBe(0);
    const raw = s.rawOutput();
    expect(raw.slice(raw.lastIndexOf('\x1b[?1049l'))).toContain(`dsh is not on the PATH; to continue the session run:`);
    expect(raw).toContain(`cd '${work}' && dsh --resume=resume-me`);
  });
});
