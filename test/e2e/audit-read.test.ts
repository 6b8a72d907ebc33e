// Audit and read in a real pseudo-terminal: the Problems tab on fixtures built
// here (a tampered fork child, a seq gap, a garbage line), the reader on a
// 2,000-line diff (scroll, search, n), and `/` + `n` in Turns.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys, killAllPtys, settled, spawnPty } from './pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
const T = 1795990000000;
let dir: string;

const line = (o: unknown) => JSON.stringify(o) + '\n';
const header = (id: string, extra: object = {}) => line({ type: 'session', version: 0, id, createdAt: T, cwd: '/work/proj', ...extra });

/** One turn with a prompt, an assistant message, a tool call and its result. */
function turn(n: number, seq: number, prompt: string, result: string, isError = false): string[] {
  return [
    line({ type: 'turn/start', seq, time: T + seq, data: { turn: n, trigger: 'user' } }),
    line({ type: 'user/message', seq: seq + 1, time: T + seq, data: { content: [{ type: 'text', text: prompt }], source: 'user' } }),
    line({ type: 'step/start', seq: seq + 2, time: T + seq, data: { turn: n, step: 1 } }),
    line({ type: 'assistant/message', seq: seq + 3, time: T + seq, data: { turn: n, step: 1, content: [{ type: 'text', text: `on it (${n})` }] } }),
    line({ type: 'tool/call', seq: seq + 4, time: T + seq, data: { turn: n, step: 1, callId: `c${n}`, name: 'bash', arguments: JSON.stringify({ command: `git diff ${n}` }) } }),
    line({ type: 'tool/result', seq: seq + 5, time: T + seq, data: { turn: n, step: 1, callId: `c${n}`, content: [{ type: 'text', text: result }], isError } }),
    line({ type: 'step/end', seq: seq + 6, time: T + seq, data: { turn: n, step: 1 } }),
    line({ type: 'turn/end', seq: seq + 7, time: T + seq, data: { turn: n, reason: { kind: 'completed' } } }),
  ];
}

/** A unified diff of `n` lines. */
function bigDiff(n: number): string {
  const out = ['diff --git a/src/app.ts b/src/app.ts', '--- a/src/app.ts', '+++ b/src/app.ts'];
  for (let i = 0; out.length < n; i++) {
    out.push(`@@ -${i * 10 + 1},4 +${i * 10 + 1},4 @@`, ` context line ${i}`, `-old value ${i}`, `+new value ${i}`);
  }
  out.push('+NEEDLE-AT-THE-END');
  return out.join('\n');
}

beforeAll(() => {
  if (!fs.existsSync(BIN) || process.env.DSH_E2E_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-audit-e2e-'));
  const parent = [...turn(1, 0, 'first prompt', 'ok'), ...turn(2, 8, 'second prompt, find the bug', 'Exit code 1', true)];
  fs.writeFileSync(path.join(dir, 'alpha.jsonl'), header('alpha') + parent.join(''));
  // a fork child whose seed was edited after the fork: its turn 1 prompt differs from the parent's
  const tampered = parent.slice(0, 8).map((l) => l.replace('first prompt', 'first prompt, edited later'));
  fs.writeFileSync(path.join(dir, 'tampered-child.jsonl'), header('tampered-child', { parentSession: 'alpha', seedLength: 8 }) + tampered.join('') + turn(2, 8, 'child prompt', 'ok').join(''));
  // a seq gap and a garbage line
  const gap = turn(1, 0, 'gap prompt', 'ok');
  fs.writeFileSync(path.join(dir, 'gappy.jsonl'), header('gappy') + gap.join('') + 'this is not json {{{\n' + turn(2, 12, 'after the gap', 'ok').join(''));
  // a session with a 2,000-line diff in a tool result
  fs.writeFileSync(path.join(dir, 'big-diff.jsonl'), header('big-diff') + turn(1, 0, 'show me the diff', bigDiff(2000)).join(''));
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function open() {
  const s = spawnPty(process.execPath, [BIN, dir], { cols: 120, rows: 32 });
  await s.waitFor(/· live/, 15_000);
  await settled(s);
  return s;
}

describe('problems, where they are (real terminal)', () => {
  it('the Problems tab lists the tampered seed, the seq gap and the garbage line with file and line; Enter opens the session at that event', async () => {
    const s = await open();
    s.write('\t\t\t'); // Turns, Lineage, Problems
    // the Problems tab, once the background audit found it (wait for every row: a frame can arrive in pieces)
    const scr = await s.waitFor((x) => /E SEED_MISMATCH/.test(x) && /E SEQ_GAP/.test(x) && /E MALFORMED_LINE/.test(x), 15_000);
    expect(scr).toMatch(/E SEQ_GAP +gappy\.jsonl:\d+ #12/);
    expect(scr).toMatch(/E MALFORMED_LINE +gappy\.jsonl:10/);
    expect(scr).toMatch(/E SEED_MISMATCH +tampered-child\.jsonl #1/);
    // the row badge in Sessions names the worst code
    s.write('\t');
    await s.waitFor(/tampered-child +⚠ SEED_MISMATCH/);
    // Enter on the seed mismatch opens the child at the differing event, marked, with both versions in the reader
    s.write('\t\t\t');
    await s.waitFor('Problems │');
    s.write('g');
    await settled(s);
    for (let i = 0; i < 10 && !/▶ E SEED_MISMATCH/.test(s.screen()); i++) {
      s.write('j');
      await settled(s);
    }
    expect(s.screen()).toMatch(/▶ E SEED_MISMATCH/);
    s.write(keys.enter);
    const turns = await s.waitFor('≠ seed differs from the parent here'); // (the tab bar names the selection in every view: wait for the view itself)
    expect(turns).toMatch(/tampered-child +\[at boundary\]/);
    s.write('o');
    const reader = await s.waitFor((x) => x.includes("differs from the parent's seed") && x.includes('edited later')); // the reader, whole
    expect(reader).toMatch(/-.*"first prompt"/);
    expect(reader).toMatch(/\+.*"first prompt, edited later"/);
    s.write(keys.esc);
    await s.waitFor(/tampered-child +\[at boundary\]/);
  });
});

describe('the reader (real terminal)', () => {
  it('a 2,000-line diff: page, search, n, wrap; Esc returns to the same row', async () => {
    const s = await open();
    s.write('/big-diff\r\r'); // filter, open in Turns
    await s.waitFor(/big-diff +\[at boundary\]/);
    s.write('e'); // expand all
    await settled(s);
    for (let i = 0; i < 12 && !/›\s*\d+ +.*result/.test(s.screen()); i++) {
      s.write('j');
      await settled(s);
    }
    const before = s.lines().find((l) => l.startsWith('›'));
    s.write(keys.enter);
    let scr = await s.waitFor(/1–\d+ of 2004 lines/);
    expect(scr).toContain('diff --git a/src/app.ts b/src/app.ts');
    s.write(keys.pgDn);
    await s.waitFor((x) => !x.includes('diff --git a/src/app.ts'));
    s.write('/NEEDLE-AT-THE-END\r');
    scr = await s.waitFor((x) => /1\/1|match 1 of 1|1 of 1/.test(x) && x.includes('+NEEDLE-AT-THE-END'));
    s.write('g');
    await s.waitFor('diff --git a/src/app.ts');
    s.write('n');
    await s.waitFor('+NEEDLE-AT-THE-END');
    s.write(keys.esc);
    await s.waitFor(/big-diff +\[at boundary\]/);
    await settled(s);
    expect(s.lines().find((l) => l.startsWith('›'))).toBe(before);
  });
});

describe('search in Turns (real terminal)', () => {
  it('/ tool:bash is:error finds the failed call; n moves on; folded parents open to show it', async () => {
    const s = await open();
    s.write('/alpha\r\r');
    await s.waitFor(/alpha +\[at boundary\]/);
    s.write('/tool:bash is:error\r');
    const scr = await s.waitFor('match 1 of 1');
    expect(scr).toMatch(/›\s*13 ◉ .*result error/); // the tool/result row at seq 13, opened and marked
    s.write('n');
    await s.waitFor('match 1 of 1');
    s.write('/prompt\r');
    await s.waitFor(/match 1 of 2/);
    s.write('n');
    await s.waitFor(/match 2 of 2/);
    s.write('N');
    await s.waitFor(/match 1 of 2/);
  });
});
