// The browser gives the first scan's garbage back once quiet (src/quiet-gc.ts):
// only when quiet since the last check, no key for a moment, and the heap
// grew enough; with V8's real full collection, got without --expose-gc.
import { afterEach, describe, expect, it, vi } from 'vitest';
import v8 from 'node:v8';
import { collectUnderPressure, collectWhenQuiet, fullGc, GROWTH_BYTES, PRESSURE_CHECK_MS, PRESSURE_FACTOR, PRESSURE_FLOOR_BYTES, PRESSURE_STEP_BYTES, QUIET_MS, shouldCollect, underPressure } from '../../src/quiet-gc.js';

const used = () => v8.getHeapStatistics().used_heap_size;
/** ~100 MB of small objects (more than GROWTH_BYTES) */
const grow = () => Array.from({ length: 1_500_000 }, (_, i) => ({ i, s: `x${i}` }));

afterEach(() => vi.useRealTimers());

describe('a full collection once the browser is quiet', () => {
  it('shouldCollect: quiet, no key for QUIET_MS, and the heap grew past GROWTH_BYTES', () => {
    const base = { quiet: true, sinceKeyMs: QUIET_MS, heapUsed: GROWTH_BYTES + 2, baseline: 1 };
    expect(shouldCollect(base)).toBe(true);
    expect(shouldCollect({ ...base, quiet: false })).toBe(false);
    expect(shouldCollect({ ...base, sinceKeyMs: QUIET_MS - 1 })).toBe(false);
    expect(shouldCollect({ ...base, heapUsed: GROWTH_BYTES + 1 })).toBe(false);
  });

  it('fullGc is V8’s full collection (garbage goes), and no global gc is left behind', () => {
    const gc = fullGc();
    expect(gc).toBeTypeOf('function');
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    let junk: unknown[] | undefined = grow();
    const before = used();
    expect(junk.length).toBe(1_500_000);
    junk = undefined;
    gc!();
    expect(before - used()).toBeGreaterThan(GROWTH_BYTES);
  });

  it('and compacting: the pages the dead objects leave half empty go back (the heap shrinks to near its live size)', () => {
    const gc = fullGc()!;
    gc(); // from a compact heap
    const total = () => v8.getHeapStatistics().total_heap_size;
    // one object in four kept: every page of the old generation keeps some
    const keep: unknown[] = [];
    let junk: unknown[] | undefined = [];
    for (let i = 0; i < 2_000_000; i++) (i % 4 === 0 ? keep : junk).push({ i, s: `x${i}` });
    junk = undefined;
    gc();
    const slack = total() - used();
    expect(keep.length).toBe(500_000);
    expect(slack).toBeLessThan(64 * 1024 * 1024); // ~35 MB here; a plain full collection left ~120 MB of half-empty pages
  });

  it('collectWhenQuiet collects once after two quiet checks, never while busy or typing', () => {
    vi.useFakeTimers();
    const gc = vi.fn();
    let quiet = false;
    let sinceKey = Infinity;
    const stop = collectWhenQuiet({ isQuiet: () => quiet, sinceKeyMs: () => sinceKey, gc });
    const kept = grow(); // the heap grows (kept alive: the fake gc frees nothing)
    vi.advanceTimersByTime(QUIET_MS * 3);
    expect(gc).not.toHaveBeenCalled(); // busy
    quiet = true;
    sinceKey = 10;
    vi.advanceTimersByTime(QUIET_MS * 3);
    expect(gc).not.toHaveBeenCalled(); // a key just now
    sinceKey = Infinity;
    vi.advanceTimersByTime(QUIET_MS);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(QUIET_MS * 5);
    expect(gc).toHaveBeenCalledTimes(1); // the heap did not grow again since
    stop();
    expect(kept.length).toBe(1_500_000);
  });
});

describe('a collection under pressure while the browser works', () => {
  it('underPressure: past the floor and grown past PRESSURE_FACTOR of what the last collection left (and PRESSURE_STEP_BYTES)', () => {
    const floor = PRESSURE_FLOOR_BYTES;
    expect(underPressure(floor + 1, 1)).toBe(true);
    expect(underPressure(floor, 1)).toBe(false); // a small heap never pays for one
    expect(underPressure(floor + PRESSURE_STEP_BYTES, floor)).toBe(false); // grown, but not enough past its live size
    expect(underPressure(floor + PRESSURE_FACTOR * floor + 1, floor)).toBe(true);
    const big = 4 * floor; // a big live heap grows by its share first
    expect(underPressure(big + PRESSURE_FACTOR * big, big)).toBe(false);
    expect(underPressure(big + PRESSURE_FACTOR * big + 1, big)).toBe(true);
  });

  it('collectUnderPressure collects while busy once the heap grew enough, then from what is left', () => {
    vi.useFakeTimers();
    const gc = vi.fn();
    const stop = collectUnderPressure({ gc });
    const start = used();
    // grow until past both the floor and the factor (kept alive: the fake gc frees nothing)
    const kept: unknown[][] = [];
    while (!underPressure(used(), start)) kept.push(grow());
    vi.advanceTimersByTime(PRESSURE_CHECK_MS);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(PRESSURE_CHECK_MS * 4);
    expect(gc).toHaveBeenCalledTimes(1); // nothing freed, but nothing grew since: the baseline is what it left
    stop();
    expect(kept.length).toBeGreaterThan(0);
  });

  it('the plain (not compacting) full collection frees the garbage too', () => {
    const gc = fullGc(false)!;
    let junk: unknown[] | undefined = grow();
    const before = used();
    expect(junk.length).toBe(1_500_000);
    junk = undefined;
    gc();
    expect(before - used()).toBeGreaterThan(GROWTH_BYTES);
  });
});
