/**
 * A compressed bomb in the root: `list --json` over a root holding
 * a session.jsonl.zstd that decodes to `gb` GB (one long line, made by the
 * zstd tool from a pipe; a hand-made frame of RLE blocks without the tool),
 * next to an ordinary session. Figures: the peak RSS of the `list` process
 * (sampled from /proc), and its wall time against the floor "decode 1 GiB of
 * that file" (a process running our decoder, the same stream `list` uses,
 * into a sink that keeps nothing). Goals: ≤ 300 MB, ≤ 2x the floor.
 */
import { execSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { encodeStoredFrame } from '../src/storage/zstd-frames.js';
import { runToNull } from './figures.js';
import { summarize, type Stats } from './floors.js';

const CLI = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'dsh-browse.mjs');

const headerLine = (id: string) => JSON.stringify({ type: 'session', version: 0, id, createdAt: 1700000000000, cwd: '/a', delegationDepth: 0 });

function hasZstd(): boolean {
  try {
    execSync('zstd --version', { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** RLE blocks of 'a', 128 KiB each, in one frame without a declared size. */
function rleFrame(bytes: number): Buffer {
  const count = Math.ceil(bytes / (128 * 1024));
  const out = Buffer.alloc(6 + count * 4);
  out.writeUInt32LE(0xfd2fb528, 0);
  out[4] = 0; // no size, not single segment, no checksum
  out[5] = (17 - 10) << 3; // 128 KiB window
  for (let i = 0; i < count; i++) {
    const h = ((128 * 1024) << 3) | (1 << 1) | (i === count - 1 ? 1 : 0);
    out.writeUIntLE(h, 6 + i * 4, 3);
    out[6 + i * 4 + 3] = 0x61;
  }
  return out;
}

export function makeBombRoot(gb: number): { root: string; bomb: string; how: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-bomb-'));
  const dir = (id: string) => {
    const d = path.join(root, '--a--', id);
    fs.mkdirSync(d, { recursive: true });
    return path.join(d, 'session.jsonl.zstd');
  };
  fs.writeFileSync(dir('ok'), encodeStoredFrame(Buffer.from(headerLine('ok') + '\n')));
  const bomb = dir('bomb');
  if (hasZstd()) {
    // the text goes through a pipe, never to disk
    execSync(`(printf '%s\\n' '${headerLine('bomb')}'; head -c ${Math.round(gb * 1e9)} /dev/zero | tr '\\0' a; echo) | zstd -q -c > '${bomb}'`, { shell: '/bin/sh' });
    return { root, bomb, how: 'zstd tool' };
  }
  fs.writeFileSync(bomb, Buffer.concat([encodeStoredFrame(Buffer.from(headerLine('bomb') + '\n')), rleFrame(gb * 1e9)]));
  return { root, bomb, how: 'RLE frame' };
}

/** Wall time and peak RSS (sampled every 10 ms) of one CLI run. */
function runSampled(args: string[]): Promise<{ ms: number; peakMB: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    let peak = 0;
    child.stdout.on('data', (d) => (stdout += d));
    const timer = setInterval(() => {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]) / 1024);
      } catch {
        /* exited */
      }
      if (peak > 1024) child.kill('SIGKILL'); // never let a regression take the machine
    }, 10);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`list exited ${code} (peak ${peak.toFixed(0)} MB)`));
      else resolve({ ms, peakMB: peak, stdout });
    });
  });
}

const DECODE_CHILD = path.resolve(path.dirname(new URL(import.meta.url).pathname), 'zstd-decode-child.js');

export async function figureZstdBomb(runs: number, gb: number): Promise<{ list: Stats; floor: Stats; peakMB: Stats; how: string; diskKB: number; diagnostics: string[] }> {
  const { root, bomb, how } = makeBombRoot(gb);
  try {
    const list: number[] = [];
    const floor: number[] = [];
    const peak: number[] = [];
    let diagnostics: string[] = [];
    for (let i = 0; i < runs + 1; i++) {
      const f = await runToNull([DECODE_CHILD, bomb]);
      const r = await runSampled(['list', '--dir', root, '--json']);
      const out = JSON.parse(r.stdout) as { sessions: unknown[]; diagnostics: Array<{ code: string }> };
      if (out.sessions.length !== 2) throw new Error(`list showed ${out.sessions.length} sessions, not 2`);
      diagnostics = out.diagnostics.map((d) => d.code);
      if (i === 0) continue; // warm-up
      floor.push(f);
      list.push(r.ms);
      peak.push(r.peakMB);
    }
    return { list: summarize(list), floor: summarize(floor), peakMB: summarize(peak), how, diskKB: fs.statSync(bomb).size / 1024, diagnostics };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
