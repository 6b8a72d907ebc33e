// A v4 child the harness's own fork cut inside a turn, opened in a real
// pseudo-terminal beside its parent (built in setup from the real v3
// workspace by the harness's README rules: test/support/v4-forks.ts). Turns
// says where the cut is and marks the closers as the harness's own results;
// Problems has nothing to say about it.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { logV3toV4 } from '../support/v3-to-v4.js';
import { runCli } from '../support/run-cli.js';
import { harnessForkChild, toolCallCuts } from '../support/v4-forks.js';
import { keys, killAllPtys, press, settled, spawnPty } from './pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
const WS = path.join(ROOT, 'test', 'fixtures', 'real-sessions-v2v4', 'zdsh-vfs-workspace', '--dsh-workspace--');
let base: string;

beforeAll(() => {
  if (!fs.existsSync(BIN) || process.env.DSH_E2E_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-v4-forks-e2e-'));
  const parent = logV3toV4(fs.readFileSync(path.join(WS, 'preview-showcase', 'session.v3.jsonl'), 'utf8'));
  for (const [id, text] of [['preview-showcase', parent], ['midturn-kid', harnessForkChild(parent, toolCallCuts(parent).started, 'midturn-kid')]]) {
    fs.mkdirSync(path.join(base, '--dsh-workspace--', id), { recursive: true });
    fs.writeFileSync(path.join(base, '--dsh-workspace--', id, 'session.v4.jsonl'), text);
  }
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe("a v4 child the harness's own fork cut inside a turn", () => {
  it('Turns names the cut and marks the closers; Problems stays empty', async () => {
    const s = spawnPty(process.execPath, [BIN, base, '--all'], { cols: 200, rows: 70 });
    await s.waitFor('2 sessions', 15_000);
    await settled(s);
    await press(s, '/', 'midturn-kid', keys.enter);
    await s.waitFor('filter "midturn-kid"');
    await press(s, keys.tab);
    const turns = await s.waitFor((x) => x.includes('Turns: midturn-kid') && x.includes('cut inside turn 29'));
    expect(turns).toContain('inherited from preview-showcase, seedLength 174, cut inside turn 29; the harness closed it (10 results of its own, turn/end forked)');
    // the last turn (the parent's turn 29, closed in the child) folded out: its closers are the harness's
    await press(s, 'G');
    await s.waitFor(/› +── fork here · seq 186/);
    // up past the divider of the child's own events, to the turn it closed
    await press(s, keys.up);
    await s.waitFor(/› +── own events from seq 174/);
    await press(s, keys.up);
    await s.waitFor(/›.*turn 29 +forked/);
    await press(s, 'e');
    await s.waitFor(/›169┊▾ turn 29/);
    // to the turn's end: the rows above it are its tool calls
    await press(s, 'G');
    const open = await s.waitFor((x) => x.includes('harness: outcome unknown') && x.includes('harness: not started'));
    expect(open).toMatch(/tool \S+ harness: outcome unknown/);
    await press(s, keys.tab, keys.tab);
    const problems = await s.waitFor((x) => /Problems/.test(x) && /no problems|0 problems/.test(x), 15_000);
    expect(problems).not.toMatch(/SEED_NOT_AT_BOUNDARY|UNMATCHED_TOOL_RESULT/);
    await press(s, 'q');
    expect((await s.exited).exitCode).toBe(0);
    // the screen may say so before the background audit ends: the audit itself, run whole, finds nothing either
    const audit = runCli(['audit', '--dir', base, '--json']);
    expect(audit.code, audit.stdout).toBe(0);
    expect(JSON.parse(audit.stdout).findings).toEqual([]);
  });
});
