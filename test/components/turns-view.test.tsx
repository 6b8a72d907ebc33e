import React from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render } from 'ink-testing-library';
import { TurnsView, type TurnsViewProps } from '../../components/turns-view.js';
import type { SessionEvent } from '../../src/session/events.js';
import { foldEvent } from '../../src/session/log-facts.js';
import { memorySession, SessionStore } from '../../src/session/store.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { displayWidth } from '../../src/view/sanitize.js';

const { store } = loadRootSync('sample-sessions');
const wait = (ms = 25) => new Promise((r) => setTimeout(r, ms));
const DOWN = '\u001B[B';
const UP = '\u001B[A';
const RIGHT = '\u001B[C';
const LEFT = '\u001B[D';
const ESC = '\u001B';

let mounted: Array<() => void> = [];
afterEach(() => {
  mounted.forEach((u) => u());
  mounted = [];
});

async function mount(id: string, extra: Partial<TurnsViewProps> = {}) {
  const onForkRequest = vi.fn();
  const onBack = vi.fn();
  const props: TurnsViewProps = { session: store.get(id)!, store, width: 100, height: 14, focused: true, version: 0, onForkRequest, onBack, ...extra };
  const r = render(<TurnsView {...props} />);
  mounted.push(r.unmount);
  await wait(60); // let the input effect attach
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      await wait();
    }
  };
  const frame = () => r.lastFrame() ?? '';
  const lines = () => frame().split('\n');
  const selected = () => lines().find((l) => l.startsWith('›')) ?? '';
  return { ...r, props, press, frame, lines, selected, onForkRequest, onBack };
}

describe('TurnsView', () => {
  it('shows the header, collapsed turns and a "fork here" row per boundary, within width and height', async () => {
    const v = await mount('fix-flaky-retry-test');
    const lines = v.lines();
    expect(lines[0]).toMatch(/^fix-flaky-retry-test {2}\[at boundary\] {2}· 5 turns · \d+ events/);
    expect(v.frame()).toContain('── fork here · seq 43 ──');
    expect(v.selected()).toMatch(/^› +0 ▸ turn 1 {2}completed {2}`RetryQueue/);
    expect(lines.at(-1)).toMatch(/^f fork here \(seq 43\)/);
    expect(lines.length).toBeLessThanOrEqual(14);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(100);
  });

  it('never renders more lines than its height nor wider than its width', async () => {
    for (const [width, height] of [[30, 3], [40, 8], [60, 19], [80, 20], [120, 40]]) {
      const v = await mount('add-retry-metrics', { width, height });
      await v.press('e', 'd');
      const lines = v.lines();
      expect(lines.length, `${width}x${height}`).toBeLessThanOrEqual(height);
      for (const l of lines) expect(displayWidth(l), `${width}x${height}: ${l}`).toBeLessThanOrEqual(width);
    }
  });

  it('f on a boundary row asks for a fork at that seq', async () => {
    const v = await mount('fix-flaky-retry-test');
    await v.press(DOWN);
    expect(v.selected()).toContain('── fork here · seq 43 ──');
    await v.press('f');
    expect(v.onForkRequest).toHaveBeenCalledWith({ boundary: 43 });
    await v.press('j', 'f'); // a closed turn forks at its turn/end
    expect(v.onForkRequest).toHaveBeenLastCalledWith({ boundary: 78 });
  });

  it('f inside the open turn of add-retry-metrics passes the store\'s OPEN_TURN error; the row and status say why', async () => {
    const v = await mount('add-retry-metrics');
    expect(v.frame()).toContain('▾ turn 2  open · last event');
    await v.press(DOWN, DOWN, DOWN); // turn 1, its boundary, turn 2, its prompt
    expect(v.selected()).toMatch(/user: Also add a histogram.* fork: inside turn$/);
    expect(v.lines().at(-1)).toMatch(/^f fork \(disabled: OPEN_TURN cannot fork session "add-retry-metrics" inside an open turn/);
    await v.press('f');
    const req = v.onForkRequest.mock.calls[0][0];
    expect(req.error.code).toBe('OPEN_TURN');
    expect(req.error.message).toBe(store.boundaryError(store.get('add-retry-metrics')!, 23)!.message);
    await v.press('G', 'f');
    expect(v.onForkRequest.mock.calls[1][0].error.message).toBe('cannot fork session "add-retry-metrics" inside an open turn (last event: tool/call)');
  });

  it('expands and collapses with →/l ←/h and e/E; Enter toggles', async () => {
    const v = await mount('fix-flaky-retry-test', { height: 30 });
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
    const v = await mount('fix-flaky-retry-test', { height: 30 });
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

  it('t shows the model history up to the selection, and back', async () => {
    const v = await mount('fix-flaky-retry-test');
    await v.press(DOWN, 't');
    expect(v.lines()[0]).toContain('model history up to seq 43');
    expect(v.frame()).toContain('user: `RetryQueue');
    expect(v.frame()).toContain('assistant: Found it.');
    expect(v.frame()).not.toContain('── fork here');
    await v.press(UP, 't');
    expect(v.frame()).toContain('── fork here');
    await v.press('t', ESC);
    expect(v.frame()).toContain('── fork here');
    expect(v.onBack).not.toHaveBeenCalled();
    await v.press(ESC);
    expect(v.onBack).toHaveBeenCalledTimes(1);
  });

  it('sets a fork child\'s inherited events apart', async () => {
    const v = await mount('fix-flaky-retry-test.spy-random');
    expect(v.lines()[0]).toContain('inherited from fix-flaky-retry-test, seedLength 79');
    expect(v.frame()).toContain('── inherited from fix-flaky-retry-test, seedLength 79 ──');
    expect(v.frame()).toContain('── own events from seq 79 ──');
  });

  it('jumpTo selects the row of a seq; an unfocused view ignores keys', async () => {
    const v = await mount('fix-flaky-retry-test', { focused: false });
    await v.press('j', 'f');
    expect(v.selected()).toContain('turn 1');
    expect(v.onForkRequest).not.toHaveBeenCalled();
    v.rerender(<TurnsView {...v.props} jumpTo={{ seq: 141, nonce: 1 }} />);
    await wait();
    expect(v.selected()).toContain('── fork here · seq 141 ──');
  });

  it('follows the end of a growing log when the last row is selected (live follow)', async () => {
    const ev: SessionEvent[] = [];
    const add = (type: string, data: unknown) => ev.push({ type, seq: ev.length, time: Date.now(), data });
    add('turn/start', { turn: 1 });
    add('user/message', { content: [{ type: 'text', text: 'first' }] });
    add('turn/end', { turn: 1, reason: { kind: 'completed' } });
    const live = new SessionStore();
    const s = memorySession({ type: 'session', version: 0, id: 'live', createdAt: 0 }, ev);
    live.add(s);
    const onForkRequest = vi.fn();
    const props: TurnsViewProps = { session: s, store: live, width: 80, height: 10, focused: true, version: 0, onForkRequest };
    const r = render(<TurnsView {...props} />);
    mounted.push(r.unmount);
    await wait(60);
    r.stdin.write('G');
    await wait();
    const grow = (type: string, data: unknown) => {
      const e = { type, seq: s.log.events.length, time: Date.now(), data };
      s.log.events.push(e);
      foldEvent(s.log.facts, e);
    };
    grow('turn/start', { turn: 2 });
    grow('user/message', { content: [{ type: 'text', text: 'second prompt' }] });
    r.rerender(<TurnsView {...props} version={1} />);
    await wait();
    const sel = () => (r.lastFrame() ?? '').split('\n').find((l) => l.startsWith('›')) ?? '';
    expect(sel()).toContain('user: second prompt');
    grow('turn/end', { turn: 2, reason: { kind: 'nobody-knows' } });
    r.rerender(<TurnsView {...props} version={2} />);
    await wait();
    expect(sel()).toContain('── fork here · seq 5 ──');
    expect(r.lastFrame()).toContain('turn 2  nobody-knows  second prompt');
  });
});
