/**
 * `npm run bench [-- --quick] [--preset A|B|quick] [--runs N] [--json] [--strict]
 *   [--scale-only | --no-scale] [--scale-sizes=10k,30k,100k] [--scale-deadline=S]
 *   [--huge-only | --no-huge] [--huge-sizes=100m,1g,10g] [--search-only]`
 *
 * Every figure is the median of N runs (after 1 warm-up) with its min–max spread, next
 * to a floor measured in the same run, the ratio, the goal and PASS/MISS. Full run: the
 * app figures on preset A, first frame on A and B (and on the quick corpus, to check it
 * does not grow). --quick: everything on the quick corpus, a smoke test that asserts
 * nothing about time (exit 0 unless something crashes). --strict: exit 1 on a MISS.
 *
 * Scale rows (bench/scale.ts), last: browser CPU until quiet vs headless
 * audit at 10k/30k/100k sessions, key -> frame during the background work at 30k and
 * 100k, RSS and idle CPU at 100k, warm vs cold start and list --json (when the build has
 * the cache). --quick: all of them at 2k. --scale-only: only these rows (no corpus A/B);
 * --no-scale: none of them; --scale-sizes picks the sizes; --scale-deadline the
 * seconds a browser gets to go quiet (default 30x the headless audit, 60–300 s).
 *
 * Search rows (bench/search.ts), after list and find: find for a rare word, warm and
 * cold, against ripgrep over the same files; the index on disk; the CLI's start-up.
 * At each scale size too. --search-only: only these rows, on the preset's corpus.
 *
 * Huge-session rows (bench/huge.ts), before the scale rows: one generated
 * session of 1 GB (--quick: 100 MB; --huge-sizes for others, e.g. 10g with 10 GB of
 * disk to spare), deleted after: the index pass against a streamed parse floor, and
 * the peak RSS of tree --json, export and fork. --huge-only: only these rows.
 */
import os from 'node:os';
import { join, dirname } from 'node:path';
import { PRESETS, generateCorpus, type CorpusInfo } from './generate.js';
import { summarize, type Stats } from './floors.js';
import { figureZstdBomb } from './zstd-bomb.js';
import * as F from './figures.js';
import { formatProfile, profileInProcess, profileNode } from './profile.js';
import { inkFrames, p95 } from './ink-frame.js';
import { measureLive, measureLiveScreen } from './live.js';
import { measureIdle } from './idle.js';
import { scaleFigures, parseSizes, type ScaleRow } from './scale.js';
import { hugeFigures, parseHugeSizes } from './huge.js';
import { filterFigure, findFigures, searchRoot, startupFigure } from './search.js';

type Preset = keyof typeof PRESETS;
const argv = process.argv.slice(2);
const flag = (n: string) => argv.includes(n);
const opt = (n: string) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : argv.find((a) => a.startsWith(n + '='))?.slice(n.length + 1));
const quick = flag('--quick');
const json = flag('--json');
const preset = (opt('--preset') ?? (quick ? 'quick' : 'A')) as Preset;
if (!(preset in PRESETS)) throw new Error(`--preset must be one of ${Object.keys(PRESETS).join(', ')}`);
const runs = Number(opt('--runs') ?? (quick ? 2 : 5));
const loop: F.Loop = { runs, warmup: 1 };
const KEYPRESSES = quick ? 10 : 50;
const log = (s: string) => process.stderr.write(s + '\n');
const scaleOnly = flag('--scale-only');
const noScale = flag('--no-scale');
if (scaleOnly && noScale) throw new Error('--scale-only and --no-scale exclude each other');
const scaleSizes = parseSizes(opt('--scale-sizes'));
const scaleDeadline = opt('--scale-deadline') === undefined ? undefined : Number(opt('--scale-deadline'));
const hugeOnly = flag('--huge-only');
const noHuge = flag('--no-huge');
if (hugeOnly && (noHuge || scaleOnly)) throw new Error('--huge-only excludes --no-huge and --scale-only');
const hugeSizes = parseHugeSizes(opt('--huge-sizes'));
const searchOnly = flag('--search-only');

const corpusRoot = join(dirname(dirname(dirname(new URL(import.meta.url).pathname))), 'bench', '.corpus');
const corpus = (p: Preset): CorpusInfo => {
  const t0 = Date.now();
  const info = generateCorpus(join(corpusRoot, p), PRESETS[p]);
  log(`corpus ${p}: ${info.files} files, ${(info.bytes / 1e6).toFixed(1)} MB (${Date.now() - t0} ms)`);
  return info;
};

/** one row of the report (the scale rows share its shape) */
type Row = ScaleRow;
const rows: Row[] = [];
const details: string[] = [];
const MB = 1024 * 1024;
const med = (f: Stats | number | undefined) => (typeof f === 'number' ? f : f?.median);

async function attempt(figure: string, corpus: string, goal: string, floorLabel: string, fn: () => Promise<void>): Promise<void> {
  log(`… ${figure} (${corpus})`);
  try {
    await fn();
  } catch (e) {
    const msg = (e as Error).message ?? String(e);
    rows.push({ figure, corpus, unit: 'ms', floorLabel, goal, note: `not available: ${msg.split('\n')[0]}` });
    details.push(`${figure} (${corpus}) not available:\n    ${msg.split('\n').slice(0, 12).join('\n    ')}`);
  }
}

async function scale(): Promise<void> {
  if (noScale) return;
  await scaleFigures({ quick, sizes: scaleSizes, deadlineS: scaleDeadline, log, attempt, push: (r) => rows.push(r), details });
}

async function search(main: CorpusInfo): Promise<void> {
  const o = { log, attempt, push: (r: Row) => rows.push(r) };
  const root = searchRoot(main.dir, join(corpusRoot, `search-${preset}`));
  await findFigures(o, root, preset, loop, 300, false);
  await filterFigure(o, root, preset, { runs: quick ? 1 : 3, warmup: 0 }, 150);
  await startupFigure(o, loop);
}

async function huge(): Promise<void> {
  if (noHuge) return;
  await hugeFigures({ quick, sizes: hugeSizes, runs: quick ? 1 : 3, log, attempt, push: (r) => rows.push(r) });
}

async function main(): Promise<void> {
  if (hugeOnly) {
    await huge();
    report(undefined);
    return;
  }
  if (scaleOnly) {
    await scale();
    report(undefined);
    return;
  }
  const main = corpus(preset);
  if (searchOnly) {
    await search(main);
    report(main);
    return;
  }
  const second = quick || opt('--preset') ? undefined : corpus('B');
  const small = quick || opt('--preset') === 'quick' ? undefined : corpus('quick');

  await attempt('list --json, cold', preset, '≤ 1.15x floor', 'read+split+JSON.parse all', async () => {
    const r = await F.figureList(main.dir, loop);
    const ratio = r.app.median / r.floor.median;
    const inRatio = r.inProcess.median / r.inProcessFloor.median;
    rows.push({ figure: 'list --json --no-cache (whole process)', corpus: preset, unit: 'ms', value: r.app, floor: r.floor, floorLabel: 'read+split+JSON.parse all (whole process)', ratio, goal: '≤ 1.15x floor', pass: ratio <= 1.15, note: `${(r.outBytes / 1024).toFixed(0)} KB of JSON out; cold: no fact cache read or written` });
    rows.push({ figure: 'list --json --no-cache (in-process)', corpus: preset, unit: 'ms', value: r.inProcess, floor: r.inProcessFloor, floorLabel: 'read+split+JSON.parse all (in its process)', ratio: inRatio, goal: '≤ 1.15x floor', pass: inRatio <= 1.15, note: 'after module loading on both sides (bench/list-child.ts: decoder start, index, JSON to /dev/null), the same runs as the whole-process row' });
    if (ratio > 1.15 || inRatio > 1.15) details.push(`list --json --no-cache on ${preset}: ${r.app.median.toFixed(0)} ms vs floor ${r.floor.median.toFixed(0)} ms; in-process ${r.inProcess.median.toFixed(0)} ms vs ${r.inProcessFloor.median.toFixed(0)} ms\n` + formatProfile(await profileNode([F.CLI, 'list', '--dir', main.dir, '--json', '--no-cache'])));
  });

  await attempt('find WORD --json vs list --json', preset, '≤ 1.5x list --json', 'list --json (same run)', async () => {
    const word = 'watcher'; // a word of the generator's vocabulary: in almost every file
    const r = await F.figureFind(main.dir, loop, word);
    const ratio = r.app.median / r.floor.median;
    rows.push({ figure: `find ${word} --json (whole process)`, corpus: preset, unit: 'ms', value: r.app, floor: r.floor, floorLabel: 'list --json (same run)', ratio, goal: '≤ 1.5x floor', pass: ratio <= 1.5, note: `${r.matches} matches in ${r.files} of ${main.files} files; a word in no file: ${r.rare.median.toFixed(0)} ms (raw-text prefilter skips every parse)` });
    if (ratio > 1.5) details.push(`find on ${preset}: ${r.app.median.toFixed(0)} ms vs list --json ${r.floor.median.toFixed(0)} ms\n` + formatProfile(await profileNode([F.CLI, 'find', '--dir', main.dir, word, '--json'])));
  });

  await search(main);

  await attempt('Sessions filter answer', preset, '≤ 200 ms', '—', async () => {
    const words = ['w', 'wa', 'wat', 'watc', 'watcher', 'zqxj', 'tool:bash is:error', '-is:root retry'];
    const r = await F.figureFilter(main.dir, words, quick ? 1 : 3);
    rows.push({ figure: `Sessions filter: query answered (in-process, ${words.length} queries)`, corpus: preset, unit: 'ms', value: r.query, floorLabel: '—', goal: '≤ 200 ms', pass: r.query.max <= 200, note: `index of ${r.sessions} sessions built in ${r.indexMs.toFixed(0)} ms in 8 ms slices (worst slice ${r.worstIndexSlice.toFixed(0)} ms: one session is the unit), +${r.heapMB.toFixed(0)} MB heap after gc; worst query slice ${r.worstSlice.toFixed(1)} ms` });
  });

  await attempt('lineage layout', '10,000 nodes', '≤ 50 ms', 'sort of the 10,000 keys', async () => {
    const r = await F.figureLineageLayout(loop);
    rows.push({ figure: 'lineage layout of 10,000 sessions (chain, fan-out, forest; per shape)', corpus: 'synthetic', unit: 'ms', value: r.app, floor: r.floor, floorLabel: 'sort of the 10,000 keys', ratio: r.app.median / r.floor!.median, goal: '≤ 50 ms', pass: r.app.median <= 50 });
  });

  const frames: Record<string, number> = {};
  for (const [name, info] of [[preset, main], ['B', second], ['quick', small]] as const) {
    if (!info) continue;
    await attempt('first frame of the TUI', name, '≤ 500 ms', 'node -e "" start-up', async () => {
      const r = await F.figureFirstFrame(info.dir, loop);
      frames[name] = r.app.median;
      rows.push({ figure: 'first frame of the TUI', corpus: name, unit: 'ms', value: r.app, floor: r.floor, floorLabel: 'node -e "" start-up', ratio: r.app.median / r.floor!.median, goal: '≤ 500 ms', pass: r.app.median <= 500 });
      if (r.app.median > 500) details.push(`first frame on ${name}: ${r.app.median.toFixed(0)} ms (launch -> first row -> q)\n` + formatProfile(await F.profileFirstFrame(info.dir)));
    });
  }
  if (frames.quick !== undefined && Object.keys(frames).length > 1) {
    const worst = Math.max(...Object.entries(frames).filter(([k]) => k !== 'quick').map(([, v]) => v));
    rows.push({ figure: 'first frame growth (largest − quick corpus)', corpus: Object.keys(frames).join('/'), unit: 'ms', value: summarize([worst - frames.quick]), floorLabel: '—', goal: '≤ +100 ms', pass: worst - frames.quick <= 100 });
  }

  const big = main.bigFile;
  if (!big) log(`preset ${preset} has no big session: skipping open, keypress, fork`);
  if (big) {
    const bigMB = main.bigEvents ? `${main.bigEvents / 1000}k events` : '';
    await attempt('open big session tree', preset, '≤ 300 ms', 'parse of that file', async () => {
      const r = await F.figureOpen(big, loop);
      const s = r.split;
      rows.push({ figure: `open big session tree (${bigMB})`, corpus: preset, unit: 'ms', value: r.app, floor: r.floor, floorLabel: 'parse of that file', ratio: r.app.median / r.floor!.median, goal: '≤ 300 ms', pass: r.app.median <= 300, note: `read ${s.readMs.toFixed(0)} + tree ${s.treeMs.toFixed(0)} + rows ${s.rowsMs.toFixed(0)} ms; ${s.rows} rows` });
      if (r.app.median > 300) details.push(`open big session: ${r.app.median.toFixed(0)} ms\n` + formatProfile(await profileInProcess(() => F.openBig(big))));
    });

    await attempt('keypress -> frame (pty)', preset, 'p95 ≤ 50 ms', '—', async () => {
      const id = /"id":"([^"]+)"/.exec((await import('node:fs')).readFileSync(big, 'utf8').slice(0, 4096))![1];
      const lat = await F.keypressLatency(main.dir, id, KEYPRESSES);
      const ok = lat.filter((x) => !Number.isNaN(x));
      const st = summarize(ok);
      const q = p95(st);
      rows.push({ figure: `keypress -> frame p50 / p95 = ${st.median.toFixed(1)} / ${q.toFixed(1)}`, corpus: preset, unit: 'ms', value: st, floorLabel: '—', goal: 'p95 ≤ 50 ms', pass: q <= 50, note: `${lat.length} × ↓; ${lat.length - ok.length} without a frame` });
    });
    await attempt('Ink frame per keypress (in-process)', preset, 'p95 ≤ 16 ms', '—', async () => {
      const scratch = F.scratchCopy(big, main.dir);
      try {
        await inkFrames(scratch.root, scratch.file, KEYPRESSES); // warm-up run (JIT), as for every other figure
        const r = await inkFrames(scratch.root, scratch.file, KEYPRESSES);
        const model = summarize(F.modelKeypress(big, KEYPRESSES));
        const q = p95(r.frame);
        rows.push({ figure: `Ink frame per ↓, TurnsView p50 / p95 = ${r.frame.median.toFixed(1)} / ${q.toFixed(1)}`, corpus: preset, unit: 'ms', value: r.frame, floorLabel: '—', goal: 'p95 ≤ 16 ms', pass: q <= 16, note: `keypress -> frame written, in-process, unthrottled; of which Ink onRender (output) p50 ${r.renderTime.median.toFixed(2)} ms, p95 ${p95(r.renderTime).toFixed(2)} ms; model (reducer+window+fit) p50 ${model.median.toFixed(2)} ms; first mount ${r.mountMs.toFixed(0)} ms` });
        if (q > 16) details.push(`Ink frame per ↓: p95 ${q.toFixed(1)} ms\n` + formatProfile(await profileInProcess(() => inkFrames(scratch.root, scratch.file, KEYPRESSES))));
      } finally {
        (await import('node:fs')).rmSync(scratch.root, { recursive: true, force: true });
      }
    });

    await attempt('fork of big session', preset, '≤ 2x cp', 'cp of that file', async () => {
      const r = await F.figureFork(big, main.dir, loop);
      const ratio = r.app.median / r.floor!.median;
      rows.push({ figure: 'fork of big session (store.fork)', corpus: preset, unit: 'ms', value: r.app, floor: r.floor, floorLabel: `cp of that file (${(r.bytes / MB).toFixed(1)} MB)`, ratio, goal: '≤ 2x floor', pass: ratio <= 2, note: `CLI fork process: ${r.cli.median.toFixed(0)} ms (${r.cli.min.toFixed(0)}–${r.cli.max.toFixed(0)})` });
    });
  }

  if (big) {
    await attempt('fork into a compressed root', preset, '≤ 3x plain fork; child ≤ 1.2x zstd -3', 'the same fork into a plain root', async () => {
      const r = await F.figureForkCompressed(big, main.dir, loop);
      const ratio = r.app.median / r.floor!.median;
      const size = r.childBytes / r.z3;
      rows.push({ figure: 'fork of big session into a compressed root (store.fork)', corpus: preset, unit: 'ms', value: r.app, floor: r.floor, floorLabel: 'the same fork into a plain root', ratio, goal: '≤ 3x floor', pass: ratio <= 3, note: `the parent's frames copied; a parent in stored frames, every frame encoded (${r.encoder}): ${r.encoded.median.toFixed(0)} ms (${(r.encoded.median / r.floor!.median).toFixed(1)}x)` });
      rows.push({ figure: 'compressed child size', corpus: preset, unit: 'MB', value: summarize([r.childBytes / MB]), floor: summarize([r.z3 / MB]), floorLabel: `zstd -3 of its text (${(r.textBytes / MB).toFixed(1)} MB)`, ratio: size, goal: '≤ 1.2x floor', pass: size <= 1.2 });
    });
  }

  await attempt('peak RSS', preset, '≤ 300 MB', 'size of the files', async () => {
    const reps: F.RssReport[] = [];
    for (let i = 0; i < loop.warmup + loop.runs; i++) reps.push(await F.rssOnce(main.dir, big));
    const kept = reps.slice(loop.warmup);
    const peak = summarize(kept.map((r) => r.indexed.maxRss / MB));
    rows.push({ figure: `peak RSS, ${main.files} files indexed`, corpus: preset, unit: 'MB', value: peak, floor: main.bytes / MB, floorLabel: 'size of all files', ratio: peak.median / (main.bytes / MB), goal: '≤ 300 MB', pass: peak.median <= 300, note: `rss after gc ${summarize(kept.map((r) => r.indexed.rss / MB)).median.toFixed(0)} MB; index built in ${summarize(kept.map((r) => r.indexMs)).median.toFixed(0)} ms` });
    if (big && kept[0].opened) {
      const size = (await import('node:fs')).statSync(big).size / MB;
      const add = summarize(kept.map((r) => (r.opened!.rss - r.indexed.rss) / MB));
      const peakAdd = summarize(kept.map((r) => (r.opened!.maxRss - r.indexed.rss) / MB));
      rows.push({ figure: 'RSS added by opening the big session', corpus: preset, unit: 'MB', value: add, floor: size, floorLabel: 'size of that file', ratio: add.median / size, goal: '≤ 3x floor', pass: add.median <= 3 * size, note: `peak during open − rss before: ${peakAdd.median.toFixed(0)} MB; JS heap +${summarize(kept.map((r) => (r.opened!.heapUsed - r.indexed.heapUsed) / MB)).median.toFixed(1)} MB, buffers +${summarize(kept.map((r) => (r.opened!.external - r.indexed.external) / MB)).median.toFixed(1)} MB (after gc)` });
    }
  });

  await attempt('compressed bomb in the root', 'bomb', '≤ 300 MB, ≤ 2x floor', 'decode 1 GiB', async () => {
    const gb = quick ? 1.5 : 5;
    const r = await figureZstdBomb(quick ? 1 : 3, gb);
    const ratio = r.list.median / r.floor.median;
    rows.push({ figure: `list with a ${gb} GB zstd bomb: peak RSS`, corpus: 'bomb', unit: 'MB', value: r.peakMB, floorLabel: '—', goal: '≤ 300 MB', pass: r.peakMB.max <= 300, note: `${r.how}, ${r.diskKB.toFixed(0)} KB on disk; diagnostics ${r.diagnostics.join(', ')}` });
    rows.push({ figure: `list with a ${gb} GB zstd bomb: wall time`, corpus: 'bomb', unit: 'ms', value: r.list, floor: r.floor, floorLabel: 'a process decoding 1 GiB of it (same decoder)', ratio, goal: '≤ 2x floor', pass: ratio <= 2 });
  });

  await attempt('live: append -> screen', 'live', '≤ 250 ms', '—', async () => {
    const store = await measureLive(false, quick ? 10 : 40);
    const screen = await measureLiveScreen(quick ? 5 : 20);
    rows.push({ figure: `live: append -> screen p50 / p95 = ${screen.p50.toFixed(1)} / ${screen.p95.toFixed(1)}`, corpus: 'live', unit: 'ms', value: summarize([screen.p50]), floorLabel: '—', goal: 'p95 ≤ 250 ms', pass: screen.p95 <= 250, note: `append -> store (watch mode) p50 ${store.p50.toFixed(1)} ms, p95 ${store.p95.toFixed(1)} ms; followed ${store.eventsPerSec.toLocaleString('en')} events/s` });
  });

  // Idle cost of the TUI after its scan: CPU over the idle window and
  // RSS min/max. Full run: 30 s at 10,000 and 50,000 files; --quick: 3 s at 2,000.
  const idleRuns: Array<[number, number]> = quick ? [[2_000, 3_000]] : [[10_000, 30_000], [50_000, 30_000]];
  for (const [files, ms] of idleRuns) {
    await attempt('idle TUI: CPU and RSS', `idle-${files}`, '≤ 1% of a core', '—', async () => {
      // (the window starts once V8's own collections after the scan are over: waited for up to 2 min)
      const r = await measureIdle(corpusRoot, files, ms, undefined, quick ? 0 : 120_000);
      rows.push({ figure: `idle TUI CPU over ${(r.idleMs / 1000).toFixed(0)} s (${files.toLocaleString('en')} files)`, corpus: `idle-${files}`, unit: '%', value: summarize([r.cpuPct]), floorLabel: '—', goal: '≤ 1% of a core', pass: quick ? undefined : r.cpuPct <= 1, note: `% of one core (CPU time / wall time), from ${(r.waitedMs / 1000).toFixed(1)} s after the scan, once ${r.collections} full collection(s) of V8's own were over; RSS min/max ${r.rssMinMB.toFixed(0)}/${r.rssMaxMB.toFixed(0)} MB; ${r.folders} folders; launch -> scan done ${(r.settleMs / 1000).toFixed(1)} s; follow mode: ${r.mode}` });
    });
  }

  await huge();
  await scale();
  report(main);
}

function fmt(n: number | undefined, unit: string): string {
  if (n === undefined) return 'n/a';
  return unit === 'MB' ? n.toFixed(1) : unit === '%' || unit === 's' || n < 10 ? n.toFixed(2) : n.toFixed(0);
}

function report(main: CorpusInfo | undefined): void {
  const cpus = os.cpus();
  const machine = { cores: cpus.length, model: cpus[0]?.model ?? '?', node: process.version, ramGB: os.totalmem() / 1024 ** 3, platform: `${os.platform()} ${os.release()}`, loadavg: os.loadavg().map((x) => +x.toFixed(2)) };
  if (json) {
    process.stdout.write(JSON.stringify({ machine, preset, quick, runs: loop.runs, warmup: loop.warmup, corpus: main ? { files: main.files, bytes: main.bytes, events: main.events } : undefined, rows, details }, null, 2) + '\n');
    return;
  }
  const out: string[] = [];
  out.push(`machine: ${machine.cores} cores, ${machine.model}, Node ${machine.node}, ${machine.ramGB.toFixed(1)} GB RAM, ${machine.platform}; load average at the end ${machine.loadavg.join(' ')}`);
  if (main) out.push(`preset ${preset}${quick ? ' (quick smoke run: goals are not asserted)' : ''}; median of ${loop.runs} runs after ${loop.warmup} warm-up; corpus ${main.files} files, ${(main.bytes / 1e6).toFixed(1)} MB, ${main.events} events`);
  else out.push(`${hugeOnly ? 'huge-session' : 'scale'} rows only${quick ? ' (quick smoke run: goals are not asserted)' : ''}`);
  out.push('');
  const table = [['figure', 'corpus', 'median', 'min–max', 'floor (same run)', 'floor', 'ratio', 'goal', 'result']];
  for (const r of rows) {
    table.push([
      r.figure,
      r.corpus,
      r.valueText ?? (r.value ? `${fmt(r.value.median, r.unit)} ${r.unit}` : 'n/a'),
      r.value && !r.valueText ? `${fmt(r.value.min, r.unit)}–${fmt(r.value.max, r.unit)}` : '',
      r.floorLabel,
      r.floor !== undefined ? `${fmt(med(r.floor), r.unit)} ${r.unit}` : '',
      r.ratioText ?? (r.ratio !== undefined ? `${r.ratio.toFixed(2)}x` : ''),
      r.goal,
      r.pass === undefined ? (r.value ? 'info' : 'N/A') : r.pass ? 'PASS' : 'MISS',
    ]);
  }
  const w = table[0].map((_, c) => Math.max(...table.map((row) => [...row[c]].length)));
  const line = (row: string[]) => '| ' + row.map((cell, c) => cell + ' '.repeat(w[c] - [...cell].length)).join(' | ') + ' |';
  out.push(line(table[0]), '|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|', ...table.slice(1).map(line));
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.figure} (${r.corpus}): ${r.note}`);
  if (notes.length) out.push('', 'notes:', ...notes);
  if (details.length) out.push('', 'details:', ...details.map((d) => '- ' + d));
  process.stdout.write(out.join('\n') + '\n');
}

const t0 = Date.now();
main().then(
  () => {
    log(`bench done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (flag('--strict') && !quick && rows.some((r) => r.pass === false)) process.exitCode = 1;
  },
  (e) => {
    process.stderr.write(`bench: crashed: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 1;
  },
);
