// The WebAssembly zstd is loaded for a root that holds a compressed log, and
// only then (src/storage/zstd-codecs.ts). The tests run in this order: the
// first ones need it never loaded in this file's module state.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { followRoot, type Follower } from '../../src/storage/follow.js';
import { loadRoot, newRootIndex } from '../../src/storage/load-root.js';
import { scanRoot } from '../../src/storage/scan.js';
import { loadZstd, zstdSettled } from '../../src/storage/zstd-codecs.js';
import { encodeStoredFrame, wasmDecoderReady } from '../../src/storage/zstd-frames.js';
import { cleanupTmp, evs, hdr, logText, tmpDir, turnRows, writeLog } from '../support/fixtures.js';
import { BIN } from '../support/run-cli.js';

let follower: Follower | undefined;
afterEach(() => {
  follower?.close();
  follower = undefined;
  cleanupTmp();
});

const plainSession = (root: string, id: string): string => writeLog(path.join(root, '--a--', id, 'session.jsonl'), hdr(id, { cwd: '/a' }), evs(...turnRows(1)));
/** A compressed log in stored frames (valid zstd: no zstd tool needed), the header's frame first. */
function compressedSession(root: string, id: string): string {
  const file = path.join(root, '--a--', id, 'session.jsonl.zstd');
  const [head, ...rest] = logText(hdr(id, { cwd: '/a', delegationDepth: 0 }), evs(...turnRows(1))).split(/(?<=\n)/);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.concat([encodeStoredFrame(Buffer.from(head)), encodeStoredFrame(Buffer.from(rest.join('')))]));
  return file;
}

describe('the WebAssembly zstd codecs', () => {
  it('a root of plain logs never loads them: not its load, its scan, nor a plain log followed', async () => {
    const root = tmpDir();
    plainSession(root, 'p1');
    expect((await loadRoot(root)).store.list()).toHaveLength(1);
    const idx = newRootIndex(root);
    await scanRoot(idx);
    follower = followRoot(idx, { forcePolling: true, pollIntervalMs: 1_000_000 });
    const file = plainSession(root, 'p2');
    const st = fs.statSync(file);
    follower.apply([{ kind: 'new', file, size: st.size, ino: st.ino, mtimeMs: st.mtimeMs }]);
    expect(idx.store.list()).toHaveLength(2);
    expect(zstdSettled()).toBe(false);
    expect(wasmDecoderReady()).toBe(false);
  });

  it('a compressed log that comes later waits for them, and is then read by the WebAssembly decoder', async () => {
    const root = tmpDir();
    plainSession(root, 'p1');
    const idx = await loadRoot(root);
    follower = followRoot(idx, { forcePolling: true, pollIntervalMs: 1_000_000 });
    const file = compressedSession(root, 'z1');
    const st = fs.statSync(file);
    follower.apply([{ kind: 'new', file, size: st.size, ino: st.ino, mtimeMs: st.mtimeMs }]);
    expect(idx.store.byFile(file)).toBeUndefined(); // not read with the fallback meanwhile
    await loadZstd(); // (the follower's wait, queued first, is over before this one)
    expect(wasmDecoderReady()).toBe(true);
    const s = idx.store.byFile(file)!;
    expect(s.length).toBe(7);
    expect(s.diagnostics).toEqual([]);
  });

  it('the CLI loads them for a root with a compressed log only (list and find)', () => {
    const trace = (root: string, args: string[]): string => {
      const cache = tmpDir();
      const file = path.join(cache, 'trace.txt');
      const r = spawnSync(process.execPath, [BIN, ...args, '--dir', root], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, XDG_CACHE_HOME: cache, DSH_BROWSE_TRACE: file } });
      expect(r.status, r.stderr).toBe(0);
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    };
    const plain = tmpDir();
    plainSession(plain, 'p1');
    const mixed = tmpDir();
    plainSession(mixed, 'p1');
    compressedSession(mixed, 'z1');
    for (const args of [['list', '--json'], ['find', 'prompt']]) {
      expect(trace(plain, args)).not.toContain('zstd codecs loaded');
      expect(trace(mixed, args)).toContain('zstd codecs loaded');
    }
  }, 120_000);
});
