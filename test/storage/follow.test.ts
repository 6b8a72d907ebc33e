// Live follow: a separate writer process appends thousands of events in
// bursts split at random byte offsets (mid-line, mid-UTF-8 character) while
// the store follows; at the end the followed store equals a fresh load.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { followRoot, type Follower } from '../../src/storage/follow.js';
import { loadRootSync, type RootIndex } from '../../src/storage/load-root.js';
import { readLog } from '../../src/storage/session-file.js';
import { until } from '../support/until-store.js';

const made: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-follow-'));
  made.push(d);
  return d;
};
let follower: Follower | undefined;
afterEach(() => follower?.close());
afterAll(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function eventLines(from: number, turns: number): string[] {
  const out: string[] = [];
  let seq = from;
  const ev = (type: string, data: unknown) => out.push(JSON.stringify({ type, seq: seq++, time: 1_790_000_000_000 + seq, data }));
  for (let t = 1; t <= turns; t++) {
    ev('turn/start', { turn: t, trigger: { kind: 'message', source: { kind: 'user' } } });
    ev('user/message', { content: [{ type: 'text', text: `prompt ${t}: café ✓ 日本語 🚀` }], source: { kind: 'user' } });
    ev('step/start', { turn: t, step: 1 });
    for (let c = 0; c < 8; c++) ev('assistant/chunk', { turn: t, step: 1, chunk: { type: 'text-delta', index: 0, text: `naïve 片 ${c} ` } });
    ev('tool/call', { turn: t, step: 1, callId: `c${t}`, name: 'bash', arguments: '{"command":"echo ☃"}' });
    ev('tool/result', { turn: t, step: 1, callId: `c${t}`, content: [{ type: 'text', text: '☃\n' }], isError: false });
    ev('step/end', { turn: t, step: 1 });
    ev('turn/end', { turn: t, reason: { kind: 'completed' } });
  }
  return out;
}

/** A writer process: appends `payload` to `file` in random slices with pauses. */
function runWriter(file: string, payload: Buffer, seed: number): Promise<void> {
  const script = `
    const fs = require('fs');
    const buf = fs.readFileSync(process.argv[2]);
    let s = ${seed};
    const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const fd = fs.openSync(process.argv[1], 'a');
    let pos = 0;
    (function step() {
      if (pos >= buf.length) { fs.closeSync(fd); return; }
      const n = 1 + Math.floor(rnd() * 700);
      fs.writeSync(fd, buf.subarray(pos, Math.min(buf.length, pos + n)));
      pos += n;
      setTimeout(step, rnd() < 0.1 ? 3 : 0);
    })();`;
  const payloadFile = file + '.payload';
  fs.writeFileSync(payloadFile, payload);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['-e', script, file, payloadFile], { stdio: 'inherit' });
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}`))));
  });
}

describe.each([
  ['watch, session opened', false, true],
  ['poll, index only', true, false],
])('follow (%s)', (_name, forcePolling, opened) => {
  it('equals a fresh load after thousands of torn appends, with no event missed or duplicated', async () => {
    const dir = tmp();
    const file = path.join(dir, 'live.jsonl');
    const header = JSON.stringify({ type: 'session', version: 0, id: 'live', createdAt: 1, cwd: '/w' });
    fs.writeFileSync(file, header + '\n' + eventLines(0, 1).join('\n') + '\n');
    const index = loadRootSync(dir);
    const s = index.store.get(file)!;
    if (opened) s.ensureLoaded(); // an opened session follows with its events; the index only with facts
    follower = followRoot(index, { forcePolling, pollIntervalMs: 50 });
    const lines = eventLines(s.length, 200); // 3,000 events
    await runWriter(file, Buffer.from(lines.join('\n') + '\n'), forcePolling ? 7 : 11);
    const expectedEvents = 15 + lines.length;
    await until(index, () => index.store.get(file)!.length === expectedEvents);
    const live = index.store.get(file)!;
    const fresh = readLog(file, true).reader;
    expect(live.facts).toEqual(fresh.facts);
    expect(live.isLoaded).toBe(opened);
    expect(live.events.length).toBe(3015);
    expect(live.events).toEqual(fresh.events);
    expect(live.facts).toEqual(fresh.facts);
    expect(live.diagnostics).toEqual([]);
    expect(live.state).toBe('at-boundary');
  });
});

describe('follow: a batch of changes', () => {
  it("reaches the store's listeners once, however many files it brings", () => {
    const dir = tmp();
    const head = (id: string) => JSON.stringify({ type: 'session', version: 0, id, createdAt: 1 }) + '\n';
    fs.writeFileSync(path.join(dir, 'a.jsonl'), head('a'));
    const index = loadRootSync(dir);
    follower = followRoot(index, { forcePolling: true, pollIntervalMs: 60_000 });
    const changes = Array.from({ length: 40 }, (_, i) => {
      const file = path.join(dir, `n${i}.jsonl`);
      fs.writeFileSync(file, head(`n${i}`));
      const st = fs.statSync(file);
      return { file, kind: 'new' as const, size: st.size, ino: st.ino, mtimeMs: st.mtimeMs };
    });
    let emits = 0;
    const sizes: number[] = [];
    index.store.subscribe(() => {
      emits++;
      sizes.push(index.store.size);
    });
    follower.apply(changes); // synchronous: nothing else runs meanwhile
    expect(emits).toBe(1);
    expect(sizes).toEqual([41]);
  });
});

describe('follow: file life cycle', () => {
  it('a new file appears, a replaced file is re-read (old object stale), a deleted one is marked gone', async () => {
    const dir = tmp();
    const a = path.join(dir, 'a.jsonl');
    const head = (id: string) => JSON.stringify({ type: 'session', version: 0, id, createdAt: 1 }) + '\n';
    fs.writeFileSync(a, head('a') + eventLines(0, 1).join('\n') + '\n');
    const index = loadRootSync(dir);
    const statuses: string[] = [];
    follower = followRoot(index, { onStatus: (m) => statuses.push(m) });
    const b = path.join(dir, 'b.jsonl');
    fs.writeFileSync(b, head('b'));
    await until(index, () => index.store.get('b') !== undefined);

    const old = index.store.get(a)!;
    const tmpFile = path.join(dir, '.a.tmp');
    fs.writeFileSync(tmpFile, head('a') + eventLines(0, 2).join('\n') + '\n');
    fs.renameSync(tmpFile, a);
    await until(index, () => index.store.get(a) !== old);
    expect(index.store.get(a)!.length).toBe(30);
    expect(() => index.store.fork({ source: old })).toThrow(expect.objectContaining({ code: 'SESSION_NOT_LIVE' }));
    expect(statuses.some((m) => m.includes('replaced'))).toBe(true);

    const live = index.store.get(a)!;
    fs.unlinkSync(a);
    await until(index, () => live.gone);
    expect(index.store.get(a)).toBeUndefined();
  });

  it('a truncated file is re-read and said so; the result equals a fresh load', async () => {
    const dir = tmp();
    const f = path.join(dir, 't.jsonl');
    const head = JSON.stringify({ type: 'session', version: 0, id: 't', createdAt: 1 }) + '\n';
    fs.writeFileSync(f, head + eventLines(0, 3).join('\n') + '\n');
    const index = loadRootSync(dir);
    const statuses: string[] = [];
    follower = followRoot(index, { onStatus: (m) => statuses.push(m) });
    expect(index.store.get('t')!.length).toBe(45);
    fs.truncateSync(f, Buffer.byteLength(head + eventLines(0, 1).join('\n') + '\n'));
    await until(index, () => index.store.get('t')?.length === 15);
    expect(statuses.some((m) => m.includes('shrank'))).toBe(true);
    expect(index.store.get('t')!.events).toEqual(readLog(f, true).reader.events);
  });

  it('a file rewritten in place and grown past its old size (seen only as "grown") is re-read, not appended to', () => {
    const dir = tmp();
    const f = path.join(dir, 'r.jsonl');
    const head = JSON.stringify({ type: 'session', version: 0, id: 'r', createdAt: 1 }) + '\n';
    fs.writeFileSync(f, head + eventLines(0, 1).join('\n') + '\n');
    const index = loadRootSync(dir);
    const statuses: string[] = [];
    follower = followRoot(index, { onStatus: (m) => statuses.push(m), forcePolling: true, pollIntervalMs: 60_000 });
    const old = index.store.get(f)!;
    const consumed = (old.log as { consumed: number }).consumed;
    // same inode, new content: a longer first prompt shifts every later byte
    const rewritten = head + eventLines(0, 3).join('\n').replace('prompt 1:', 'prompt 1 (edited, much longer):') + '\n';
    expect(rewritten[consumed - 1]).not.toBe('\n');
    fs.writeFileSync(f, rewritten);
    const st = fs.statSync(f);
    follower.apply([{ file: f, kind: 'grown', size: st.size, ino: st.ino, mtimeMs: st.mtimeMs }]);
    const live = index.store.get(f)!;
    expect(live).not.toBe(old);
    expect(live.events).toEqual(readLog(f, true).reader.events);
    expect(live.diagnostics).toEqual([]);
    expect(statuses.some((m) => m.includes('rewritten'))).toBe(true);
  });

  it('an open turn closes live: the fork turns from refused to allowed', async () => {
    const dir = tmp();
    const f = path.join(dir, 'open.jsonl');
    const all = eventLines(0, 1);
    fs.writeFileSync(f, JSON.stringify({ type: 'session', version: 0, id: 'open', createdAt: 1 }) + '\n' + all.slice(0, 12).join('\n') + '\n');
    const index = loadRootSync(dir);
    follower = followRoot(index, {});
    expect(index.store.boundaryError(index.store.get('open')!)?.code).toBe('OPEN_TURN');
    fs.appendFileSync(f, all.slice(12).join('\n') + '\n');
    await until(index, () => index.store.get('open')!.state === 'at-boundary');
    expect(index.store.boundaryError(index.store.get('open')!)).toBeNull();
  });
});
