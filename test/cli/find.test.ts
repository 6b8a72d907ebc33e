// `dsh-browse find`, spawned as the built bin on fixtures written to a temp dir
// (plus a copy of the real corpus): JSON shape, exit codes like grep, query
// errors with their column, sanitised plain output.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeStoredFrame } from '../../src/storage/zstd-frames.js';
import { cleanupTmp, copyDir, evs, hdr, REAL_DIR, REPO, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

const BIN = path.join(REPO, 'dist', 'dsh-browse.mjs');
let dir = '';

beforeAll(() => {
  if (!fs.existsSync(BIN)) execFileSync('npm', ['run', 'build'], { cwd: REPO, stdio: 'pipe' });
  dir = tmpDir('dsh-find-');
  const failing = evs(
    ['turn/start', { turn: 1, trigger: 'user' }],
    ['user/message', { content: [{ type: 'text', text: 'run the tests please' }], source: 'user' }],
    ['step/start', { turn: 1, step: 1 }],
    ['tool/call', { turn: 1, step: 1, callId: 'c1', name: 'bash', arguments: '{"command":"npm test"}' }],
    ['tool/result', { turn: 1, step: 1, callId: 'c1', content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'exit 1: \x1b[31mFAILED\x1b[0m' }], isError: true }], isError: true }],
    ['step/end', { turn: 1, step: 1 }],
    ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
  );
  writeLog(path.join(dir, 'alpha.jsonl'), hdr('alpha', { cwd: '/home/u/proj' }), failing);
  writeLog(path.join(dir, 'child.jsonl'), hdr('child', { parentSession: 'alpha', seedLength: 7, createdAt: 1_700_000_001_000 }), [...failing, ...evs(...turnRows(2)).map((e, i) => ({ ...e, seq: 7 + i }))]);
  writeLog(path.join(dir, 'quiet.jsonl'), hdr('quiet\x1b]0;pwned\x07'), evs(...turnRows(1, { kind: 'completed' }, 'hello world')));
  fs.writeFileSync(path.join(dir, 'garbage.jsonl'), 'not json at all\n');
  copyDir(REAL_DIR, path.join(dir, 'real'));
}, 120_000);
afterAll(cleanupTmp);

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'find', '--dir', dir, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
const json = (...args: string[]) => {
  const r = run(...args, '--json');
  return { ...r, body: JSON.parse(r.stdout) };
};

describe('dsh-browse find', () => {
  it('finds the turn where bash failed, across sessions, with id, file, seq, turn, type, snippet', () => {
    const r = json('tool:bash is:error');
    expect(r.code).toBe(0);
    const mine = r.body.matches.filter((m: any) => !m.file.includes(`${path.sep}real${path.sep}`));
    expect(mine).toEqual([
      { id: 'alpha', file: path.join(dir, 'alpha.jsonl'), seq: 4, turn: 1, type: 'tool/result', snippet: expect.stringContaining('FAILED') },
      { id: 'child', file: path.join(dir, 'child.jsonl'), seq: 4, turn: 1, type: 'tool/result', snippet: expect.stringContaining('FAILED') },
    ]);
    for (const m of r.body.matches) expect(Object.keys(m).sort()).toEqual(['file', 'id', 'seq', 'snippet', 'turn', 'type']);
    // the real corpus has the rc8 "bash is disabled by policy" result
    expect(r.body.matches.some((m: any) => m.file.includes('rc8__packed-chunks') && m.type === 'tool/result')).toBe(true);
  });
  it('file:GLOB and is:failed-edit: the writes and edits of a path, the failed ones, in the real corpus too', () => {
    // the real v3 workspace writes src/preview.ts (write, with meta.diffs)
    const ws = tmpDir();
    copyDir(path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4', 'zdsh-vfs-workspace'), ws);
    const find = (q: string) => {
      const r = spawnSync(process.execPath, [BIN, 'find', '--dir', ws, q, '--json'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
      return { code: r.status ?? -1, matches: r.status === 0 || r.status === 1 ? JSON.parse(r.stdout).matches : r.stderr };
    };
    const writes = find('file:src/*.ts');
    expect(writes.code).toBe(0);
    expect(writes.matches.map((m: any) => [path.basename(path.dirname(m.file)), m.type])).toEqual([
      ['preview-showcase', 'tool/call'],
      ['preview-showcase', 'tool/result'],
    ]);
    expect(find('file:preview.ts -tool:write').code).toBe(1);
    expect(find('is:failed-edit').code).toBe(1); // no write or edit failed there
    // the failing bash above is no failed edit
    expect(json('is:failed-edit').code).toBe(1);
  });
  it('free words in both eras; session fields narrow', () => {
    expect(json('snapshot_ok').body.matches.map((m: any) => m.type)).toEqual(expect.arrayContaining(['user/message', 'assistant/message', 'tool/call', 'tool/result']));
    expect(json('"npm test" is:fork').body.matches.map((m: any) => [m.id, m.seq])).toEqual([['child', 3]]);
    expect(json('"npm test" cwd:proj').body.matches.map((m: any) => [m.id, m.seq])).toEqual([['alpha', 3]]);
    const forks = json('is:fork id:child').body.matches;
    expect(forks).toEqual([{ id: 'child', file: path.join(dir, 'child.jsonl'), seq: null, turn: null, type: 'session', snippet: 'prompt 2' }]); // a fork child's title: its first own prompt
  });
  it('exit 1 without matches, empty list in JSON', () => {
    const r = json('zzqqxx-never-there');
    expect(r.code).toBe(1);
    expect(r.body).toEqual({ matches: [] });
    expect(run('zzqqxx-never-there').stdout).toBe('');
  });
  it('a query error exits 2 with the column and the reason on one line', () => {
    const r = run('bash "oops');
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/query error at column 6: unterminated quote/);
    expect(run('is:blue').stderr).toMatch(/column 4: unknown is:blue/);
    expect(run().code).toBe(2);
  });
  it('plain output is sanitised (ids and snippets come from files)', () => {
    const r = run('FAILED');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/\x1b/);
    expect(r.stdout).toMatch(/alpha\.jsonl: alpha #4 turn 1 tool\/result .*FAILED/);
    const q = run('hello');
    expect(q.stdout).toContain('quiet');
    expect(q.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  });
  it('a negated query (after --) matches sessions without the word', () => {
    const r = spawnSync(process.execPath, [BIN, 'find', '--dir', dir, '--json', '--', '-bash id:quiet'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).matches.map((m: any) => m.type)).toEqual(['session']);
  });
});

describe('dsh-browse find: the limits', () => {
  const SAMPLES = path.join(REPO, 'sample-sessions');
  const onSamples = (query: string) => {
    const r = spawnSync(process.execPath, [BIN, 'find', '--dir', SAMPLES, '--', query], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  };
  it.each([
    ['a 100,000-character word', 'A'.repeat(100_000)],
    ['50,000 backslashes', '\\'.repeat(50_000)],
    ['tool: with a 100,000-character value', 'tool:' + 'x'.repeat(100_000)],
    ['20,000 repeated "a" terms', Array(20_000).fill('"a"').join(' ')],
    ['20,000 repeated w terms', Array(20_000).fill('w').join(' ')],
  ])('%s: exit 2, the limit named on one line, the query echoed only in part', (_, query) => {
    const r = onSamples(query);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`query error at column 1001: query too long: ${query.length} characters; a query holds at most 1000 characters (query: ${query.slice(0, 200)}… (${query.length} characters))`);
    expect(r.stderr).not.toMatch(/unexpected failure|Invalid regular expression/);
  });
  it('33 terms: exit 2 at the 33rd; at the limits a query is answered (exit 0 or 1, never 3)', () => {
    const terms = Array.from({ length: 33 }, (_, i) => `w${i}`).join(' ');
    const over = onSamples(terms);
    expect(over.code).toBe(2);
    expect(over.stderr).toContain(`query error at column ${terms.indexOf('w32') + 1}: too many terms: a query holds at most 32 terms (this is term 33)`);
    for (const q of ['A'.repeat(1000), '\\'.repeat(1000), 'tool:' + '('.repeat(995), Array(32).fill('e').join(' '), Array(32).fill('"a"').join(' ')]) {
      const r = onSamples(q);
      expect([0, 1], r.stderr).toContain(r.code);
    }
    expect(onSamples(Array(32).fill('e').join(' ')).code).toBe(0);
  });
});

describe('compressed logs and generations', () => {
  it('finds words in session.jsonl.zstd, and reads only the current generation of a harness folder', () => {
    const root = tmpDir('dsh-find-zstd-');
    const folder = path.join(root, '--w--', 'gen');
    fs.mkdirSync(folder, { recursive: true });
    const text = (h: object, word: string) => [h, ...evs(...turnRows(1, { kind: 'completed' }, word))].map((e) => JSON.stringify(e) + '\n').join('');
    const h = hdr('gen', { cwd: '/w', delegationDepth: 0 });
    fs.writeFileSync(path.join(folder, 'session.jsonl'), text(h, 'stale-word'));
    const t = text(h, 'compressed-word');
    const cut = t.indexOf('\n') + 1;
    fs.writeFileSync(path.join(folder, 'session.v1.jsonl.zstd'), Buffer.concat([encodeStoredFrame(Buffer.from(JSON.stringify({ ...h, version: 1 }) + '\n')), encodeStoredFrame(Buffer.from(t.slice(cut)))]));
    const find = (q: string) => spawnSync(process.execPath, [BIN, 'find', '--dir', root, q, '--json'], { encoding: 'utf8', timeout: 60_000 });
    const hit = find('compressed-word');
    expect(hit.status).toBe(0);
    expect(JSON.parse(hit.stdout).matches.map((m: { file: string }) => path.basename(m.file))).toEqual(['session.v1.jsonl.zstd']);
    expect(find('stale-word').status).toBe(1); // the older generation is never read
  });
});

describe('a large root with its content index kept', () => {
  it("takes every log's stat on a worker thread while the index loads, and finds what a --no-cache find finds", () => {
    const root = tmpDir('dsh-find-large-');
    const old = new Date(Date.now() - 5 * 86_400_000);
    const n = 2_000; // STAT_AHEAD_MIN
    for (let i = 0; i < n; i++) {
      const f = writeLog(path.join(root, `p${i % 20}`, `s${i}.jsonl`), hdr(`s${i}`), evs(...turnRows(1, { kind: 'completed' }, i % 997 === 5 ? 'a rare plover here' : `prompt ${i}`)));
      fs.utimesSync(f, old, old); // days old: trusted by its stat, never racy
    }
    const cache = tmpDir('dsh-find-large-cache-');
    const trace = path.join(cache, 'trace.txt');
    const find = (...args: string[]) => spawnSync(process.execPath, [BIN, 'find', '--dir', root, 'plover', '--json', ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, XDG_CACHE_HOME: cache, DSH_BROWSE_TRACE: trace } });
    const plain = find('--no-cache');
    expect(plain.status, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout).matches).toHaveLength(3);
    const cold = find();
    expect(cold.stdout).toBe(plain.stdout);
    expect(fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8') : '').not.toContain('stats ahead'); // no index yet: nothing to check by stat
    const warm = find();
    expect(warm.stdout).toBe(plain.stdout);
    // each log's stat was asked of the worker (taken, or stat'ed here when the worker was not there yet)
    const line = /stats ahead: (\d+) taken, (\d+) missed/.exec(fs.readFileSync(trace, 'utf8'));
    expect(line).not.toBeNull();
    expect(Number(line![1]) + Number(line![2])).toBe(n);
  }, 180_000);
});
