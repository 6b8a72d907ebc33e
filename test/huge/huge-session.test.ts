// A session of any size: `tree --json` and `export` of a generated 200 MB
// session stream their output, and `stats` folds it, in bounded memory (the
// child is killed at twice the bound, so a regression fails by a kill), and
// they write their first bytes while the log is still being read: stopped by
// a reader that does not read on, the command holds its place in the file,
// not the file.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHugeSession, type HugeSessionInfo } from '../../bench/generate.js';
import { browseHuge } from '../../bench/huge.js';
import { runBounded, rssOf } from '../support/bounded-run.js';
import { cleanupTmp, tmpDir } from '../support/fixtures.js';
import { BIN } from '../support/run-cli.js';
import { BOUND, boundedFork, MB } from './bounded-fork.js';


let root: string;
let huge: HugeSessionInfo;
beforeAll(() => {
  root = tmpDir('huge-');
  huge = writeHugeSession(path.join(root, 'huge.jsonl'), 200e6, { id: 'huge' });
}, 120_000);
afterAll(() => cleanupTmp());

describe('a 200 MB session: commands stream their output in bounded memory', () => {
  for (const args of [['tree', '--json'], ['export', '--format', 'md'], ['export', '--format', 'json'], ['export', '--format', 'html', '--at', '100000']]) {
    it(`${args.join(' ')} completes under ${MB(BOUND)}`, async () => {
      const r = await runBounded([...args, '--session', 'huge', '--dir', root, '--no-cache'], { killAt: 2 * BOUND, keepStdout: false, timeoutMs: 300_000 });
      expect(r.killed, `killed at ${MB(r.peak)}`).toBe(false);
      expect(r.code, r.stderr).toBe(0);
      expect(r.peak, `peak ${MB(r.peak)}`).toBeLessThanOrEqual(BOUND);
      // complete: the output ends as its format does, and is bigger than the log's text it holds
      const end = args.includes('md') ? /\n\*— end of the transcript: seq 0–\d+ \(\d+ events\) —\*\n$/ : args.includes('html') ? /<\/html>\n$/ : /\n\}\n$/;
      expect(r.tail).toMatch(end);
      expect(r.stdoutBytes).toBeGreaterThan(args.includes('--at') ? 10e6 : huge.bytes / 2);
    }, 360_000);
  }
});

/** stats holds a turn's timeline and a few numbers: ~90 MB here; with the log's events held it peaked at 352 MB. */
const STATS_BOUND = 150 * 2 ** 20;

describe('a 200 MB session: stats', () => {
  it(`stats --json reads the log once, folding each turn as it comes, under ${MB(STATS_BOUND)}`, async () => {
    const r = await runBounded(['stats', '--json', '--dir', root, '--no-cache'], { killAt: 2 * BOUND, timeoutMs: 300_000 });
    expect(r.killed, `killed at ${MB(r.peak)}`).toBe(false);
    expect(r.code, r.stderr).toBe(0);
    expect(r.peak, `peak ${MB(r.peak)}`).toBeLessThanOrEqual(STATS_BOUND);
    const j = JSON.parse(r.stdout);
    expect(j.sessions.map((s: { id: string; turns: number }) => [s.id, s.turns])).toEqual([['huge', huge.turns]]);
    const [s] = j.sessions;
    // every turn timed (none past the timeline's spans), its calls all tool spans, its tokens counted
    expect(s.notTimed).toBeUndefined();
    expect(s.calls).toBeGreaterThan(1000);
    expect(s.tools.reduce((n: number, t: { calls: number }) => n + t.calls, 0)).toBe(s.calls);
    expect(s.time.wall).toBeGreaterThan(0);
    expect(s.time.model + s.time.tool).toBeGreaterThan(0);
    expect(s.tokens.messages).toBeGreaterThan(huge.turns);
    expect([j.total.sessions, j.total.turns, j.total.calls, j.total.tokens]).toEqual([1, s.turns, s.calls, s.tokens]);
  }, 360_000);
});

describe('a 200 MB session of one turn (an agent left running): commands write it as they read it', () => {
  // the turn in pieces (turn-pieces.ts): held whole, tree --json peaked at 2 GB and export at 1.5 GB on 300 MB
  let dir: string;
  beforeAll(() => {
    dir = tmpDir('huge-turn-');
    writeHugeSession(path.join(dir, 'turn.jsonl'), 200e6, { id: 'turn', oneTurn: 'closed' });
  }, 120_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  it(`stats --json folds the one turn as it is read, under ${MB(STATS_BOUND)}`, async () => {
    const r = await runBounded(['stats', '--json', '--dir', dir, '--no-cache', 'turn'], { killAt: 2 * BOUND, timeoutMs: 300_000 });
    expect(r.killed, `killed at ${MB(r.peak)}`).toBe(false);
    expect(r.code, r.stderr).toBe(0);
    expect(r.peak, `peak ${MB(r.peak)}`).toBeLessThanOrEqual(STATS_BOUND);
    const [s] = JSON.parse(r.stdout).sessions;
    expect([s.turns, s.notTimed]).toEqual([3, undefined]);
    expect(s.calls).toBeGreaterThan(1000);
    expect(s.tools.reduce((n: number, t: { calls: number }) => n + t.calls, 0)).toBe(s.calls);
  }, 360_000);
  for (const args of [['tree', '--json'], ['export', '--format', 'md']]) {
    it(`${args.join(' ')} completes under ${MB(BOUND)}`, async () => {
      const r = await runBounded([...args, '--session', 'turn', '--dir', dir, '--no-cache'], { killAt: 2 * BOUND, keepStdout: false, timeoutMs: 300_000 });
      expect(r.killed, `killed at ${MB(r.peak)}`).toBe(false);
      expect(r.code, r.stderr).toBe(0);
      expect(r.peak, `peak ${MB(r.peak)}`).toBeLessThanOrEqual(BOUND);
      expect(r.tail).toMatch(args.includes('md') ? /\n\*— end of the transcript: seq 0–\d+ \(\d+ events\) —\*\n$/ : /\n\}\n$/);
      expect(r.stdoutBytes).toBeGreaterThan(100e6);
    }, 360_000);
  }
});

describe('a 200 MB session: browsing it in the app', () => {
  it(`opens tail first and browses (index, g/G, expand, reader, / search, history, export in the background) under ${MB(BOUND)}`, async () => {
    const dir = tmpDir('huge-browse-');
    fs.linkSync(path.join(root, 'huge.jsonl'), path.join(dir, 'huge.jsonl')); // the same file, alone in its root
    const b = await browseHuge(dir, huge.turns, (2 * BOUND) / 2 ** 20, BIN);
    expect(b.peakMB, `peak ${b.peakMB.toFixed(0)} MB`).toBeLessThanOrEqual(BOUND / 2 ** 20);
    // the last turn is on screen before the whole log is indexed (tail first)
    expect(b.tailMs).toBeLessThan(b.indexMs);
  }, 600_000);
});

describe('a 200 MB session: a fork streams its seed', () => {
  it('at a boundary mid-log: under the bound, the seed the parent\'s prefix byte for byte, the parent untouched', async () => {
    const parent = path.join(root, 'huge.jsonl');
    const before = fs.statSync(parent);
    const child = await boundedFork(root, 'huge', huge.mid.seq, 'huge-kid');
    expect(child.seedLength).toBe(huge.mid.seq + 1);
    // compare in 1 MB pieces: the child's bytes after its header line against the parent's after its own
    const a = fs.openSync(parent, 'r');
    const b = fs.openSync(child.file, 'r');
    try {
      const headerEnd = (fd: number) => {
        const buf = Buffer.alloc(4096);
        fs.readSync(fd, buf, 0, buf.length, 0);
        return buf.indexOf(10) + 1;
      };
      const pa = headerEnd(a);
      const pb = headerEnd(b);
      expect(fs.fstatSync(b).size - pb).toBe(huge.mid.end - pa);
      const x = Buffer.alloc(1 << 20);
      const y = Buffer.alloc(1 << 20);
      for (let off = 0; off < huge.mid.end - pa; ) {
        const n = fs.readSync(a, x, 0, Math.min(x.length, huge.mid.end - pa - off), pa + off);
        fs.readSync(b, y, 0, n, pb + off);
        if (!x.subarray(0, n).equals(y.subarray(0, n))) throw new Error(`the seed differs from the parent within bytes ${off}-${off + n}`);
        off += n;
      }
    } finally {
      fs.closeSync(a);
      fs.closeSync(b);
    }
    const after = fs.statSync(parent);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    // the audit checks the child's seed against the parent's, both read as they come
    const audit = await runBounded(['audit', '--json', '--dir', root, '--no-cache'], { killAt: 2 * BOUND, timeoutMs: 300_000 });
    expect(audit.killed, `killed at ${MB(audit.peak)}`).toBe(false);
    expect([audit.code, JSON.parse(audit.stdout)]).toEqual([0, { findings: [] }]);
    expect(audit.peak, `audit peak ${MB(audit.peak)}`).toBeLessThanOrEqual(BOUND);
    // diff of parent and child: both logs read side by side, a summary per turn held
    const diff = await runBounded(['diff', 'huge', 'huge-kid', '--json', '--dir', root, '--no-cache'], { killAt: 2 * BOUND, timeoutMs: 300_000 });
    expect(diff.killed, `killed at ${MB(diff.peak)}`).toBe(false);
    expect(diff.code, diff.stderr).toBe(0);
    const d = JSON.parse(diff.stdout);
    expect([d.ancestor.id, d.ancestor.seq, d.prefix]).toEqual(['huge', huge.mid.seq, huge.mid.seq + 1]);
    expect(d.sharedTurns + d.left.turns.length).toBe(huge.turns);
    expect(d.right.turns).toEqual([]);
    expect(diff.peak, `diff peak ${MB(diff.peak)}`).toBeLessThanOrEqual(BOUND);
    // a seed that differs from the parent's is still found: one byte of the child's seed changed (same length)
    const fd = fs.openSync(child.file, 'r+');
    try {
      const buf = Buffer.alloc(1 << 16);
      const at = Math.floor((huge.mid.end * 3) / 4);
      fs.readSync(fd, buf, 0, buf.length, at);
      const quote = buf.indexOf('"text":"') + 8;
      expect(quote).toBeGreaterThan(8);
      buf[quote] = buf[quote] === 0x41 ? 0x42 : 0x41;
      fs.writeSync(fd, buf, quote, 1, at + quote);
    } finally {
      fs.closeSync(fd);
    }
    const tampered = await runBounded(['audit', '--json', '--dir', root, '--no-cache'], { killAt: 2 * BOUND, timeoutMs: 300_000 });
    expect(tampered.killed).toBe(false);
    expect(JSON.parse(tampered.stdout).findings.map((f: { code: string }) => f.code)).toContain('SEED_MISMATCH');
    fs.rmSync(child.file);
  }, 360_000);
});

describe('a 200 MB session: find', () => {
  it('a word in no event: filtered line by line (no whole-file buffer), under the bound, exit 1', async () => {
    const r = await runBounded(['find', 'zzqqxxnever', '--json', '--dir', root, '--no-cache'], { killAt: 2 * BOUND, timeoutMs: 300_000 });
    expect(r.killed, `killed at ${MB(r.peak)}`).toBe(false);
    expect([r.code, JSON.parse(r.stdout)]).toEqual([1, { matches: [] }]);
    expect(r.peak, `peak ${MB(r.peak)}`).toBeLessThanOrEqual(BOUND);
  }, 360_000);

  it('a word in thousands of 60 KB tool results: matched a batch at a time, never held (under 200 MB), exit 0', async () => {
    // holding the matched events, as find did, peaked at 293 MB here
    const r = await runBounded(['find', 'test', '--json', '--dir', root, '--no-cache'], { killAt: 2 * BOUND, timeoutMs: 300_000 });
    expect(r.killed, `killed at ${MB(r.peak)}`).toBe(false);
    expect(r.code, r.stderr).toBe(0);
    const matches = JSON.parse(r.stdout).matches as Array<{ seq: number; type: string }>;
    expect(matches.length).toBeGreaterThan(5000);
    expect(matches.filter((m) => m.type === 'tool/result').length).toBeGreaterThan(1000);
    for (let i = 1; i < matches.length; i++) expect(matches[i].seq).toBeGreaterThan(matches[i - 1].seq);
    expect(r.peak, `peak ${MB(r.peak)}`).toBeLessThanOrEqual(200 * 2 ** 20);
  }, 360_000);
});

/** The read position of the child's open descriptor on `file` (undefined: none open). */
function filePosition(pid: number, file: string): number | undefined {
  const dir = `/proc/${pid}/fd`;
  let fds: string[];
  try {
    fds = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  for (const fd of fds) {
    try {
      if (fs.readlinkSync(path.join(dir, fd)) !== file) continue;
      const m = /^pos:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'));
      if (m) return Number(m[1]);
    } catch {
      /* closed meanwhile */
    }
  }
  return undefined;
}

describe('a 200 MB session: output before the input is read to its end', () => {
  for (const args of [['tree', '--json'], ['export', '--format', 'md']]) {
    it(`${args.join(' ')} through a pipe nobody reads: stops early in the log, then finishes`, async () => {
      const env: Record<string, string | undefined> = { ...process.env };
      delete env.CI;
      const child = spawn(process.execPath, [BIN, ...args, '--session', 'huge', '--dir', root, '--no-cache'], { stdio: ['ignore', 'pipe', 'ignore'], env });
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      try {
        // the first bytes, then no more reading: the pipe fills and the command must wait
        const first = await new Promise<Buffer>((resolve) => child.stdout.once('data', resolve));
        child.stdout.pause();
        expect(first.length).toBeGreaterThan(0);
        // poll until the command stands still (its read position unchanged for a while), generous deadline
        const file = path.join(root, 'huge.jsonl');
        let last: number | undefined;
        let still = 0;
        const deadline = Date.now() + 60_000;
        while (still < 10 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
          const pos = filePosition(child.pid!, file);
          still = pos !== undefined && pos === last ? still + 1 : 0;
          last = pos;
        }
        expect(still, 'the command never stood still on an open log').toBe(10);
        expect(last!).toBeLessThan(huge.bytes / 4);
        expect(rssOf(child.pid!)!).toBeLessThan(BOUND);
        // read on: it finishes, and says all of it
        let bytes = first.length;
        child.stdout.on('data', (d: Buffer) => (bytes += d.length));
        child.stdout.resume();
        expect(await closed).toBe(0);
        expect(bytes).toBeGreaterThan(huge.bytes / 2);
      } finally {
        child.kill('SIGKILL');
      }
    }, 300_000);
  }
});
