// Compressed rc.8 roots (session.jsonl.zstd): one checksummed frame with the
// header line, then one frame per append batch. Test files are made by the
// zstd command line tool. Read, torn last frame, live append of a frame, fork
// into a compressed root, mixed-encoding refusal.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { followRoot, type Follower } from '../../src/storage/follow.js';
import { allDiagnostics, loadRoot, loadRootSync } from '../../src/storage/load-root.js';
import { readLog, startReadLog } from '../../src/storage/session-file.js';
import { encodeStoredFrame, initDecoder, scanFrames, useWasmDecoder, wasmDecoderReady, xxh64 } from '../../src/storage/zstd-frames.js';
import { decodedText, decodeZstdLog } from '../../src/storage/zstd-stream.js';
import { frameMapOf, setSeekStep } from '../../src/storage/zstd-seek.js';
import { cleanupTmp, evs, forkError, hdr, listTree, logText, REAL_DIR, tmpDir, turnRows } from '../support/fixtures.js';
import { hasZstd, realFiles, realRoot, zstdFrames } from '../support/real-roots.js';
import { encodeFrame, encoderReady } from '../../src/storage/zstd-encode.js';

let follower: Follower | undefined;
afterEach(() => {
  follower?.close();
  follower = undefined;
  cleanupTmp();
});

const zstdTool = (args: string[], input?: Buffer | string): Buffer => execFileSync('zstd', args, { maxBuffer: 64 << 20, ...(input === undefined ? {} : { input }) });
const frame = (text: string): Buffer => zstdTool(['-q', '--check', '-c'], text);
const H = hdr('z', { cwd: '/a', delegationDepth: 0 });
const T1 = evs(...turnRows(1));
const T2 = evs(...turnRows(1), ...turnRows(2)).slice(7);
const lines = (events: readonly object[]) => events.map((e) => JSON.stringify(e) + '\n').join('');

function compressedSession(root: string, batches: string[]): string {
  const file = path.join(root, '--a--', 'z', 'session.jsonl.zstd');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.concat([frame(JSON.stringify(H) + '\n'), ...batches.map(frame)]));
  return file;
}

describe('frames (pure)', () => {
  it('xxh64 matches the reference vectors', () => {
    expect(xxh64(Buffer.alloc(0)).toString(16)).toBe('ef46db3751d8e999');
    expect(xxh64(Buffer.from('a')).toString(16)).toBe('d24ec4f1a98c6e5b');
  });
  it.skipIf(!hasZstd)('our stored frames pass `zstd -t` (checksum) and decode to the text; empty and multi-block too', () => {
    const dir = tmpDir();
    const big = Buffer.from('x'.repeat(300_000) + '\n');
    for (const text of [Buffer.from('{"a":1}\n'), Buffer.alloc(0), big]) {
      const f = path.join(dir, 'f.zst');
      fs.writeFileSync(f, encodeStoredFrame(text));
      expect(() => zstdTool(['-q', '-t', f])).not.toThrow();
      expect(zstdTool(['-q', '-dc', f]).equals(text)).toBe(true);
      expect(decodedText(decodeZstdLog(fs.readFileSync(f))).equals(text)).toBe(true);
    }
  });
  it('not zstd at all: an error with the byte offset, nothing decoded', () => {
    const d = decodeZstdLog(Buffer.from('{"type":"session"}\n'));
    expect(d.error).toMatch(/bad magic number\) at byte 0/);
    expect(d.length).toBe(0);
    expect(scanFrames(Buffer.alloc(0))).toEqual({ frames: [] });
  });
});

describe.skipIf(!hasZstd)('reading compressed logs', () => {
  it('a compressed copy of the rc.8 real logs lists exactly like the plain one (3 lines per frame)', () => {
    const plain = loadRootSync(realRoot(tmpDir(), 'rc8').root);
    const packed = loadRootSync(realRoot(tmpDir(), 'rc8', { compressed: true, linesPerFrame: 3 }).root);
    const view = (idx: ReturnType<typeof loadRootSync>) =>
      idx.store
        .list()
        .map((s) => ({ id: s.id, state: s.state, events: s.events, boundaries: s.facts.boundaries, title: s.facts.title, turns: s.facts.turns }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(packed.store.size).toBe(19);
    expect(allDiagnostics(packed)).toEqual([]);
    expect(view(packed)).toEqual(view(plain));
  });

  it('a frame whose last 8 KiB slice is only the end of its checksum: the next frame is read from where the frame ends', async () => {
    // the decoder is fed a frame 8 KiB at a time and can finish before the last slice: a frame of
    // 8192k + 1..3 bytes left the next read inside the checksum ("bad magic number"), found on a 1 GB log
    await initDecoder();
    let big: Buffer | undefined;
    let line = '';
    // hashes: text that hardly compresses, so the frame grows with its length: a binary search for 16384 + 1..3 bytes
    const pool = Array.from({ length: 2000 }, (_, i) => crypto.createHash('md5').update(String(i)).digest('base64')).join('');
    const lineOf = (n: number) => JSON.stringify({ type: 'user/message', seq: 0, time: 1, data: { content: [{ type: 'text', text: pool.slice(0, n) }], source: 'user' } }) + '\n';
    let lo = 1000;
    let hi = pool.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (frame(lineOf(mid)).length >= 16385) hi = mid;
      else lo = mid + 1;
    }
    for (let n = lo; n < lo + 50 && !big; n++) {
      const f = frame(lineOf(n));
      if (f.length % 8192 >= 1 && f.length % 8192 <= 3) [big, line] = [f, lineOf(n)];
    }
    expect(big).toBeDefined();
    const root = tmpDir();
    const file = path.join(root, '--a--', 'z', 'session.jsonl.zstd');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const rest = lines(evs(...turnRows(1)).slice(1).map((e, i) => ({ ...e, seq: i + 1 })));
    fs.writeFileSync(file, Buffer.concat([frame(JSON.stringify(H) + '\n'), big!, frame(rest)]));
    for (const wasm of [true, false]) {
      useWasmDecoder(wasm);
      try {
        const r = readLog(file, true);
        expect(r.reader.diagnostics, `wasm ${wasm}`).toEqual([]);
        expect(r.reader.consumed).toBe(Buffer.byteLength(JSON.stringify(H) + '\n' + line + rest));
      } finally {
        useWasmDecoder(true);
      }
    }
  });

  it('a torn last frame keeps the records of its complete blocks, with a ZSTD_TORN_FRAME warning that says where it starts', () => {
    const root = tmpDir();
    const file = compressedSession(root, [lines(T1), lines(T2)]);
    const full = fs.readFileSync(file);
    const whole = loadRootSync(root).store.get(file)!;
    expect(whole.length).toBe(14);
    expect(whole.diagnostics).toEqual([]);
    // cut inside the last frame: the first batch's events stay
    fs.writeFileSync(file, full.subarray(0, full.length - 6));
    const idx = loadRootSync(root);
    const s = idx.store.get(file)!;
    const last = scanFrames(full).frames.at(-1)!;
    expect(s.diagnostics).toEqual([expect.objectContaining({ file, severity: 'warning', code: 'ZSTD_TORN_FRAME' })]);
    expect(s.diagnostics[0].message).toContain(`starts at compressed byte ${last.start} and the file ends ${full.length - 6 - last.start} bytes later`);
    expect(s.events.slice(0, 7)).toEqual(whole.events.slice(0, 7));
    expect(s.length).toBeGreaterThanOrEqual(7);
    expect(s.length).toBeLessThanOrEqual(14);
  });

  it.skipIf(!hasZstd)('at every byte cut of a compressed log (stored blocks, ours compressed, the zstd tool\'s) the events are the complete lines of what libzstd decodes of it, as the harness reads it', async () => {
    await initDecoder(); // the reference decoder (zstddec): a raw block's bytes as they come, a compressed block once whole
    const head = JSON.stringify(H) + '\n';
    const batches = [lines(T1.slice(0, 3)), lines(T1.slice(3, 5)), lines([...T1.slice(5), ...T2])];
    const variants: Record<string, Buffer> = {
      stored: Buffer.concat([head, ...batches].map((t) => encodeStoredFrame(Buffer.from(t)))),
      ours: Buffer.concat([head, ...batches].map((t) => encodeFrame(Buffer.from(t)))),
      tool: Buffer.concat([head, ...batches].map(frame)),
    };
    const root = tmpDir();
    const file = path.join(root, '--a--', 'z', 'session.jsonl.zstd');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const all = [...T1, ...T2].map((e) => JSON.stringify(e));
    for (const [name, full] of Object.entries(variants)) {
      const frames = scanFrames(full).frames;
      // every cut inside the second batch's frame (and at its ends), every ninth one after it
      const cuts = [];
      for (let cut = frames[2].start; cut <= frames[2].end; cut++) cuts.push(cut);
      for (let cut = frames[2].end + 1; cut < full.length; cut += 9) cuts.push(cut);
      for (const cut of cuts) {
        const bytes = full.subarray(0, cut);
        let text: string;
        try {
          text = zstdTool(['-q', '-dc'], bytes).toString('utf8');
        } catch (e) {
          text = ((e as { stdout: Buffer }).stdout ?? Buffer.alloc(0)).toString('utf8'); // it says the input ended early
        }
        const complete = text.slice(head.length, text.lastIndexOf('\n') + 1).split('\n').slice(0, -1);
        fs.writeFileSync(file, bytes);
        const r = readLog(file, true);
        const events = r.reader.takeEvents().map((e) => JSON.stringify(e));
        expect(events, `${name}, cut at ${cut}`).toEqual(complete.map((l) => JSON.stringify(JSON.parse(l))));
        expect(all.slice(0, events.length)).toEqual(events);
        const torn = !frames.some((f) => f.end === cut);
        expect(r.reader.diagnostics.map((d) => d.code), `${name}, cut at ${cut}`).toEqual(torn ? ['ZSTD_TORN_FRAME'] : []);
      }
    }
  }, 120_000);

  it('a torn frame whose block is not complete yet adds nothing; the session is the complete frames', () => {
    const root = tmpDir();
    const file = compressedSession(root, [lines(T1)]);
    const second = frame(lines(T2));
    fs.appendFileSync(file, second.subarray(0, 8));
    const s = loadRootSync(root).store.get(file)!;
    expect(s.length).toBe(7);
    expect(s.state).toBe('at-boundary');
  });

  it('damage after the header frame: the records before it load, with a ZSTD_CORRUPT diagnostic', () => {
    const root = tmpDir();
    const file = compressedSession(root, [lines(T1)]);
    fs.appendFileSync(file, Buffer.from('garbage that is not a frame'));
    const idx = loadRootSync(root);
    const s = idx.store.get(file)!;
    expect(s.length).toBe(7);
    expect(s.diagnostics.map((d) => d.code)).toEqual(['ZSTD_CORRUPT']);
  });

  it('follows a compressed session live: a new frame appended shows its events', async () => {
    const root = tmpDir();
    const file = compressedSession(root, [lines(T1)]);
    const idx = await loadRoot(root); // as the app loads a root: its compressed log loads the WebAssembly zstd first
    const s = idx.store.get(file)!;
    expect(s.length).toBe(7);
    follower = followRoot(idx, { forcePolling: true, pollIntervalMs: 1_000_000 });
    fs.appendFileSync(file, frame(lines(T2)));
    const st = fs.statSync(file);
    follower.apply([{ kind: 'grown', file, size: st.size, ino: st.ino, mtimeMs: st.mtimeMs }]);
    const live = idx.store.get(file)!;
    expect(live.length).toBe(14);
    expect(live.facts.turns).toBe(2);
    expect(live.events).toEqual(loadRootSync(root).store.get(file)!.events);
  });
  it('follows a large compressed session by decoding only its new frames; a torn frame written again is read again whole', async () => {
    setSeekStep(1); // every log's map kept, as a large one's is
    try {
      const root = tmpDir();
      const file = compressedSession(root, [lines(T1)]);
      const idx = await loadRoot(root);
      const s = idx.store.get(file)!;
      const reader = s.log;
      follower = followRoot(idx, { forcePolling: true, pollIntervalMs: 1_000_000 });
      const grown = () => {
        const st = fs.statSync(file);
        follower!.apply([{ kind: 'grown', file, size: st.size, ino: st.ino, mtimeMs: st.mtimeMs }]);
      };
      const fresh = () => loadRootSync(root).store.get(file)!;
      fs.appendFileSync(file, frame(lines(T2)));
      grown();
      expect(s.log).toBe(reader); // fed, not read again
      expect(s.length).toBe(14);
      expect(s.facts).toEqual(fresh().facts);
      // a torn frame (an append in progress): the log is read again, and again once the harness writes it over
      const T3 = evs(...turnRows(1), ...turnRows(2), ...turnRows(3)).slice(14);
      const whole = frame(lines(T3));
      const size = fs.statSync(file).size;
      fs.appendFileSync(file, whole.subarray(0, whole.length - 6));
      grown();
      fs.truncateSync(file, size);
      fs.appendFileSync(file, whole);
      grown();
      expect(s.length).toBe(21);
      expect(s.facts).toEqual(fresh().facts);
      const after = s.log;
      fs.appendFileSync(file, frame(lines(evs(...turnRows(4)).map((e, i) => ({ ...e, seq: 21 + i })))));
      grown();
      expect(s.log).toBe(after); // fed again
      expect(s.length).toBe(28);
      expect(s.facts).toEqual(fresh().facts);
    } finally {
      setSeekStep(1024 * 1024);
    }
  });

  it('a whole read of a log known before (its export, its history, a search) keeps its frame map: a turn read meanwhile starts near it', () => {
    setSeekStep(1);
    try {
      const root = tmpDir();
      const file = compressedSession(root, Array.from({ length: 30 }, (_, t) => lines(evs(...turnRows(t + 1)).map((e, i) => ({ ...e, seq: t * 7 + i })))));
      loadRootSync(root); // the facts read: the map noted anew
      const places = frameMapOf(file, fs.statSync(file)).places;
      expect(places).toBeGreaterThan(30);
      const read = startReadLog(file, true); // the events from the start, in steps (an export)
      try {
        read.step(() => true);
        expect(frameMapOf(file, fs.statSync(file)).places).toBe(places);
      } finally {
        read.close();
      }
      readLog(file, false); // the follower's read again: noted anew, the same places
      expect(frameMapOf(file, fs.statSync(file)).places).toBe(places);
    } finally {
      setSeekStep(1024 * 1024);
    }
  });

  it('the child of a large compressed parent is written as it is decoded: frames of whole lines, its text the parent’s prefix byte for byte', () => {
    // ~3.5 MB of text in 60 frames, every frame noted (a seed's read starts mid-file)
    setSeekStep(1);
    try {
      const root = tmpDir();
      const turns = Array.from({ length: 60 }, (_, t) => evs(...turnRows(t + 1, { kind: 'completed' }, `prompt ${t + 1} ${'y'.repeat(60_000)}`)));
      const all = turns.flat().map((e, seq) => ({ ...e, seq }));
      const batches: string[] = [];
      for (let t = 0, at = 0; t < turns.length; at += turns[t].length, t++) batches.push(lines(all.slice(at, at + turns[t].length)));
      const file = compressedSession(root, batches);
      const idx = loadRootSync(root);
      const parent = idx.store.get(file)!;
      const cut = all.findLastIndex((e) => e.type === 'turn/end' && e.seq < all.length - 100);
      const c = idx.store.fork({ source: parent, boundary: cut, sessionId: 'big-kid' });
      const parentText = zstdTool(['-q', '-dc', file]).toString('utf8');
      const prefix = parentText.slice(parentText.indexOf('\n') + 1).split('\n').slice(0, cut + 1).join('\n') + '\n';
      const childBytes = fs.readFileSync(c.file!);
      const text = zstdTool(['-q', '-dc', c.file!]).toString('utf8');
      const body = text.slice(text.indexOf('\n') + 1);
      expect(body.slice(0, prefix.length)).toBe(prefix);
      expect(JSON.parse(body.slice(prefix.length))).toMatchObject({ type: 'session/end-seed', seq: cut + 1 });
      // the header alone, then frames of whole lines, none far over 1 MB of text
      const { frames } = scanFrames(childBytes);
      expect(frames.length).toBeGreaterThan(3);
      for (const f of frames) {
        const t = zstdTool(['-q', '-dc'], childBytes.subarray(f.start, f.end));
        expect(t[t.length - 1]).toBe(10);
        expect(t.length).toBeLessThan(1.2 * 1024 * 1024);
      }
      expect(loadRootSync(root).store.get(c.file!)!.events.slice(0, cut + 1)).toEqual(parent.events.slice(0, cut + 1));
    } finally {
      setSeekStep(1024 * 1024);
    }
  });
});

describe.skipIf(!hasZstd)('forking into a compressed root', () => {
  it('the child is session.jsonl.zstd in the root\'s encoding: `zstd -dc` gives the header, the seed lines verbatim and the end-seed marker', () => {
    const root = tmpDir();
    const file = compressedSession(root, [lines(T1), lines(T2)]);
    const idx = loadRootSync(root);
    const c = idx.store.fork({ source: idx.store.get(file)!, boundary: 6, sessionId: 'kid' });
    expect(c.file).toBe(path.join(root, '--a--', 'kid', 'session.jsonl.zstd'));
    expect(() => zstdTool(['-q', '-t', c.file!])).not.toThrow();
    const text = zstdTool(['-q', '-dc', c.file!]).toString('utf8').split('\n');
    expect(text.pop()).toBe('');
    expect(JSON.parse(text[0])).toEqual({ type: 'session', version: 0, id: 'kid', createdAt: c.header.createdAt, cwd: '/a', parentSession: 'z', seedLength: 7, delegationDepth: 0 });
    expect(text.slice(1, 8).join('\n') + '\n').toBe(lines(T1));
    expect(JSON.parse(text[8])).toMatchObject({ type: 'session/end-seed', seq: 7, data: {} });
    expect(text).toHaveLength(9);
    // the first frame is the header line alone (rc.8 checks that)
    const d = decodeZstdLog(fs.readFileSync(c.file!));
    expect(d.headerFrameIsOneLine).toBe(true);
    expect(d.frames).toBe(2);
    expect(fs.statSync(c.file!).mode & 0o777).toBe(0o600);
    // it reloads as a fork of its parent
    const re = loadRootSync(root).store.get(c.file!)!;
    expect(re.events.slice(0, 7)).toEqual(idx.store.get(file)!.events.slice(0, 7));
  });

  it('a compressed child is compressed: the header frame, then content frames with checksums (`zstd -lv`), at most 1.2x `zstd -3` of its text', () => {
    expect(encoderReady()).toBe(true); // the test setup loads it, as the app does
    // ~3 MB of text like a session's: prompts cut from the real logs, each turn's letters
    // shifted its own way (the logs are 0.4 MB: repeated as they are, zstd -3 would find
    // the repeats across frames that no frame of 1 MB can)
    const real = realFiles('rc8').map((n) => fs.readFileSync(path.join(REAL_DIR, n), 'utf8')).join('');
    const shift = (text: string, k: number) => text.replace(/[a-z]/g, (ch) => String.fromCharCode(97 + ((ch.charCodeAt(0) - 97 + k) % 26)));
    const prompt = (t: number) => shift(real.slice((t * 3001) % (real.length - 4000), ((t * 3001) % (real.length - 4000)) + 4000), t % 26);
    const turns = Array.from({ length: 700 }, (_, t) => evs(...turnRows(t + 1, { kind: 'completed' }, prompt(t))));
    const all = turns.flat().map((e, seq) => ({ ...e, seq }));
    const root = tmpDir();
    const file = compressedSession(root, [lines(all)]);
    const idx = loadRootSync(root);
    const parent = idx.store.get(file)!;
    const cut = all.findLastIndex((e) => e.type === 'turn/end');
    const c = idx.store.fork({ source: parent, boundary: cut, sessionId: 'small-kid' });
    const bytes = fs.readFileSync(c.file!);
    const text = zstdTool(['-q', '-dc', c.file!]);
    const want = zstdTool(['-q', '-dc', file]).toString('utf8').split('\n').slice(1, cut + 2).join('\n') + '\n';
    const body = text.toString('utf8').slice(text.indexOf(10) + 1);
    expect(body.slice(0, want.length)).toBe(want);
    expect(JSON.parse(body.slice(want.length))).toMatchObject({ type: 'session/end-seed', seq: cut + 1 });
    const z3 = zstdTool(['-q', '-3', '-c'], text).length;
    expect(bytes.length, `${bytes.length} bytes, zstd -3: ${z3}`).toBeLessThanOrEqual(1.2 * z3);
    expect(bytes.length).toBeLessThan(text.length / 4);
    const { frames } = scanFrames(bytes);
    const lv = execFileSync('zstd', ['-lv', c.file!], { encoding: 'utf8' });
    expect(lv).toContain(`# Zstandard Frames: ${frames.length}`);
    expect(lv).toMatch(/Check: XXH64/);
    expect(frames.length).toBeGreaterThan(3);
    frames.forEach((f, i) => {
      const t = zstdTool(['-q', '-dc'], bytes.subarray(f.start, f.end));
      expect(bytes[f.start + 4] & 0x04, `frame ${i} has a checksum`).toBe(0x04);
      expect(t[t.length - 1]).toBe(10);
      if (i === 0) expect(t.indexOf(10)).toBe(t.length - 1); // the header line alone
      else expect(f.end - f.start).toBeLessThan(t.length / 2); // compressed blocks, not stored
    });
    expect(loadRootSync(root).store.get(c.file!)!.events.slice(0, cut + 1)).toEqual(parent.events.slice(0, cut + 1));
  });

  it('a fork copies the parent\'s compressed frames that lie wholly in its seed, byte for byte, and encodes the rest; at every cut the child decodes to the seed', () => {
    // batches of two turns: compressed frames with a declared size (as rc.8 writes them), one stored
    // (raw blocks: encoded again), and from the fifth on frames without a declared size (zstd from a pipe)
    const turns = Array.from({ length: 12 }, (_, t) => evs(...turnRows(t + 1, { kind: 'completed' }, `prompt ${t + 1} ${'lorem ipsum '.repeat(40 + t)}`)));
    const all = turns.flat().map((e, seq) => ({ ...e, seq }));
    const batches: Buffer[] = [];
    const batchText: string[] = [];
    for (let b = 0, at = 0; b < 6; b++) {
      const n = turns[2 * b].length + turns[2 * b + 1].length;
      const text = lines(all.slice(at, at + n));
      at += n;
      batchText.push(text);
      batches.push(b === 2 ? encodeStoredFrame(Buffer.from(text)) : b >= 4 ? frame(text) : encodeFrame(Buffer.from(text)));
    }
    const copyable = (b: number) => b !== 2 && b < 4;
    const root = tmpDir();
    const file = path.join(root, '--a--', 'z', 'session.jsonl.zstd');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, Buffer.concat([encodeFrame(Buffer.from(JSON.stringify(H) + '\n')), ...batches]));
    const idx = loadRootSync(root);
    const parent = idx.store.get(file)!;
    const ends = all.flatMap((e) => (e.type === 'turn/end' ? [e.seq] : []));
    for (const cut of ends) {
      const c = idx.store.fork({ source: parent, boundary: cut, sessionId: `kid-${cut}` });
      const bytes = fs.readFileSync(c.file!);
      const text = zstdTool(['-q', '-dc', c.file!]).toString('utf8').split('\n');
      expect(text.slice(1, cut + 2).join('\n') + '\n', `cut ${cut}`).toBe(lines(all.slice(0, cut + 1)));
      expect(JSON.parse(text[cut + 2])).toMatchObject({ type: 'session/end-seed', seq: cut + 1 });
      // a batch wholly in the seed is in the child as the parent wrote it when it can be copied
      let inSeed = 0;
      for (let b = 0, n = 0; b < 6; b++) {
        n += batchText[b].split('\n').length - 1;
        if (n > cut + 1) break;
        inSeed++;
        expect(bytes.includes(batches[b]), `cut ${cut}, batch ${b}`).toBe(copyable(b));
      }
      expect(inSeed).toBe(Math.min(6, Math.floor((ends.indexOf(cut) + 1) / 2)));
      expect(loadRootSync(root).store.get(c.file!)!.events.slice(0, cut + 1)).toEqual(parent.events.slice(0, cut + 1));
    }
  });

  it('a child of a real log copied out of a compressed root and cut short lists the complete lines the harness recovers, with ZSTD_TORN_FRAME', async () => {
    await initDecoder(); // the reference decoder, as the app loads it first (fzstd, its fallback, gives back no part of a raw block)
    const { root, files } = realRoot(tmpDir(), 'rc8', { compressed: true, linesPerFrame: 3 });
    const idx = loadRootSync(root);
    const parent = idx.store.get(files.get('toninfo-deepseek-harness__rc8__compaction-recovery__session.jsonl')!)!;
    const child = idx.store.fork({ source: parent, sessionId: 'cut-kid' });
    for (const [name, bytes] of [['ours', fs.readFileSync(child.file!)], ['stored', Buffer.concat(scanFrames(fs.readFileSync(child.file!)).frames.map((f) => encodeStoredFrame(zstdTool(['-q', '-dc'], fs.readFileSync(child.file!).subarray(f.start, f.end)))))]] as const) {
      const other = tmpDir();
      const file = path.join(other, '--work-proj--', 'cut-kid', 'session.jsonl.zstd');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // stored: 5 bytes short (a cut into the last raw block); ours: 3 (into the checksum; 5 would cut
      // into the last compressed block, which no decoder gives back before it is whole: nothing of that frame)
      fs.writeFileSync(file, bytes.subarray(0, bytes.length - (name === 'stored' ? 5 : 3)));
      let text: string;
      try {
        text = zstdTool(['-q', '-dc', file]).toString('utf8');
      } catch (e) {
        text = ((e as { stdout: Buffer }).stdout ?? Buffer.alloc(0)).toString('utf8');
      }
      const complete = text.slice(0, text.lastIndexOf('\n') + 1).split('\n').length - 2; // lines less the header
      const s = loadRootSync(other).store.get(file)!;
      expect(s.length, name).toBe(complete);
      expect(s.length, name).toBeGreaterThan(0);
      expect(s.events).toEqual(child.ensureLoaded().events.slice(0, complete));
      expect(s.diagnostics.map((d) => d.code), `${name}, its events loaded`).toEqual(['ZSTD_TORN_FRAME']);
      expect(s.facts.zstdTornRecord).toBeUndefined();
    }
  });

  it('a root holding both encodings is refused with MIXED_ENCODING (the harness refuses such a root); nothing written', () => {
    const root = tmpDir();
    const file = compressedSession(root, [lines(T1)]);
    const plain = path.join(root, '--a--', 'other', 'session.jsonl');
    fs.mkdirSync(path.dirname(plain));
    fs.writeFileSync(plain, logText(hdr('other', { cwd: '/a', delegationDepth: 0 }), T1));
    const before = listTree(root);
    const idx = loadRootSync(root);
    for (const source of [file, plain]) {
      const e = forkError(() => idx.store.fork({ source: idx.store.get(source)!, sessionId: 'kid' }));
      expect(e.code).toBe('MIXED_ENCODING');
      expect(e.message).toContain(`session artifact ${JSON.stringify(plain)} uses .jsonl, but ${JSON.stringify(file)} uses .jsonl.zstd`);
      expect(e.message).toContain('the harness refuses a root with mixed encodings');
    }
    expect(listTree(root)).toEqual(before);
  });
});

// The first compressed read starts loading the WebAssembly decoder; this compares it with fzstd on the same files.
describe.skipIf(!hasZstd)('the WebAssembly decoder (zstddec) reads what fzstd reads', () => {
  it('same sessions from the real logs, a torn last frame and damaged bytes (no hang on bad input)', async () => {
    const build = () => {
      const root = tmpDir();
      const real = realRoot(root, 'rc8', { compressed: true, linesPerFrame: 7 });
      const torn = compressedSession(path.join(root, 'x'), [lines(T1), lines(T2)]);
      fs.truncateSync(torn, fs.statSync(torn).size - 5);
      const bad = path.join(root, 'y', '--a--', 'z', 'session.jsonl.zstd');
      fs.mkdirSync(path.dirname(bad), { recursive: true });
      const head = frame(JSON.stringify(H) + '\n');
      const second = Buffer.from(frame(lines(T1)));
      second[0] ^= 0xff; // not a frame from here on
      fs.writeFileSync(bad, Buffer.concat([head, second, frame(lines(T2))]));
      return { root, real };
    };
    const { root } = build();
    const view = () =>
      loadRootSync(root)
        .store.list()
        .map((s) => [path.relative(root, s.file!), s.events, s.diagnostics.map((d) => d.code)] as const)
        .sort((a, b) => (a[0] < b[0] ? -1 : 1));
    useWasmDecoder(false);
    expect(wasmDecoderReady()).toBe(false);
    const slow = view();
    useWasmDecoder(true);
    await initDecoder();
    expect(wasmDecoderReady()).toBe(true);
    expect(view()).toEqual(slow);
    expect(slow.length).toBeGreaterThan(2);
  });
});
