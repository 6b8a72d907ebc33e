import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { indexFile, loadRootSync, type RootIndex } from '../../../src/storage/load-root.js';
import type { ViewName } from '../../../src/view/app/surface.js';
import { APP } from '../../../src/view/app/surfaces.js';
import { initialAppState } from '../../../src/view/app/surfaces.js';

const sessionsKeys = () => APP.surface('sessions').keys(initialAppState({ columns: 80, rows: 24 }));
import { KEY, mountApp } from '../../support/app-harness.js';
import { evs, hdr, turnRows, writeLog } from '../../support/fixtures.js';

const SAMPLES = path.resolve(__dirname, '../../../sample-sessions');
const SIZE = { columns: 80, rows: 24 };
const NOW = 1795990000000;

const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const files = (dir: string) => fs.readdirSync(dir).sort();
/** The frame as one line of words (undoes the dialog's word wrap and its border). */
const flat = (frame: string) =>
  frame
    .split('\n')
    .map((l) => l.replace(/^[│╭╰┃ ]+|[│╮╯ ]+$/g, ''))
    .join(' ')
    .replace(/\s+/g, ' ');

let dir: string;
let index: RootIndex;
let app: ReturnType<typeof mountApp> | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-app-'));
  fs.cpSync(SAMPLES, dir, { recursive: true });
  index = loadRootSync(dir);
});

afterEach(() => {
  app?.unmount();
  app = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Mounts the app at 80x24 (or following the fake terminal's size) and waits
 * until its background audit has run and the screen shows it: nothing changes
 * by itself under the test's keys afterwards.
 */
async function start(o: { view?: ViewName; followTerminal?: boolean } = {}) {
  app = mountApp({ index, size: SIZE, view: o.view, followTerminal: o.followTerminal, now: NOW });
  await app.idle();
  return app;
}

const frame = (): string => app!.frame(); // never taller than rows - 1, never wider than the terminal (checked by the harness)

/** Presses each key in turn, each drawn before the next is written. */
async function type(...inputs: string[]) {
  for (const s of inputs) await app!.press(s);
}

/** Filter to one session and keep the filter: it is then the selection. */
async function selectById(id: string) {
  await type('/', id, KEY.enter);
  expect(frame()).toMatch(new RegExp(`▶ .*${id.slice(0, 15)}`));
}

const selectedLine = () => app!.selectedLine();

describe('App shell', () => {
  it('shows the sessions, tabs and a key-hint footer; Tab and Shift-Tab cycle the views', async () => {
    await start();
    let f = frame();
    expect(f).toContain('12 sessions');
    expect(f).toContain('Sessions');
    expect(f).toContain('Lineage');
    expect(f).toMatch(/STATE +ID +TITLE/);
    expect(f).toMatch(/open \d+[smhd] +add-retry-metrics/);
    expect(f).toMatch(/open \d+[smhd] ⚠2 +migrate-eslint/);
    expect(f).toMatch(/empty +5e0b7c1d/);
    expect(f).toContain('◇ fix-flaky-retry-'); // spawn child marked
    expect(f.split('\n').at(-1)).toMatch(/f fork: OPEN_TURN .*q quit/); // greyed hint with its short reason
    await type(KEY.tab);
    f = frame();
    expect(f).toContain('add-retry-metrics');
    expect(f).toMatch(/turn 1/);
    await type(KEY.tab);
    expect(frame()).toContain('missing parent 0f6c2d9a');
    await type(KEY.tab);
    expect(frame()).toMatch(/problems? · \d+ errors?/); // the fourth view: Problems
    await type(KEY.tab);
    expect(frame()).toMatch(/STATE +ID/);
    await type(KEY.shiftTab, KEY.shiftTab);
    expect(frame()).toContain('missing parent');
  });

  it('filters with / as you type; Enter keeps the filter, Esc clears it', async () => {
    await start();
    // id: terms are decided at once (free words may also match inside the logs, answered in the background)
    await type('/', 'id:FLAKY');
    let f = frame();
    expect(f).toContain('/id:FLAKY');
    expect(f).toMatch(/5 of 12 sessions/);
    expect(f).not.toContain('bump-vitest');
    await type(KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, 'bump');
    expect(frame()).toMatch(/1 of 12 sessions/);
    await type(KEY.enter);
    f = frame();
    expect(f).toContain('filter "id:bump" (Esc clears)');
    await type('j'); // a key, not text, once the filter is kept
    expect(frame()).toContain('filter "id:bump"');
    await type(KEY.esc);
    f = frame();
    expect(f).toContain('12 sessions');
    expect(f).not.toContain('filter "');
  });

  it('in the filter, a pasted line break is a space and Alt-B (ESC b, as the terminal sends it) moves by word: the filter stays open', async () => {
    await start();
    await type('/', '\x1b[200~id:bump\nvitest\x1b[201~');
    expect(frame()).toContain('/id:bump vitest');
    await type('\x1bb', 'x');
    const f = frame();
    expect(f).toContain('/id:bump xvitest');
  });

  it('s cycles the order: recent, created, id, threaded', async () => {
    await start();
    for (const o of ['created', 'id', 'threaded', 'recent']) {
      await type('s');
      expect(frame()).toContain(`order: ${o}`);
    }
    await type('s', 's', 's');
    const lines = frame().split('\n');
    const root = lines.findIndex((l) => /boundary +fix-flaky-retry-te/.test(l));
    // the root's three children: ├ ├ └ (only the last gets └), the grandchild under the second on a │ lane
    const tree = lines.slice(root + 1, root + 5).map((l) => /boundary +([│├└ ]+)[◆◇] fix-flaky/.exec(l)?.[1]);
    expect(tree).toEqual(['├ ', '├ ', '│ └ ', '└ ']);
  });

  it('forks an at-boundary session from Sessions: confirm writes the child, the parent is unchanged, the child is selected', async () => {
    const parent = path.join(dir, 'bump-vitest.jsonl');
    const before = sha256(parent);
    const names = files(dir);
    await start();
    await selectById('bump-vitest');
    await type('f');
    const f = flat(frame());
    expect(f).toContain('Fork session');
    expect(f).toContain('source bump-vitest');
    expect(f).toContain('boundary seq 28 (whole log)');
    expect(f).toContain('seedLength 29');
    expect(f).toContain('child id child-1');
    expect(files(dir)).toEqual(names); // nothing written before confirming
    await type(KEY.enter);
    await app!.idle(); // the store's change (the child) drawn and audited
    expect(files(dir)).toEqual([...names, 'child-1.jsonl'].sort());
    expect(sha256(parent)).toBe(before);
    const header = JSON.parse(fs.readFileSync(path.join(dir, 'child-1.jsonl'), 'utf8').split('\n')[0]);
    expect(header).toMatchObject({ id: 'child-1', parentSession: 'bump-vitest', seedLength: 29 });
    expect(frame()).toContain('forked bump-vitest -> child-1 (child-1.jsonl)');
    expect(frame()).toContain('13 sessions'); // the filter no longer matching the child was cleared
    expect(selectedLine()).toContain('◆ child-1');
    await type(KEY.tab, KEY.tab); // Lineage: the child under its parent, selected, parent highlighted
    const lines = frame().split('\n');
    const i = lines.findIndex((l) => l.includes('◆ child-1'));
    expect(lines[i]).toMatch(/^▶ .*◆ child-1.*fork @turn 1 · seed 29/);
    expect(lines[i - 1]).toMatch(/^┃ .*● bump-vitest/);
  });

  it('refuses a fork inside an open turn with the typed error, writes nothing, and b jumps to the nearest boundary', async () => {
    const names = files(dir);
    const session = index.store.get('add-retry-metrics')!;
    const expected = index.store.boundaryError(session)!;
    expect(expected.code).toBe('OPEN_TURN');
    await start();
    await selectById('add-retry-metrics');
    await type('f');
    const f = flat(frame());
    expect(f).toContain(`SessionForkError OPEN_TURN: ${expected.message}`);
    expect(f).toContain('SessionForkError OPEN_TURN: cannot fork session "add-retry-metrics" inside an open turn (last event: tool/call)');
    await type(KEY.enter, 'f', KEY.esc);
    expect(files(dir)).toEqual(names);
    await type('f', 'b');
    const t = frame();
    expect(t).not.toContain('Fork refused');
    expect(t).toContain('Turns: add-retry-metrics');
    expect(t).toMatch(/▶?.*fork here|turn 1/);
    expect(files(dir)).toEqual(names);
  });

  it('forks from Turns at the selected boundary (via the Turns view), and refuses inside the open turn', async () => {
    const names = files(dir);
    await start();
    await selectById('add-retry-metrics');
    await type(KEY.enter); // open in Turns: the first row is turn 1 (completed)
    expect(frame()).toContain('Turns: add-retry-metrics');
    await type('f');
    let f = flat(frame());
    expect(f).toContain('source add-retry-metrics');
    expect(f).toContain('boundary seq 21');
    expect(f).toContain('seedLength 22');
    await type(KEY.esc);
    expect(files(dir)).toEqual(names);
    await type('G', 'f'); // the last row is inside the open turn 2
    f = flat(frame());
    expect(f).toMatch(/SessionForkError OPEN_TURN: cannot fork session "add-retry-metrics" inside an open turn/);
    await type(KEY.esc, 'g', 'f', KEY.enter);
    expect(frame()).toContain('forked add-retry-metrics -> child-2');
    const header = JSON.parse(fs.readFileSync(path.join(dir, 'child-2.jsonl'), 'utf8').split('\n')[0]);
    expect(header).toMatchObject({ parentSession: 'add-retry-metrics', seedLength: 22 });
    expect(selectedLine()).toContain('◆ child-2'); // back in Sessions, the child selected
  });

  it('a file re-read while the dialog is open: SESSION_NOT_LIVE is shown, the dialog moves to the live instance, Enter then forks fresh data', async () => {
    const parent = path.join(dir, 'bump-vitest.jsonl');
    await start();
    await selectById('bump-vitest');
    await type('f');
    expect(flat(frame())).toContain('seedLength 29');
    indexFile(index, parent); // what the live follower does for a replaced file: a new instance; the dialog's is stale
    await type(KEY.enter);
    await app!.idle(); // the re-read applied
    const f = flat(frame());
    expect(f).toContain('SESSION_NOT_LIVE');
    expect(f).toContain('the file was re-read');
    expect(files(dir)).not.toContain('child-1.jsonl'); // nothing forked from stale data
    await type(KEY.enter);
    await app!.idle();
    expect(files(dir)).toContain('child-1.jsonl');
    expect(frame()).toContain('forked bump-vitest -> child-1');
  });

  it('Esc cancels the confirmation and writes nothing', async () => {
    const names = files(dir);
    await start();
    await selectById('review-pr-482');
    await type('f');
    expect(flat(frame())).toContain('child id child-1');
    await type(KEY.esc);
    expect(frame()).toContain('fork cancelled: nothing was written');
    expect(frame()).not.toContain('Fork session');
    expect(files(dir)).toEqual(names);
  });

  it('the child id is editable; an id that exists gives SESSION_ALREADY_EXISTS and the app keeps running', async () => {
    const names = files(dir);
    await start();
    await selectById('review-pr-482');
    await type('f');
    await type(...Array.from({ length: 'child-1'.length }, () => KEY.backspace));
    expect(flat(frame())).toMatch(/child id Enter fork/);
    await type('cleanup-stale-branches', KEY.enter);
    const f = flat(frame());
    expect(f).toContain('SessionForkError SESSION_ALREADY_EXISTS: session "cleanup-stale-branches" already exists');
    expect(files(dir)).toEqual(names);
    // still editable: fix the id and fork
    await type(KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, 'x', KEY.enter);
    expect(frame()).toContain('forked review-pr-482 -> cleanup-stale-x');
    expect(files(dir)).toContain('cleanup-stale-x.jsonl');
  });

  it('? shows the help overlay built from the key table; Esc closes it', async () => {
    await start();
    await type('?');
    const f = frame();
    const shown = sessionsKeys().slice(0, 12);
    for (const b of shown) expect(f).toContain(b.keys);
    expect(f).toContain('fork at the selection');
    expect(f).toContain('filter with a query');
    // every binding's line is reachable by scrolling (long lines wrap, nothing is cut)
    const quit = sessionsKeys().find((b) => b.keys.startsWith('q '))!;
    for (let i = 0; i < 60 && !frame().includes(`${quit.keys}`); i++) await type('j');
    expect(frame()).toContain(quit.keys);
    await type('G');
    expect(frame()).toContain('the worst problem of the session (the Problems tab lists them');
    expect(frame()).toMatch(/│ +all\) +│/); // the wrapped rest of the legend's last line
    await type(KEY.esc);
    expect(frame()).toMatch(/STATE +ID/);
  });

  it('Lineage: Enter on a fork child opens its Turns at the fork point', async () => {
    await start({ view: 'lineage' });
    const lines = frame().split('\n');
    const target = lines.findIndex((l) => l.includes('◆ fix-flaky-retry-test.issue-writeup —'));
    const sel = lines.findIndex((l) => l.startsWith('▶'));
    for (let i = 0; i < Math.abs(target - sel); i++) await type(target > sel ? 'j' : 'k');
    expect(selectedLine()).toContain('fix-flaky-retry-test.issue-writeup');
    expect(frame()).toMatch(/┃ .*● fix-flaky-retry-test —/); // its parent is highlighted
    await type(KEY.enter);
    const f = frame();
    expect(f).toContain('Turns: fix-flaky-retry-test.is');
    expect(f).toMatch(/fix-flaky-retry-test.issue-writeup +\[at boundary\]/);
    expect(f).toContain('fork here · seq 43'); // jumpTo seedLength-1
  });

  it('follows resizes and never draws taller than the terminal', async () => {
    const m = await start({ followTerminal: true });
    const out = m.r.stdout as unknown as NodeJS.EventEmitter & Record<string, unknown>;
    Object.defineProperty(out, 'rows', { value: 12, configurable: true });
    Object.defineProperty(out, 'columns', { value: 60, configurable: true });
    out.emit('resize');
    await m.until(() => m.state().size.columns === 60 && m.state().size.rows === 12, 'the state to follow the resize');
    const f = m.r.lastFrame() ?? '';
    expect(f.split('\n').length).toBeLessThanOrEqual(11);
    for (const line of f.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
    expect(f).toContain('q quit');
  });

  it("a root rc.8's session list fails for: ⚠ in the title bar, a ROOT_NOT_LISTABLE row first in Problems on the file's session", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-unlisted-'));
    try {
      const T = evs(...turnRows(1));
      writeLog(path.join(root, '--a--', 'ok', 'session.jsonl'), hdr('ok', { cwd: '/a', delegationDepth: 0 }), T);
      const old = writeLog(path.join(root, '--a--', 'old', 'session.jsonl'), hdr('old', { cwd: '/a', delegationDepth: 0, sandboxMode: 'x' }), T);
      const m = mountApp({ index: loadRootSync(root), size: { columns: 160, rows: 24 }, view: 'problems', now: NOW });
      await m.idle();
      expect(m.lines()[0]).toContain('⚠ rc.8 cannot list the root');
      const rows = m.controller.getSnapshot().world.problems();
      expect(rows[0]).toMatchObject({ code: 'ROOT_NOT_LISTABLE', severity: 'error', file: old, sessionId: 'old', message: expect.stringContaining('retired field sandboxMode') });
      expect(m.frame()).toContain('ROOT_NOT_LISTABLE');
      m.r.unmount();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('controller.idle() resolves once the background audit is over and drawn; at once when nothing is pending', async () => {
    app = mountApp({ index, size: SIZE, view: 'problems', now: NOW });
    expect(app.controller.busy).toBe(true); // the audit starts in the background
    expect(frame()).toMatch(/^2 problems/m); // the loader's diagnostics only
    await app.idle();
    expect(app.controller.busy).toBe(false);
    expect(frame()).toMatch(/^3 problems/m); // and the audit's finding
    await app.controller.idle(); // nothing pending: resolves at once
  });

  it('a new session in the store (another writer, a fork) appears at once', async () => {
    await start();
    index.store.fork({ source: 'cleanup-stale-branches', sessionId: 'from-outside' });
    await app!.idle(); // the store's change, applied in the next frame
    expect(frame()).toContain('13 sessions');
    expect(frame()).toContain('from-outside');
  });
});
