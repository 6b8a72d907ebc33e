// Branch workflows in the app: m marks, c compares from the common ancestor
// (Enter opens a turn, Esc returns), x exports to a new file, a opens the action
// menu (ink-select-input) with disabled entries and their reasons.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRootSync, type RootIndex } from '../../../src/storage/load-root.js';
import { KEY, mountApp } from '../../support/app-harness.js';

const SAMPLES = path.resolve(__dirname, '../../../sample-sessions');
let dir: string;
let out: string;
let index: RootIndex;
let unmount: (() => void) | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-branch-'));
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-export-'));
  fs.cpSync(SAMPLES, dir, { recursive: true });
  index = loadRootSync(dir);
});
afterEach(() => {
  unmount?.();
  unmount = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
});

function mount(size = { columns: 110, rows: 30 }) {
  const m = mountApp({ index, size, exportDir: out });
  unmount = m.unmount;
  return m;
}
const keyOf = (id: string) => path.join(dir, `${id}.jsonl`);

describe('mark and compare', () => {
  it('c without a mark says how; m then c on a sibling fork compares from the common ancestor; Enter opens the turn, Esc returns', async () => {
    const m = mount();
    await m.press('c');
    expect(m.frame()).toContain('compare with the marked session (add-retry-metrics): mark a session first (m)');
    await m.press('/', 'issue-writeup', KEY.enter);
    // two rows match (the child and its child): take the one whose id ends there
    while (!m.state().selection!.endsWith('issue-writeup.jsonl')) await m.press('j');
    await m.press('m');
    expect(m.state().mark).toBe(keyOf('fix-flaky-retry-test.issue-writeup'));
    expect(m.selectedLine()).toContain('⚑');
    await m.press(KEY.esc, '/', 'spy-random', KEY.enter, 'c');
    const c = m.state().compare!;
    expect(c.open).toBe(true);
    expect(c.comparison.ancestor?.session.id).toBe('fix-flaky-retry-test');
    expect(m.frame()).toContain('fix-flaky-retry-test.issue-writeup');
    expect(m.frame()).toContain('fix-flaky-retry-test.spy-random');
    const body = () => m.lines().slice(2, -1).join('\n'); // the Compare surface (the tab bar names the selection)
    const before = body();
    const cs = m.state().compare!.cs;
    await m.press(KEY.enter);
    expect(m.state().view).toBe('turns');
    expect(m.state().compare?.open).toBe(false);
    expect(m.frame()).toMatch(/Turns: fix-flaky-retry-test\.(issue-writeup|spy-random)/);
    await m.press(KEY.esc);
    expect(m.state().compare?.open).toBe(true);
    expect(m.state().compare!.cs).toEqual(cs);
    expect(body()).toBe(before);
    await m.press(KEY.esc);
    expect(m.state().compare).toBeUndefined();
  });
});

describe('export', () => {
  it('x writes a new Markdown file (never overwriting) and shows its path; in Turns up to the selected row', async () => {
    const m = mount();
    await m.press('/', 'bump', KEY.enter, 'x');
    const file = path.join(out, 'bump-vitest.md');
    expect(fs.readFileSync(file, 'utf8')).toContain('Upgrade vitest to 4.x');
    expect(m.frame()).toContain(`exported to ${file}`);
    await m.press('x');
    expect(fs.existsSync(path.join(out, 'bump-vitest-2.md'))).toBe(true);
    await m.press(KEY.esc, '/', 'fix-flaky-retry-test', KEY.enter, 'g');
    while (m.state().selection !== keyOf('fix-flaky-retry-test')) await m.press('j');
    await m.press(KEY.enter, 'j', 'x'); // Turns: the first boundary row
    const partial = fs.readdirSync(out).find((f) => f.startsWith('fix-flaky-retry-test.at-'))!;
    expect(partial).toBe('fix-flaky-retry-test.at-43.md');
  });
});

describe('the action menu', () => {
  it('lists what can be done, greys what cannot with the reason, runs the chosen entry', async () => {
    const m = mount();
    await m.press('/', 'add-retry', KEY.enter, 'a');
    const f = m.frame();
    expect(f).toContain('Actions: add-retry-metrics');
    expect(f).toMatch(/f +fork at the head +\(OPEN_TURN: cannot fork session "add-retry-metrics" inside an open turn/);
    expect(f).toMatch(/c +compare with the marked session +\(mark a session first \(m\)\)/);
    await m.press('j'); // on the fork entry: its reason in full under the list (the row cuts it)
    expect(m.frame().replace(/[│\s]+/g, ' ')).toContain('f: OPEN_TURN: cannot fork session "add-retry-metrics" inside an open turn (last event: tool/call)');
    await m.press(KEY.enter); // the fork entry: disabled, runs as f does: the store's refusal, nothing written
    expect(m.state().menu).toBeUndefined();
    expect(m.state().dialog).toMatchObject({ kind: 'refused', error: { code: 'OPEN_TURN' } });
    await m.press(KEY.esc);
    await m.press('a', 'j', 'j', KEY.enter); // mark
    expect(m.state().mark).toBe(keyOf('add-retry-metrics'));
    await m.press('a', 'y'); // an entry's own key runs it; a flat folder is no harness root: the same verdict as list --json
    expect(m.frame()).toContain('copy the resume command (add-retry-metrics): dsh --resume would refuse it: not in a harness root');
    await m.press('a', 'm'); // unmark, by its key
    expect(m.state().mark).toBeUndefined();
  });
});

describe('the Sessions filter speaks the query language', () => {
  it('session terms narrow at once; words found only in events join with their match count as the index answers', async () => {
    const m = mount();
    await m.press('/', 'is:open', KEY.enter);
    expect(m.frame()).toMatch(/2 of 12 sessions/);
    await m.press(KEY.esc, '/', 'histogram', KEY.enter); // only in a later prompt of add-retry-metrics, not its title
    await m.idle(); // the event search answered every session
    expect(m.frame()).not.toContain('searching events');
    expect(m.frame()).toMatch(/1 of 12 sessions/);
    expect(m.selectedLine()).toMatch(/add-retry-metrics .*\[\d+ match(es)?\]/);
    await m.press(KEY.esc, '/', 'tool:bash is:error', KEY.enter);
    await m.idle();
    expect(m.frame()).not.toContain('searching events');
    expect(m.frame()).toContain('bump-vitest'); // its npm install was interrupted: an error result
    expect(m.frame()).not.toContain('review-pr-482');
  });

  it('a query that does not parse filters as plain text', async () => {
    const m = mount();
    await m.press('/', 'review "unclosed', KEY.enter);
    expect(m.frame()).toMatch(/0 of 12 sessions/);
    await m.press(KEY.esc, '/', 'review-pr', KEY.enter);
    expect(m.frame()).toMatch(/1 of 12 sessions/);
  });

  it('a query that does not parse says why in place of the column headings; past the limits, the same line as find', async () => {
    const m = mount();
    await m.press('/', 'review "unclosed');
    expect(m.frame()).toContain('query error at column 8: unterminated quote');
    expect(m.frame()).not.toMatch(/STATE +ID/);
    await m.press(KEY.esc, '/', '\x1b[200~' + 'w '.repeat(50_000) + '\x1b[201~'); // a 100,000-character paste is cut at the field's limit
    expect(m.frame()).toContain('query error at column 1001: query too long: 2000 characters; a query holds at most 1000 characters');
    expect(m.frame()).toMatch(/0 of 12 sessions/);
    expect(m.lines().find((l) => l.includes('0 of 12 sessions'))).toMatch(/ · \/ ?(w ?)+$/); // the caret's end of the long filter is in view
    await m.press('x', KEY.enter, KEY.esc);
    expect(m.frame()).not.toContain('query error');
    expect(m.frame()).toMatch(/STATE +ID/);
  });
});
