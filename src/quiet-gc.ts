// Gives the first scan's garbage back once the browser is quiet.
//
// The scan, the audit and the cache writes of a big root leave the old
// generation full of dead objects: at 100,000 sessions ~380 MB of heap held
// ~170 MB of live facts when the work ended. V8 collects the old generation
// when it grows past a limit, and gives pages back after a full collection,
// but an idle browser allocates almost nothing: no collection comes, and the
// process sat at ~500 MB for as long as it ran. So once the browser has been
// quiet for a moment (no background work, no key), and the heap grew by more
// than GROWTH_BYTES since the last collection, one compacting full collection
// runs (once, not per change: a live append that is audited and drawn grows
// the heap by far less).
import v8 from 'node:v8';
import vm from 'node:vm';
import { milestone } from './trace.js';

/** heap growth since the last collection (or the start) worth a full collection */
export const GROWTH_BYTES = 64 * 1024 * 1024;
/** how long the browser must be quiet (and keys absent) first */
export const QUIET_MS = 1500;

/** Whether to collect now: the browser is quiet and the heap grew enough since `baseline`. */
export function shouldCollect(p: { quiet: boolean; sinceKeyMs: number; heapUsed: number; baseline: number }): boolean {
  return p.quiet && p.sinceKeyMs >= QUIET_MS && p.heapUsed - p.baseline > GROWTH_BYTES;
}

/**
 * V8's full collection, compacting, as a function, without starting node with
 * --expose-gc: the flag set for a moment, a new context made (it gets `gc`),
 * the flag unset (the app's own context never sees a global gc). Undefined
 * where that fails. A plain full collection frees the dead objects but keeps
 * the half-empty pages they leave (at 100,000 sessions the heap stayed at
 * 320 MB for 145 MB of live objects); compaction moves the live ones together
 * and the emptied pages go back (~3x the pause: measured ~250 ms for 240 MB).
 */
export function fullGc(compact = true): (() => void) | undefined {
  let gc: unknown;
  try {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc');
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  if (typeof gc !== 'function') return undefined;
  const collect = gc as () => void;
  if (!compact) return collect;
  return () => {
    v8.setFlagsFromString('--compact-on-every-full-gc');
    try {
      collect();
    } finally {
      v8.setFlagsFromString('--no-compact-on-every-full-gc');
    }
  };
}

const heapUsed = (): number => v8.getHeapStatistics().used_heap_size;

/**
 * Checks every QUIET_MS whether `isQuiet()` has held since the last check and
 * collects when shouldCollect says so. The timer never keeps the process alive.
 * Returns a stop function.
 */
export function collectWhenQuiet(o: { isQuiet: () => boolean; sinceKeyMs: () => number; gc?: () => void }): () => void {
  const gc = o.gc ?? fullGc();
  if (!gc) return () => undefined;
  let baseline = heapUsed();
  let quietBefore = false;
  const timer = setInterval(() => {
    const quiet = o.isQuiet();
    const used = heapUsed();
    if (shouldCollect({ quiet: quiet && quietBefore, sinceKeyMs: o.sinceKeyMs(), heapUsed: used, baseline })) {
      milestone('quiet collection');
      gc();
      milestone('quiet collection done');
      baseline = heapUsed();
    } else if (used < baseline) baseline = used; // V8 collected on its own: grow from there
    quietBefore = quiet;
  }, QUIET_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}

/** the heap (used, dead objects included) below which no collection under pressure runs: a small root never pays for one */
export const PRESSURE_FLOOR_BYTES = 150 * 1024 * 1024;
/** how far the heap may grow past its size after the last collection before one runs under pressure: this share of it, or PRESSURE_STEP_BYTES if more */
export const PRESSURE_FACTOR = 0.15;
export const PRESSURE_STEP_BYTES = 16 * 1024 * 1024;
/** how often the heap is looked at (getHeapStatistics is cheap); a collection under pressure at most once per check */
export const PRESSURE_CHECK_MS = 500;

/** Whether to collect now under pressure: the heap is past the floor and grew past PRESSURE_FACTOR of its size after the last collection (and PRESSURE_STEP_BYTES). */
export function underPressure(heapUsed: number, baseline: number): boolean {
  return heapUsed > PRESSURE_FLOOR_BYTES && heapUsed - baseline > Math.max(PRESSURE_STEP_BYTES, PRESSURE_FACTOR * baseline);
}

/**
 * Collects while the browser works when the heap grows by 15% past
 * what the last collection left. Why: V8 lets the old generation grow
 * to up to ~4x its live size before a full collection, and a long background
 * read promotes what it passes: a 10 GB log's history promoted each entry's
 * head through its 20,000-entry window and peaked at 655 MB for ~330 MB
 * live, past the 300 MB a session of any size may take. The collection is
 * not compacting (a third of the pause): the pages it frees are reused by
 * what comes next, so the resident size stops growing; the quiet collection
 * compacts once the work is done. Returns a stop function.
 */
export function collectUnderPressure(o: { gc?: () => void } = {}): () => void {
  const gc = o.gc ?? fullGc(false);
  if (!gc) return () => undefined;
  let baseline = heapUsed();
  const timer = setInterval(() => {
    const used = heapUsed();
    if (underPressure(used, baseline)) {
      milestone('collection under pressure');
      gc();
      baseline = heapUsed();
      milestone('collection under pressure done');
    } else if (used < baseline) baseline = used; // V8 collected on its own: grow from there
  }, PRESSURE_CHECK_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}
