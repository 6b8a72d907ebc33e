/**
 * Usage: node dist/bench/generate-cli.js --preset A|B|quick --dir bench/.corpus/A [--force]
 * Prints the CorpusInfo as JSON on stdout (timing on stderr).
 */
import { performance } from 'node:perf_hooks';
import { PRESETS, generateCorpus, readCorpusManifest } from './generate.js';

function usage(msg?: string): never {
  if (msg) process.stderr.write(msg + '\n');
  process.stderr.write('usage: generate-cli --preset A|B|quick --dir <dir> [--force]\n');
  process.exit(2);
}

const argv = process.argv.slice(2);
let preset: string | undefined;
let dir: string | undefined;
let force = false;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--preset') preset = argv[++i];
  else if (a.startsWith('--preset=')) preset = a.slice(9);
  else if (a === '--dir') dir = argv[++i];
  else if (a.startsWith('--dir=')) dir = a.slice(6);
  else if (a === '--force') force = true;
  else if (a === '-h' || a === '--help') usage();
  else usage(`unknown argument: ${a}`);
}
if (!preset || !(preset in PRESETS)) usage(`--preset must be one of ${Object.keys(PRESETS).join(', ')}`);
if (!dir) usage('--dir is required');

const spec = PRESETS[preset as keyof typeof PRESETS];
const cached = !force && readCorpusManifest(dir, spec) !== undefined;
const t0 = performance.now();
const info = generateCorpus(dir, spec, { force });
const ms = performance.now() - t0;
process.stderr.write(
  `${cached ? 'reused' : 'generated'} corpus ${preset} in ${(ms / 1000).toFixed(2)}s: ` +
    `${info.files} files, ${info.events} events, ${(info.bytes / 1e6).toFixed(1)} MB\n`,
);
process.stdout.write(JSON.stringify(info, null, 2) + '\n');
