// A turn's timeline in a real pseudo-terminal (120x36): T on a sample
// session's turn draws its bars (a request █, parallel calls ▒ on the same
// cells), Enter reads the bar's event and Esc comes back; and a live turn's
// open call grows as its log is appended.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys, killAllPtys, settled, spawnPty } from './pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
let dir: string;

beforeAll(() => {
  if (!fs.existsSync(BIN) || process.env.DSH_E2E_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-timeline-e2e-'));
  fs.cpSync(path.join(ROOT, 'sample-sessions'), path.join(dir, 'samples'), { recursive: true });
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const T0 = 1_780_000_000_000;
const line = (o: object) => JSON.stringify(o) + '\n';

describe('the timeline in a terminal', () => {
  it('T draws the turn; Enter reads a call; Esc comes back to the bars, then to Turns', async () => {
    const s = spawnPty(process.execPath, [BIN, path.join(dir, 'samples')], { cols: 120, rows: 36 });
    await s.waitFor(/· live/, 15_000);
    await settled(s);
    s.write('/id:fix-flaky-retry-test\r');
    await s.waitFor('filter "id:fix-flaky-retry-test"');
    // the parent among its forks (its turn 1 runs two calls at once)
    for (let i = 0; i < 8 && !/▶ .*fix-flaky-retry-test /.test(s.screen()); i++) {
      s.write('j');
      await settled(s);
    }
    s.write(keys.enter);
    await s.waitFor(/Turns: fix-flaky-retry-test/);
    s.write('gT');
    // (the whole frame: its last line, the position, is drawn after the rows)
    const scr = await s.waitFor((x) => x.includes('Timeline · fix-flaky-retry-test · turn 1') && /1\/10 · Enter reads the event/.test(x));
    expect(scr).toMatch(/wall \S+ · model \S+ · tools \S+ · gaps \S+/);
    expect(scr).toContain('█ model  ▒ tool');
    expect(scr).toMatch(/▶ turn 1 +[█▒·]+ +\S+/);
    // the first step's request and its call
    expect(scr).toMatch(/step 1 +─+/);
    expect(scr).toMatch(/ {2}model +█+ +\S+/);
    // down to the first tool call's bar; Enter reads its tool/call
    for (let i = 0; i < 10 && !/▶ {3}(?!model)\S+.*▒/.test(s.screen()); i++) {
      s.write('j');
      await settled(s);
    }
    expect(s.screen()).toMatch(/▶ {3}(?!model)\S+.*▒/);
    s.write(keys.enter);
    await s.waitFor((x) => /tool\/call/.test(x) && !x.includes('Timeline ·'));
    s.write(keys.esc);
    await s.waitFor((x) => x.includes('Timeline · fix-flaky-retry-test') && /▶ {3}(?!model)\S+.*▒/.test(x));
    s.write(keys.esc);
    await s.waitFor((x) => /Turns: fix-flaky-retry-test/.test(x) && !x.includes('Timeline ·'));
    s.write('qq');
    expect((await s.exited).exitCode).toBe(0);
  });

  it("a live turn's open call grows as its log is appended", async () => {
    const live = path.join(dir, 'live');
    fs.mkdirSync(live);
    const file = path.join(live, 'growing.jsonl');
    fs.writeFileSync(
      file,
      line({ type: 'session', version: 0, id: 'growing', createdAt: T0, cwd: '/w' }) +
        line({ type: 'turn/start', seq: 0, time: T0, data: { turn: 1, trigger: 'user' } }) +
        line({ type: 'user/message', seq: 1, time: T0, data: { content: [{ type: 'text', text: 'run the tests' }], source: 'user' } }) +
        line({ type: 'step/start', seq: 2, time: T0, data: { turn: 1, step: 1 } }) +
        line({ type: 'assistant/message', seq: 3, time: T0 + 1000, data: { turn: 1, step: 1, content: [{ type: 'text', text: 'running' }] } }) +
        line({ type: 'tool/call', seq: 4, time: T0 + 1000, data: { turn: 1, step: 1, callId: 'c1', name: 'bash', arguments: JSON.stringify({ command: 'npm test' }) } }) +
        line({ type: 'assistant/chunk', seq: 5, time: T0 + 3000, data: { turn: 1, step: 1, chunk: { type: 'text-delta', text: '.' } } }),
    );
    const s = spawnPty(process.execPath, [BIN, live], { cols: 120, rows: 30 });
    await s.waitFor(/· live/, 15_000);
    s.write(keys.enter);
    await s.waitFor(/Turns: growing/);
    s.write('GT');
    await s.waitFor((x) => x.includes('Timeline · growing · turn 1') && x.includes('live: grows as the log does') && /bash npm test +░+▸ +2\.0s…/.test(x));
    fs.appendFileSync(file, line({ type: 'assistant/chunk', seq: 6, time: T0 + 9000, data: { turn: 1, step: 1, chunk: { type: 'text-delta', text: '.' } } }));
    await s.waitFor((x) => /bash npm test +░+▸ +8\.0s…/.test(x) && x.includes('wall 9.0s'));
    fs.appendFileSync(file, line({ type: 'tool/result', seq: 7, time: T0 + 10_000, data: { turn: 1, step: 1, callId: 'c1', content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'ok' }] }] } }));
    const closed = await s.waitFor((x) => /bash npm test +▒+ +9\.0s\b/.test(x));
    expect(closed).toContain('longest call: bash npm test · 9.0s · seq 4');
    s.write('qq');
    expect((await s.exited).exitCode).toBe(0);
  });
});
