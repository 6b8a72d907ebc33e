// Live-follow figures: latency from an append to the store having it
// (watch and poll mode), and events per second followed without falling behind.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { followRoot } from '../src/storage/follow.js';
import { loadRootSync } from '../src/storage/load-root.js';
import { CLI } from './figures.js';
import { spawnBenchPty } from './pty.js';

const line = (seq: number, type: string, data: unknown) => JSON.stringify({ type, seq, time: Date.now(), data }) + '\n';

function turnLines(seq: number, turn: number): string[] {
  const out: string[] = [];
  out.push(line(seq++, 'turn/start', { turn, trigger: { kind: 'message' } }));
  out.push(line(seq++, 'user/message', { content: [{ type: 'text', text: `go ${turn}` }], source: { kind: 'user' } }));
  out.push(line(seq++, 'step/start', { turn, step: 1 }));
  for (let i = 0; i < 6; i++) out.push(line(seq++, 'assistant/chunk', { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: 'tok ' } }));
  out.push(line(seq++, 'step/end', { turn, step: 1 }));
  out.push(line(seq++, 'turn/end', { turn, reason: { kind: 'completed' } }));
  return out;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

export async function measureLive(forcePolling: boolean, samples = 40): Promise<{ p50: number; p95: number; eventsPerSec: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-live-bench-'));
  const file = path.join(dir, 'live.jsonl');
  fs.writeFileSync(file, JSON.stringify({ type: 'session', version: 0, id: 'live', createdAt: 1 }) + '\n');
  const index = loadRootSync(dir);
  let applied: () => void = () => {};
  const follower = followRoot(index, { forcePolling, pollIntervalMs: 100, onApplied: () => applied() });
  await new Promise((r) => setTimeout(r, 100));
  const lat: number[] = [];
  let seq = 0;
  try {
    for (let i = 0; i < samples; i++) {
      const lines = turnLines(seq, i + 1);
      seq += lines.length;
      const want = seq;
      const t0 = performance.now();
      const done = new Promise<void>((resolve) => {
        applied = () => {
          if (index.store.get('live')!.length >= want) resolve();
        };
      });
      fs.appendFileSync(file, lines.join(''));
      await done;
      lat.push(performance.now() - t0);
      if (process.env.LIVE_DEBUG) console.error(i, lat[lat.length - 1]);
      await new Promise((r) => setTimeout(r, 5 + (i % 7) * 3));
    }
    // throughput: append 100k events as fast as the writer can, time until all are followed
    const total = 100_000;
    const t0 = performance.now();
    const target = seq + total;
    const done = new Promise<void>((resolve) => {
      applied = () => {
        if (index.store.get('live')!.length >= target) resolve();
      };
    });
    const start = seq;
    let turn = samples + 1;
    while (seq < start + total) {
      const chunk: string[] = [];
      for (let k = 0; k < 100 && seq < start + total; k++) {
        const ls = turnLines(seq, turn++).slice(0, Math.min(10, start + total - seq));
        chunk.push(...ls);
        seq += ls.length;
      }
      fs.appendFileSync(file, chunk.join(''));
    }
    await done;
    const secs = (performance.now() - t0) / 1000;
    return { p50: pct(lat, 50), p95: pct(lat, 95), eventsPerSec: Math.round(total / secs) };
  } finally {
    follower.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Append -> screen: the bundled browser in a real pty shows a session's event
 * count; each sample appends a turn and times until the new count is painted.
 */
export async function measureLiveScreen(samples = 20): Promise<{ p50: number; p95: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-live-screen-'));
  const file = path.join(dir, 'live-demo.jsonl');
  fs.writeFileSync(file, JSON.stringify({ type: 'session', version: 0, id: 'live-demo', createdAt: Date.now() }) + '\n');
  const p = spawnBenchPty(process.execPath, [CLI, dir]);
  try {
    await p.waitFor((s) => / live\b/.test(s.split('\n')[0] ?? ''), 20_000);
    const lat: number[] = [];
    let seq = 0;
    for (let i = 0; i < samples; i++) {
      const lines = turnLines(seq, i + 1);
      seq += lines.length;
      const want = new RegExp(`live-demo .* ${seq} +\\S+$`, 'm');
      const t0 = performance.now();
      fs.appendFileSync(file, lines.join(''));
      const at = await p.waitFor((s) => want.test(s), 5_000);
      lat.push(at - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
    return { p50: pct(lat, 50), p95: pct(lat, 95) };
  } finally {
    p.write('q');
    const t = setTimeout(() => p.kill(), 2000);
    await p.exited;
    clearTimeout(t);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const poll of [false, true]) {
    const r = await measureLive(poll);
    console.log(`${poll ? 'poll ' : 'watch'}: append -> store p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms; followed ${r.eventsPerSec.toLocaleString('en')} events/s`);
  }
  const scr = await measureLiveScreen();
  console.log(`TUI  : append -> screen p50 ${scr.p50.toFixed(1)} ms, p95 ${scr.p95.toFixed(1)} ms (real pty, watch mode)`);
}
