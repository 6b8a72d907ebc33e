// `dsh-browse diff` and `dsh-browse export` and the usage column of list, run
// as the built bin on temp copies of the corpora; no file's bytes change.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSafe } from '../../src/export/escape.js';
import { cleanupTmp, copyDir, hashTree, REAL_DIR, REPO, SAMPLE_DIR, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

const BIN = path.join(REPO, 'dist', 'dsh-browse.mjs');

beforeAll(() => {
  expect(fs.existsSync(BIN), `${BIN} missing: run npm run build`).toBe(true);
});
afterAll(cleanupTmp);

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', DSH_BROWSE_DEBUG: '' }, timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
const usageError = (r: ReturnType<typeof run>, re: RegExp) => {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/^dsh-browse: /);
  expect(r.stderr).toMatch(re);
};

describe('dsh-browse diff', () => {
  let dir: string;
  let before: Map<string, string>;
  beforeAll(() => {
    dir = copyDir(SAMPLE_DIR, tmpDir());
    before = hashTree(dir);
  });
  afterAll(() => expect(hashTree(dir)).toEqual(before));

  it('--json: ancestor, left and right with their turns and totals; siblings by id', () => {
    const r = run('diff', '--dir', dir, 'fix-flaky-retry-test.spy-random', 'fix-flaky-retry-test.issue-writeup', '--json');
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.ancestor).toEqual({ id: 'fix-flaky-retry-test', file: path.join(dir, 'fix-flaky-retry-test.jsonl'), seq: 43 });
    for (const side of [j.left, j.right]) {
      expect(Object.keys(side)).toEqual(['id', 'file', 'turns', 'totals', 'changes']);
      expect(path.isAbsolute(side.file)).toBe(true);
      for (const t of side.turns) {
        for (const k of ['turn', 'prompt', 'tools', 'reason', 'usage', 'ms']) expect(t).toHaveProperty(k);
        expect(typeof t.usage.input).toBe('number');
        for (const x of t.tools) expect(Object.keys(x)).toEqual(expect.arrayContaining(['name', 'error']));
      }
    }
    expect(j.left.id).toBe('fix-flaky-retry-test.spy-random');
    expect(j.right.turns.at(-1).reason).toBe('max-tokens');
    // written a turn at a time, laid out as one JSON.stringify(…, null, 2) of the whole
    expect(r.stdout).toBe(jsonSafe(JSON.stringify(j, null, 2)) + '\n');
  });

  it('sessions by file path; unrelated ones say no common ancestor', () => {
    const r = run('diff', '--dir', dir, path.join(dir, 'review-pr-482.jsonl'), path.join(dir, 'bump-vitest.jsonl'), '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).ancestor).toBeNull();
    const p = run('diff', '--dir', dir, 'review-pr-482', 'bump-vitest');
    expect(p.code).toBe(0);
    expect(p.stdout.split('\n')[0]).toBe('no common ancestor');
  });

  it('plain: header, side-by-side turns, totals; lines fit 120 columns', () => {
    const r = run('diff', '--dir', dir, 'fix-flaky-retry-test', 'fix-flaky-retry-test.spy-random');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('common ancestor fix-flaky-retry-test, logs agree through seq 78');
    expect(r.stdout).toContain('≡ 2 shared turn(s), seq 0–78');
    expect(r.stdout).toMatch(/total 3 turn\(s\).*│ total 2 turn\(s\)/);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(120);
  });

  it('hostile ids and prompts print inert', () => {
    const d = tmpDir();
    const rows = turnRows(1, { kind: 'completed' }, 'p \x1b]52;c;QUJD\x07 \x1b[2J');
    const evs = rows.map(([type, data], i) => ({ type, seq: i, time: i, data }));
    writeLog(path.join(d, 'a.jsonl'), { type: 'session', version: 0, id: 'a\x1b[31m\u202e', createdAt: 1 }, evs);
    writeLog(path.join(d, 'b.jsonl'), { type: 'session', version: 0, id: 'b', createdAt: 1 }, evs);
    for (const extra of [[], ['--json']]) {
      const r = run('diff', '--dir', d, path.join(d, 'a.jsonl'), 'b', ...extra);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    }
  });

  it('usage errors: one session, three sessions, unknown session', () => {
    usageError(run('diff', '--dir', dir, 'bump-vitest'), /two sessions/);
    usageError(run('diff', '--dir', dir, 'a', 'b', 'c'), /unexpected argument "c"/);
    usageError(run('diff', '--dir', dir, 'bump-vitest', 'no-such'), /no-such/);
  });
});

describe('dsh-browse export', () => {
  let dir: string;
  let before: Map<string, string>;
  beforeAll(() => {
    dir = copyDir(SAMPLE_DIR, tmpDir());
    before = hashTree(dir);
  });
  afterAll(() => expect(hashTree(dir)).toEqual(before)); // stdout only: nothing written

  it('md by default, html and json on request, --at cuts', () => {
    const md = run('export', '--dir', dir, '--session', 'fix-flaky-retry-test.spy-random');
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/^# Session fix-flaky-retry-test.spy-random\n/);
    expect(md.stdout).toContain('- lineage: fix-flaky-retry-test → **fix-flaky-retry-test.spy-random** (fork @79)');
    const html = run('export', '--dir', dir, '--session', 'fix-flaky-retry-test.spy-random', '--format', 'html');
    expect(html.stdout).toMatch(/^<!doctype html>/);
    expect(html.stdout.trimEnd()).toMatch(/<\/html>$/);
    const json = JSON.parse(run('export', '--dir', dir, '--session', 'fix-flaky-retry-test', '--format', 'json', '--at', '43').stdout);
    expect(json.upTo).toBe(43);
    expect(json.blocks.filter((b: any) => b.kind === 'turn').length).toBe(1);
  });

  it('every real log exports (by file, duplicate ids included)', () => {
    const real = copyDir(REAL_DIR, tmpDir());
    const list = JSON.parse(run('list', '--dir', real, '--json').stdout);
    for (const s of list.sessions.slice(0, 8)) {
      const r = run('export', '--dir', real, '--session', s.file, '--format', 'json');
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).id).toBe(s.id);
    }
  });

  it('usage errors: bad --format, --at outside the log', () => {
    usageError(run('export', '--dir', dir, '--session', 'bump-vitest', '--format', 'pdf'), /--format expects one of md, html, json/);
    usageError(run('export', '--dir', dir, '--session', 'bump-vitest', '--at', '100000'), /--at 100000 is outside the log/);
    usageError(run('export', '--dir', dir), /--session/);
    usageError(run('export', '--dir', dir, '--session', 'no-such'), /session "no-such" not found/);
  });
});

describe('list --json usage', () => {
  it('per session, and inherited/own for a fork child; rc8 names the model', () => {
    const sample = JSON.parse(run('list', '--dir', copyDir(SAMPLE_DIR, tmpDir()), '--json').stdout);
    const spy = sample.sessions.find((s: any) => s.id === 'fix-flaky-retry-test.spy-random');
    expect(spy.usage.input).toBe(spy.usage.inherited.input + spy.usage.own.input);
    expect(spy.usage.own.messages).toBeGreaterThan(0);
    const root = sample.sessions.find((s: any) => s.id === 'fix-flaky-retry-test');
    expect(root.usage.inherited).toBeUndefined();
    const real = JSON.parse(run('list', '--dir', REAL_DIR, '--json').stdout);
    const rc8 = real.sessions.find((s: any) => s.file.endsWith('rc8__tool-call-turn__session.jsonl'));
    expect(rc8.usage).toEqual({ input: 3049, output: 117, cacheRead: 2816, reasoning: 42, messages: 2, models: ['deepseek-v4-flash'] });
  });
});
