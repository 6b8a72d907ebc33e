/**
 * Child process for the in-process `list --json` figure: `node dist/bench/list-child.js DIR`.
 * Times what `dsh-browse list --dir DIR --json --no-cache` does once its modules are
 * loaded (the zstd decoder's start, the cold index of every log, the JSON written to
 * /dev/null), so it compares with the read+split+JSON.parse floor timed inside its own
 * process (floors.ts innerMs): no node start-up or module loading on either side.
 * Prints one JSON line on stdout: { innerMs, sessions, outBytes }.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { cmdList } from '../src/cli/commands.js';
import { loadRootSync } from '../src/storage/load-root.js';
import { initDecoder } from '../src/storage/zstd-frames.js';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: list-child DIR\n');
  process.exit(2);
}
const devnull = fs.openSync('/dev/null', 'w');
let outBytes = 0;
const t0 = performance.now();
await initDecoder();
const index = loadRootSync(dir, { cache: false }); // cold: no fact cache read or written
const code = cmdList(index, { json: true, color: false, write: (s) => void (outBytes += fs.writeSync(devnull, s)) });
const innerMs = performance.now() - t0;
if (code !== 0) process.exit(code);
process.stdout.write(JSON.stringify({ innerMs, sessions: index.store.size, outBytes }) + '\n');
