// The built browser in a real pseudo-terminal at 80x24: open, filter, fork
// refused, fork done, lineage, quit; and the no-terminal hint.
import { execFileSync, execSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys, killAllPtys, press, spawnPty, type PtySession } from './pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs'); // the bundled bin users run
let dir: string;

beforeAll(() => {
  if (!fs.existsSync(BIN) || process.env.DSH_E2E_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-tui-'));
  fs.cpSync(path.join(ROOT, 'sample-sessions'), dir, { recursive: true });
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const tallest = (s: PtySession) => s.lines().length;
const selected = (s: PtySession) => s.lines().find((l) => l.startsWith('▶')) ?? '';

describe('dsh-browse in a terminal (80x24)', () => {
  it('opens, filters, refuses a fork inside an open turn, forks at a boundary, shows the child in Lineage, quits with 0', async () => {
    const before = fs.readdirSync(dir).sort();
    const s = spawnPty(process.execPath, [BIN, dir], { cols: 80, rows: 24 });
    await s.waitFor('12 sessions');
    await s.waitFor(/STATE +ID +TITLE/);
    expect(tallest(s)).toBe(24);
    expect(s.lines()[0]).toContain('dsh-browse');

    // filter as you type, Enter keeps it
    await press(s, '/', 'add-retry');
    await s.waitFor('1 of 12 sessions');
    await press(s, keys.enter);
    await s.waitFor('filter "add-retry" (Esc clears)');
    expect(selected(s)).toContain('add-retry-metrics');

    // fork refused: the store's typed error, nothing written
    await press(s, 'f');
    // the whole message, wrapped in the dialog (a frame can arrive in several reads: wait for all of it)
    const message = 'SessionForkError OPEN_TURN: cannot fork session "add-retry-metrics" inside an open turn (last event: tool/call)';
    await s.waitFor((scr) => scr.replace(/[│\s]+/g, ' ').includes(message));
    expect(fs.readdirSync(dir).sort()).toEqual(before);
    await press(s, keys.esc);
    await s.waitFor((scr) => !scr.includes('SessionForkError OPEN_TURN'));
    await press(s, keys.esc); // clears the filter
    await s.waitFor(/^12 sessions · order/m); // not "1 of 12 sessions · order", on screen before the Esc

    // fork done at a boundary
    await press(s, '/', 'review-pr', keys.enter);
    await s.waitFor('filter "review-pr"');
    await press(s, 'f');
    const dialog = await s.waitFor((x) => x.includes('Fork session') && /child id +\S+/.test(x)); // the whole dialog
    expect(dialog).toMatch(/source +review-pr-482/);
    expect(dialog).toMatch(/seedLength +22/);
    const childId = /child id +(\S+)/.exec(dialog)![1];
    await press(s, keys.enter);
    await s.waitFor(`forked review-pr-482 -> ${childId}`);
    await s.waitFor('13 sessions');
    expect(selected(s)).toContain(`◆ ${childId.slice(0, 15)}`);
    expect(fs.readdirSync(dir).sort()).toEqual([...before, `${childId}.jsonl`].sort());

    // lineage shows the child under its parent
    await press(s, keys.tab, keys.tab);
    // (a frame can arrive in several reads: wait until all of it is on screen)
    const child = new RegExp(`▶ .*◆ ${childId}.*fork @turn 1 · seed 22`);
    await s.waitFor((scr) => /edges/.test(scr) && scr.includes('missing parent 0f6c2d9a') && child.test(scr) && /┃ .*● review-pr-482/.test(scr));
    expect(tallest(s)).toBe(24);

    // help, then quit restores the terminal and exits 0
    await press(s, '?');
    await s.waitFor('Keys — lineage');
    await press(s, keys.esc); // (Esc and q in one read would be Alt-q, as a terminal sends it)
    await s.waitFor((scr) => !scr.includes('Keys — lineage'));
    await press(s, 'q');
    expect((await s.exited).exitCode).toBe(0);
    expect(s.rawOutput()).toContain('\x1b[?25h'); // cursor shown again
  });

  it('follows a resize without drawing past the screen', async () => {
    const s = spawnPty(process.execPath, [BIN, dir], { cols: 100, rows: 30 });
    await s.waitFor(/STATE +ID/);
    s.resize(80, 24);
    // the redraw at the new size: every line within 80 columns, the footer on screen
    await s.waitFor((scr) => scr.split('\n').every((l) => l.length <= 80) && /q quit/.test(scr) && /STATE +ID/.test(scr));
    expect(s.lines()).toHaveLength(24);
    await press(s, 'q');
    expect((await s.exited).exitCode).toBe(0);
  });

  it('paints colour by default and none under NO_COLOR', async () => {
    const sgrColour = /\x1b\[(?:3[0-7]|9[0-7]|38;[0-9;]+)m/; // a foreground colour
    const coloured = spawnPty(process.execPath, [BIN, dir], { cols: 100, rows: 30 });
    await coloured.waitFor(/ live\b/);
    expect(coloured.rawOutput()).toMatch(sgrColour);
    await press(coloured, 'q');
    await coloured.exited;

    const plain = spawnPty(process.execPath, [BIN, dir], { cols: 100, rows: 30, env: { NO_COLOR: '1' } });
    await plain.waitFor(/ live\b/);
    await press(plain, keys.tab); // the Turns view too
    await plain.waitFor(/fork here/);
    expect(plain.rawOutput()).not.toMatch(sgrColour);
    await press(plain, 'q');
    expect((await plain.exited).exitCode).toBe(0);
  });

  it('without a terminal it prints the one-line hint and exits 2', async () => {
    // stdout piped, stdin a terminal
    const s = spawnPty('/bin/sh', ['-c', `"${process.execPath}" "${BIN}" "${dir}" | cat`], { cols: 80, rows: 24 });
    await s.waitFor('needs an interactive terminal');
    expect(s.screen()).toContain(`dsh-browse list --dir ${dir}`);
    await s.exited;
    // no terminal at all: exit code 2, one line on stderr
    const r = spawnSync(process.execPath, [BIN, dir], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('headless commands');
    expect(() => execFileSync(process.execPath, [BIN, dir], { stdio: 'pipe' })).toThrow();
  });
});
