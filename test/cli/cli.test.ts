// The headless CLI, spawned as the built bin (`node dist/dsh-browse.mjs`) on temp
// COPIES of sample-sessions and of the real corpus. Checks JSON shapes, exit
// codes, refusals with typed codes, usage errors, and that no existing file's
// bytes ever change.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTmp, copyDir, evs, hashTree, hdr, plainRead, REAL_DIR, REPO, SAMPLE_DIR, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

const BIN = path.join(REPO, 'dist', 'dsh-browse.mjs'); // the bundled bin users run

beforeAll(() => {
  if (!fs.existsSync(BIN)) {
    try {
      execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: REPO, stdio: 'pipe' });
    } catch {
      /* type errors elsewhere still emit */
    }
  }
  expect(fs.existsSync(BIN), `${BIN} missing: run npm run build`).toBe(true);
}, 120_000);
afterAll(cleanupTmp);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
function run(...args: string[]): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', DSH_BROWSE_DEBUG: '' }, timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
function json(...args: string[]): { code: number; body: any; stderr: string } {
  const r = run(...args, '--json');
  let body: any;
  try {
    body = JSON.parse(r.stdout);
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 300)}`);
  }
  return { code: r.code, body, stderr: r.stderr };
}

const SUMMARY_KEYS = new Set([
  'id', 'file', 'parentSession', 'parentFile', 'parentAmbiguous', 'seedLength', 'cwd', 'kind', 'era', 'format', 'generations', 'origin', 'delegationDepth', 'agentPreset', 'resumable', 'resumeReason',
  'upgrade', 'createdAt', 'events', 'turns', 'state', 'forkable', 'lastEventType', 'lastEventTime', 'title', 'diagnostics', 'usage',
]);
function checkSummary(s: any): void {
  for (const k of ['id', 'file', 'events', 'turns', 'state', 'forkable', 'era', 'resumable']) expect(s, k).toHaveProperty(k);
  expect(['rfc', 'rc8']).toContain(s.era);
  expect(typeof s.resumable).toBe('boolean');
  expect(s.resumable ? !('resumeReason' in s) : typeof s.resumeReason === 'string').toBe(true);
  // the upgrade verdict: the current format, and the edge and message when refused
  expect(s.upgrade.to).toBe(4);
  expect(s.upgrade.ok ? Object.keys(s.upgrade) : typeof s.upgrade.reason).toEqual(s.upgrade.ok ? ['to', 'ok'] : 'string');
  if (!s.upgrade.ok) expect(s.upgrade.edge).toMatch(/^v[0-3]→v[1-4]$/);
  for (const k of Object.keys(s)) expect(SUMMARY_KEYS.has(k), `unexpected key ${k}`).toBe(true);
  expect(typeof s.id).toBe('string');
  expect(path.isAbsolute(s.file)).toBe(true);
  expect(fs.existsSync(s.file)).toBe(true);
  expect(Number.isInteger(s.events)).toBe(true);
  expect(Number.isInteger(s.turns)).toBe(true);
  expect(['empty', 'at-boundary', 'open-turn']).toContain(s.state);
  expect(typeof s.forkable).toBe('boolean');
  for (const k of ['parentSession', 'seedLength', 'cwd', 'lastEventType']) if (k in s) expect(s[k]).not.toBeNull();
}

function expectUsage(r: Run, pattern?: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^dsh-browse: /);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  if (pattern) expect(lines[0]).toMatch(pattern);
}

/** Plain reading of a corpus folder: every .jsonl with a version-0 header. */
function plainSessions(dir: string): Array<{ file: string; header: any; rows: any[] }> {
  const out = [];
  for (const n of fs.readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    try {
      const r = plainReadTolerant(path.join(dir, n));
      if (r.header?.version === 0) out.push({ file: path.join(dir, n), ...r });
    } catch {
      /* not a session */
    }
  }
  return out;
}
function plainReadTolerant(file: string): { header: any; rows: any[] } {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.pop();
  const rows = [];
  for (const l of lines.slice(1)) {
    try {
      rows.push(JSON.parse(l));
    } catch {
      /* damaged line */
    }
  }
  return { header: JSON.parse(lines[0]), rows };
}

describe('dsh-browse CLI', () => {
  let sample: string;
  let real: string;
  beforeAll(() => {
    sample = copyDir(SAMPLE_DIR, path.join(tmpDir('dsh-cli-'), 'sample'));
    real = copyDir(REAL_DIR, path.join(tmpDir('dsh-cli-'), 'real'));
  });

  it('--help prints the usage and exits 0', () => {
    const r = run('--help');
    expect(r.code).toBe(0);
    for (const c of ['list', 'tree', 'fork', 'lineage', 'audit']) expect(r.stdout).toContain(`dsh-browse ${c}`);
    expect(r.stdout).toContain('--session');
    expect(r.stderr).toBe('');
  });

  describe('usage errors: exit 2, one line, no stack trace', () => {
    it('missing --dir (fork writes: never a default folder)', () => expectUsage(run('fork', '--session', 'x'), /missing --dir/));
    it('--dir that is not a directory', () => expectUsage(run('list', '--dir', path.join(sample, 'nope')), /does not exist/));
    it('unknown option', () => expectUsage(run('list', '--dir', sample, '--bogus'), /bogus/));
    it('extra argument', () => expectUsage(run('list', 'extra', '--dir', sample), /extra/));
    it('missing --session', () => expectUsage(run('tree', '--dir', sample), /--session/));
    it('unknown session', () => expectUsage(run('tree', '--dir', sample, '--session', 'no-such-session'), /no-such-session/));
    it('--at not an integer', () => expectUsage(run('fork', '--dir', sample, '--session', 'bump-vitest', '--at', '1.5'), /--at/));
  });

  describe('list', () => {
    it('--json on the sample corpus: shape, absolute paths, states', () => {
      const { code, body } = json('list', '--dir', sample);
      expect(code).toBe(0);
      expect(Object.keys(body).sort()).toEqual(['diagnostics', 'harness', 'sessions']);
      expect(body.harness).toEqual({ listable: true });
      const expected = plainSessions(sample);
      expect(body.sessions).toHaveLength(expected.length);
      for (const s of body.sessions) checkSummary(s);
      expect(body.sessions.map((s: any) => s.file).sort()).toEqual(expected.map((e) => e.file).sort());
      for (const e of expected) {
        const s = body.sessions.find((x: any) => x.file === e.file);
        expect(s.id).toBe(e.header.id);
        expect(s.turns, e.file).toBe(e.rows.filter((r) => r.type === 'turn/start').length);
        if ('parentSession' in e.header) expect(s.parentSession).toBe(e.header.parentSession);
        else expect('parentSession' in s).toBe(false);
        if ('seedLength' in e.header) expect(s.seedLength).toBe(e.header.seedLength);
        else expect('seedLength' in s).toBe(false);
      }
      const open = body.sessions.find((s: any) => s.id === 'add-retry-metrics');
      expect(open).toMatchObject({ state: 'open-turn', forkable: false, lastEventType: 'tool/call' });
      const empty = body.sessions.find((s: any) => s.events === 0);
      expect(empty).toMatchObject({ state: 'empty', forkable: true, turns: 0 });
      expect('lastEventType' in empty).toBe(false);
      for (const d of body.diagnostics) {
        expect(path.isAbsolute(d.file)).toBe(true);
        expect(typeof d.message).toBe('string');
        if ('line' in d) expect(Number.isInteger(d.line)).toBe(true);
      }
      expect(body.diagnostics.some((d: any) => d.file.endsWith('migrate-eslint-flat-config.jsonl') && d.code === 'MALFORMED_LINE')).toBe(true);
    });

    it('--json on the real corpus: 33 sessions, the v3 template file refused by the v3 header rules (BAD_HEADER)', () => {
      const { code, body } = json('list', '--dir', real);
      expect(code).toBe(0);
      expect(body.sessions).toHaveLength(33);
      for (const s of body.sessions) checkSummary(s);
      expect(body.diagnostics).toHaveLength(1);
      expect(body.diagnostics[0]).toMatchObject({ file: path.join(real, 'zsagi1368-deepseek-harness-zDSH__v3fixture__rec-child__session.1.v3.jsonl'), line: 1, code: 'BAD_HEADER' });
      expect(body.diagnostics[0].message).toMatch(/released v3 header cwd must be an absolute path/);
      expect(body.sessions.filter((s: any) => s.id === '{{sessionId}}')).toHaveLength(10);
    });

    it('plain text lists every session and the diagnostics', () => {
      const r = run('list', '--dir', sample);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('add-retry-metrics');
      expect(r.stdout).toMatch(/\d+ session\(s\), \d+ diagnostic\(s\)/);
      expect(r.stdout).toContain('MALFORMED_LINE');
    });

    it('a gapped log whose last event is turn/end is not forkable (a fork of the whole log is refused)', () => {
      const dir = tmpDir();
      const t = evs(...turnRows(1), ...turnRows(2));
      writeLog(path.join(dir, 'g.jsonl'), hdr('g'), [...t.slice(0, 7), ...t.slice(7).map((e) => ({ ...e, seq: e.seq + 2 }))]);
      const { body } = json('list', '--dir', dir);
      const f = json('fork', '--dir', dir, '--session', 'g');
      expect(f.code).toBe(1);
      expect(body.sessions[0].forkable).toBe(false);
    });
  });

  describe('tree', () => {
    it('--json: id, file, turns, boundaries (real multi-turn file)', () => {
      const file = path.join(real, 'toninfo-deepseek-harness__rfc0706__multi-turn__session.jsonl');
      const { rows, header } = plainRead(file);
      const { code, body } = json('tree', '--dir', real, '--session', header.id);
      expect(code).toBe(0);
      expect(body).toMatchObject({ id: header.id, file });
      expect('seedLength' in body).toBe(false);
      expect(body.turns.filter((n: any) => n.kind === 'turn').map((n: any) => [n.turn, n.reason])).toEqual(
        rows.filter((r) => r.type === 'turn/end').map((r) => [r.data.turn, r.data.reason.kind]),
      );
      expect(body.boundaries).toEqual(rows.filter((r) => r.type === 'turn/end').map((r) => r.seq));
    });

    it('--json on a fork child carries seedLength', () => {
      const file = path.join(real, 'toninfo-deepseek-harness__rfc0706__subagent-fork__session.1.jsonl');
      const { body } = json('tree', '--dir', real, '--session', file);
      expect(body).toMatchObject({ file, seedLength: 38 });
      expect(body.turns.filter((n: any) => n.kind === 'turn')).toHaveLength(2);
    });

    it('a usage error naming hostile file names prints them inert (no escape reaches the terminal)', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-cli-hostile-name-'));
      const head = JSON.stringify({ type: 'session', version: 0, id: 'twin', createdAt: 1 }) + '\n';
      fs.writeFileSync(path.join(dir, 'a\x1b]0;pwned\x07.jsonl'), head);
      fs.writeFileSync(path.join(dir, 'b.jsonl'), head);
      const r = run('tree', '--dir', dir, '--session', 'twin');
      expectUsage(r, /2 sessions/);
      expect(r.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
      expect(r.stderr).toContain('␛]0;pwned␇');
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('an ambiguous duplicate id is a usage error naming the files; the file path works', () => {
      const r = run('tree', '--dir', real, '--session', '{{sessionId}}');
      expectUsage(r, /10 sessions/);
      expect(r.stderr).toContain('rc8__cancel__session.jsonl');
      const file = path.join(real, 'toninfo-deepseek-harness__rc8__cancel__session.jsonl');
      const { code, body } = json('tree', '--dir', real, '--session', file);
      expect(code).toBe(0);
      expect(body.file).toBe(file);
      expect(body.turns.filter((n: any) => n.kind === 'turn').map((n: any) => n.reason)).toEqual(['aborted']);
      // a relative path works too
      const rel = spawnSync(process.execPath, [BIN, 'tree', '--dir', '.', '--session', path.basename(file), '--json'], { cwd: real, encoding: 'utf8' });
      expect(rel.status).toBe(0);
      expect(JSON.parse(rel.stdout).file).toBe(file);
    });

    it('plain text shows fork points', () => {
      const r = run('tree', '--dir', sample, '--session', 'bump-vitest');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('fork here');
      expect(r.stdout).toMatch(/interrupted/);
    });
  });

  describe('fork', () => {
    it('--json success: {child:{id,file,parentSession,seedLength,cwd}} and the file is written next to the parent', () => {
      const dir = copyDir(SAMPLE_DIR, path.join(tmpDir('dsh-cli-'), 's'));
      const parentFile = path.join(dir, 'fix-flaky-retry-test.jsonl');
      const { header, rows } = plainRead(parentFile);
      const firstEnd = rows.find((r) => r.type === 'turn/end').seq;
      const { code, body } = json('fork', '--dir', dir, '--session', 'fix-flaky-retry-test', '--at', String(firstEnd), '--id', 'cli-child');
      expect(code).toBe(0);
      expect(Object.keys(body)).toEqual(['child', 'resume']);
      expect(body.child).toEqual({ id: 'cli-child', file: path.join(dir, 'cli-child.jsonl'), parentSession: 'fix-flaky-retry-test', seedLength: firstEnd + 1, cwd: header.cwd, era: 'rfc', format: 0 });
      expect(body.resume).toBe('dsh --resume=cli-child');
      const child = plainRead(body.child.file);
      expect(child.header).toMatchObject({ type: 'session', version: 0, id: 'cli-child', parentSession: 'fix-flaky-retry-test', seedLength: firstEnd + 1 });
      expect(child.rows).toEqual(rows.slice(0, firstEnd + 1));
      // it is listed and audits clean
      const list = json('list', '--dir', dir).body;
      expect(list.sessions.find((s: any) => s.id === 'cli-child')).toMatchObject({ kind: 'fork', seedLength: firstEnd + 1 });
      const audit = json('audit', '--dir', dir).body;
      expect(audit.findings.filter((f: any) => f.session === 'cli-child')).toEqual([]);
    });

    it('without --id generates one; without --at forks the whole log', () => {
      const dir = copyDir(SAMPLE_DIR, path.join(tmpDir('dsh-cli-'), 's'));
      const { code, body } = json('fork', '--dir', dir, '--session', 'bump-vitest');
      expect(code).toBe(0);
      expect(body.child.id).toMatch(/^[A-Za-z0-9_-]{21}$/);
      expect(body.child.seedLength).toBe(plainRead(path.join(dir, 'bump-vitest.jsonl')).rows.length);
    });

    it('a duplicate id is addressed by file path', () => {
      const dir = copyDir(REAL_DIR, path.join(tmpDir('dsh-cli-'), 'r'));
      const file = path.join(dir, 'toninfo-deepseek-harness__rfc0706__error-finish__session.jsonl');
      expectUsage(run('fork', '--dir', dir, '--session', '{{sessionId}}'), /pass a file path/);
      const { code, body } = json('fork', '--dir', dir, '--session', file, '--id', 'err-child');
      expect(code).toBe(0);
      expect(body.child).toMatchObject({ id: 'err-child', parentSession: '{{sessionId}}', seedLength: 5, cwd: '{{cwd}}' });
    });

    it.each([
      ['OPEN_TURN', ['--session', 'add-retry-metrics'], /^cannot fork session "add-retry-metrics" inside an open turn \(last event: tool\/call\)$/],
      ['INVALID_BOUNDARY', ['--session', 'bump-vitest', '--at', '99999'], /99999/],
      ['INVALID_BOUNDARY', ['--session', 'bump-vitest', '--at=-1'], /-1/],
      ['OPEN_TURN', ['--session', 'bump-vitest', '--at', '1'], /inside an open turn/],
      ['SESSION_ALREADY_EXISTS', ['--session', 'bump-vitest', '--id', 'review-pr-482'], /^session "review-pr-482" already exists$/],
      ['SESSION_ALREADY_EXISTS', ['--session', 'add-retry-metrics', '--id', 'review-pr-482'], /already exists/],
    ])('refusal %s: {error:{name,code,message}}, exit 1, nothing written', (codeName, args, msg) => {
      const dir = copyDir(SAMPLE_DIR, path.join(tmpDir('dsh-cli-'), 's'));
      const before = hashTree(dir);
      const { code, body } = json('fork', '--dir', dir, ...args);
      expect(code).toBe(1);
      expect(body).toEqual({ error: { name: 'SessionForkError', code: codeName, message: expect.stringMatching(msg) } });
      expect(hashTree(dir)).toEqual(before);
    });

    it('a refusal without --json goes to stderr with its code, exit 1', () => {
      const r = run('fork', '--dir', sample, '--session', 'add-retry-metrics');
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim()).toBe('SessionForkError OPEN_TURN: cannot fork session "add-retry-metrics" inside an open turn (last event: tool/call)');
    });
  });

  describe('lineage', () => {
    it('--json on the sample corpus: nodes, typed edges, orphans, cycles', () => {
      const { code, body } = json('lineage', '--dir', sample);
      expect(code).toBe(0);
      expect(Object.keys(body).sort()).toEqual(['ambiguous', 'cycles', 'edges', 'nodes', 'orphans']);
      const sessions = plainSessions(sample);
      expect(body.nodes).toHaveLength(sessions.length);
      for (const n of body.nodes) checkSummary(n);
      const expectedEdges = sessions
        .filter((s) => s.header.parentSession !== undefined)
        .map((s) => ({ parent: s.header.parentSession, child: s.header.id, kind: s.header.seedLength !== undefined ? 'fork' : 'spawn', ...(s.header.seedLength !== undefined ? { seedLength: s.header.seedLength } : {}) }))
        .sort((a, b) => a.child.localeCompare(b.child));
      const edges = body.edges
        .map((e: any) => ({ parent: e.parent, child: e.child, kind: e.kind, ...(e.seedLength !== undefined ? { seedLength: e.seedLength } : {}) }))
        .sort((a: any, b: any) => a.child.localeCompare(b.child));
      expect(edges).toEqual(expectedEdges);
      expect(edges.some((e: any) => e.kind === 'spawn')).toBe(true);
      const orphanFiles = sessions.filter((s) => s.header.parentSession !== undefined && !sessions.some((p) => p.header.id === s.header.parentSession)).map((s) => s.file);
      expect(orphanFiles.length).toBeGreaterThan(0);
      expect([...body.orphans].sort()).toEqual(orphanFiles.sort());
      expect(body.cycles).toEqual([]);
    });

    it('--json reports a cycle', () => {
      const dir = tmpDir();
      writeLog(path.join(dir, 'a.jsonl'), hdr('a', { parentSession: 'b' }), []);
      writeLog(path.join(dir, 'b.jsonl'), hdr('b', { parentSession: 'a' }), []);
      writeLog(path.join(dir, 'self.jsonl'), hdr('self', { parentSession: 'self' }), []);
      const { code, body } = json('lineage', '--dir', dir);
      expect(code).toBe(0);
      expect(body.cycles.length).toBe(2);
    });

    it('plain text draws the forest', () => {
      const r = run('lineage', '--dir', sample);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('fix-flaky-retry-test.issue-writeup.gh');
    });
  });

  describe('audit', () => {
    it('exit 1 on a root with an error finding (the damaged sample file)', () => {
      const { code, body } = json('audit', '--dir', sample);
      expect(code).toBe(1);
      expect(body.findings.some((f: any) => f.severity === 'error' && f.code === 'MALFORMED_LINE')).toBe(true);
      const text = run('audit', '--dir', sample);
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/\d+ finding\(s\), [1-9]\d* error\(s\)/);
    });

    it('exit 0 on a clean root', () => {
      const dir = tmpDir();
      const t = evs(...turnRows(1), ...turnRows(2));
      writeLog(path.join(dir, 'p.jsonl'), hdr('p'), t);
      writeLog(path.join(dir, 'c.jsonl'), hdr('c', { parentSession: 'p', seedLength: 7 }), t.slice(0, 7));
      const { code, body } = json('audit', '--dir', dir);
      expect(body).toEqual({ findings: [] });
      expect(code).toBe(0);
      const r = run('audit', '--dir', dir);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('0 finding(s), 0 error(s)');
    });

    it('exit 0 on the real corpus without the v3 file (only warnings), exit 1 with it', () => {
      const dir = copyDir(REAL_DIR, path.join(tmpDir('dsh-cli-'), 'r'));
      const withV3 = json('audit', '--dir', dir);
      expect(withV3.code).toBe(1);
      expect(withV3.body.findings.filter((f: any) => f.severity === 'error').map((f: any) => f.code)).toEqual(['BAD_HEADER']);
      fs.rmSync(path.join(dir, 'zsagi1368-deepseek-harness-zDSH__v3fixture__rec-child__session.1.v3.jsonl'));
      const { code, body } = json('audit', '--dir', dir);
      expect(body.findings.map((f: any) => f.code).sort()).toEqual(['DUPLICATE_ID', 'ORPHAN_PARENT']);
      expect(code).toBe(0);
    });

    it('an error-level seed mismatch exits 1', () => {
      const dir = tmpDir();
      const t = evs(...turnRows(1), ...turnRows(2));
      writeLog(path.join(dir, 'p.jsonl'), hdr('p'), t);
      const seed = structuredClone(t.slice(0, 7));
      seed[1].data.content[0].text = 'tampered';
      writeLog(path.join(dir, 'c.jsonl'), hdr('c', { parentSession: 'p', seedLength: 7 }), seed);
      const { code, body } = json('audit', '--dir', dir);
      expect(code).toBe(1);
      expect(body.findings.map((f: any) => f.code)).toEqual(['SEED_MISMATCH']);
    });
  });

  describe('no existing file\'s bytes ever change', () => {
    it.each(['sample', 'real'])('%s corpus: hash every file before and after list/tree/lineage/audit/fork', (which) => {
      const src = which === 'sample' ? SAMPLE_DIR : REAL_DIR;
      if (!fs.existsSync(src)) return;
      const dir = copyDir(src, path.join(tmpDir('dsh-cli-'), which));
      const before = hashTree(dir);
      const ok = json('list', '--dir', dir).body.sessions as any[];
      const created: string[] = [];
      for (const [i, s] of ok.entries()) {
        if (i < 3) expect(run('tree', '--dir', dir, '--session', s.file, '--json').code).toBe(0);
        const f = json('fork', '--dir', dir, '--session', s.file);
        if (s.forkable) {
          expect(f.code, `${s.file}: ${JSON.stringify(f.body)}`).toBe(0);
          created.push(path.relative(dir, f.body.child.file));
        } else {
          expect(f.code).toBe(1);
          expect(f.body.error.name).toBe('SessionForkError');
        }
        if (i < 3) {
          const again = json('fork', '--dir', dir, '--session', s.file, '--id', s.id === ok[0].id ? ok[1].id : ok[0].id);
          expect(again.code).toBe(1);
          expect(again.body.error.code).toBe('SESSION_ALREADY_EXISTS');
        }
      }
      run('lineage', '--dir', dir, '--json');
      run('audit', '--dir', dir, '--json');
      run('list', '--dir', dir);
      const after = hashTree(dir);
      for (const [k, v] of before) expect(after.get(k), k).toBe(v);
      expect([...after.keys()].filter((k) => !before.has(k)).sort()).toEqual(created.sort());
      expect([...after.keys()].filter((k) => path.basename(k).startsWith('.') || k.endsWith('.tmp'))).toEqual([]);
      expect(created.length).toBe(ok.filter((s) => s.forkable).length);
    }, 180_000);
  });
});

describe('command line edges', () => {
  const sample = SAMPLE_DIR;

  it('--version prints the version from package.json', () => {
    const r = run('--version');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`dsh-browse ${JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version}`);
  });

  it('the bin runs by its own #! line, a portable one (busybox env has no -S: no node flags there)', () => {
    expect(fs.readFileSync(BIN, 'utf8').split('\n', 1)[0]).toBe('#!/usr/bin/env node');
    // executed as a shell would: env finds node on PATH (this one)
    const r = spawnSync(BIN, ['--version'], { encoding: 'utf8', env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` }, timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^dsh-browse \d/);
  });

  it('an unknown subcommand is a usage error with a suggestion, never the browser', () => {
    const r = run('lsit');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command "lsit" — did you mean "list"\?/);
    expect(r.stdout).toBe('');
    const far = run('frobnicate');
    expect(far.code).toBe(2);
    expect(far.stderr).not.toContain('did you mean');
  });

  it('a closed stdout ends a command quietly with exit 0 (tree | head -1)', () => {
    // a tree far larger than a pipe's buffer, so the writer really meets the closed pipe
    const dir = tmpDir('dsh-cli-');
    const rows: Array<[string, unknown]> = [];
    for (let t = 1; t <= 4000; t++) rows.push(['turn/start', { turn: t, trigger: 'user' }], ['user/message', { content: [{ type: 'text', text: `prompt ${t} `.repeat(8) }], source: 'user' }], ['turn/end', { turn: t, reason: { kind: 'completed' } }]);
    writeLog(path.join(dir, 'big.jsonl'), hdr('big'), evs(...rows));
    const p = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" tree --dir "${dir}" --session big | head -1 >/dev/null`], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(p.status).toBe(0);
    expect(p.stderr).toBe('');
  });

  it('--at -1 reaches INVALID_BOUNDARY (a negative number is the option value)', () => {
    const { code, body } = json('fork', '--dir', copyDir(SAMPLE_DIR, path.join(tmpDir('dsh-cli-'), 's')), '--session', 'bump-vitest', '--at', '-1');
    expect(code).toBe(1);
    expect(body.error).toMatchObject({ name: 'SessionForkError', code: 'INVALID_BOUNDARY' });
  });

  it('fork of a session that does not exist is the typed SESSION_NOT_FOUND; a refused file says why', () => {
    const { code, body } = json('fork', '--dir', sample, '--session', 'no-such-session');
    expect(code).toBe(1);
    expect(body.error).toEqual({ name: 'SessionForkError', code: 'SESSION_NOT_FOUND', message: `session "no-such-session" not found in ${sample}` });
    const dir = tmpDir('dsh-cli-');
    writeLog(path.join(dir, 'v3.jsonl'), { ...hdr('v3'), version: 5 }, []);
    const r = run('fork', '--dir', dir, '--session', path.join(dir, 'v3.jsonl'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/SessionForkError SESSION_NOT_FOUND: .*not a loadable session: UNSUPPORTED_VERSION/);
    const t = run('tree', '--dir', sample, '--session', 'no-such-session');
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('session "no-such-session" not found');
  });

  it('plain tree prints "fork here" after the whole turn it closes, as the TUI does', () => {
    const r = run('tree', '--dir', sample, '--session', 'fix-flaky-retry-test');
    const lines = r.stdout.split('\n');
    const fork = lines.findIndex((l) => l.includes('fork here (seq 43)'));
    const turn2 = lines.findIndex((l) => /#\s*44 turn 2/.test(l));
    expect(fork).toBeGreaterThan(0);
    expect(turn2).toBe(fork + 1);
    expect(lines[fork - 1]).toMatch(/^\s+#\s*\d+\s{3,}/); // the last line before it is a child row (indented), not turn 1's header
  });

  it('ages of placeholder createdAt (0, 1) are unknown, not 20000 days', () => {
    const dir = tmpDir('dsh-cli-');
    writeLog(path.join(dir, 'zero.jsonl'), { ...hdr('zero'), createdAt: 1 }, []);
    const r = run('list', '--dir', dir);
    const row = r.stdout.split('\n').find((l) => l.includes('zero'))!;
    expect(row).not.toMatch(/\d{4,}d/);
    expect(row).toMatch(/\s-(\s|$)/);
  });
});
