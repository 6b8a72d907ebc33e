/**
 * Huge-session rows: one generated session of 1 GB (--quick: 100 MB;
 * --huge-sizes=100m,1g,10g for others) in a temp folder, deleted after. Per size:
 * the index pass (`list --json --no-cache`, the whole process) against a floor
 * that streams the same file (read in 1 MB pieces, split, JSON.parse every line:
 * a floor that reads the file as one string cannot read past 512 MB), and the
 * peak RSS of `tree --json`, `export` and `fork`, each a child process whose RSS
 * is read from /proc every 20 ms and which is killed at twice the bound.
 */
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, linkSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarize, type Stats } from './floors.js';
import { writeHugeSession } from './generate.js';
import { CLI, quit } from './figures.js';
import { KEYS, spawnBenchPty } from './pty.js';
import type { ScaleRow } from './scale.js';

const MB = 2 ** 20;
/** The bound on peak RSS while exporting, forking or browsing a session of any size. */
export const HUGE_RSS_BOUND_MB = 300;

export interface HugeOptions {
  quick: boolean;
  /** bytes of each generated session (default 1 GB; quick 100 MB) */
  sizes?: number[];
  runs: number;
  log: (s: string) => void;
  attempt: (figure: string, corpus: string, goal: string, floorLabel: string, fn: () => Promise<void>) => Promise<void>;
  push: (r: ScaleRow) => void;
}

/** "100m,1g,10g" -> bytes */
export function parseHugeSizes(s: string | undefined): number[] | undefined {
  if (s === undefined) return undefined;
  return s.split(',').map((x) => {
    const m = /^(\d+(?:\.\d+)?)([mg])$/i.exec(x.trim());
    if (!m) throw new Error(`--huge-sizes expects sizes like 100m,1g, got ${JSON.stringify(x)}`);
    return Number(m[1]) * (m[2].toLowerCase() === 'g' ? 1e9 : 1e6);
  });
}

interface Watched {
  ms: number;
  peakMB: number;
  killed: boolean;
  code: number | null;
  stderr: string;
}

/** node `args`, stdout to /dev/null, its RSS sampled every 20 ms; killed past `killAtMB`. */
export function watchedRun(args: string[], killAtMB: number): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const devnull = openSync('/dev/null', 'w');
    const t0 = performance.now();
    const env = { ...process.env };
    delete env.CI;
    const child = spawn(process.execPath, args, { stdio: ['ignore', devnull, 'pipe'], env });
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    let peak = 0;
    let killed = false;
    let t1 = 0;
    const timer = setInterval(() => {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]) * 1024);
      } catch {
        /* exited */
      }
      if (peak > killAtMB * MB && !killed) {
        killed = true;
        child.kill('SIGKILL');
      }
    }, 20);
    child.on('exit', () => (t1 = performance.now()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      closeSync(devnull);
      resolve({ ms: t1 - t0, peakMB: peak / MB, killed, code, stderr });
    });
  });
}

/** The floor: a node process that reads `file` in 1 MB pieces, splits lines and JSON.parses each one. */
const FLOOR = `
const fs = require('fs');
const fd = fs.openSync(process.argv[1], 'r');
let buf = Buffer.allocUnsafe(1 << 20), have = 0, n, lines = 0;
while ((n = fs.readSync(fd, buf, have, buf.length - have, null)) > 0) {
  const end = have + n;
  let start = 0;
  for (let nl = buf.indexOf(10, have); nl !== -1 && nl < end; nl = buf.indexOf(10, start)) {
    if (nl > start) JSON.parse(buf.toString('utf8', start, nl));
    lines++;
    start = nl + 1;
  }
  if (start === 0 && end === buf.length) { const b = Buffer.allocUnsafe(buf.length * 2); buf.copy(b, 0, 0, end); buf = b; have = end; continue; }
  buf.copy(buf, 0, start, end);
  have = end - start;
}
process.stdout.write(String(lines));
`;

const label = (bytes: number) => (bytes >= 1e9 ? `${+(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`);

const SAMPLES = join(dirname(dirname(dirname(new URL(import.meta.url).pathname))), 'sample-sessions');

/** Launch (cold, --no-cache) to `listed` on screen, ms. */
async function listedAfter(dir: string, listed: RegExp): Promise<number> {
  const p = spawnBenchPty(process.execPath, [CLI, dir, '--no-cache'], 140, 30);
  try {
    const at = await p.waitFor((s) => listed.test(s), 120_000);
    return at - p.t0;
  } finally {
    await quit(p);
  }
}

export async function hugeFigures(o: HugeOptions): Promise<void> {
  const sizes = o.sizes ?? [o.quick ? 100e6 : 1e9];
  for (const bytes of sizes) {
    const corpus = `huge ${label(bytes)}`;
    const dir = mkdtempSync(join(os.tmpdir(), 'dsh-bench-huge-'));
    try {
      const t0 = performance.now();
      const info = writeHugeSession(join(dir, 'huge.jsonl'), bytes, { id: 'huge' });
      const size = statSync(info.file).size;
      o.log(`huge session: ${label(size)}, ${info.events.toLocaleString('en')} events, ${info.turns.toLocaleString('en')} turns, written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const base = ['--session', 'huge', '--dir', dir, '--no-cache'];

      await o.attempt('index pass (list --json)', corpus, '≤ 1.2x floor', 'streamed read+split+JSON.parse', async () => {
        const app: number[] = [];
        const floor: number[] = [];
        let peak = 0;
        for (let i = 0; i < o.runs; i++) {
          const f = await watchedRun(['-e', FLOOR, info.file], 4096);
          const a = await watchedRun([CLI, 'list', '--json', '--dir', dir, '--no-cache'], 2 * HUGE_RSS_BOUND_MB);
          if (a.code !== 0) throw new Error(`list exited ${a.code}${a.killed ? ` (killed at ${a.peakMB.toFixed(0)} MB)` : ''}: ${a.stderr.slice(0, 300)}`);
          floor.push(f.ms);
          app.push(a.ms);
          peak = Math.max(peak, a.peakMB);
        }
        const v = summarize(app);
        const fl = summarize(floor);
        const ratio = v.median / fl.median;
        o.push({ figure: `index pass: list --json --no-cache of one ${label(size)} session (whole process)`, corpus, unit: 'ms', value: v, floor: fl, floorLabel: 'streamed read+split+JSON.parse of every line (whole process)', ratio, goal: '≤ 1.2x floor', pass: o.quick ? undefined : ratio <= 1.2, note: `peak RSS ${peak.toFixed(0)} MB; ${info.events.toLocaleString('en')} events` });
      });

      const peakRow = async (name: string, args: string[], note: (w: Watched) => string, cleanup?: () => void) =>
        o.attempt(name, corpus, `peak RSS ≤ ${HUGE_RSS_BOUND_MB} MB`, '—', async () => {
          const peaks: number[] = [];
          const times: number[] = [];
          let last: Watched | undefined;
          for (let i = 0; i < o.runs; i++) {
            const w = await watchedRun([CLI, ...args], 2 * HUGE_RSS_BOUND_MB);
            cleanup?.();
            if (w.killed) throw new Error(`killed at ${w.peakMB.toFixed(0)} MB (twice the bound)`);
            if (w.code !== 0) throw new Error(`exited ${w.code}: ${w.stderr.slice(0, 300)}`);
            peaks.push(w.peakMB);
            times.push(w.ms);
            last = w;
          }
          const v: Stats = summarize(peaks);
          o.push({ figure: `${name}: peak RSS`, corpus, unit: 'MB', value: v, floor: size / MB, floorLabel: 'size of the log', ratio: v.median / (size / MB), goal: `≤ ${HUGE_RSS_BOUND_MB} MB`, pass: o.quick ? undefined : v.max <= HUGE_RSS_BOUND_MB, note: `${(summarize(times).median / 1000).toFixed(1)} s wall; ${note(last!)}` });
        });

      await o.attempt('cold start beside it', corpus, '≤ 1 s', 'first frame of a root without it', async () => {
        // the huge log (linked) beside the sample sessions: every session listed before the huge log is read
        const beside = mkdtempSync(join(os.tmpdir(), 'dsh-bench-beside-'));
        const alone = mkdtempSync(join(os.tmpdir(), 'dsh-bench-alone-'));
        try {
          linkSync(info.file, join(beside, 'a-huge.jsonl'));
          const samples = readdirSync(SAMPLES).filter((f) => f.endsWith('.jsonl')).slice(0, 5);
          for (const f of samples) {
            copyFileSync(join(SAMPLES, f), join(beside, f));
            copyFileSync(join(SAMPLES, f), join(alone, f));
          }
          const listed = new RegExp(`^${samples.length + 1} sessions · order:`, 'm');
          const listedAlone = new RegExp(`^${samples.length} sessions · order:`, 'm');
          const app: number[] = [];
          const floor: number[] = [];
          for (let i = 0; i < o.runs; i++) {
            floor.push(await listedAfter(alone, listedAlone));
            app.push(await listedAfter(beside, listed));
          }
          const v = summarize(app);
          const fl = summarize(floor);
          o.push({ figure: `browser cold start: every session listed, a ${label(size)} log beside 5 small ones (pty)`, corpus, unit: 'ms', value: v, floor: fl, floorLabel: 'the same 5 small logs alone', ratio: v.median / fl.median, goal: '≤ 1 s', pass: o.quick ? undefined : v.median <= 1000, note: 'launch (--no-cache) to the count of every session on screen; the huge log is listed from its head and tail, its counts shown as not known until the read behind it is over' });
        } finally {
          rmSync(beside, { recursive: true, force: true });
          rmSync(alone, { recursive: true, force: true });
        }
      });

      await peakRow('tree --json', ['tree', '--json', ...base], () => 'written as it is read (stdout to /dev/null)');
      await peakRow('export --format md', ['export', '--format', 'md', ...base], () => 'written as it is read');
      await peakRow('export --format json', ['export', '--format', 'json', ...base], () => 'written as it is read');
      await peakRow('stats --json', ['stats', '--json', '--dir', dir, '--no-cache', 'huge'], () => 'every turn folded into its timeline as it is read');
      await peakRow('fork (whole log)', ['fork', '--id', 'huge-fork', ...base], () => 'the seed copied as bytes', () => rmSync(join(dir, 'huge-fork.jsonl'), { force: true }));
      await o.attempt('browser', corpus, '≤ 1 s; ≤ 300 MB', '—', async () => {
        const b = await browseHuge(dir, info.turns, 2 * HUGE_RSS_BOUND_MB);
        const v = summarize([b.tailMs]);
        o.push({
          figure: 'browser: Enter on the session to its last turn on screen; peak RSS while browsing',
          corpus,
          unit: 'ms',
          value: v,
          floorLabel: '—',
          goal: `tail ≤ 1 s; ≤ ${HUGE_RSS_BOUND_MB} MB`,
          pass: o.quick ? undefined : b.tailMs <= 1000 && b.peakMB <= HUGE_RSS_BOUND_MB,
          note: `peak RSS ${b.peakMB.toFixed(0)} MB (the app and its background audit) through: the whole index ${(b.indexMs / 1000).toFixed(1)} s after Enter; g ${b.topMs.toFixed(0)} ms, G ${b.bottomMs.toFixed(0)} ms; turn 1 expanded and read; T on it ${b.timelineMs.toFixed(0)} ms; / search to its first match ${(b.searchMs / 1000).toFixed(1)} s; the history of the whole log ${(b.historyMs / 1000).toFixed(1)} s; x (the whole log, ${(b.exportBytes / 2 ** 20).toFixed(0)} MB of Markdown, in the background, g answered meanwhile) ${(b.exportMs / 1000).toFixed(1)} s; peak by step (MB): ${Object.entries(b.phasePeaks)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        });
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/**
 * The real app in a pseudo-terminal on `dir` (one huge session), its RSS read
 * from /proc every 20 ms (killed past `killAtMB`): Enter on the session until
 * its last turn shows (tail first), then G, a turn expanded, the reader, its timeline, the
 * whole index finished, a `/` search to its first match, and the history.
 * (test/huge/huge-session.test.ts runs it on a 200 MB session too.)
 */
export async function browseHuge(dir: string, turns: number, killAtMB: number, cli = CLI) {
  // the export (x) goes to the app's folder: a temp one, deleted after
  const exportDir = mkdtempSync(join(os.tmpdir(), 'huge-export-'));
  const p = spawnBenchPty(process.execPath, [cli, dir, '--no-cache'], 140, 40, exportDir);
  let peak = 0;
  let killed = false;
  // the peak of each step (named for the key that started it): which one takes the memory
  let phase = 'open';
  const phasePeaks: Record<string, number> = {};
  const timer = setInterval(() => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'));
      if (m) {
        const mb = Number(m[1]) / 1024;
        peak = Math.max(peak, mb);
        phasePeaks[phase] = Math.max(phasePeaks[phase] ?? 0, Math.round(mb));
      }
    } catch {
      /* exited */
    }
    if (peak > killAtMB && !killed) {
      killed = true;
      p.kill();
    }
  }, 20);
  const has = (re: RegExp) => (s: string) => re.test(s);
  const key = async (k: string, until: (s: string) => boolean, what: string, ms = 60_000): Promise<number> => {
    const t = performance.now();
    phase = what;
    p.write(k);
    try {
      return (await p.waitFor(until, ms)) - t;
    } catch (e) {
      throw new Error(`${what}: ${(e as Error).message.slice(0, 8000)}`);
    }
  };
  try {
    // its row complete: the first scan read it whole (until then it is listed from its head and tail, and nothing acts on it)
    await p.waitFor((s) => /▶.*huge/.test(s) && !s.includes('scanning'), 300_000);
    // tail first: the last turn on screen, the cursor on the end
    const tailMs = await key(KEYS.enter, has(new RegExp(`turn ${turns} `)), 'Enter');
    const tailAt = performance.now();
    // g while only the tail is indexed: the earliest turn read so far, and it says turn 1 is not read yet
    // (checked only when the index is still under way on screen: a fast machine may be done already)
    const partialTop = p.screen().includes('indexing earlier turns') ? (await key('g', has(/turn 1 is not read yet \(\d+% indexed\)/), 'g while indexing'), true) : false;
    // (a whole frame: its status line drawn, without the indexing progress)
    const indexed = (s: string) => s.includes('d detail') && !s.includes('indexing earlier turns');
    phase = 'index';
    const indexMs = (indexed(p.screen()) ? performance.now() : await p.waitFor(indexed, 600_000)) - tailAt + tailMs;
    const topMs = await key('g', has(/› +0 ▸ turn 1 /), 'g');
    const bottomMs = await key('G', has(/› +── fork here/), 'G');
    await key('g', has(/› +0 ▸ turn 1 /), 'g');
    await key(KEYS.right, has(/▾ turn 1 /), 'expand');
    await key('o', has(/huge · user\/message/), 'reader');
    await key(KEYS.esc, (s) => !/huge · user\/message/.test(s), 'reader closed');
    // T: turn 1 as a timeline, its events read through the index
    const timelineMs = await key('T', has(/Timeline · huge · turn 1 · .*\n.*wall /), 'timeline');
    await key(KEYS.esc, (s) => !s.includes('Timeline ·'), 'timeline closed');
    phase = 'search';
    p.write('/');
    p.write('optimizeReader');
    const searchMs = await key(KEYS.enter, has(/match \d+ of \d+|no match for/), 'search', 600_000);
    await key('G', has(/› +── fork here/), 'G');
    const historyMs = await key('t', has(/model history up to/), 'history', 600_000);
    await key('t', (s) => !s.includes('model history up to'), 'history closed');
    // x: the whole log exported in the background, its progress on the title bar, keys answered meanwhile
    await key('x', has(/exporting huge \d+% · Esc cancels/), 'export started');
    const exportAt = performance.now();
    await key('g', has(/› +0 .*turn 1 /), 'g while exporting');
    phase = 'export';
    await p.waitFor(has(/exported to .*huge\.md/), 600_000);
    const exportMs = performance.now() - exportAt;
    const exportBytes = statSync(join(exportDir, 'huge.md')).size;
    if (killed) throw new Error(`killed at ${peak.toFixed(0)} MB (twice the bound)`);
    return { tailMs, partialTop, topMs, bottomMs, indexMs, timelineMs, searchMs, historyMs, exportMs, exportBytes, peakMB: peak, phasePeaks };
  } catch (e) {
    if (killed) throw new Error(`killed at ${peak.toFixed(0)} MB (twice the bound)`);
    throw e;
  } finally {
    clearInterval(timer);
    p.kill();
    rmSync(exportDir, { recursive: true, force: true });
  }
}
