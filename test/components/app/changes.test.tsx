// The Changes surface in the app: C on a session lists the files it wrote or
// edited with +n −m and the commands it ran; Enter reads a file's diffs in
// the reader (Esc comes back); in Turns, C covers the highlighted row's turn;
// Enter on a command opens its call in Turns. A Turns row of an edit shows
// its +n −m.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRootSync, type RootIndex } from '../../../src/storage/load-root.js';
import { KEY, mountApp } from '../../support/app-harness.js';

const SAMPLES = path.resolve(__dirname, '../../../sample-sessions');
let dir: string;
let index: RootIndex;
let unmount: (() => void) | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-changes-'));
  fs.cpSync(SAMPLES, dir, { recursive: true });
  index = loadRootSync(dir);
});
afterEach(() => {
  unmount?.();
  unmount = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

function mount(selection = 'fix-flaky-retry-test') {
  const m = mountApp({ index, size: { columns: 110, rows: 30 }, selection: path.join(dir, `${selection}.jsonl`) });
  unmount = m.unmount;
  return m;
}

describe('Changes (C)', () => {
  it('lists the session files with their counts and commands; Enter reads a file diffs; Esc back, Esc closes', async () => {
    const m = mount();
    await m.press('C');
    const f = m.frame();
    expect(f).toContain('Changes · fix-flaky-retry-test · the session');
    expect(f).toContain('files written or edited · 2 files  +3 −3');
    expect(f).toMatch(/▶ M src\/lib\/retry-queue\.ts +\+1 −1 {2}1 edit/);
    expect(f).toMatch(/M test\/retry-queue\.test\.ts +\+2 −2 {2}2 edits/);
    expect(f).toMatch(/\$ npm test +turn 4 \(exit 0\)/);
    await m.press('j', KEY.enter);
    expect(m.state().reader?.doc.format).toBe('diff');
    expect(m.frame()).toContain('fix-flaky-retry-test · test/retry-queue.test.ts · the session');
    expect(m.frame()).toContain('+seen.push(j); }, { random: () => 0.99 });');
    expect(m.state().reader!.doc.lines.filter((l) => l.kind === 'hunk')).toHaveLength(2);
    await m.press(KEY.esc);
    expect(m.state().changes?.cursor).toBe(2);
    await m.press(KEY.esc);
    expect(m.state().changes).toBeUndefined();
    expect(m.state().view).toBe('sessions');
  });

  it('in Turns, C covers the highlighted row turn; Enter on a command opens its call there', async () => {
    const m = mount();
    await m.press(KEY.enter);
    expect(m.state().view).toBe('turns');
    while (!m.turnsSelected().includes('turn 3')) await m.press('j');
    await m.press('C');
    expect(m.frame()).toContain('Changes · fix-flaky-retry-test · turn 3');
    expect(m.frame()).toContain('files written or edited · 2 files  +3 −3');
    await m.press('G');
    expect(m.frame()).toMatch(/▶ \$ fails=0/);
    const seq = m.state().changes!.list.rows.at(-1)!;
    await m.press(KEY.enter);
    expect(m.state().changes).toBeUndefined();
    expect(m.state().view).toBe('turns');
    expect(seq.kind).toBe('command');
    expect(m.turnsSelected()).toContain('tool bash');
  });

  it('a Turns row of a write or edit shows +n −m', async () => {
    const m = mount();
    await m.press(KEY.enter, 'e');
    for (let i = 0; i < 200 && !m.turnsSelected().includes('tool edit'); i++) await m.press('j');
    expect(m.turnsSelected()).toMatch(/tool edit ok \+1 −1 {2}\{"file_path": "src\/lib\/retry-queue\.ts"/);
  });

  it('a session that changed no file says so', async () => {
    const m = mount('bump-vitest');
    await m.press('C');
    expect(m.frame()).toContain('no file written or edited here');
  });

  it('Compare lists the files each branch changed side by side; Enter on one reads both sides', async () => {
    const m = mount('fix-flaky-retry-test.spy-random');
    await m.press('m', '/', 'fix-flaky-retry-test', KEY.enter);
    while (!m.state().selection!.endsWith('fix-flaky-retry-test.jsonl')) await m.press('j');
    await m.press('c');
    expect(m.frame()).toContain('files each branch changed on its own: 2 (1 by one branch, 1 by both)');
    expect(m.frame()).toMatch(/M test\/retry-queue\.test\.ts {2}\+1 −0 {2}≠ different edits +│ M test\/retry-queue\.test\.ts {2}\+2 −2 {2}≠ different edits/);
    await m.press('G', KEY.enter);
    expect(m.state().reader?.doc.format).toBe('diff');
    const text = m.state().reader!.doc.lines.map((l) => l.text).join('\n');
    expect(text).toContain('# fix-flaky-retry-test.spy-random\n');
    expect(text).toContain('# fix-flaky-retry-test\n');
    await m.press(KEY.esc);
    expect(m.state().compare?.open).toBe(true);
  });

  it('the Sessions filter takes file:GLOB and is:failed-edit', async () => {
    const m = mount();
    await m.press('/', 'file:src/lib/*.ts', KEY.enter);
    await m.idle();
    await m.until(() => m.frame().includes('1 of 12 sessions'), 'the filtered list');
    expect(m.selectedLine()).toContain('fix-flaky-retry-test');
  });
});

