// The huge-session tests' fork: the CLI in a child process killed at twice
// the bound, checked to finish under it, its child reported.
import { expect } from 'vitest';
import { runBounded } from '../support/bounded-run.js';

/** The bound on peak RSS while exporting, forking or browsing a session of any size. */
export const BOUND = 300 * 2 ** 20;
export const MB = (n: number): string => `${Math.round(n / 2 ** 20)} MB`;

/** Forks session `id` of `root` at `seq` into `childId`: not killed, exit 0, under BOUND; the child as `fork --json` says. */
export async function boundedFork(root: string, id: string, seq: number, childId: string): Promise<{ file: string; seedLength: number }> {
  const r = await runBounded(['fork', '--session', id, '--at', String(seq), '--id', childId, '--dir', root, '--no-cache', '--json'], { killAt: 2 * BOUND, timeoutMs: 300_000 });
  expect(r.killed, `killed at ${MB(r.peak)}`).toBe(false);
  expect(r.code, r.stderr).toBe(0);
  expect(r.peak, `peak ${MB(r.peak)}`).toBeLessThanOrEqual(BOUND);
  return JSON.parse(r.stdout).child;
}
