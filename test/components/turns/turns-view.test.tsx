// The Turns view inside the real app: its cursor, expansion and toggles live
// in the app state; `f` opens the fork dialog pinned to the row's cut.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { displayWidth } from '../../../src/view/text/sanitize.js';
import { KEY, mountApp } from '../../support/app-harness.js';
import { evs, turnRows } from '../../support/fixtures.js';
import { realRoot } from '../../support/real-roots.js';

const index = loadRootSync('sample-sessions');
const { store } = index;
const keyOf = (id: string) => store.get(id)!.file!;
const { down: DOWN, up: UP, right: RIGHT, left: LEFT, esc: ESC } = KEY;

let mounted: Array<() => void> = [];
afterEach(() => {
  mounted.forEach((u) => u());
  mounted = [];
});

/** The Turns view of `id` in an app whose view area is `height` rows. */
function mount(id: string, width = 100, height = 14) {
  const m = mountApp({ index, view: 'turns', selection: keyOf(id), size: { columns: width, rows: height + 4 } });
  mounted.push(m.unmount);
  const view = () => m.lines().slice(2, 2 + height); // title and tabs above, footer below
  const status = () => view().filter((l) => l.trim() !== '').at(-1) ?? '';
  const dialog = () => m.state().dialog;
  return { ...m, view, status, dialog, selected: m.turnsSelected };
}

describe('TurnsView', () => {
  it('shows the header, collapsed turns and a "fork here" row per boundary, within width and height', async () => {
    const v = mount('fix-flaky-retry-test');
    const lines = v.view();
    expect(lines[0]).toMatch(/^fix-flaky-retry-test {2}\[at boundary\] {2}· 5 turns · \d+ events/);
    expect(v.frame()).toContain('── fork here · seq 43 ──');
    expect(v.selected()).toMatch(/^› +0 ▸ turn 1 {2}completed {2}in [\d.]+k? out [\d.]+k?.* {2}`RetryQueue/);
    expect(v.status()).toMatch(/^f fork here \(seq 43\)/);
  });

  it('says "1 turn", not "1 turns"', async () => {
    const v = mount('bump-vitest');
    expect(v.view()[0]).toMatch(/· 1 turn · 29 events/);
  });

  it('never renders more lines than its height nor wider than its width', async () => {
    for (const [width, height] of [[30, 3], [40, 8], [60, 19], [80, 20], [120, 40]]) {
      const v = mount('add-retry-metrics', width, height);
      await v.press('e', 'd');
      const lines = v.lines();
      expect(lines.length, `${width}x${height}`).toBeLessThanOrEqual(height + 4);
      for (const l of lines) expect(displayWidth(l), `${width}x${height}: ${l}`).toBeLessThanOrEqual(width);
      v.unmount();
    }
  });

  it('f on a boundary row opens the dialog pinned at that seq', async () => {
    const v = mount('fix-flaky-retry-test');
    await v.press(DOWN);
    expect(v.selected()).toContain('── fork here · seq 43 ──');
    await v.press('f');
    expect(v.dialog()).toMatchObject({ kind: 'confirm', cut: 43, seedLength: 44 });
    await v.press(ESC); // alone: ESC + a letter in one read is Alt+that letter
    await v.press('j', 'f'); // a closed turn forks at its turn/end
    expect(v.dialog()).toMatchObject({ kind: 'confirm', cut: 78, seedLength: 79 });
  });

  it("f inside the open turn of add-retry-metrics shows the store's OPEN_TURN error; the row and status say why", async () => {
    const v = mount('add-retry-metrics');
    expect(v.frame()).toContain('▾ turn 2  open · last event');
    await v.press(DOWN, DOWN, DOWN); // turn 1, its boundary, turn 2, its prompt
    expect(v.selected()).toMatch(/user: Also add a histogram.* fork: inside turn$/);
    expect(v.status()).toMatch(/^f fork here \(seq 23\) \(disabled: OPEN_TURN: cannot fork session "add-retry-metrics" inside an open t/);
    await v.press('f');
    const d = v.dialog();
    expect(d?.kind).toBe('refused');
    expect(d && d.kind === 'refused' && d.error).toEqual({ code: 'OPEN_TURN', message: store.boundaryError(store.get('add-retry-metrics')!, 23)!.message });
    expect(v.frame()).toContain('SessionForkError OPEN_TURN');
    await v.press(ESC);
    await v.press('G', 'f');
    const d2 = v.dialog();
    expect(d2 && d2.kind === 'refused' && d2.error.message).toBe('cannot fork session "add-retry-metrics" inside an open turn (last event: tool/call)');
  });

  it('expands and collapses with →/l ←/h and e/E; Enter toggles', async () => {
    const v = mount('fix-flaky-retry-test', 100, 30);
    expect(v.frame()).not.toContain('step 1');
    await v.press(RIGHT);
    expect(v.selected()).toContain('▾ turn 1');
    expect(v.frame()).toContain('▾ step 1');
    await v.press('l'); // go to the first child
    expect(v.selected()).toContain('user: `RetryQueue');
    await v.press(LEFT); // to the parent
    expect(v.selected()).toContain('▾ turn 1');
    await v.press('h');
    expect(v.selected()).toContain('▸ turn 1');
    expect(v.frame()).not.toContain('step 1');
    await v.press('e');
    expect(v.frame()).toMatch(/▾ turn 1[\s\S]*▾ step 1[\s\S]*▾ step 2/);
    await v.press('E');
    expect(v.frame()).not.toContain('step 1');
    await v.press('\r');
    expect(v.selected()).toContain('▾ turn 1');
  });

  it('b jumps to the nearest boundary; the detail pane shows the full message and tool call', async () => {
    const v = mount('fix-flaky-retry-test', 100, 30);
    await v.press('l', 'l', 'j', 'j', 'j', 'j'); // into turn 1: user, step 1, chunks, assistant, tool
    expect(v.selected()).toContain('tool bash');
    const detail = v.frame().split('── detail')[1];
    expect(detail).toContain('tool bash · call');
    expect(detail).toContain('arguments');
    expect(detail).toMatch(/"command": "rg -n/); // pretty-printed JSON
    expect(detail).toContain('result · ok');
    await v.press('b');
    expect(v.selected()).toContain('── fork here · seq 43 ──');
    await v.press('d');
    expect(v.frame()).not.toContain('── detail');
  });

  it('t shows the model history up to the selection, and back; Esc then leaves the view', async () => {
    const v = mount('fix-flaky-retry-test');
    await v.press(DOWN, 't');
    expect(v.view()[0]).toContain('model history up to seq 43');
    expect(v.frame()).toContain('user: `RetryQueue');
    expect(v.frame()).toContain('assistant: Found it.');
    expect(v.frame()).not.toContain('── fork here');
    await v.press(UP, 't');
    expect(v.frame()).toContain('── fork here');
    await v.press('t', ESC);
    expect(v.frame()).toContain('── fork here');
    expect(v.state().view).toBe('turns');
    await v.press(ESC);
    expect(v.state().view).toBe('sessions');
  });

  it("sets a fork child's inherited events apart", async () => {
    const v = mount('fix-flaky-retry-test.spy-random');
    expect(v.view()[0]).toContain('inherited from fix-flaky-retry-test, seedLength 79');
    const wide = mount('fix-flaky-retry-test.spy-random', 240, 14);
    expect(wide.view()[0]).toMatch(/· own in \S+ out \S+.* · inherited in \S+ out \S+/); // tokens split at the seed
    expect(v.frame()).toContain('── inherited from fix-flaky-retry-test, seedLength 79 ──');
    expect(v.frame()).toContain('── own events from seq 79 ──');
  });

  it('says what resuming an rc.8 fork child adds: a session/end-seed marker at seq N', async () => {
    const { root, files } = realRoot(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-resume-marker-')), 'rc8');
    try {
      const first = loadRootSync(root);
      const child = first.store.fork({ source: first.store.get(files.get('toninfo-deepseek-harness__rc8__cancel__session.jsonl')!)!, sessionId: 'kid' });
      const n = child.length;
      fs.appendFileSync(child.file!, evs(...turnRows(9)).map((e, i) => JSON.stringify({ ...e, seq: n + i }) + '\n').join(''));
      const idx = loadRootSync(root);
      const grown = idx.store.get(child.file!)!;
      const m = mountApp({ index: idx, view: 'turns', selection: child.file!, size: { columns: 240, rows: 18 } });
      expect(m.lines().slice(2).join('\n')).toContain(`resuming adds a session/end-seed marker at seq ${grown.length}`);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('keeps its cursor and expansions across help, Tab away and back', async () => {
    const v = mount('fix-flaky-retry-test', 100, 30);
    await v.press(RIGHT, 'j', 'j');
    const before = v.selected();
    expect(before).toContain('step 1');
    await v.press('?', ESC);
    expect(v.selected()).toBe(before);
    await v.press('\t', '\t', '\t', '\t'); // Lineage, Problems, Sessions, Turns
    expect(v.state().view).toBe('turns');
    expect(v.selected()).toBe(before);
    expect(v.frame()).toContain('▾ turn 1');
  });
});

describe('TurnsView on a live log', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-turns-live-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'live.jsonl');
  const line = (o: unknown) => JSON.stringify(o) + '\n';
  let seq = 0;
  const ev = (type: string, data: unknown) => line({ type, seq: seq++, time: 1795990000000 + seq, data });

  it('G follows the end as the log grows; a cursor elsewhere stays on its row when the turn closes', async () => {
    fs.writeFileSync(file, line({ type: 'session', version: 0, id: 'live', createdAt: 1795990000000 }) + ev('turn/start', { turn: 1 }) + ev('user/message', { content: [{ type: 'text', text: 'first' }] }) + ev('turn/end', { turn: 1, reason: { kind: 'completed' } }));
    const idx = loadRootSync(dir);
    const { followRoot } = await import('../../../src/storage/follow.js');
    const follower = followRoot(idx);
    const v = mountApp({ index: idx, view: 'turns', selection: file, size: { columns: 80, rows: 16 } });
    mounted.push(() => {
      v.unmount();
      follower.close();
    });
    const until = v.until; // the follower sees the file change in its own time: wait for the screen to show it
    await v.press('G');
    fs.appendFileSync(file, ev('turn/start', { turn: 2 }) + ev('user/message', { content: [{ type: 'text', text: 'second prompt' }] }));
    await until(() => v.turnsSelected().includes('user: second prompt'), 'the cursor to follow to the new last row');
    await v.press('g'); // leave follow mode: the cursor stays on turn 1 from now on
    const parked = v.turnsSelected();
    expect(parked).toContain('turn 1');
    fs.appendFileSync(file, ev('turn/end', { turn: 2, reason: { kind: 'nobody-knows' } }));
    await until(() => v.frame().includes('turn 2  nobody-knows  second prompt'), 'turn 2 to close');
    expect(v.turnsSelected()).toBe(parked);
  });
});
