/**
 * Child process for the peak-RSS figure: `node --expose-gc dist/bench/rss-child.js DIR [BIGFILE]`.
 * Loads DIR with loadRootSync (what `list` and the TUI's index hold), reports memory,
 * then opens BIGFILE's session (events + turn tree, as the Turns view holds them) and
 * reports again. Prints one JSON line on stdout. Sizes in bytes.
 */
import { performance } from 'node:perf_hooks';
import { loadRootSync } from '../src/storage/load-root.js';
import { buildTurnTree } from '../src/session/replay.js';

const [dir, bigFile] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: rss-child DIR [BIGFILE]\n');
  process.exit(2);
}

const gc = (globalThis as { gc?: () => void }).gc;
const snap = () => {
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external + m.arrayBuffers, maxRss: process.resourceUsage().maxRSS * 1024 };
};

const base = snap();
const t0 = performance.now();
const index = loadRootSync(dir);
const indexMs = performance.now() - t0;
const indexed = snap();
let opened: ReturnType<typeof snap> | undefined;
let nodes = 0;
if (bigFile) {
  const s = index.store.get(bigFile);
  if (!s) throw new Error(`rss-child: ${bigFile} is not in the index`);
  const log = s.ensureLoaded();
  const tree = buildTurnTree(log.events);
  nodes = tree.length;
  opened = snap();
  // keep both alive until the measurement is taken
  if (log.events.length < 0 || tree.length < 0) throw new Error('unreachable');
}
process.stdout.write(JSON.stringify({ sessions: index.store.size, indexMs, base, indexed, opened, nodes }) + '\n');
