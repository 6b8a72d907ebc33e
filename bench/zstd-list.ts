/**
 * Compressed roots: `list --json` on a zstd copy of a corpus against the plain
 * one, both cold (--no-cache) (goal: within 1.3x). The copy is made once by the zstd command line tool
 * as rc.8 writes it: a frame with the header line, then one frame per batch of
 * --lines lines (default 100), each with a checksum.
 * Usage: node dist/bench/zstd-list.js --dir bench/.corpus/A [--runs 5] [--lines 100]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const dir = path.resolve(opt('--dir', 'bench/.corpus/A'));
const runs = Number(opt('--runs', '5'));
const perFrame = Number(opt('--lines', '100'));
const out = dir.replace(/\/$/, '') + `-zstd${perFrame}`;
const CLI = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'dsh-browse.mjs');

function* files(d: string): Generator<string> {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.name.endsWith('.jsonl')) yield p;
  }
}

if (!fs.existsSync(path.join(out, '.done'))) {
  fs.rmSync(out, { recursive: true, force: true });
  const t0 = performance.now();
  const tmp = fs.mkdtempSync(path.join(path.dirname(out), '.zstd-parts-'));
  for (const f of files(dir)) {
    const lines = fs.readFileSync(f, 'utf8').split('\n');
    lines.pop();
    const parts: string[] = [];
    const batches = [lines.slice(0, 1)];
    for (let i = 1; i < lines.length; i += perFrame) batches.push(lines.slice(i, i + perFrame));
    batches.forEach((b, i) => {
      const p = path.join(tmp, `p${i}`);
      fs.writeFileSync(p, b.join('\n') + '\n');
      parts.push(p);
    });
    execFileSync('zstd', ['-q', '-f', '--check', '--rm', ...parts]);
    const target = path.join(out, path.relative(dir, f) + '.zstd');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, Buffer.concat(parts.map((p) => fs.readFileSync(p + '.zst'))));
    for (const p of parts) fs.rmSync(p + '.zst');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.writeFileSync(path.join(out, '.done'), '');
  process.stderr.write(`compressed copy made in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}

const size = (d: string): number => [...files(d)].reduce((n, f) => n + fs.statSync(f).size, 0) + [...(function* z(x: string): Generator<string> { for (const e of fs.readdirSync(x, { withFileTypes: true })) { const p = path.join(x, e.name); if (e.isDirectory()) yield* z(p); else if (e.name.endsWith('.zstd')) yield p; } })(d)].reduce((n, f) => n + fs.statSync(f).size, 0);
const time = (root: string): number => {
  const t = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'list', '--dir', root, '--json', '--no-cache'], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_ENV: 'production' } });
  if (r.status !== 0) throw new Error(`list failed on ${root}`);
  return performance.now() - t;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
time(dir);
time(out);
const plain: number[] = [];
const packed: number[] = [];
for (let i = 0; i < runs; i++) {
  plain.push(time(dir));
  packed.push(time(out));
}
const ratio = median(packed) / median(plain);
process.stdout.write(
  JSON.stringify({ plain: { medianMs: Math.round(median(plain)), mb: +(size(dir) / 1e6).toFixed(1) }, zstd: { medianMs: Math.round(median(packed)), mb: +(size(out) / 1e6).toFixed(1), linesPerFrame: perFrame }, ratio: +ratio.toFixed(3), goal: '≤ 1.3x', pass: ratio <= 1.3 }, null, 1) + '\n',
);
