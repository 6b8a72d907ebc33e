// The idle figures' wait: V8's own full collections after the browser's
// work, seen in the app's DSH_BROWSE_TRACE milestones.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** No new full collection for this long: V8's collections after the browser's work are over. */
const CALM_MS = 10_000;

/**
 * Waits, up to `maxMs`, until V8's own full collections after the browser's
 * work are over: at least one seen after its last milestone (in the app's
 * DSH_BROWSE_TRACE milestones, "gc major"), then none for CALM_MS. After a
 * burst of work V8's memory reducer runs three or so, ~40 s after the heap
 * shrank at 100,000 sessions; the idle goal is measured after them.
 */
export async function waitForCollections(trace: string, maxMs: number): Promise<{ waitedMs: number; collections: number }> {
  const t0 = performance.now();
  let seen = 0;
  let lastAt = t0;
  while (performance.now() - t0 < maxMs) {
    const lines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n') : [];
    const wall = (l: string) => Number(l.split(' ', 1)[0]);
    // the browser's work ends with its quiet collection, or without one (the heap grew too little
    // for it) with its last milestone that is no collection; its own collections come within a
    // moment of it, V8's seconds later (counting the ones during the scan instead started the
    // window before V8's, and a 350 ms one fell inside it)
    const work = lines.filter((l) => l.endsWith(' quiet collection done') || (l !== '' && !/ gc major \d+$| collection under pressure( done)?$/.test(l))).pop();
    const after = work === undefined ? -Infinity : wall(work) + 1000;
    const n = lines.filter((l) => / gc major \d+$/.test(l) && wall(l) > after).length;
    if (n !== seen) {
      seen = n;
      lastAt = performance.now();
    }
    if (seen > 0 && performance.now() - lastAt >= CALM_MS) break;
    await sleep(500);
  }
  return { waitedMs: performance.now() - t0, collections: seen };
}
