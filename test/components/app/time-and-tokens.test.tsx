// Where the time and the tokens went, in the app: the Turns header's
// sparklines of tokens and time per turn; T opens the highlighted row's turn
// as a timeline (Enter reads a bar's event, Esc comes back, T outside a turn
// says why); the Sessions detail pane (d) charts tokens per turn; Compare's
// totals carry each side's sparklines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { turnTimeline } from '../../../src/session/timeline.js';
import { setIndexedMin } from '../../../src/storage/indexed-turns.js';
import { FOLD_AT_ONCE } from '../../../src/view/timeline/timeline-of.js';
import { evs, hdr, logText, tmpDir, cleanupTmp } from '../../support/fixtures.js';
import { loadRootSync, type RootIndex } from '../../../src/storage/load-root.js';
import { KEY, mountApp } from '../../support/app-harness.js';

const SAMPLES = path.resolve(__dirname, '../../../sample-sessions');
let dir: string;
let index: RootIndex;
let unmount: (() => void) | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-time-'));
  fs.cpSync(SAMPLES, dir, { recursive: true });
  index = loadRootSync(dir);
});
afterAll(cleanupTmp);
afterEach(() => {
  unmount?.();
  unmount = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

// (the harness draws without colour, as NO_COLOR does: every check below reads glyphs)
function mount(selection = 'fix-flaky-retry-test', size = { columns: 110, rows: 30 }) {
  const m = mountApp({ index, size, selection: path.join(dir, `${selection}.jsonl`) });
  unmount = m.unmount;
  return m;
}

describe('time and tokens in the app', () => {
  it("the Turns header draws tokens and time per turn; a short screen keeps its rows for the list", async () => {
    const m = mount();
    await m.press(KEY.enter);
    expect(m.frame()).toMatch(/tokens\/turn [▁▂▃▄▅▆▇█·]{5} peak 2\.1k · time\/turn [▁▂▃▄▅▆▇█·]{5} peak \S+/);
    unmount!();
    const short = mount('fix-flaky-retry-test', { columns: 110, rows: 12 });
    await short.press(KEY.enter);
    expect(short.frame()).not.toContain('tokens/turn');
  });

  it('T draws the turn of the highlighted row; Enter reads the bar event; Esc back to the bars, Esc back to Turns', async () => {
    const m = mount();
    await m.press(KEY.enter, 'T');
    expect(m.state().timeline).toMatchObject({ turnSeq: 0, cursor: 0, from: 'turns' });
    const f = m.frame();
    expect(f).toContain('Timeline · fix-flaky-retry-test · turn 1 · seq 0–43');
    expect(f).toMatch(/wall 4\.0s · model 3\.5s · tools 477ms · gaps 5ms/);
    expect(f).toContain('longest call: read src/lib/retry-queue.ts · 402ms');
    expect(f).toMatch(/ {4}model +█+ +1\.3s/);
    // the second row is step 1; the third its request: Enter reads its assistant message
    await m.press('j', 'j', KEY.enter);
    expect(m.state().reader).toBeDefined();
    expect(m.frame()).toContain('assistant/message');
    await m.press(KEY.esc);
    expect(m.state().timeline?.cursor).toBe(2);
    await m.press(KEY.esc);
    expect(m.state().timeline).toBeUndefined();
    expect(m.state().view).toBe('turns');
  });

  it('T on the last turn: without colour the glyphs tell a request from a call', async () => {
    const m = mount();
    await m.press(KEY.enter, 'G', 'T');
    expect(m.frame()).toContain('· turn 5 ·');
    expect(m.frame()).toMatch(/█ model {2}▒ tool {2}─ step {2}· gap/);
    expect(m.frame()).toMatch(/ {2}model +█+/);
  });

  it("the Sessions detail pane charts the selected session's tokens per turn", async () => {
    const m = mount();
    expect(m.frame()).not.toContain('── detail (d)');
    await m.press('d');
    const f = m.frame();
    expect(f).toContain('── detail (d)');
    expect(f).toContain('fix-flaky-retry-test · at-boundary · 5 turns · 192 events');
    expect(f).toContain('tokens per turn, turn 1–5 · peak 2.1k at turn 1');
    // three rows of bars over five columns: the tallest (turn 1) reaches the top row
    const lines = f.split('\n');
    const axis = lines.findIndex((l) => l.includes('tokens per turn, turn 1–5'));
    expect(lines[axis - 3].trim()).toMatch(/^█/);
    expect(lines[axis - 1].trim()).toMatch(/^[▁▂▃▄▅▆▇█]{5}$/);
    // moving the selection moves the pane with it
    await m.press('j');
    expect(m.frame()).not.toContain('fix-flaky-retry-test · at-boundary · 5 turns');
    await m.press('d');
    expect(m.frame()).not.toContain('── detail (d)');
  });
});

describe('the timeline of a large turn', () => {
  beforeAll(() => setIndexedMin(0));
  afterAll(() => setIndexedMin(16 * 1024 * 1024));

  it('T folds it in the background (progress on the title bar), then draws what a fold at once draws', async () => {
    const calls = Math.ceil(FOLD_AT_ONCE / 2) + 500;
    const rows: Array<[string, unknown?]> = [
      ['turn/start', { turn: 1, trigger: 'user' }],
      ['user/message', { content: [{ type: 'text', text: 'many calls' }], source: 'user' }],
      ['step/start', { turn: 1, step: 1 }],
      ['assistant/message', { turn: 1, step: 1, content: [{ type: 'text', text: 'go' }] }],
    ];
    for (let i = 0; i < calls; i++) {
      rows.push(['tool/call', { turn: 1, step: 1, callId: `c${i}`, name: i === 77 ? 'slow' : 'read', arguments: JSON.stringify({ path: `f${i}` }) }]);
      rows.push(['tool/result', { turn: 1, step: 1, callId: `c${i}`, content: [{ type: 'tool-result', toolCallId: `c${i}`, content: [{ type: 'text', text: 'x' }] }] }]);
    }
    rows.push(['step/end', { turn: 1, step: 1 }], ['turn/end', { turn: 1, reason: { kind: 'completed' } }]);
    const events = evs(...rows);
    // one call far slower than the rest: the longest is named
    for (const e of events) if (e.seq >= events.findIndex((x) => x.data?.callId === 'c77' && x.type === 'tool/result')) e.time += 60_000;
    const big = tmpDir();
    fs.writeFileSync(path.join(big, 'big.jsonl'), logText(hdr('big'), events));
    const idx = loadRootSync(big);
    const m = mountApp({ index: idx, view: 'sessions', size: { columns: 120, rows: 30 } });
    unmount = m.unmount;
    await m.idle();
    await m.press(KEY.enter);
    await m.idle();
    const works: unknown[] = [];
    m.controller.subscribe(() => works.push(m.state().work));
    await m.press('T');
    expect(works.find((w) => w !== undefined)).toMatchObject({ kind: 'timeline', label: 'big turn 1' });
    await m.idle();
    expect(m.state().work).toBeUndefined();
    const at = turnTimeline(events)!;
    expect(m.frame()).toContain(`Timeline · big · turn 1 · seq 0–${events.length - 1}`);
    expect(m.frame()).toContain('longest call: slow f77 · 1m00s');
    expect(m.frame()).toContain(`1/${1 + at.spans.length}`);
    await m.press('G');
    expect(m.frame()).toMatch(new RegExp(`▶ {3}read f${calls - 1} `));
  });
});
