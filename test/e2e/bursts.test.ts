// Keys that arrive together (typing fast, key repeat, ssh, a paste) in a real
// pseudo-terminal: each burst is written in ONE write, and the result must
// equal the same keys sent one at a time. Also: the terminal is restored
// (alternate screen left) on q, Ctrl-C and SIGTERM/SIGHUP.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys, killAllPtys, settled, spawnPty, type PtySession } from './pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
const dirs: string[] = [];

beforeAll(() => {
  if (!fs.existsSync(BIN) || process.env.DSH_E2E_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
});
afterEach(() => killAllPtys());
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A fresh copy of the samples and the browser on it, at 100x30. */
async function open(): Promise<{ s: PtySession; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-burst-'));
  dirs.push(dir);
  fs.cpSync(path.join(ROOT, 'sample-sessions'), dir, { recursive: true });
  const s = spawnPty(process.execPath, [BIN, dir], { cols: 100, rows: 30 });
  await s.waitFor(/STATE +ID +TITLE/, 15_000);
  await s.waitFor(/· live/, 15_000); // the scan is over: the list stops reordering
  await settled(s);
  return { s, dir };
}

const selected = (s: PtySession) => s.lines().find((l) => l.startsWith('▶')) ?? '';
/** The screen below the title bar (which names the folder and live notices that differ between two copies). */
const comparable = (s: PtySession, dir: string) => s.lines().slice(1).join('\n').split(dir).join('<dir>');

/** Sends `seq` as one write to `a` and key by key (each after the app went quiet) to `b`. */
async function both(a: PtySession, b: PtySession, seq: string[]): Promise<void> {
  a.write(seq.join(''));
  for (const k of seq) {
    b.write(k);
    await settled(b);
  }
  await settled(a);
}

describe('key bursts in one write equal the same keys one at a time (real terminal)', () => {
  it('jjj, Down f, /bump⏎ and ten Backspaces', async () => {
    const [A, B] = await Promise.all([open(), open()]);
    const rows = A.s.lines().filter((l) => /^[▶ ] (boundary|open|empty)/.test(l));

    await both(A.s, B.s, ['j', 'j', 'j']);
    await A.s.waitFor(() => selected(A.s) === rows[3].replace(/^ /, '▶'));
    expect(comparable(A.s, A.dir)).toBe(comparable(B.s, B.dir));

    await both(A.s, B.s, [keys.down, 'f']);
    const dialog = await A.s.waitFor((x) => x.includes('Fork session') && x.includes('child id')); // the whole dialog
    const source = /source +(\S+)/.exec(dialog)![1];
    expect(rows[4]).toContain(source.slice(0, 12));
    await B.s.waitFor(`source      ${source}`);
    await both(A.s, B.s, [keys.esc]);
    await A.s.waitFor((scr) => !scr.includes('Fork session'));

    await both(A.s, B.s, ['/', 'b', 'u', 'm', 'p', keys.enter]);
    // the filter's words are also searched inside the logs in the background: compare once both are done
    await A.s.waitFor((x) => x.includes('filter "bump" (Esc clears)') && !x.includes('searching events'));
    await B.s.waitFor((x) => x.includes('filter "bump" (Esc clears)') && !x.includes('searching events'));
    expect(selected(A.s)).toContain('bump-vitest');
    expect(comparable(A.s, A.dir)).toBe(comparable(B.s, B.dir));

    await both(A.s, B.s, [keys.esc, '/', ...'abcdefghijklm']);
    await both(A.s, B.s, Array.from({ length: 10 }, () => keys.backspace));
    // (the typed text contains '/abc' already); both searches of the logs must be over before comparing
    const done = (scr: string) => scr.includes('/abc') && !scr.includes('abcd') && !scr.includes('searching events');
    await A.s.waitFor(done);
    await B.s.waitFor(done);
    expect(comparable(A.s, A.dir)).toBe(comparable(B.s, B.dir));
  });

  it('a 40-character paste plus Enter into the child id field forks under that id', async () => {
    const [A, B] = await Promise.all([open(), open()]);
    const idA = 'pasted-child-id-0123456789-abcdefghijklm';
    const idB = 'typed-child-id-0123456789-abcdefghijklmn';
    expect(idA).toHaveLength(40);
    expect(idB).toHaveLength(40);
    for (const { s } of [A, B]) {
      s.write('/bump\r');
      await s.waitFor('filter "bump"');
      s.write('f');
      await s.waitFor((x) => x.includes('Fork session') && x.includes('child id'));
    }
    A.s.write('\x15' + idA + '\r'); // Ctrl-U, the paste and Enter, in one write
    await A.s.waitFor(`forked bump-vitest -> ${idA}`);
    for (const k of ['\x15', ...idB]) {
      B.s.write(k);
      await settled(B.s);
    }
    B.s.write('\r');
    await B.s.waitFor(`forked bump-vitest -> ${idB}`);
    expect(fs.existsSync(path.join(A.dir, `${idA}.jsonl`))).toBe(true);
    expect(fs.existsSync(path.join(B.dir, `${idB}.jsonl`))).toBe(true);
    // the same paste in bracketed-paste form is text too: its newline is not Enter, it is a space (readline)
    A.s.write('/');
    A.s.write('\x1b[200~abc\rdef\x1b[201~');
    await A.s.waitFor('/abc def');
  });
});

describe('the terminal is restored', () => {
  const LEAVE = '\x1b[?1049l';
  for (const how of ['q', 'Ctrl-C', 'SIGTERM', 'SIGHUP'] as const) {
    it(`on ${how}: alternate screen left, bracketed paste off`, async () => {
      const { s } = await open();
      expect(s.rawOutput()).toContain('\x1b[?1049h');
      if (how === 'q') s.write('q');
      else if (how === 'Ctrl-C') s.write(keys.ctrlC);
      else s.kill(how);
      const exit = await s.exited;
      const raw = s.rawOutput();
      expect(raw.lastIndexOf(LEAVE)).toBeGreaterThan(raw.lastIndexOf('\x1b[?1049h'));
      expect(raw.slice(raw.lastIndexOf('\x1b[?1049h'))).toContain('\x1b[?2004l');
      if (how === 'q' || how === 'Ctrl-C') expect(exit.exitCode).toBe(0);
      else expect(exit.exitCode).toBe(how === 'SIGTERM' ? 143 : 129);
    });
  }
});
