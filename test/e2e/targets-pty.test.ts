// In a real terminal, every surface acts on what it highlights. A stub
// `dsh` on the PATH records its argv and cwd, so a resume that runs the wrong
// session (or runs at all where the harness would refuse) is seen.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cwdFolder } from '../../src/storage/layout.js';
import { keys, killAllPtys, press, settled, spawnPty, type PtySession } from './pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
let base: string;
let flat: string;
let harness: string;
let out: string;
let stubDir: string;
let record: string;
let work: string;

const line = (o: unknown) => JSON.stringify(o) + '\n';
const T = 1795990000000;
const session = (id: string, cwd: string) =>
  line({ type: 'session', version: 0, id, createdAt: T, cwd }) +
  line({ type: 'turn/start', seq: 0, time: T, data: { turn: 1, trigger: 'user' } }) +
  line({ type: 'user/message', seq: 1, time: T, data: { content: [{ type: 'text', text: `hello from ${id}` }], source: 'user' } }) +
  line({ type: 'turn/end', seq: 2, time: T, data: { turn: 1, reason: { kind: 'completed' } } });

beforeAll(() => {
  if (!fs.existsSync(BIN) || process.env.DSH_E2E_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-targets-'));
  flat = path.join(base, 'flat');
  harness = path.join(base, 'harness');
  out = path.join(base, 'out');
  stubDir = path.join(base, 'bin');
  record = path.join(base, 'record.txt');
  work = path.join(base, 'work');
  fs.cpSync(path.join(ROOT, 'sample-sessions'), flat, { recursive: true });
  for (const d of [harness, out, stubDir, work]) fs.mkdirSync(d, { recursive: true });
  // an RFC-era harness root: one session whose cwd is here, one whose cwd is not a folder on this machine
  const gone = path.join(base, 'no-such-dir');
  for (const [id, cwd] of [['local', work], ['elsewhere', gone]] as const) {
    fs.mkdirSync(path.join(harness, cwdFolder(cwd)), { recursive: true });
    fs.writeFileSync(path.join(harness, cwdFolder(cwd), `${id}.jsonl`), session(id, cwd));
  }
  fs.writeFileSync(path.join(stubDir, 'dsh'), `#!/bin/sh\nprintf '%s\\n' "$@" >> "${record}"\npwd >> "${record}"\n`, { mode: 0o755 });
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const PATH = () => `${stubDir}:/usr/bin:/bin`;
const selectedRow = (s: PtySession) => s.lines().find((l) => l.startsWith('▶')) ?? '';
/** The Turns cursor row holds `seq`: its gutter seq is at most `seq` and the next row starts after it. */
function cursorCovers(s: PtySession, seq: number): boolean {
  const rows = s.lines().map((l) => /^(›| ) *(\d+) /.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  const i = rows.findIndex((m) => m[1] === '›');
  if (i < 0) return false;
  const at = Number(rows[i][2]);
  const next = rows[i + 1] ? Number(rows[i + 1][2]) : Infinity;
  return at <= seq && seq < next && !/▸/.test(s.lines().find((l) => l.startsWith('›')) ?? '');
}
const footer = (s: PtySession) => s.lines().filter((l) => l.trim()).at(-1) ?? '';

async function open(root: string, extra: Record<string, string> = {}) {
  const s = spawnPty(process.execPath, [BIN, root], { cols: 120, rows: 32, cwd: out, env: { PATH: PATH(), ...extra } });
  await s.waitFor(/\d+ sessions? · order: recent/);
  await s.waitFor(/ live\b/);
  await settled(s);
  return s;
}

describe('the Problems tab acts on the highlighted problem', () => {
  it('j j j, Shift-Tab: nothing is claimed; j highlights a problem and y, x, a, f, R and Enter act on its session', async () => {
    fs.rmSync(record, { force: true });
    const s = await open(flat);
    await press(s, 'j', 'j', 'j');
    await s.waitFor(() => selectedRow(s).includes('bump-vitest'));
    await press(s, keys.shiftTab);
    // bump-vitest has no problem: no row is highlighted, so no other session can be acted on by mistake
    await s.waitFor('none for the selected session: j/k choose one');
    await press(s, 'y');
    await s.waitFor('no problem highlighted (j/k choose one)');
    await press(s, 'j');
    // the tab names the session the keys act on
    await s.waitFor(() => /SEQ_GAP +migrate-eslint-flat-config\.jsonl:8 #7/.test(selectedRow(s)) && s.lines()[1].includes('Turns: migrate-eslint-flat-config'));

    await press(s, 'y'); // a flat folder is no harness root: the verdict list --json gives, for the highlighted session
    await s.waitFor('copy the resume command (migrate-eslint-flat-config): dsh --resume would refuse it: not in a harness root');
    await press(s, 'R');
    await s.waitFor('resume in the harness (dsh --resume) (migrate-eslint-flat-config): dsh --resume would refuse it');
    expect(fs.existsSync(record)).toBe(false); // dsh never ran

    await press(s, 'x');
    await s.waitFor(/exported to .*migrate-eslint-flat-config\.md/);
    expect(fs.readdirSync(out)).toEqual(['migrate-eslint-flat-config.md']);
    expect(fs.statSync(path.join(out, 'migrate-eslint-flat-config.md')).isFile()).toBe(true);

    await press(s, 'a');
    await s.waitFor('Actions: migrate-eslint-flat-config · seq 7');
    await press(s, 'f'); // the menu's fork: the same session as f, refused by the store (it ends inside a turn)
    await s.waitFor('Fork refused: migrate-eslint-flat-config');
    await press(s, keys.esc);
    await s.waitFor((scr) => !scr.includes('Fork refused'));

    // Enter: Turns on that session, unfolded to the event, the cursor on the row holding seq 7 (streamed chunks 3-11)
    await press(s, keys.enter);
    await s.waitFor(() => cursorCovers(s, 7));
    await press(s, keys.esc); // back where Turns was opened from
    await s.waitFor(/\d+ problems · \d+ errors · Enter opens/);
    s.write('q');
    expect((await s.exited).exitCode).toBe(0);
  });

  it('a DUPLICATE_SEQ problem opens on its own row, not on the enclosing turn', async () => {
    const dup = path.join(base, 'dup');
    fs.mkdirSync(dup);
    const ev = (seq: number, type: string, data: unknown) => line({ type, seq, time: T + seq, data });
    const text = (t: string) => ({ content: [{ type: 'text', text: t }], source: 'user' });
    fs.writeFileSync(
      path.join(dup, 'dup.jsonl'),
      line({ type: 'session', version: 0, id: 'dup', createdAt: T, cwd: work }) +
        ev(0, 'turn/start', { turn: 1, trigger: 'user' }) + ev(1, 'user/message', text('one')) + ev(2, 'turn/end', { turn: 1, reason: { kind: 'completed' } }) +
        ev(3, 'turn/start', { turn: 2, trigger: 'user' }) + ev(4, 'user/message', text('two')) + ev(5, 'user/message', text('three')) + ev(5, 'user/message', text('three again')) +
        ev(6, 'turn/end', { turn: 2, reason: { kind: 'completed' } }),
    );
    const s = await open(dup);
    await press(s, keys.shiftTab);
    await s.waitFor(() => /DUPLICATE_SEQ .*#5/.test(selectedRow(s))); // the selected session's worst problem
    await press(s, keys.enter);
    await s.waitFor(() => s.lines().some((l) => /^› +5 /.test(l)));
  });
});

describe('resume: one verdict with the CLI, refused inside the browser', () => {
  it('R on a session whose cwd is not a folder here is refused in the browser (no exit); y and R on one in a harness root work', async () => {
    fs.rmSync(record, { force: true });
    const s = await open(harness);
    await press(s, '/', 'elsewhere', keys.enter);
    await s.waitFor(() => selectedRow(s).includes('elsewhere'));
    await press(s, 'R');
    await s.waitFor(/resume in the harness \(dsh --resume\) \(elsewhere\): its cwd .*no-such-dir is not a folder here/);
    expect(s.hasExited()).toBe(false);
    await press(s, 'a');
    await s.waitFor(/R +resume in the harness \(dsh --resume\) +\(its cwd/); // the menu greys it with the same reason
    await press(s, keys.esc, keys.esc, '/', 'local', keys.enter);
    await s.waitFor(() => selectedRow(s).includes('local'));
    await press(s, 'y');
    await s.waitFor(`copied: cd ${work} && dsh --resume=local`);
    await press(s, 'R');
    await s.exited;
    expect(fs.readFileSync(record, 'utf8').split('\n')).toEqual(['--resume=local', work, '']);
  });
});

describe('surfaces say what is so', () => {
  it('after $PAGER returns, the reader is drawn again at once (no key needed)', async () => {
    const s = await open(flat, { PAGER: 'cat' });
    await press(s, keys.enter);
    await s.waitFor(/^› 0 ▸ turn 1/m);
    await press(s, 'o');
    await s.waitFor(/O pager/);
    const before = s.screen();
    const mark = s.rawOutput().length;
    await press(s, 'O');
    // the pager ran (the browser left the screen and came back), then the same frame is drawn with no key pressed
    await s.waitFor(() => s.rawOutput().indexOf('\x1b[?1049h', mark) >= 0, 15_000);
    await s.waitFor((scr) => scr === before, 15_000);
    expect(footer(s)).toMatch(/O pager/);
  });

  it('a malformed query in the Sessions filter shows its error with the column', async () => {
    const s = await open(flat);
    for (const [q, err] of [
      ['is:bogus', 'query error at column 4: unknown is:bogus'],
      ['tool:', 'query error at column 1: tool: needs a value'],
      ['after:yesterday', 'query error at column 7: after: expects a date'],
      ['"unterminated', 'query error at column 1: unterminated quote'],
    ]) {
      await press(s, '/', q);
      await s.waitFor(err);
      await press(s, keys.esc);
      await s.waitFor((scr) => !scr.includes('query error'));
    }
  });

  it('the root folder deleted and made again: the title says it is gone, then the new session appears', async () => {
    const live = path.join(base, 'live-root');
    fs.mkdirSync(live);
    fs.writeFileSync(path.join(live, 'first.jsonl'), session('first', work));
    const s = await open(live);
    await s.waitFor('first');
    fs.rmSync(live, { recursive: true, force: true });
    await s.waitFor('the root folder is gone; waiting for it to come back', 20_000);
    fs.mkdirSync(live);
    fs.writeFileSync(path.join(live, 'second.jsonl'), session('second', work));
    await s.waitFor(/^ +boundary +second /m, 20_000);
    await s.waitFor('the root folder is back; following it again');
    await s.waitFor(/^▶ file deleted +first /m); // the old selection stays, marked, until the user moves
  });
});
