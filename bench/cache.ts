// The fact cache (src/storage/fact-cache.ts), measured on a root:
//
//   node dist/bench/cache.js --dir ROOT [--runs N]
//
// - whole process: `list --json` cold (--no-cache) and warm, alternating, wall and CPU (user+sys)
// - in process: loadRootSync cold vs warm; a warm TUI scan until every session is in the store
// - the cache file: bytes per entry, and how long loading it takes
//
// The cache goes to a temp folder (XDG_CACHE_HOME), never the user's. The root is only read.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FactCache, cacheFileFor } from '../src/storage/fact-cache.js';
import { attachCache, loadRootSync, newRootIndex } from '../src/storage/load-root.js';
import { scanRoot } from '../src/storage/scan.js';
import { initDecoder } from '../src/storage/zstd-frames.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dsh-browse.mjs');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** One `list --json` run: wall and CPU seconds (through /usr/bin/time when there is one). */
function listRun(root: string, env: NodeJS.ProcessEnv, noCache: boolean): { wall: number; cpu?: number } {
  const args = [BIN, 'list', '--json', '--dir', root, ...(noCache ? ['--no-cache'] : [])];
  const timeBin = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
  const t0 = performance.now();
  const r = timeBin
    ? spawnSync(timeBin, ['-f', 'CPU %U %S', process.execPath, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'ignore', 'pipe'] })
    : spawnSync(process.execPath, args, { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`list failed: ${r.stderr}`);
  const m = /CPU ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  return { wall, cpu: m ? (Number(m[1]) + Number(m[2])) * 1000 : undefined };
}

async function main(): Promise<void> {
  const root = arg('dir');
  if (!root) {
    process.stderr.write('usage: node dist/bench/cache.js --dir ROOT [--runs N]\n');
    process.exit(2);
  }
  const runs = Number(arg('runs') ?? 5);
  const xdg = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-cache-bench-'));
  const dir = path.join(xdg, 'dsh-browse');
  const env = { ...process.env, XDG_CACHE_HOME: xdg, NO_COLOR: '1' };
  await initDecoder();
  try {
    // whole process
    listRun(root, env, true); // warms the page cache
    const first = listRun(root, env, false); // writes the cache
    const cold: Array<ReturnType<typeof listRun>> = [];
    const warm: Array<ReturnType<typeof listRun>> = [];
    for (let i = 0; i < runs; i++) {
      cold.push(listRun(root, env, true));
      warm.push(listRun(root, env, false));
    }
    const cpu = (xs: typeof cold) => (xs[0].cpu === undefined ? 'n/a' : f(median(xs.map((x) => x.cpu!))));
    const cw = median(cold.map((x) => x.wall));
    const ww = median(warm.map((x) => x.wall));
    console.log(`list --json, whole process (median of ${runs}): cold ${f(cw)} wall, ${cpu(cold)} CPU; warm ${f(ww)} wall, ${cpu(warm)} CPU; warm/cold wall ${(ww / cw).toFixed(2)}`);
    console.log(`the first run, which writes the cache: ${f(first.wall)} wall${first.cpu === undefined ? '' : `, ${f(first.cpu)} CPU`}`);

    // in process: the load alone
    const coldLoad: number[] = [];
    const warmLoad: number[] = [];
    const scanWarm: number[] = [];
    let sessions = 0;
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      sessions = loadRootSync(root).store.size;
      coldLoad.push(performance.now() - t);
      t = performance.now();
      const w = loadRootSync(root, { cache: { dir } });
      warmLoad.push(performance.now() - t);
      if (w.cacheStats!.hits === 0) throw new Error('the warm load read nothing from the cache');
      t = performance.now();
      const index = newRootIndex(root);
      attachCache(index, { dir });
      await scanRoot(index);
      scanWarm.push(performance.now() - t);
    }
    console.log(`loadRootSync (${sessions} sessions, median of ${runs}): cold ${f(median(coldLoad))}, warm ${f(median(warmLoad))} (${(median(warmLoad) / median(coldLoad)).toFixed(2)})`);
    console.log(`warm TUI scan until every session is in the store: ${f(median(scanWarm))}`);

    // the cache file
    const file = cacheFileFor(root, dir)!;
    const bytes = fs.statSync(file).size;
    const t = performance.now();
    const c = new FactCache(root, { dir });
    console.log(`cache file: ${(bytes / 1e6).toFixed(1)} MB, ${c.size} entries, ${Math.round(bytes / Math.max(1, c.size))} bytes per entry, loaded in ${(performance.now() - t).toFixed(0)} ms`);
  } finally {
    fs.rmSync(xdg, { recursive: true, force: true });
  }
}

await main();
