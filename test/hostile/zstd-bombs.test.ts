// Compressed bombs: a session.jsonl.zstd of a few hundred
// KB can decode to gigabytes. `list` runs in a child process whose RSS is
// sampled and which is killed at the bound, so a regression fails by a kill
// and never takes the machine. Bombs come from the zstd tool (through a pipe,
// never decoded on disk) and from hand-made frames (RFC 8878: RLE blocks, a
// header claiming a huge size, a huge window, a size that lies).
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DIAGNOSTICS } from '../../src/storage/log-reader.js';
import { MAX_RATIO, MAX_TEXT, readZstdLog, setTextFloor, textBound } from '../../src/storage/zstd-log.js';
import { encodeStoredFrame, initDecoder, MAX_WINDOW, useWasmDecoder } from '../../src/storage/zstd-frames.js';
import { hasZstd } from '../support/real-roots.js';
import { killAllPtys, spawnPty } from '../e2e/pty-harness.js';
import { cleanupTmp, tmpDir } from '../support/fixtures.js';
import { runBounded as runBoundedCli } from '../support/bounded-run.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
/** The bound on the peak RSS of `list` over a root holding a bomb. */
const RSS_BOUND = 300 * 1024 * 1024;

const header = (id: string) => JSON.stringify({ type: 'session', version: 0, id, createdAt: 1700000000000, cwd: '/a', delegationDepth: 0 }) + '\n';
const turn = [
  { type: 'turn/start', seq: 0, time: 1700000000001, data: { turn: 1, trigger: 'user' } },
  { type: 'user/message', seq: 1, time: 1700000000002, data: { content: [{ type: 'text', text: 'still here' }], source: 'user' } },
  { type: 'turn/end', seq: 2, time: 1700000000003, data: { turn: 1, reason: { kind: 'completed' } } },
]
  .map((e) => JSON.stringify(e) + '\n')
  .join('');

// ---- hand-made frames --------------------------------------------------------

const BLOCK = 128 * 1024;
/** A frame header: windowLog (non-single-segment) or single segment, and an 8-byte content size when given. */
function frameHeader(o: { windowLog?: number; size?: number }): Buffer {
  const single = o.windowLog === undefined;
  const fhd = (o.size !== undefined ? 3 << 6 : 0) | (single ? 0x20 : 0);
  const parts = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, fhd])];
  if (!single) parts.push(Buffer.from([(o.windowLog! - 10) << 3]));
  if (o.size !== undefined) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(o.size));
    parts.push(b);
  }
  return Buffer.concat(parts);
}
/** `count` RLE blocks of `byte`, BLOCK bytes each: 4 bytes on disk per 128 KiB of text. */
function rleBlocks(count: number, byte: number): Buffer {
  const out = Buffer.alloc(count * 4);
  for (let i = 0; i < count; i++) {
    const h = (BLOCK << 3) | (1 << 1) | (i === count - 1 ? 1 : 0);
    out[i * 4] = h & 0xff;
    out[i * 4 + 1] = (h >> 8) & 0xff;
    out[i * 4 + 2] = (h >> 16) & 0xff;
    out[i * 4 + 3] = byte;
  }
  return out;
}
/** A frame of raw blocks holding `text` (no checksum). */
function rawFrame(text: string): Buffer {
  const t = Buffer.from(text);
  const h = (t.length << 3) | 1;
  return Buffer.concat([frameHeader({ size: t.length }), Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]), t]);
}

// ---- the root ------------------------------------------------------------------

let root: string;
const file = (id: string) => path.join(root, '--a--', id, 'session.jsonl.zstd');
function put(id: string, bytes: Buffer): void {
  fs.mkdirSync(path.dirname(file(id)), { recursive: true });
  fs.writeFileSync(file(id), bytes);
}
/** A session compressed by the zstd tool from a shell pipeline that prints its text (never on disk decoded). */
function piped(id: string, pipeline: string): void {
  fs.mkdirSync(path.dirname(file(id)), { recursive: true });
  execSync(`(${pipeline}) | zstd -q -c > '${file(id)}'`, { shell: '/bin/sh', stdio: ['ignore', 'ignore', 'inherit'] });
}

const GiB = 1024 * 1024 * 1024;

beforeAll(() => {
  if (!fs.existsSync(BIN)) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  root = tmpDir('dsh-bombs-');
  put('ok', Buffer.concat([rawFrame(header('ok')), rawFrame(turn)]));
  const blocks = Math.ceil((MAX_TEXT + 64 * 1024 * 1024) / BLOCK); // past the limit
  // a long single line: 1.06 GiB of 'a' after a whole turn
  put('long-line', Buffer.concat([rawFrame(header('long-line') + turn), frameHeader({ windowLog: 17, size: 5e9 }), rleBlocks(blocks, 0x61)]));
  // the largest window a decoder allows, streamed through to the limit
  put('big-window', Buffer.concat([rawFrame(header('big-window') + turn), frameHeader({ windowLog: 27 }), rleBlocks(blocks, 0x62)]));
  // a window over the limit, and a single-segment frame whose size (its window) is 5 GB: refused before any memory is taken
  put('huge-window', Buffer.concat([rawFrame(header('huge-window') + turn), frameHeader({ windowLog: 31 }), rleBlocks(4, 0x63)]));
  put('huge-size', Buffer.concat([rawFrame(header('huge-size') + turn), frameHeader({ size: 5e9 }), rleBlocks(4, 0x64)]));
  // a small declared size that the blocks overrun
  put('lying-size', Buffer.concat([rawFrame(header('lying-size') + turn), frameHeader({ size: 100 }), rleBlocks(64, 0x65)]));
  if (hasZstd) {
    // the zstd tool's own: a 1.1 GB line, and 200 MB of short lines (each a problem)
    piped('tool-line', `printf '%s' '${header('tool-line').trim()}'; echo; head -c 1100000000 /dev/zero | tr '\\0' a; echo`);
    piped('tool-short', `printf '%s' '${header('tool-short').trim()}'; echo; yes '{"type":"x","seq":0,"time":1,"data":{}}' | head -c 200000000`);
  }
}, 120_000);
afterAll(() => cleanupTmp());

/** Runs the CLI, killed past the bound (bounded-run.ts). */
const runBounded = (args: string[], bound = RSS_BOUND) => runBoundedCli(args, { killAt: bound });

interface Listed {
  sessions: Array<{ id: string; events: number; turns: number }>;
  diagnostics: Array<{ file: string; line?: number; code: string; message: string }>;
}

describe('compressed bombs: bounded memory, a diagnostic, the rest of the root listed', () => {
  let run: Run;
  let listed: Listed;
  beforeAll(async () => {
    run = await runBounded(['list', '--dir', root, '--json']);
    listed = run.killed ? { sessions: [], diagnostics: [] } : JSON.parse(run.stdout);
  }, 180_000);
  const diags = (id: string) => listed.diagnostics.filter((d) => d.file === file(id));
  const session = (id: string) => listed.sessions.find((s) => s.id === id);

  it(`list finishes under ${RSS_BOUND / 2 ** 20} MB RSS and lists every session`, () => {
    expect(run.killed, `killed at ${Math.round(run.peak / 2 ** 20)} MB`).toBe(false);
    expect(run.peak).toBeLessThanOrEqual(RSS_BOUND);
    expect(run.code).toBe(0);
    expect(session('ok')).toMatchObject({ events: 3, turns: 1 });
    for (const id of ['long-line', 'big-window', 'huge-window', 'huge-size', 'lying-size']) expect(session(id), id).toMatchObject({ events: 3, turns: 1 });
  });

  it('a line past the limit: LINE_TOO_LONG with its file, line and byte offset; the turn before it is kept', () => {
    const d = diags('long-line');
    expect(d.map((x) => x.code)).toEqual(['LINE_TOO_LONG']);
    expect(d[0].line).toBe(5);
    expect(d[0].message).toMatch(new RegExp(`line runs over ${MAX_TEXT} bytes with no end \\(from byte \\d+\\)`));
    expect(diags('big-window').map((x) => x.code)).toEqual(['LINE_TOO_LONG']);
  });

  it('a window over the limit, or a single-segment frame claiming 5 GB: refused with the frame\'s byte offset', () => {
    for (const id of ['huge-window', 'huge-size']) {
      const d = diags(id);
      expect(d.map((x) => x.code), id).toEqual(['ZSTD_CORRUPT']);
      expect(d[0].message).toMatch(new RegExp(`zstd frame at byte \\d+ needs a \\d+-byte window, over the ${MAX_WINDOW}-byte limit`));
    }
  });

  it('a frame whose blocks overrun its declared size: ZSTD_CORRUPT at that frame', () => {
    const d = diags('lying-size');
    expect(d.map((x) => x.code)).toEqual(['ZSTD_CORRUPT']);
    expect(d[0].message).toMatch(/zstd frame at byte \d+ could not be decoded/);
  });

  it.skipIf(!hasZstd)('the zstd tool\'s bombs: a 1.1 GB line is given up at the limit; 200 MB of bad short lines list at most the capped number of problems', () => {
    expect(diags('tool-line').map((x) => x.code)).toEqual(['LINE_TOO_LONG']);
    expect(session('tool-line')).toMatchObject({ events: 0 });
    const short = diags('tool-short');
    expect(short.length).toBe(MAX_DIAGNOSTICS + 1);
    expect(short.at(-1)).toMatchObject({ code: 'TOO_MANY_DIAGNOSTICS' });
  });
});

describe('damaged streamed frames end with a diagnostic, never a hang (both decoders)', () => {
  it('a compressed block of garbage in a frame without a declared size', async () => {
    const dir = tmpDir('dsh-bombs-garbage-');
    const f = path.join(dir, 'session.jsonl.zstd');
    let x = 12345;
    const garbage = Buffer.alloc(5000, 0).map(() => (x = (x * 1103515245 + 12345) >>> 0) >>> 24);
    const h = (garbage.length << 3) | (2 << 1) | 1; // one compressed block, the last
    fs.writeFileSync(f, Buffer.concat([rawFrame(header('g') + turn), frameHeader({ windowLog: 20 }), Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]), garbage, rawFrame(turn)]));
    await initDecoder();
    for (const wasm of [true, false]) {
      useWasmDecoder(wasm);
      try {
        const r = readZstdLog(f, true);
        expect(r.reader.diagnostics.map((d) => d.code), `wasm ${wasm}`).toEqual(['ZSTD_CORRUPT']);
        expect(r.reader.diagnostics[0].message).toMatch(/zstd frame at byte \d+ could not be decoded/);
        expect(r.reader.events).toHaveLength(3);
      } finally {
        useWasmDecoder(true);
      }
    }
  });
});

describe('the limit on decoded text', () => {
  it('a compressed log that decodes past the limit in whole lines: ZSTD_TOO_LARGE with the offsets, the lines before it read', () => {
    const dir = tmpDir('dsh-bombs-lines-');
    const f = path.join(dir, 'session.jsonl.zstd');
    const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ type: 'model/message', seq: i + 3, time: 1700000000004, data: { content: [{ type: 'text', text: 'x'.repeat(60) }] } }) + '\n');
    fs.writeFileSync(f, Buffer.concat([rawFrame(header('nl') + turn), rawFrame(lines.slice(0, 10_000).join('')), rawFrame(lines.slice(10_000).join(''))]));
    const r = readZstdLog(f, false, undefined, { maxText: 1024 * 1024 });
    const d = r.reader.diagnostics;
    expect(d.map((x) => x.code)).toEqual(['ZSTD_TOO_LARGE']);
    expect(d[0].message).toMatch(/decodes to more than 1048576 bytes: the rest is not read \(stopped at decoded byte 1048576, compressed byte \d+\)/);
    expect(r.reader.consumed).toBeLessThanOrEqual(1024 * 1024);
    expect(r.reader.facts.events).toBeGreaterThan(3 + 5000);
    expect(r.reader.facts.events).toBeLessThan(3 + 20_000);
    expect(r.pending).toBe(0);
    expect(MAX_TEXT).toBe(GiB); // the bound a plain log's longest line has
  });
});

describe('the bound on decoded text grows with the size on disk', () => {
  it('a log under MAX_RATIO times its size reads whole past the floor; one over it is cut there with ZSTD_TOO_LARGE', () => {
    if (!hasZstd) return;
    setTextFloor(64 * 1024); // as if MAX_TEXT were 64 KiB: no gigabyte of text in a test
    try {
      const dir = tmpDir('dsh-bombs-ratio-');
      // hashes barely compress: ~300 KB of text in stored frames, under 64 times its size
      const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ type: 'model/message', seq: i + 3, time: 1700000000004, data: { content: [{ type: 'text', text: createHash('sha256').update(String(i)).digest('hex') }] } }) + '\n');
      const plainish = path.join(dir, 'a', 'session.jsonl.zstd');
      fs.mkdirSync(path.dirname(plainish));
      fs.writeFileSync(plainish, Buffer.concat([rawFrame(header('ok') + turn), encodeStoredFrame(Buffer.from(lines.join('')))]));
      const r = readZstdLog(plainish, false);
      expect(r.reader.diagnostics).toEqual([]);
      expect(r.reader.facts.events).toBe(2003);
      // nearly the same line again and again: the zstd tool makes 6 MB of it ~180 times smaller
      const same = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ type: 'model/message', seq: i + 3, time: 1700000000004, data: { content: [{ type: 'text', text: 'x'.repeat(200) }] } }) + '\n').join('');
      const squeezed = path.join(dir, 'b', 'session.jsonl.zstd');
      fs.mkdirSync(path.dirname(squeezed));
      fs.writeFileSync(squeezed, Buffer.concat([rawFrame(header('sq') + turn), execSync('zstd -q -3 -c', { input: same })]));
      const size = fs.statSync(squeezed).size;
      expect(same.length).toBeGreaterThan(size * MAX_RATIO * 1.5);
      expect(size * MAX_RATIO).toBeGreaterThan(10 * 64 * 1024); // the bound is the ratio's, not the floor's
      const cut = readZstdLog(squeezed, false);
      expect(cut.reader.diagnostics.map((d) => d.code)).toContain('ZSTD_TOO_LARGE');
      expect(cut.reader.diagnostics.find((d) => d.code === 'ZSTD_TOO_LARGE')!.message).toMatch(new RegExp(`^decodes to more than ${textBound(size)} bytes: the rest is not read .*read to ${MAX_RATIO} times its size on disk`));
      expect(cut.reader.consumed).toBeLessThanOrEqual(size * MAX_RATIO);
      expect(cut.reader.consumed).toBeGreaterThan(size * MAX_RATIO - 1024);
    } finally {
      setTextFloor(MAX_TEXT);
    }
  });
});

describe('the browser and its follower with bombs in the root', () => {
  afterAll(() => killAllPtys());
  it('lists every session, follows a session that arrives after, shows the diagnostics in Problems, and stays under the bound', async () => {
    const tui = spawnPty(process.execPath, [BIN, root], { cols: 140, rows: 50 });
    await tui.waitFor('huge-window', 60_000);
    await tui.waitFor((s) => s.includes('ok') && s.includes('lying-size'), 60_000);
    put('late', Buffer.concat([rawFrame(header('late')), rawFrame(turn.replace('still here', 'arrived later'))]));
    await tui.waitFor('arrived later', 60_000);
    tui.write('\x1b[Z'); // Shift-Tab: the Problems tab lists the bombs' diagnostics
    await tui.waitFor((s) => s.includes('ZSTD_CORRUPT') && s.includes('LINE_TOO_LONG'), 30_000);
    const peak = Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${tui.pid}/status`, 'utf8'))![1]) * 1024;
    // the browser's own baseline is ~100 MB more than list's (Ink, React), and the big-window
    // frame legitimately holds zstd's largest window (128 MiB) while it is decoded
    expect(peak, `TUI peak RSS ${Math.round(peak / 2 ** 20)} MB`).toBeLessThanOrEqual(RSS_BOUND + 100 * 2 ** 20);
    tui.write('q');
    expect((await tui.exited).exitCode).toBe(0);
    fs.rmSync(path.dirname(file('late')), { recursive: true });
  }, 150_000);
});
