// Live in a real terminal: a fork inside the open turn is refused; another
// process finishes the turn (torn append included); the badge flips and the
// same key now forks.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys, killAllPtys, press, spawnPty, type PtySession } from './pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs'); // the bundled bin users run
let dir: string;

beforeAll(() => {
  if (!fs.existsSync(BIN)) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-live-e2e-'));
  fs.cpSync(path.join(ROOT, 'sample-sessions'), dir, { recursive: true });
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * The app is another process: what it has done shows only on its screen. So
 * every wait here is on a screen state, with a deadline far above the time it
 * takes (a loaded machine only makes the test slower).
 */
const DEADLINE_MS = 15_000;

/** A session file made the harness way (temp name, then renamed): it appears whole. */
function addSession(dir: string, id: string): void {
  const tmp = path.join(dir, `.${id}.jsonl.${process.pid}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify({ type: 'session', version: 0, id, createdAt: Date.now() }) + '\n');
  fs.renameSync(tmp, path.join(dir, `${id}.jsonl`));
}

/** The session count in the title bar ("12 sessions"). */
const sessionCount = (screen: string): number => Number(/\b(\d+) sessions?\b/.exec(screen)?.[1] ?? NaN);

describe('live follow in a terminal', () => {
  it('open turn refused, a writer finishes the turn, fork allowed', async () => {
    const file = path.join(dir, 'add-retry-metrics.jsonl');
    const s = spawnPty(process.execPath, [BIN, dir], { cols: 100, rows: 30 });
    await s.waitFor(/ live\b/, DEADLINE_MS); // scan finished, following
    await press(s, '/', 'add-retry', keys.enter);
    await s.waitFor('filter "add-retry"', DEADLINE_MS);
    expect(s.screen()).toMatch(/open \S+ +add-retry-metrics/);

    await press(s, 'f');
    await s.waitFor('SessionForkError OPEN_TURN', DEADLINE_MS);
    await press(s, keys.esc);
    await s.waitFor((scr) => !scr.includes('SessionForkError OPEN_TURN'), DEADLINE_MS);

    // another process closes the turn; the first append tears a line in two
    const callId = /"callId":"([^"]+)"/.exec(fs.readFileSync(file, 'utf8').trimEnd().split('\n').pop()!)![1];
    const t = Date.now();
    const rest = [
      { type: 'tool/result', seq: 54, time: t, data: { turn: 2, step: 3, callId, content: [{ type: 'text', text: 'Tests: 48 passed ✓' }], isError: false } },
      { type: 'step/end', seq: 55, time: t, data: { turn: 2, step: 3 } },
      { type: 'turn/end', seq: 56, time: t, data: { turn: 2, reason: { kind: 'completed' } } },
    ]
      .map((e) => JSON.stringify(e) + '\n')
      .join('');
    const cut = rest.indexOf('✓') + 1; // inside the 3-byte UTF-8 sequence once encoded
    const bytes = Buffer.from(rest);
    const split = Buffer.byteLength(rest.slice(0, cut)) - 1;
    fs.appendFileSync(file, bytes.subarray(0, split));
    // The torn append changes nothing on screen (that is the point), so to know
    // the app has followed it, a change it must follow after it: a new session
    // file in the same folder. The watcher handles the folder's events in
    // order and applies a batch whole before the screen shows it, so once the
    // count grows, the torn append has been read.
    const before = sessionCount(s.screen());
    expect(before).toBeGreaterThan(0);
    addSession(dir, 'live-marker');
    await s.waitFor((scr) => sessionCount(scr) === before + 1, DEADLINE_MS);
    // a torn append is pending, never an error: still only the corpus's own 2 diagnostics
    expect(s.screen()).toContain('⚠ 2 diagnostics');
    expect(s.lines().find((l) => l.includes('add-retry-metrics') && l.startsWith('▶'))).not.toContain('⚠');
    fs.appendFileSync(file, bytes.subarray(split));

    await s.waitFor(/boundary +add-retry-metrics/, DEADLINE_MS);
    await press(s, 'f');
    await s.waitFor('Fork session', DEADLINE_MS);
    await press(s, keys.enter);
    await s.waitFor(/forked add-retry-metrics -> /, DEADLINE_MS);
    const headers = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8').split('\n')[0]));
    const child = headers.find((h) => h.parentSession === 'add-retry-metrics');
    expect(child?.seedLength).toBe(57);
    await press(s, 'q');
    expect((await s.exited).exitCode).toBe(0);
  });
});
