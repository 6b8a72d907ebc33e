// A session of any size, compressed: the harness's default log,
// session.jsonl.zstd, at 200 MB of text. Browsing it, exporting it and forking
// it stay under the bound (each a child process killed at twice the bound):
// the offset index reads a turn from the frame before it, never the log whole;
// the fork's seed is decoded as it is written, and is the parent's text byte
// for byte. The log is compressed as rc.8 writes it, a frame per append (here
// a frame per ~256 KB of lines, by the zstd tool through a pipe).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHugeSession, type HugeSessionInfo } from '../../bench/generate.js';
import { browseHuge } from '../../bench/huge.js';
import { runBounded } from '../support/bounded-run.js';
import { cleanupTmp, tmpDir } from '../support/fixtures.js';
import { hasZstd } from '../support/real-roots.js';
import { BIN } from '../support/run-cli.js';
import { BOUND, boundedFork, MB } from './bounded-fork.js';
import { rc8ProjectFolder } from '../../src/storage/layout.js';

const FRAME_TEXT = 256 * 1024;

let plain: string;
let root: string;
let huge: HugeSessionInfo;
let log: string;

/** `src` as rc.8 compresses it: the header line alone in frame 1, then frames of whole lines. */
function compress(src: string, dst: string): void {
  const out = fs.openSync(dst, 'w');
  const fd = fs.openSync(src, 'r');
  const frame = (text: Buffer) => {
    const r = spawnSync('zstd', ['-q', '-1', '-c'], { input: text, maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`zstd: ${r.stderr}`);
    fs.writeSync(out, r.stdout);
  };
  try {
    const buf = Buffer.allocUnsafe(8 << 20);
    let carry = Buffer.alloc(0);
    let first = true;
    for (let pos = 0; ; ) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) break;
      pos += n;
      let data = Buffer.concat([carry, buf.subarray(0, n)]);
      if (first) {
        const nl = data.indexOf(10) + 1;
        frame(data.subarray(0, nl));
        data = data.subarray(nl);
        first = false;
      }
      let at = 0;
      for (let nl = data.indexOf(10, at + FRAME_TEXT); nl >= 0; nl = data.indexOf(10, at + FRAME_TEXT)) {
        frame(data.subarray(at, nl + 1));
        at = nl + 1;
      }
      carry = Buffer.from(data.subarray(at));
    }
    if (carry.length) frame(carry);
  } finally {
    fs.closeSync(fd);
    fs.closeSync(out);
  }
}

beforeAll(() => {
  if (!hasZstd) return;
  const gen = tmpDir('huge-z-gen-');
  plain = path.join(gen, 'huge.jsonl');
  huge = writeHugeSession(plain, 200e6, { id: 'huge' });
  root = tmpDir('huge-z-');
  // where rc.8 keeps it (its children go beside it, compressed too)
  log = path.join(root, rc8ProjectFolder('/home/dev/src/huge'), 'huge', 'session.jsonl.zstd');
  fs.mkdirSync(path.dirname(log), { recursive: true });
  compress(plain, log);
}, 180_000);
afterAll(() => cleanupTmp());

describe.skipIf(!hasZstd)('a 200 MB compressed session', () => {
  it(`browses in the app from its offset index (tail first, g/G, expand, reader, /, history, export) under ${MB(BOUND)}`, async () => {
    expect(fs.statSync(log).size).toBeLessThan(huge.bytes / 3);
    const b = await browseHuge(root, huge.turns, (2 * BOUND) / 2 ** 20, BIN);
    expect(b.peakMB, `peak ${b.peakMB.toFixed(0)} MB`).toBeLessThanOrEqual(BOUND / 2 ** 20);
    expect(b.tailMs).toBeLessThan(b.indexMs);
  }, 600_000);

  it(`export --format md completes under ${MB(BOUND)}`, async () => {
    const r = await runBounded(['export', '--format', 'md', '--session', 'huge', '--dir', root, '--no-cache'], { killAt: 2 * BOUND, keepStdout: false, timeoutMs: 300_000 });
    expect(r.killed, `killed at ${MB(r.peak)}`).toBe(false);
    expect(r.code, r.stderr).toBe(0);
    expect(r.peak, `peak ${MB(r.peak)}`).toBeLessThanOrEqual(BOUND);
    expect(r.tail).toMatch(/\n\*— end of the transcript: seq 0–\d+ \(\d+ events\) —\*\n$/);
    expect(r.stdoutBytes).toBeGreaterThan(huge.bytes / 2);
  }, 360_000);

  it('a fork mid-log streams its seed: under the bound, its text the parent’s prefix byte for byte, the parent untouched', async () => {
    const parent = log;
    const before = fs.statSync(parent);
    const child = await boundedFork(root, 'huge', huge.mid.seq, 'huge-kid');
    expect(child.file).toBe(path.join(path.dirname(path.dirname(log)), 'huge-kid', 'session.jsonl.zstd'));
    // the parent's text after its header line up to the cut, against the child's after its own (decoded by the zstd tool)
    const headerEnd = (() => {
      const buf = Buffer.alloc(4096);
      const fd = fs.openSync(plain, 'r');
      fs.readSync(fd, buf, 0, buf.length, 0);
      fs.closeSync(fd);
      return buf.indexOf(10) + 1;
    })();
    const seedBytes = huge.mid.end - headerEnd;
    const want = createHash('sha256');
    for await (const c of fs.createReadStream(plain, { start: headerEnd, end: huge.mid.end - 1 })) want.update(c as Buffer);
    const got = createHash('sha256');
    let seen = 0;
    let inHeader = true;
    const z = spawn('zstd', ['-q', '-dc', child.file], { stdio: ['ignore', 'pipe', 'ignore'] });
    for await (let c of z.stdout as AsyncIterable<Buffer>) {
      if (inHeader) {
        const nl = c.indexOf(10);
        if (nl < 0) continue;
        c = c.subarray(nl + 1);
        inHeader = false;
      }
      const take = Math.min(c.length, seedBytes - seen);
      if (take > 0) got.update(c.subarray(0, take));
      seen += c.length;
    }
    expect(seen).toBeGreaterThanOrEqual(seedBytes);
    expect(got.digest('hex')).toBe(want.digest('hex'));
    const after = fs.statSync(parent);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    fs.rmSync(child.file);
  }, 360_000);
});
