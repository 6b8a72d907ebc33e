// The browser's pass over the content index (index-refresh.ts), one slice at
// a time: a large log is read over many slices, never in one block, and a
// browser closed before the pass is over keeps what it indexed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IndexRefresh } from '../../../components/app/index-refresh.js';
import { parseQuery, type Query } from '../../../src/session/query.js';
import { ContentIndex } from '../../../src/storage/content-index.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { makeLog } from '../../support/random-logs.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'index-refresh-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
/** The clock of a run long after the logs were written: their stats are trusted. */
const later = () => Date.now() + 60_000;

/** `n` logs of `events` events each, in a fresh root. */
function root(name: string, n: number, events: number): { dir: string; cache: string; files: string[] } {
  const dir = path.join(tmp, name);
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const f = path.join(dir, `f${i}`, 'session.jsonl');
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, makeLog(i * 5 + 1, events, { escapes: 0, blocked: false }));
    files.push(f);
  }
  return { dir, cache: path.join(tmp, `${name}-cache`), files };
}

/** Runs the pass's slices, one timer at a time, until it is over; returns how many timers that took. */
function runOut(pass: IndexRefresh): number {
  let slices = 0;
  for (; pass.busy; slices++) vi.advanceTimersToNextTimer();
  return slices;
}

// the slices' timers are run one at a time here; the clock stays real, so each slice spends its 8 ms
beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
afterEach(() => vi.useRealTimers());

describe('the content index pass in the browser', () => {
  it('reads a large log over many slices and then narrows', () => {
    const { dir, cache } = root('large', 1, 20_000);
    const index = new ContentIndex(dir, { dir: cache, now: later });
    let done = 0;
    const rootIndex = loadRootSync(dir);
    const pass = new IndexRefresh(() => index, rootIndex, () => done++);
    pass.want();
    const slices = runOut(pass);
    expect(done).toBe(1);
    expect(pass.ready).toBe(true);
    expect(index.counts.indexed).toBe(1);
    // 1 MB reads of a log of several MB: more than one slice
    expect(fs.statSync(path.join(dir, 'f0', 'session.jsonl')).size).toBeGreaterThan(2 * 1024 * 1024);
    expect(slices).toBeGreaterThan(1);
    const [session] = rootIndex.store.list();
    expect(pass.mayHold(parseQuery('zqxjabsent') as Query)?.(session)).toBe(false);
    pass.close();
  });

  it('with no index kept, waits until a query asks for words; with one, starts with the list', () => {
    const { dir, cache, files } = root('demand', 3, 50);
    const rootIndex = loadRootSync(dir);
    const cold = new ContentIndex(dir, { dir: cache, now: later });
    const pass = new IndexRefresh(() => cold, rootIndex, () => undefined);
    pass.start();
    expect(pass.busy).toBe(false);
    expect(pass.mayHold(parseQuery('ab') as Query)).toBeUndefined();
    expect(pass.busy).toBe(false); // no trigram asked for
    expect(pass.mayHold(parseQuery('zqxjabsent') as Query)).toBeUndefined();
    expect(pass.busy).toBe(true);
    runOut(pass);
    expect(cold.counts.indexed).toBe(files.length);
    pass.close();
    const warm = new ContentIndex(dir, { dir: cache, now: later });
    const next = new IndexRefresh(() => warm, rootIndex, () => undefined);
    next.start();
    expect(next.busy).toBe(true);
    runOut(next);
    expect(warm.counts.current).toBe(files.length);
    next.close();
  });

  it('a query that asked for words before the list was drawn starts the pass with the list', () => {
    const { dir, cache, files } = root('early', 3, 50);
    const index = new ContentIndex(dir, { dir: cache, now: later });
    const pass = new IndexRefresh(() => index, loadRootSync(dir), () => undefined);
    expect(pass.mayHold(parseQuery('zqxjabsent') as Query)).toBeUndefined();
    expect(pass.busy).toBe(false); // the list is not drawn yet: nothing starts before it
    pass.start();
    expect(pass.busy).toBe(true);
    runOut(pass);
    expect(index.counts.indexed).toBe(files.length);
    pass.close();
  });

  it('closed before the pass is over, it keeps what it indexed', () => {
    const { dir, cache, files } = root('closed', 30, 200);
    // 16-byte reads: a log takes a few ms, the pass many slices
    const index = new ContentIndex(dir, { dir: cache, now: later, readChunk: 16 });
    const pass = new IndexRefresh(() => index, loadRootSync(dir), () => undefined);
    pass.want();
    while (index.counts.indexed === 0) vi.advanceTimersToNextTimer();
    expect(pass.ready).toBe(false);
    const indexed = index.counts.indexed;
    expect(indexed).toBeLessThan(files.length);
    pass.close();
    const again = new ContentIndex(dir, { dir: cache, now: later });
    const results = files.map((f) => again.refresh(f));
    again.close();
    expect(results.filter((r) => r === 'current').length).toBe(indexed);
    expect(results.filter((r) => r === 'indexed').length).toBe(files.length - indexed);
  });

  it('knows an unchanged log by the stat the scan took, with none of its own', () => {
    const { dir, cache } = root('warm', 5, 50);
    const first = new ContentIndex(dir, { dir: cache, now: later });
    const pass = new IndexRefresh(() => first, loadRootSync(dir), () => undefined);
    pass.want();
    runOut(pass);
    pass.close();
    const stats = vi.spyOn(fs, 'statSync');
    try {
      const warm = new ContentIndex(dir, { dir: cache, now: later });
      const rootIndex = loadRootSync(dir);
      stats.mockClear();
      const again = new IndexRefresh(() => warm, rootIndex, () => undefined);
      again.start();
      runOut(again);
      expect(warm.counts.current).toBe(5);
      expect(stats.mock.calls.filter(([p]) => String(p).startsWith(dir))).toEqual([]);
      again.close();
    } finally {
      stats.mockRestore();
    }
  });
});
