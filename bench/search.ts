/**
 * The content-search rows: `dsh-browse find` for a rare word against ripgrep
 * (`rg -c -i`, Debian's `ripgrep`) over the same files, in the same run, cold
 * (no index yet: find builds it) and warm (the facts, folder listings and
 * index kept from a list and a find before), beside the scan (`--no-cache`),
 * with the index's size on disk and the CLI's start-up against bare node.
 *
 * The root is the corpus hard-linked (no copy of its bytes) with the rare
 * word written into a user message of two of its sessions (those two copied,
 * not linked, so the corpus itself is never changed). Each cold run gets a
 * fresh XDG_CACHE_HOME; the warm runs share one filled by the runs before them.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI, paired, quit, type Loop } from './figures.js';
import { spawnBenchPty } from './pty.js';
import { summarize, type Stats } from './floors.js';
import type { ScaleRow } from './scale.js';

export const RARE = 'zqxjrare';

export interface SearchOptions {
  log: (s: string) => void;
  attempt: (figure: string, corpus: string, goal: string, floorLabel: string, fn: () => Promise<void>) => Promise<void>;
  push: (r: ScaleRow) => void;
}

/** `cmd args` with stdout to /dev/null (never kept) and `env` added: its wall time (spawn to exit) and exit code. */
export function runProcess(cmd: string, args: string[], env: Record<string, string> = {}, okCodes: readonly number[] = [0]): Promise<{ wallMs: number; code: number | null }> {
  return new Promise((resolve, reject) => {
    const devnull = fs.openSync('/dev/null', 'w');
    const t0 = performance.now();
    let t1 = 0;
    const child = spawn(cmd, args, { stdio: ['ignore', devnull, 'pipe'], env: { ...process.env, ...env } });
    let err = '';
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    child.on('exit', () => (t1 = performance.now()));
    child.on('error', reject);
    child.on('close', (code) => {
      fs.closeSync(devnull);
      if (!okCodes.includes(code ?? -1)) reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(0, 500)}`));
      else resolve({ wallMs: t1 - t0, code });
    });
  });
}

/** Whole-process wall time of `cmd args`. */
export const timeProcess = async (cmd: string, args: string[], env: Record<string, string> = {}, okCodes: readonly number[] = [0]): Promise<number> => (await runProcess(cmd, args, env, okCodes)).wallMs;

/** ripgrep's path, or undefined when it is not installed. */
export function ripgrep(): string | undefined {
  const r = spawnSync('rg', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? 'rg' : undefined;
}

/** Every *.jsonl under `dir`, sorted. */
function logsUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((p) => p.endsWith('.jsonl')).sort().map((p) => path.join(dir, p));
}

/** Writes the rare word into the first user message of `file` (a copy: the link to the corpus is broken first). */
function plant(file: string): void {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.includes('"user/message"') && l.includes('"text":"'));
  if (i < 0) throw new Error(`${file}: no user message to write the word into`);
  lines[i] = lines[i].replace('"text":"', `"text":"${RARE} `);
  fs.rmSync(file);
  fs.writeFileSync(file, lines.join('\n'));
}

/** The corpus at `src` hard-linked into `dest` (made again each run), the rare word in two sessions. */
export function searchRoot(src: string, dest: string): { dir: string; files: number; bytes: number } {
  fs.rmSync(dest, { recursive: true, force: true });
  let bytes = 0;
  const logs = logsUnder(src);
  for (const f of logs) {
    const to = path.join(dest, path.relative(src, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.linkSync(f, to);
    bytes += fs.statSync(f).size;
  }
  plantRare(dest);
  return { dir: dest, files: logs.length, bytes };
}

/** The rare word written into two sessions of a root made for this run (the scale roots); returns the root's logs and bytes. */
export function plantRare(dir: string): { files: number; bytes: number } {
  const logs = logsUnder(dir);
  for (const at of [0.1, 0.7]) plant(logs[Math.floor(at * logs.length)]);
  let bytes = 0;
  for (const f of logs) bytes += fs.statSync(f).size;
  return { files: logs.length, bytes };
}

/** Bytes of the content index in a cache home (the manifest and its segments). */
function indexBytes(cacheHome: string): number {
  const dir = path.join(cacheHome, 'dsh-browse');
  let n = 0;
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) if (f.endsWith('.index') || f.endsWith('.seg')) n += fs.statSync(path.join(dir, f)).size;
  return n;
}

const tempHome = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-search-cache-'));

/**
 * The rows for one root: warm and cold find against rg, the scan, the index
 * on disk. `goalMs`: the warm figure's goal; `beatRg`: the warm find must
 * also be faster than rg (the large roots).
 */
export async function findFigures(o: SearchOptions, root: { dir: string; files: number; bytes: number }, corpus: string, loop: Loop, goalMs: number, beatRg: boolean): Promise<void> {
  const rg = ripgrep();
  const rgRun = rg ? () => timeProcess(rg, ['-c', '-i', '--no-ignore', '--hidden', RARE, root.dir]) : undefined;
  const find = (env: Record<string, string>, extra: string[] = []) => timeProcess(process.execPath, [CLI, 'find', '--dir', root.dir, RARE, ...extra], env);
  const floorLabel = rg ? 'rg -c -i over the same files' : 'rg not installed (Debian package ripgrep)';
  const goal = `≤ ${goalMs} ms${beatRg ? ', < rg' : ''}`;
  const home = tempHome();
  try {
    await o.attempt(`find ${RARE}, warm`, corpus, goal, floorLabel, async () => {
      // the runs before, as a user's cache has them: a list keeps the facts and the folder listings, a find builds the index
      await timeProcess(process.execPath, [CLI, 'list', '--dir', root.dir, '--json'], { XDG_CACHE_HOME: home });
      await find({ XDG_CACHE_HOME: home });
      const r = await paired(loop, () => find({ XDG_CACHE_HOME: home }), rgRun);
      const ratio = r.floor ? r.app.median / r.floor.median : undefined;
      const onDisk = indexBytes(home);
      o.push({
        figure: `find a rare word, warm (whole process, ${root.files.toLocaleString('en')} sessions)`,
        corpus,
        unit: 'ms',
        value: r.app,
        floor: r.floor,
        floorLabel,
        ratio,
        goal,
        pass: r.app.median <= goalMs && (!beatRg || (ratio !== undefined && ratio < 1)),
        note: `2 sessions hold the word; the index and the folder listings kept from the runs before (a list, a find) answer which logs may hold it, and only those are read; index on disk ${(onDisk / 1e6).toFixed(1)} MB`,
      });
      if (beatRg && rgRun) await statFloor(o, root, corpus, loop, home, rgRun, floorLabel);
      o.push({ figure: 'content index on disk', corpus, unit: 'MB', value: summarize([onDisk / 1e6]), floor: root.bytes / 1e6, floorLabel: 'the logs', ratio: onDisk / root.bytes, goal: '≤ 0.5x floor', pass: onDisk / root.bytes <= 0.5 });
    });
    await o.attempt(`find ${RARE}, cold`, corpus, 'info', floorLabel, async () => {
      const r = await paired(loop, async () => {
        const cold = tempHome();
        try {
          return await find({ XDG_CACHE_HOME: cold });
        } finally {
          fs.rmSync(cold, { recursive: true, force: true });
        }
      }, rgRun);
      o.push({ figure: `find a rare word, cold: the index built (whole process)`, corpus, unit: 'ms', value: r.app, floor: r.floor, floorLabel, ratio: r.floor ? r.app.median / r.floor.median : undefined, goal: 'info', note: 'a fresh cache home each run: every log read and indexed, then the candidates searched' });
    });
    await o.attempt(`find ${RARE} --no-cache`, corpus, 'info', floorLabel, async () => {
      const r = await paired(loop, () => find({ XDG_CACHE_HOME: home }, ['--no-cache']), rgRun);
      o.push({ figure: 'find a rare word --no-cache: the scan (whole process)', corpus, unit: 'ms', value: r.app, floor: r.floor, floorLabel, ratio: r.floor ? r.app.median / r.floor.median : undefined, goal: 'info', note: 'no index: every log whose raw bytes may hold the word is parsed (none but the two here)' });
    });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/**
 * What no warm find can go under, beside rg: a node process that walks the
 * root with the kept folder listings and stats every log (the check that
 * keeps the index from going stale), nothing else. When this floor is
 * itself slower than rg, no index kept current by stats beats rg there.
 */
async function statFloor(o: SearchOptions, root: { dir: string; files: number }, corpus: string, loop: Loop, home: string, rgRun: () => Promise<number>, floorLabel: string): Promise<void> {
  const child = path.join(path.dirname(new URL(import.meta.url).pathname), 'stat-floor-child.js');
  const r = await paired(loop, () => timeProcess(process.execPath, [child, root.dir], { XDG_CACHE_HOME: home }), rgRun);
  o.push({
    figure: `the floor of a warm find: node walks and stats every log (whole process, ${root.files.toLocaleString('en')} sessions)`,
    corpus,
    unit: 'ms',
    value: r.app,
    floor: r.floor,
    floorLabel,
    ratio: r.floor ? r.app.median / r.floor.median : undefined,
    goal: 'info',
    note: 'no index read, no log opened: a find that checks every log for change before trusting the index takes at least this',
  });
}

/** `dsh-browse --version` against `node -e ""`: the CLI's own start-up. */
export async function startupFigure(o: SearchOptions, loop: Loop): Promise<void> {
  await o.attempt('CLI start-up', '—', 'info', 'node -e ""', async () => {
    const r = await paired(loop, () => timeProcess(process.execPath, [CLI, '--version']), () => timeProcess(process.execPath, ['-e', '']));
    o.push({ figure: 'CLI start-up: dsh-browse --version (whole process)', corpus: '—', unit: 'ms', value: r.app, floor: r.floor as Stats, floorLabel: 'node -e ""', ratio: r.app.median / r.floor!.median, goal: 'info', note: 'the bundle is split: what only the browser needs (ink, react) is a chunk a headless command never loads' });
  });
}

/**
 * The Sessions filter in the browser, in a real terminal: `/`, then the rare
 * word pasted, to the screen showing its two sessions and the search over
 * (no "searching events…"). Warm: the browser ran
 * before on this cache home (facts and index kept); the same with --no-cache
 * in the same run (every log's events searched) is the floor, unless
 * `floor` is false (at 100,000 sessions: without the index the filter builds
 * a search document of every log it reads, minutes of it).
 */
export async function filterFigure(o: SearchOptions, root: { dir: string; files: number }, corpus: string, loop: Loop, goalMs: number, floor = true): Promise<void> {
  const home = tempHome();
  const count = `${root.files}`.replace(/\B(?=(\d{3})+$)/g, ',?'); // 1001 or 1,001
  const once = async (extra: string[]): Promise<number> => {
    const p = spawnBenchPty(process.execPath, [CLI, root.dir, '--all', ...extra], 120, 40, process.cwd(), { XDG_CACHE_HOME: home });
    try {
      // the whole list, then quiet (the audit and the index's refresh, in the background, are over)
      await p.waitFor((s) => new RegExp(`^${count} sessions · order:`, 'm').test(s), 120_000);
      await p.settle(1500, 60_000);
      p.write('/');
      await p.settle(150, 3000);
      const t0 = performance.now();
      p.write(`\x1b[200~${RARE}\x1b[201~`);
      // the complete answer: both rows, and the search of the events over (no "searching events…")
      const answer = new RegExp(`^2 of ${count} sessions(?!.*searching events)`, 'm');
      const at = await p.waitFor((s) => answer.test(s), 600_000);
      return at - t0;
    } finally {
      await quit(p);
    }
  };
  try {
    await o.attempt('Sessions filter: word to rows (pty)', corpus, `≤ ${goalMs} ms`, floor ? 'the same --no-cache' : '—', async () => {
      await once([]); // the run that fills the cache home (the query asks for a word: the index is built)
      const r = await paired(loop, () => once([]), floor ? () => once(['--no-cache']) : undefined);
      o.push({
        figure: `Sessions filter: a rare word pasted to its rows on screen, warm (pty, ${root.files.toLocaleString('en')} sessions)`,
        corpus,
        unit: 'ms',
        value: r.app,
        floor: r.floor,
        floorLabel: floor ? 'the same with --no-cache (every log searched)' : '—',
        ratio: r.floor ? r.app.median / r.floor.median : undefined,
        goal: `≤ ${goalMs} ms`,
        pass: r.app.median <= goalMs,
        note: 'from the paste written to the pty to "2 of N sessions" on screen with the search of the events over; the content index rules out the logs that cannot hold the word, so only two logs are read',
      });
    });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
