// `dsh-browse stats`, run as the built bin on the real logs of every format
// (v0 of the RFC and rc.8 eras, later v0, v2, v3, v4) and on the sample
// corpus: each session's figures agree with what `list` and `find` say of
// it, a fork child's parts add up to its whole, and the total is the sum of
// the sessions with each event once; the text is aligned in 80 columns and
// sanitised; usage errors; no file's bytes change.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionStats, StatsPart } from '../../src/session/session-stats.js';
import { displayWidth } from '../../src/view/text/sanitize.js';
import { cleanupTmp, copyDir, evs, hashTree, hdr, REAL_DIR, REPO, SAMPLE_DIR, tmpDir, writeLog } from '../support/fixtures.js';
import { expectUsageError, runCli } from '../support/run-cli.js';

afterAll(cleanupTmp);

const V2V4 = path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4');
const WS = path.join(V2V4, 'zdsh-vfs-workspace', '--dsh-workspace--');

/** What `stats --json` prints: the model's own shapes (session-stats.ts), as JSON gives them. */
type Part = StatsPart;
type Entry = SessionStats & { id: string; file: string; kind: string; seedLength?: number };
interface Stats {
  sessions: Entry[];
  total: Part & { sessions: number };
}

/** A root of the workspace's v2 logs alone (beside a v3 one, a v2 file is an older generation and not read). */
function v2Root(): string {
  const root = tmpDir('stats-v2-');
  for (const id of fs.readdirSync(WS)) {
    const dir = path.join(root, '--dsh-workspace--', id);
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(WS, id, 'session.v2.jsonl'), path.join(dir, 'session.v2.jsonl'));
  }
  return root;
}

function statsJson(dir: string, ...args: string[]): Stats {
  const r = runCli(['stats', '--dir', dir, '--no-cache', '--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  const j = JSON.parse(r.stdout) as Stats;
  // laid out as one JSON.stringify of the whole, though written a session at a time
  expect(r.stdout).toBe(JSON.stringify(j, null, 2) + '\n');
  return j;
}

const sumParts = (parts: readonly Part[]) => ({
  turns: parts.reduce((n, p) => n + p.turns, 0),
  calls: parts.reduce((n, p) => n + p.calls, 0),
  failed: parts.reduce((n, p) => n + p.failed, 0),
  time: Object.fromEntries((['wall', 'model', 'tool', 'gaps', 'toolCalls'] as const).map((k) => [k, parts.reduce((n, p) => n + p.time[k], 0)])),
  tokens: Object.fromEntries((['input', 'output', 'cacheRead', 'spent', 'messages'] as const).map((k) => [k, parts.reduce((n, p) => n + p.tokens[k], 0)])),
});

const toolCalls = (parts: readonly Part[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const p of parts) for (const t of p.tools) out[t.name] = (out[t.name] ?? 0) + t.calls;
  return out;
};

describe('dsh-browse stats --json on real logs of every format', () => {
  const formats = new Set<number>();
  const roots: Array<[string, () => string]> = [
    ['the RFC and rc.8 eras (v0, and a v3 snapshot)', () => REAL_DIR],
    ['later v0, v3 and v4', () => V2V4],
    ['v2', v2Root],
    ['the sample corpus', () => SAMPLE_DIR],
  ];
  for (const [what, rootOf] of roots) {
    it(`${what}: each session agrees with list and find, and the total is the sessions' sum`, () => {
      const root = rootOf();
      const before = hashTree(root);
      const j = statsJson(root);
      const list = JSON.parse(runCli(['list', '--dir', root, '--no-cache', '--json']).stdout).sessions as Array<{
        id: string;
        file: string;
        kind: string;
        seedLength?: number;
        turns: number;
        format: number;
        usage: { input: number; output: number; cacheRead?: number; messages: number; own?: { input: number; output: number; messages: number }; inherited?: { input: number; output: number; messages: number } };
      }>;
      for (const s of list) formats.add(s.format);
      // every session list shows, in its order
      expect(j.sessions.map((s) => s.file)).toEqual(list.map((s) => s.file));
      expect(j.sessions.length).toBeGreaterThan(0);
      // the failed calls: the tool results `find is:error` finds, per file
      const errors = new Map<string, number>();
      const found = runCli(['find', 'is:error', '--dir', root, '--no-cache', '--json']);
      for (const m of JSON.parse(found.stdout).matches as Array<{ file: string; type: string }>) if (m.type === 'tool/result') errors.set(m.file, (errors.get(m.file) ?? 0) + 1);
      expect([...errors.values()].reduce((a, b) => a + b, 0)).toBe(j.sessions.reduce((n, s) => n + s.failed, 0));
      for (const [i, s] of j.sessions.entries()) {
        const l = list[i];
        const what = s.file;
        expect({ what, id: s.id, kind: s.kind, turns: s.turns, failed: s.failed }).toEqual({ what, id: l.id, kind: l.kind, turns: l.turns, failed: errors.get(s.file) ?? 0 });
        expect({ what, ...s.tokens }).toEqual({ what, input: l.usage.input, output: l.usage.output, cacheRead: l.usage.cacheRead ?? 0, spent: l.usage.input + l.usage.output, messages: l.usage.messages });
        // the times hold together: gaps within the wall, tool (wall time some call ran) within the calls' sum
        expect(s.time.gaps, what).toBeLessThanOrEqual(s.time.wall);
        expect(s.time.tool, what).toBeLessThanOrEqual(s.time.toolCalls);
        // each call of a turn is a tool span, the tools by their longest call
        expect(s.tools.reduce((n, t) => n + t.calls, 0), what).toBeLessThanOrEqual(s.calls);
        expect(s.tools.reduce((n, t) => n + t.failed, 0), what).toBeLessThanOrEqual(s.failed);
        expect(s.tools.map((t) => t.longest), what).toEqual(s.tools.map((t) => t.longest).sort((a, b) => b - a));
        if (s.kind !== 'fork') {
          expect([what, s.inherited, s.own, s.seedLength]).toEqual([what, undefined, undefined, undefined]);
          continue;
        }
        // a fork child: its seed and its own part make its whole, as list splits its usage
        expect(s.seedLength, what).toBe(l.seedLength);
        const { inherited, own } = s as Required<Entry>;
        expect({ what, ...sumParts([inherited, own]) }).toEqual({ what, ...sumParts([s]) });
        expect([what, own.tokens.input, own.tokens.output, inherited.tokens.input, inherited.tokens.output]).toEqual([what, l.usage.own!.input, l.usage.own!.output, l.usage.inherited!.input, l.usage.inherited!.output]);
        expect(toolCalls([inherited, own])).toEqual(toolCalls([s]));
      }
      // the total: every session, each event once (a fork child by its own part)
      const parts = j.sessions.map((s) => s.own ?? s);
      expect(j.total.sessions).toBe(j.sessions.length);
      expect(sumParts([j.total])).toEqual(sumParts(parts));
      expect(toolCalls([j.total])).toEqual(toolCalls(parts));
      for (const t of j.total.tools) expect(j.sessions.map((s) => s.id)).toContain(t.session);
      expect(hashTree(root)).toEqual(before);
    });
  }

  it('the roots hold every format the harness writes: v0, v2, v3 and v4', () => {
    expect([...formats].sort()).toEqual([0, 2, 3, 4]);
  });
});

describe('dsh-browse stats on the sample corpus', () => {
  let dir: string;
  beforeAll(() => {
    dir = copyDir(SAMPLE_DIR, tmpDir());
  });

  it('SESSION: that session alone; the total is its own part', () => {
    const j = statsJson(dir, 'fix-flaky-retry-test.spy-random');
    expect(j.sessions.map((s) => [s.id, s.kind, s.seedLength, s.turns, s.inherited?.turns, s.own?.turns, s.calls, s.failed])).toEqual([['fix-flaky-retry-test.spy-random', 'fork', 79, 4, 2, 2, 7, 1]]);
    expect(sumParts([j.total])).toEqual(sumParts([j.sessions[0].own!]));
    const byFile = statsJson(dir, path.join(dir, 'bump-vitest.jsonl'));
    expect(byFile.sessions.map((s) => [s.id, s.turns, s.calls, s.failed, s.tools[0].name, s.tools[0].longestSeq])).toEqual([['bump-vitest', 1, 2, 1, 'bash', 25]]);
  });

  it('prints each session and the total, aligned, in 80 columns', () => {
    const r = runCli(['stats', '--dir', dir, '--no-cache']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
    expect(r.stdout).toContain('bump-vitest  1 turn, 2 calls, 1 failed\n  time    wall 42m27s  model 1.0s  tool 42m26s  gaps 7ms\n  tokens  in 1.5k      out 50      cached 1.4k\n');
    expect(r.stdout).toMatch(/\n {2}slowest +calls +failed +total +longest +at\n {2}bash +2 +1 +42m26s +42m26s +#25\n/);
    // a fork child's tokens: its own and its seed's, under the whole
    expect(r.stdout).toMatch(/fix-flaky-retry-test\.spy-random  fork@79\n {2}4 turns \(2 inherited\), 7 calls, 1 failed\n(.*\n){2} {2}own +in 3\.7k +out 146 +cached 7k\n {2}inherited +in 2\.3k +out 291 +cached 8\.2k\n/);
    expect(r.stdout).toMatch(/\ntotal {2}12 sessions, 19 turns, 28 calls, 2 failed\n/);
    expect(r.stdout).toMatch(/\n {2}bash +16 +2 +54m02s +42m26s +bump-vitest #25\n/);
    const one = runCli(['stats', '--dir', dir, '--no-cache', 'bump-vitest']);
    expect(one.stdout).toMatch(/^bump-vitest {2}1 turn, 2 calls, 1 failed\n(.*\n){4}$/);
  });

  it('plain output is sanitised: ids and tool names come from files', () => {
    const d = tmpDir();
    const rows = evs(
      ['turn/start', { turn: 1 }],
      ['step/start', { turn: 1, step: 1 }],
      ['tool/call', { turn: 1, step: 1, callId: 'c1', name: 'evil\x1b]0;pwned\x07\u202e', arguments: '{}' }],
      ['tool/result', { turn: 1, step: 1, callId: 'c1', content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'no' }], isError: true }], isError: true }],
      ['step/end', { turn: 1, step: 1 }],
      ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
    );
    writeLog(path.join(d, 'a.jsonl'), hdr('a\x1b[31m\u202e'), rows);
    const r = runCli(['stats', '--dir', d, '--no-cache']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
    expect(r.stdout).toContain('1 turn, 1 call, 1 failed');
    const j = runCli(['stats', '--dir', d, '--no-cache', '--json']);
    expect(j.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
    expect(JSON.parse(j.stdout).sessions[0].tools[0].name).toBe('evil\x1b]0;pwned\x07\u202e');
  });

  it('refuses an unknown session or a second one with a usage error', () => {
    expectUsageError(runCli(['stats', '--dir', dir, 'no-such-session']), /no-such-session/);
    expectUsageError(runCli(['stats', '--dir', dir, 'a', 'b']), /unexpected argument "b"/);
  });
});
