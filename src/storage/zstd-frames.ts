// Zstandard container of rc.8's compressed session logs (session.jsonl.zstd):
// one frame holding the header line, then one frame per durable append batch.
// This file knows the container: frames and blocks found structurally (RFC
// 8878 headers, read a few bytes at a time, never the whole file), the two
// decoders, and the writer. Decoding as a bounded stream is zstd-stream.ts.
//
// Node 20 has no zstd, and a native addon needs a build step an offline
// install cannot run, so: zstddec (the reference C decoder compiled to
// WebAssembly, ~650 MB/s here) once initDecoder() has run (async: the CLI and
// the browser await it before reading a root), and fzstd (pure JavaScript,
// synchronous) before that and for what zstddec refuses. Writing compressed
// frames is zstd-encode.ts; encodeStoredFrame here (raw blocks with the XXH64
// content checksum: valid zstd any decoder reads) is its fallback until the
// encoder is loaded, and the tests' way to make exact frames.
import { decompress } from 'fzstd';
import { ZSTDDecoder } from 'zstddec/stream';
import { readFullyAt } from './open-file.js';

let wasm: ZSTDDecoder | undefined;
let wasmInit: Promise<void> | undefined;

/** Loads the WebAssembly decoder (~20 ms); until it is ready, and if it fails, fzstd decodes. */
export function initDecoder(): Promise<void> {
  wasmInit ??= (async () => {
    try {
      const d = new ZSTDDecoder();
      await d.init();
      wasm = d;
    } catch {
      /* fzstd stays */
    }
  })();
  return wasmInit;
}

let wasmOff = false;
/** The WebAssembly decoder, when it is loaded and not switched off. */
export const wasmDecoder = (): ZSTDDecoder | undefined => (wasmOff ? undefined : wasm);
export const wasmDecoderReady = (): boolean => wasmDecoder() !== undefined;
/** Tests: decode with fzstd only (on = false), or with zstddec when it is loaded. */
export function useWasmDecoder(on: boolean): void {
  wasmOff = !on;
}

const MAGIC = 0xfd2fb528;
const MAX_BLOCK = 128 * 1024;
/**
 * The largest window a frame may ask for: zstd's own default decoding limit
 * (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 2^27), which the harness's decoder (Node's
 * zlib) and the zstd tool keep too. A bigger one is refused before any memory
 * is taken for it; in a single-segment frame the window is the content size.
 */
export const MAX_WINDOW = 1 << 27;

/** Where the bytes come from: a file (positioned reads) or a buffer. */
export interface ByteSource {
  readonly size: number;
  /** up to `len` bytes from `pos` (fewer at the end) */
  read(pos: number, len: number): Uint8Array;
}

export const bufferSource = (b: Uint8Array): ByteSource => ({ size: b.length, read: (pos, len) => b.subarray(pos, Math.min(b.length, pos + len)) });

export function fdSource(fd: number, size: number): ByteSource {
  return {
    size,
    read(pos, len) {
      const buf = Buffer.allocUnsafe(Math.max(0, Math.min(len, size - pos)));
      return buf.subarray(0, readFullyAt(fd, buf, pos));
    },
  };
}

/** Small reads of headers through a 4 KiB page (many small frames share a page). */
export class HeaderReader {
  private page: Uint8Array = new Uint8Array(0);
  private at = 0;
  readonly size: number;
  constructor(private readonly src: ByteSource) {
    this.size = src.size;
  }
  /** `n` bytes at `off`, or undefined when the source ends first */
  bytes(off: number, n: number): Uint8Array | undefined {
    if (off < this.at || off + n > this.at + this.page.length) {
      if (off + n > this.src.size) return undefined;
      this.page = this.src.read(off, Math.max(n, 4096));
      this.at = off;
      if (this.page.length < n) return undefined;
    }
    return this.page.subarray(off - this.at, off - this.at + n);
  }
}

export type FrameInfo =
  /** a structurally complete frame; `size` when its header says it; `window` the history it needs */
  | { kind: 'frame'; start: number; end: number; window: number; size?: number }
  /** the source ends inside this frame (an append in progress, or a crash); `window` once its header is complete */
  | { kind: 'torn'; start: number; window?: number; size?: number }
  /** a skippable frame (no text) */
  | { kind: 'skippable'; start: number; end: number }
  /** the bytes at `start` are not a zstd frame: everything from there is unreadable */
  | { kind: 'bad'; start: number; error: string };

const u32 = (b: Uint8Array, o: number) => (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16)) + b[o + 3] * 0x1000000;

/** The frame that starts at `start`, found from its frame and block headers without decoding. */
export function frameAt(r: HeaderReader, start: number): FrameInfo {
  const bad = (why: string): FrameInfo => ({ kind: 'bad', start, error: `${why} at byte ${start}` });
  const magic = r.bytes(start, 4);
  if (!magic) return { kind: 'torn', start };
  const m = u32(magic, 0);
  if (m >>> 4 === 0x184d2a5) {
    const len = r.bytes(start + 4, 4);
    if (!len) return { kind: 'torn', start };
    return { kind: 'skippable', start, end: start + 8 + u32(len, 0) };
  }
  if (m !== MAGIC) return bad('not a zstd frame (bad magic number)');
  const fhdB = r.bytes(start + 4, 1);
  if (!fhdB) return { kind: 'torn', start };
  const fhd = fhdB[0];
  if (fhd & 0x08) return bad('reserved bit set in a zstd frame header');
  const fcsFlag = fhd >> 6;
  const single = (fhd & 0x20) !== 0;
  const checksum = (fhd & 0x04) !== 0;
  const didBytes = [0, 1, 2, 4][fhd & 3];
  const fcsBytes = fcsFlag === 0 ? (single ? 1 : 0) : 1 << fcsFlag;
  const rest = r.bytes(start + 5, (single ? 0 : 1) + didBytes + fcsBytes);
  if (!rest) return { kind: 'torn', start };
  const at = rest.length - fcsBytes;
  const size =
    fcsBytes === 1 ? rest[at] : fcsBytes === 2 ? rest[at] + (rest[at + 1] << 8) + 256 : fcsBytes === 4 ? u32(rest, at) : fcsBytes === 8 ? u32(rest, at) + u32(rest, at + 4) * 2 ** 32 : undefined;
  let window: number;
  if (single) window = size!;
  else {
    const wd = rest[0];
    const base = 2 ** (10 + (wd >> 3));
    window = base + (base / 8) * (wd & 7);
  }
  const head = { start, window, ...(size !== undefined ? { size } : {}) };
  let off = start + 5 + rest.length;
  for (;;) {
    const bh = r.bytes(off, 3);
    if (!bh) return { kind: 'torn', ...head };
    const h = bh[0] | (bh[1] << 8) | (bh[2] << 16);
    off += 3;
    const type = (h >> 1) & 3;
    if (type === 3) return bad('reserved block type in a zstd frame');
    off += type === 1 ? 1 : h >>> 3;
    if (off > r.size) return { kind: 'torn', ...head };
    if (h & 1) break;
  }
  if (checksum) off += 4;
  if (off > r.size) return { kind: 'torn', ...head };
  return { kind: 'frame', end: off, ...head };
}

export interface FrameScan {
  /** [start, end) of each structurally complete frame, and its content size when the header says it */
  frames: Array<{ start: number; end: number; size?: number }>;
  /** start of an incomplete final frame (EOF inside it) */
  tornStart?: number;
  /** set when the bytes at `badAt` are not a zstd frame: everything from there is unreadable */
  error?: string;
  badAt?: number;
}

/** Every frame of a buffer (tests, small inputs). */
export function scanFrames(buf: Uint8Array): FrameScan {
  const r = new HeaderReader(bufferSource(buf));
  const frames: FrameScan['frames'] = [];
  for (let pos = 0; pos < buf.length; ) {
    const f = frameAt(r, pos);
    if (f.kind === 'torn') return { frames, tornStart: f.start };
    if (f.kind === 'bad') return { frames, error: f.error, badAt: f.start };
    if (f.kind === 'frame') frames.push(f.size === undefined ? { start: f.start, end: f.end } : { start: f.start, end: f.end, size: f.size });
    pos = f.end;
  }
  return { frames };
}

/** One-shot decode of whole frames whose sizes are known and small: the text, or undefined when the bytes are bad. */
export function decodeWhole(bytes: Uint8Array, total: number): Uint8Array | undefined {
  // The reference decoder's verdict is final (it checks block sizes and checksums; fzstd is lenient with both).
  const w = wasmDecoder();
  if (w) {
    try {
      const out = total === 0 ? new Uint8Array(0) : w.decode(bytes, total);
      return out.length === total ? out : undefined;
    } catch {
      return undefined;
    }
  }
  try {
    const out = decompress(bytes);
    return out.length === total ? out : undefined;
  } catch {
    return undefined;
  }
}

// ---- writing: raw-block frames with the XXH64 content checksum -------------

const M64 = (1n << 64n) - 1n;
const P1 = 11400714785074694791n;
const P2 = 14029467366897019727n;
const P3 = 1609587929392839161n;
const P4 = 9650029242287828579n;
const P5 = 2870177450012600261n;
const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & M64;
const round = (acc: bigint, lane: bigint) => (rotl((acc + lane * P2) & M64, 31n) * P1) & M64;
const merge = (h: bigint, v: bigint) => (((h ^ round(0n, v)) * P1 + P4) & M64);

/** XXH64 with seed 0 (the zstd content checksum is its low 32 bits). */
export function xxh64(data: Uint8Array): bigint {
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const len = data.length;
  let i = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = (P1 + P2) & M64;
    let v2 = P2;
    let v3 = 0n;
    let v4 = (M64 + 1n - P1) & M64;
    for (; i + 32 <= len; i += 32) {
      v1 = round(v1, dv.getBigUint64(i, true));
      v2 = round(v2, dv.getBigUint64(i + 8, true));
      v3 = round(v3, dv.getBigUint64(i + 16, true));
      v4 = round(v4, dv.getBigUint64(i + 24, true));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & M64;
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    h = merge(h, v4);
  } else h = P5;
  h = (h + BigInt(len)) & M64;
  for (; i + 8 <= len; i += 8) h = (rotl(h ^ round(0n, dv.getBigUint64(i, true)), 27n) * P1 + P4) & M64;
  if (i + 4 <= len) {
    h = (rotl(h ^ ((BigInt(dv.getUint32(i, true)) * P1) & M64), 23n) * P2 + P3) & M64;
    i += 4;
  }
  for (; i < len; i++) h = (rotl(h ^ ((BigInt(data[i]) * P5) & M64), 11n) * P1) & M64;
  h ^= h >> 33n;
  h = (h * P2) & M64;
  h ^= h >> 29n;
  h = (h * P3) & M64;
  h ^= h >> 32n;
  return h;
}

/** One checksummed zstd frame holding `text` in raw blocks. */
export function encodeStoredFrame(text: Uint8Array): Buffer {
  const blocks = Math.max(1, Math.ceil(text.length / MAX_BLOCK));
  const out = Buffer.allocUnsafe(4 + 1 + 8 + blocks * 3 + text.length + 4);
  let o = out.writeUInt32LE(MAGIC, 0);
  // Frame_Header_Descriptor: 8-byte content size, single segment, checksum.
  o = out.writeUInt8(0xe4, o);
  out.writeBigUInt64LE(BigInt(text.length), o);
  o += 8;
  for (let b = 0; b < blocks; b++) {
    const from = b * MAX_BLOCK;
    const size = Math.min(MAX_BLOCK, text.length - from);
    const header = (size << 3) | (0 << 1) | (b === blocks - 1 ? 1 : 0);
    out[o] = header & 0xff;
    out[o + 1] = (header >> 8) & 0xff;
    out[o + 2] = (header >> 16) & 0xff;
    o += 3;
    out.set(text.subarray(from, from + size), o);
    o += size;
  }
  out.writeUInt32LE(Number(xxh64(text) & 0xffffffffn), o);
  return out;
}
