// Zstandard container of rc.8's compressed session logs (session.jsonl.zstd):
// one frame holding the header line, then one frame per durable append batch.
// Frames are found structurally (RFC 8878 frame and block headers). Node 20
// has no zstd, and a native addon needs a build step an offline install
// cannot run, so: zstddec (the reference C decoder compiled to WebAssembly,
// ~650 MB/s here) once initDecoder() has run (it is async: the headless
// commands await it; in the browser the first compressed log starts it), and fzstd (pure
// JavaScript, ~250 MB/s, synchronous) before that and for what zstddec
// refuses; fzstd's streaming decoder also yields the complete blocks of a
// torn final frame. We write frames of raw (stored) blocks with the XXH64
// content checksum: valid zstd that any decoder, the harness's included,
// reads; not smaller than the text (neither library compresses).
import { decompress, Decompress } from 'fzstd';
import { ZSTDDecoder } from 'zstddec/stream';

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
export const wasmDecoderReady = (): boolean => wasm !== undefined && !wasmOff;
/** Tests: decode with fzstd only (on = false), or with zstddec when it is loaded. */
export function useWasmDecoder(on: boolean): void {
  wasmOff = !on;
}

/**
 * The text of complete frames, as chunks, through zstddec's streaming decoder
 * (one context for all frames). Undefined when it is not ready or the data is
 * bad: its streaming loop does not stop on an error, so a run of empty outputs
 * ends it here and the caller falls back to fzstd.
 */
function wasmChunks(bytes: Uint8Array): Uint8Array[] | undefined {
  if (!wasm || wasmOff) return undefined;
  const out: Uint8Array[] = [];
  let empty = 0;
  let total = 0;
  try {
    for (const c of wasm.decodeStreaming([bytes])) {
      if (c.length === 0) {
        if (++empty > 3) return undefined;
        continue;
      }
      empty = 0;
      total += c.length;
      out.push(c);
    }
  } catch {
    return undefined;
  }
  return total >= 0 ? out : undefined;
}

const MAGIC = 0xfd2fb528;
const MAX_BLOCK = 128 * 1024;

export interface FrameScan {
  /** [start, end) of each structurally complete frame, and its content size when the header says it */
  frames: Array<{ start: number; end: number; size?: number }>;
  /** start of an incomplete final frame (EOF inside it) */
  tornStart?: number;
  /** set when the bytes at `badAt` are not a zstd frame: everything from there is unreadable */
  error?: string;
  badAt?: number;
}

/** Finds the frames of a concatenated zstd stream without decoding blocks. */
export function scanFrames(buf: Uint8Array): FrameScan {
  const frames: FrameScan['frames'] = [];
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let off = 0;
  const torn = (start: number): FrameScan => ({ frames, tornStart: start });
  const bad = (start: number, why: string): FrameScan => ({ frames, error: `${why} at byte ${start}`, badAt: start });
  while (off < buf.length) {
    const start = off;
    if (buf.length - off < 4) return torn(start);
    if (dv.getUint32(off, true) !== MAGIC) return bad(start, 'not a zstd frame (bad magic number)');
    off += 4;
    if (off >= buf.length) return torn(start);
    const fhd = buf[off++];
    if (fhd & 0x08) return bad(start, 'reserved bit set in a zstd frame header');
    const fcsFlag = fhd >> 6;
    const single = (fhd & 0x20) !== 0;
    const checksum = (fhd & 0x04) !== 0;
    const didFlag = fhd & 0x03;
    const fcsBytes = fcsFlag === 0 ? (single ? 1 : 0) : 1 << fcsFlag;
    const headerRest = (single ? 0 : 1) + [0, 1, 2, 4][didFlag] + fcsBytes;
    if (buf.length - off < headerRest) return torn(start);
    off += headerRest;
    const fcsAt = off - fcsBytes;
    const size =
      fcsBytes === 1 ? buf[fcsAt] : fcsBytes === 2 ? dv.getUint16(fcsAt, true) + 256 : fcsBytes === 4 ? dv.getUint32(fcsAt, true) : fcsBytes === 8 ? Number(dv.getBigUint64(fcsAt, true)) : undefined;
    for (;;) {
      if (buf.length - off < 3) return torn(start);
      const bh = buf[off] | (buf[off + 1] << 8) | (buf[off + 2] << 16);
      off += 3;
      const type = (bh >> 1) & 3;
      if (type === 3) return bad(start, 'reserved block type in a zstd frame');
      const size = type === 1 ? 1 : bh >>> 3;
      if (buf.length - off < size) return torn(start);
      off += size;
      if (bh & 1) break;
    }
    if (checksum) {
      if (buf.length - off < 4) return torn(start);
      off += 4;
    }
    frames.push(size === undefined ? { start, end: off } : { start, end: off, size });
  }
  return { frames };
}

export interface DecodedZstd {
  /** the text of every complete frame, then what a torn final frame yields, in chunks (lines may cross chunks) */
  chunks: Uint8Array[];
  /** total bytes of text */
  length: number;
  frames: number;
  /** bytes of the compressed file from the torn frame on (an append in progress, or a crash) */
  tornBytes: number;
  /** the first frame is not exactly one line (rc.8 writes the header alone in it) */
  headerFrameIsOneLine?: boolean;
  /** the stream is damaged from some point on (bad frame or undecodable block) */
  error?: string;
}

const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

function decodeRange(buf: Uint8Array, frames: FrameScan['frames'], parts: Uint8Array[]): string | undefined {
  if (frames.length === 0) return undefined;
  const region = buf.subarray(frames[0].start, frames[frames.length - 1].end);
  // Every frame says its size (the usual case for one-shot compression): one call decodes them all.
  if (wasm && !wasmOff && frames.every((f) => f.size !== undefined)) {
    const total = frames.reduce((n, f) => n + f.size!, 0);
    if (total <= 1 << 30) {
      try {
        const out = total === 0 ? new Uint8Array(0) : wasm.decode(region, total);
        if (out.length === total) {
          parts.push(out);
          return undefined;
        }
      } catch {
        /* the streaming path, then fzstd, say where it breaks */
      }
    }
  }
  const fast = wasmChunks(region);
  if (fast) {
    parts.push(...fast);
    return undefined;
  }
  try {
    parts.push(decompress(region));
    return undefined;
  } catch {
    // Find the bad frame: keep every frame before it.
    for (const f of frames) {
      try {
        parts.push(asBuffer(decompress(buf.subarray(f.start, f.end))));
      } catch (e) {
        return `zstd frame at byte ${f.start} could not be decoded (${(e as Error).message})`;
      }
    }
    return undefined;
  }
}

/** Whatever the complete blocks of a torn frame decode to (possibly nothing). */
function decodeTorn(bytes: Uint8Array): Buffer {
  const out: Buffer[] = [];
  try {
    const d = new Decompress((chunk) => out.push(Buffer.from(chunk)));
    d.push(bytes, false);
  } catch {
    /* what decoded before the damage is kept */
  }
  return Buffer.concat(out);
}

/** Decodes a compressed session log. Never throws on bad bytes: `error` says where reading stopped. */
export function decodeZstdLog(buf: Uint8Array): DecodedZstd {
  const scan = scanFrames(buf);
  const parts: Uint8Array[] = [];
  let error = scan.error;
  let headerFrameIsOneLine: boolean | undefined;
  if (scan.frames.length > 0) {
    const first = scan.frames[0];
    try {
      const head = asBuffer(decompress(buf.subarray(first.start, first.end)));
      headerFrameIsOneLine = head.length > 0 && head.indexOf(10) === head.length - 1;
      parts.push(head);
      error = decodeRange(buf, scan.frames.slice(1), parts) ?? error;
    } catch (e) {
      error = `zstd frame at byte 0 could not be decoded (${(e as Error).message})`;
    }
  }
  let tornBytes = 0;
  if (scan.tornStart !== undefined && error === undefined) {
    tornBytes = buf.length - scan.tornStart;
    parts.push(decodeTorn(buf.subarray(scan.tornStart)));
  }
  const length = parts.reduce((n, p) => n + p.length, 0);
  return { chunks: parts, length, frames: scan.frames.length, tornBytes, headerFrameIsOneLine, ...(error !== undefined ? { error } : {}) };
}

/** The whole text at once (small files, tests). */
export const decodedText = (d: DecodedZstd): Buffer => Buffer.concat(d.chunks.map(asBuffer));

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
