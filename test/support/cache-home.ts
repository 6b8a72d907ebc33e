// Vitest global setup: the fact cache (src/storage/fact-cache.ts) of every
// test, in-process or in a spawned CLI or browser, goes to a temp folder made
// for this run and removed after it: no test writes into the real ~/.cache.
// Workers and their children inherit XDG_CACHE_HOME from here (set before
// any worker starts); property-setup.ts checks it in each worker.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const TEST_CACHE_PREFIX = 'dsh-browse-test-cache-';

export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), TEST_CACHE_PREFIX));
  process.env.XDG_CACHE_HOME = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
