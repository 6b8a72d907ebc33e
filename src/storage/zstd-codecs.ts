// The WebAssembly zstd codecs (zstddec to read, @bokuweb/zstd-wasm to write a
// fork's frames) are loaded only for a root that holds a compressed log
// (session.jsonl.zstd). Each is a WebAssembly memory of 16 MB reserved and
// 8-14 MB touched, plus ~20 ms to compile: a root of plain logs, most of
// them, never needs either. Whoever is about to read compressed logs awaits
// loadZstd() first, so every read decodes with the same decoder (fzstd, the
// fallback while the WebAssembly loads, gives back less of a torn frame); a
// fork's child is compressed only when its parent is, so the root holding
// the parent has loaded the encoder by then.
import { initDecoder } from './zstd-frames.js';
import { initEncoder } from './zstd-encode.js';
import { isCompressedLog } from './zstd-log.js';
import { milestone } from '../trace.js';

let loading: Promise<void> | undefined;
let settled = false;

/** Loads both codecs once (a codec that fails to load leaves its fallback: stored frames, fzstd). */
export function loadZstd(): Promise<void> {
  loading ??= Promise.all([initDecoder(), initEncoder()]).then(() => {
    settled = true;
    milestone('zstd codecs loaded');
  });
  return loading;
}

/** Whether loadZstd() has run to its end (loaded or not: nothing to wait for). */
export const zstdSettled = (): boolean => settled;

/** loadZstd() when `files` hold a compressed log; nothing for a root of plain logs. */
export async function zstdFor(files: Iterable<string>): Promise<void> {
  for (const f of files) if (isCompressedLog(f)) return loadZstd();
}
