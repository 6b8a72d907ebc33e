// Compressing the frames of a child written into a compressed rc.8 root. rc.8
// writes each frame with node:zlib's zstd at its default level (3) and the
// XXH64 content checksum; a child must be as small as the harness's own file
// would be, not a copy of the text in stored blocks.
//
// The encoder, chosen once by initEncoder():
//   - node:zlib's zstd when the running Node has it (22.15+): the harness's own;
//   - else @bokuweb/zstd-wasm (libzstd's ZSTD_compress in WebAssembly, MIT,
//     installs offline from the registry, no build step), ~270 MB/s at level
//     3 here, four times @hpcc-js/wasm-zstd's speed for the same bytes (level
//     1 is 1.5 times faster but up to 1.4 times bigger on session text; a
//     fork copies the parent's compressed frames, so little is encoded).
//     ZSTD_compress writes no checksum, so the frame gets it afterwards: the
//     header's Content_Checksum_flag set and the low 32 bits of XXH64 of the
//     text after the last block (RFC 8878 3.1.1), XXH64 by xxhash-wasm.
// Until initEncoder() has finished (or if neither loads) frames are stored
// (raw blocks): still valid zstd that any decoder reads, only not smaller.
import zlib from 'node:zlib';
import { encodeStoredFrame } from './zstd-frames.js';

/** rc.8's level: node:zlib's default (ZSTD_CLEVEL_DEFAULT). */
export const LEVEL = 3;

type Encode = (text: Uint8Array) => Buffer;
let encode: Encode | undefined;
let encoderName = 'stored blocks (no encoder loaded)';
let loading: Promise<void> | undefined;

interface ZlibZstd {
  zstdCompressSync(buf: Uint8Array, options: { params: Record<number, number> }): Buffer;
  constants: Record<string, number>;
}

/** Loads the encoder (node:zlib's zstd, else WebAssembly: ~20 ms). Safe to call again. */
export function initEncoder(): Promise<void> {
  loading ??= (async () => {
    const z = zlib as unknown as Partial<ZlibZstd>;
    if (typeof z.zstdCompressSync === 'function' && z.constants) {
      const c = z.constants;
      const params = { [c.ZSTD_c_compressionLevel]: LEVEL, [c.ZSTD_c_checksumFlag]: 1 };
      encode = (text) => z.zstdCompressSync!(text, { params });
      encoderName = `node:zlib zstd, level ${LEVEL}, checksum`;
      return;
    }
    try {
      const [{ init, compress }, { default: xxhash }] = await Promise.all([import('@bokuweb/zstd-wasm'), import('xxhash-wasm')]);
      const [, { h64Raw }] = await Promise.all([init(), xxhash()]);
      encode = (text) => withChecksum(compress(text, LEVEL), h64Raw(text));
      encoderName = `@bokuweb/zstd-wasm, level ${LEVEL}, checksum`;
    } catch {
      /* stored frames stay */
    }
  })();
  return loading;
}

/** What encodes the frames now (docs/performance.md and the bench say it). */
export const encoderInUse = (): string => encoderName;
export const encoderReady = (): boolean => encode !== undefined;

/** One checksummed zstd frame holding `text`: compressed once initEncoder() has run, stored before. */
export function encodeFrame(text: Uint8Array): Buffer {
  return encode ? encode(text) : encodeStoredFrame(text);
}

/** `frame` (one frame without a checksum) with the content checksum `hash` (XXH64 of its text) added. */
export function withChecksum(frame: Uint8Array, hash: bigint): Buffer {
  const fhd = frame[4];
  if ((frame[0] | (frame[1] << 8) | (frame[2] << 16) | (frame[3] << 24)) !== (0xfd2fb528 | 0) || fhd & 0x04) throw new Error('withChecksum: not one zstd frame without a checksum');
  const out = Buffer.allocUnsafe(frame.length + 4);
  out.set(frame);
  out[4] = fhd | 0x04;
  out.writeUInt32LE(Number(hash & 0xffffffffn), frame.length);
  return out;
}
