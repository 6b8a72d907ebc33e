/**
 * The app-side measurements of `npm run bench`, each paired with its floor measured in
 * the same loop (app and floor alternate run by run, so drift hits both alike).
 */
import { execFileSync, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { readProfileDir, type ProfileSummary } from './profile.js';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { floorCp, floorNodeStartup, floorParseFile, floorReadParse, runChild, summarize, type Stats } from './floors.js';
import { KEYS, spawnBenchPty, type BenchPty } from './pty.js';
import { listSessionFiles, newRootIndex, indexFile } from '../src/storage/load-root.js';
import { readLog } from '../src/storage/session-file.js';
import { buildTurnTree } from '../src/session/replay.js';
import { buildTurnRows, defaultExpansion, turnsReducer, initialTurnsState, type RowsContext } from '../src/view/turns/turn-rows.js';
import type { LogFacts } from '../src/session/log-facts.js';
import type { SessionEvent } from '../src/session/events.js';
import { usageOfSeqs } from '../src/session/usage.js';
import { eventAtSeq } from '../src/session/turn-summary.js';
import { cursorWindow } from '../src/view/turns/turns-state.js';
import { fitSegments } from '../src/view/turns/turn-row-text.js';

export const CLI = join(dirname(dirname(new URL(import.meta.url).pathname)), 'dsh-browse.mjs');
const DIST_BENCH = dirname(new URL(import.meta.url).pathname);

export interface Loop {
  runs: number;
  warmup: number;
}

/** Alternates app and floor `warmup + runs` times; returns both summaries. */
export async function paired(loop: Loop, app: () => Promise<number> | number, floor?: () => Promise<number> | number): Promise<{ app: Stats; floor?: Stats }> {
  const a: number[] = [];
  const f: number[] = [];
  for (let i = 0; i < loop.warmup + loop.runs; i++) {
    const fv = floor ? await floor() : 0;
    const av = await app();
    if (i >= loop.warmup) {
      a.push(av);
      f.push(fv);
    }
  }
  return { app: summarize(a), floor: floor ? summarize(f) : undefined };
}

/** Whole-process wall time with stdout sent to /dev/null (never kept); stderr kept for errors. */
export function runToNull(args: string[], okCodes: readonly number[] = [0]): Promise<number> {
  return new Promise((resolve, reject) => {
    const devnull = openSync('/dev/null', 'w');
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', devnull, 'pipe'] });
    let err = '';
    let t1 = 0;
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    child.on('exit', () => (t1 = performance.now()));
    child.on('error', reject);
    child.on('close', (code) => {
      closeSync(devnull);
      if (!okCodes.includes(code ?? -1)) reject(new Error(`node ${args.join(' ')} exited ${code}: ${err.slice(0, 500)}`));
      else resolve(t1 - t0);
    });
  });
}

// ---------------------------------------------------------------- list --json

/**
 * Cold `list --json` (--no-cache: the fact cache would answer without reading a
 * log) against the read+split+JSON.parse floor, alternating run by run: whole
 * process (spawn -> exit) and in-process (list-child.js: the work after module
 * loading, against the floor's own inner time), each run's pair from the same loop.
 */
export async function figureList(dir: string, loop: Loop) {
  const args = [CLI, 'list', '--dir', dir, '--json', '--no-cache'];
  const check = await runChild(process.execPath, args);
  if (check.code !== 0) throw new Error(`list --json exited ${check.code}: ${check.stderr.slice(0, 500)}`);
  const outBytes = Buffer.byteLength(check.stdout);
  const app: number[] = [];
  const floor: number[] = [];
  const inApp: number[] = [];
  const inFloor: number[] = [];
  for (let i = 0; i < loop.warmup + loop.runs; i++) {
    const f = await floorReadParse(dir);
    const a = await runToNull(args);
    const c = await runChild(process.execPath, [join(DIST_BENCH, 'list-child.js'), dir]);
    if (c.code !== 0) throw new Error(`list-child exited ${c.code}: ${c.stderr.slice(0, 500)}`);
    const inner = JSON.parse(c.stdout) as { innerMs: number; outBytes: number };
    if (inner.outBytes !== outBytes) throw new Error(`list-child wrote ${inner.outBytes} bytes, list --json ${outBytes}`);
    if (i < loop.warmup) continue;
    app.push(a);
    floor.push(f.ms);
    inApp.push(inner.innerMs);
    inFloor.push(f.innerMs);
  }
  return { app: summarize(app), floor: summarize(floor), inProcess: summarize(inApp), inProcessFloor: summarize(inFloor), outBytes };
}

// ---------------------------------------------------------------- find vs list --json

/**
 * `find --json WORD` against `list --json` on the same corpus, alternating run
 * by run. `word` should be common (a word in almost every file defeats the
 * raw-text prefilter: every file is parsed with its events); `rare` is not in
 * the corpus (the prefilter skips every file). Exit 1 (no match) is allowed.
 */
export async function figureFind(dir: string, loop: Loop, word: string, rare = 'zqxjkvw') {
  const check = await runChild(process.execPath, [CLI, 'find', '--dir', dir, word, '--json']);
  if (check.code !== 0 && check.code !== 1) throw new Error(`find exited ${check.code}: ${check.stderr.slice(0, 500)}`);
  const body = JSON.parse(check.stdout) as { matches: Array<{ file: string }> };
  const files = new Set(body.matches.map((m) => m.file)).size;
  const common = await paired(loop, () => runToNull([CLI, 'find', '--dir', dir, word, '--json'], [0, 1]), () => runToNull([CLI, 'list', '--dir', dir, '--json', '--no-cache'])); // find reads every log: so does a cold list
  const none = await paired(loop, () => runToNull([CLI, 'find', '--dir', dir, rare, '--json'], [0, 1]));
  return { app: common.app, floor: common.floor!, rare: none.app, matches: body.matches.length, files };
}

// ---------------------------------------------------------------- Sessions filter (in-process)

/**
 * The Sessions filter's engine on a loaded root: search documents built in
 * 8 ms slices (as an idle loop would), then each query answered in 8 ms slices;
 * a query's time is from its start to its last slice. The worst single slice
 * is what one keypress could wait behind.
 */
export async function figureFilter(dir: string, words: readonly string[], runs: number) {
  const { loadRootSync } = await import('../src/storage/load-root.js');
  const { SearchIndex, indexSome, startFilter, runFilter } = await import('../src/session/search-index.js');
  const { parseQuery, isQueryError } = await import('../src/session/query.js');
  const sessions = loadRootSync(dir).store.list();
  // events read beside the session (Session.unload keeps them reachable through session.log)
  const index = new SearchIndex((s) => readLog(s.file!, true, s.log.consumed).reader.events);
  const v8 = await import('node:v8');
  const vm = await import('node:vm');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  let worstIndexSlice = 0;
  for (;;) {
    const a = performance.now();
    const left = indexSome(index, sessions, 8);
    worstIndexSlice = Math.max(worstIndexSlice, performance.now() - a);
    if (left === 0) break;
  }
  const indexMs = performance.now() - t0;
  gc();
  const heapMB = (process.memoryUsage().heapUsed - heap0) / (1024 * 1024);
  const times: number[] = [];
  let worstSlice = 0;
  for (let r = 0; r < runs; r++)
    for (const w of words) {
      const q = parseQuery(w);
      if (isQueryError(q)) throw new Error(q.message);
      const a = performance.now();
      const job = startFilter(q, sessions);
      for (;;) {
        const b = performance.now();
        const done = runFilter(job, index, 8);
        worstSlice = Math.max(worstSlice, performance.now() - b);
        if (done) break;
      }
      times.push(performance.now() - a);
    }
  return { query: summarize(times), indexMs, worstIndexSlice, worstSlice, heapMB, sessions: sessions.length };
}

// ---------------------------------------------------------------- TUI in a pty

/** 8-character prefixes of every session id in `dir` (from each file's header line). */
export function idPrefixes(dir: string): Set<string> {
  const out = new Set<string>();
  const buf = Buffer.alloc(4096);
  for (const f of listSessionFiles(dir)) {
    const fd = openSync(f, 'r');
    try {
      const n = readSync(fd, buf, 0, buf.length, 0);
      const line = buf.subarray(0, n).toString('utf8').split('\n')[0];
      const m = /"id":"([^"]{8,})"/.exec(line);
      if (m) out.add(m[1].slice(0, 8));
    } finally {
      closeSync(fd);
    }
  }
  return out;
}

/** True when the screen shows a session row: an 8-char token that starts a known session id. */
export function showsSessionRow(screen: string, prefixes: Set<string>): boolean {
  for (const m of screen.matchAll(/[0-9a-f]{8}/g)) if (prefixes.has(m[0])) return true;
  return false;
}

export async function quit(p: BenchPty): Promise<void> {
  p.write('q');
  const t = setTimeout(() => p.kill(), 2000);
  await p.exited;
  clearTimeout(t);
}

/** Launch -> first session row painted, ms. Throws with the screen if the TUI never shows one. */
export async function firstFrame(dir: string, prefixes: Set<string>, timeoutMs = 20_000): Promise<number> {
  const p = spawnBenchPty(process.execPath, [CLI, dir]);
  try {
    const at = await p.waitFor((s) => showsSessionRow(s, prefixes), timeoutMs);
    return at - p.t0;
  } finally {
    await quit(p);
  }
}

/** Profile of one TUI launch -> first session row -> q (node --cpu-prof in the pty). */
export async function profileFirstFrame(dir: string): Promise<ProfileSummary> {
  const prof = mkdtempSync(join(tmpdir(), 'dsh-bench-prof-'));
  try {
    const p = spawnBenchPty(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${prof}`, CLI, dir]);
    try {
      await p.waitFor((s) => showsSessionRow(s, idPrefixes(dir)), 60_000);
    } finally {
      await quit(p);
    }
    return readProfileDir(prof);
  } finally {
    rmSync(prof, { recursive: true, force: true });
  }
}

export async function figureFirstFrame(dir: string, loop: Loop) {
  const prefixes = idPrefixes(dir);
  return paired(loop, () => firstFrame(dir, prefixes), () => floorNodeStartup());
}

/**
 * Keypress -> frame in the Turns view of session `id` under `dir`: filter with `/`,
 * open with Enter, then ↓ `n` times; each sample is write -> last screen change of the
 * burst that follows (a burst ends after `quietMs` without change).
 */
export async function keypressLatency(dir: string, id: string, n: number, quietMs = 40): Promise<number[]> {
  const prefixes = idPrefixes(dir);
  const p = spawnBenchPty(process.execPath, [CLI, dir]);
  try {
    await p.waitFor((s) => showsSessionRow(s, prefixes), 30_000);
    p.write('/');
    await p.settle(150, 3000);
    p.write(id);
    await p.waitFor((s) => /^1 (of \d+ )?sessions? · order:/m.test(s), 10_000);
    p.write(KEYS.enter); // leave the filter prompt
    await p.settle(150, 3000);
    p.write(KEYS.enter); // open the session
    await p.waitFor((s) => !/ sessions? · order:/.test(s) && / · \d+ turns · \d+ events/.test(s), 30_000);
    await p.settle(300, 10_000);
    p.write('g'); // start at the top so every ↓ moves
    await p.settle(200, 3000);
    if (process.env.BENCH_DEBUG) process.stderr.write(`turns view before the keypresses:\n${p.screen()}\n`);
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      p.write(KEYS.down);
      let last = await p.nextChange(2000).catch(() => NaN);
      for (;;) {
        const next = await p.nextChange(quietMs).catch(() => NaN);
        if (Number.isNaN(next)) break;
        last = next;
      }
      out.push(last - t0);
    }
    return out;
  } finally {
    await quit(p);
  }
}

// ---------------------------------------------------------------- open the big session

export interface OpenSample {
  ms: number;
  readMs: number;
  treeMs: number;
  rowsMs: number;
  rows: number;
}

/** In-process: read + parse with events, build the turn tree, build the rows and fit the first window. */
export function openBig(file: string, cols = 120, height = 36): OpenSample {
  const t0 = performance.now();
  const r = readLog(file, true);
  const t1 = performance.now();
  const tree = buildTurnTree(r.reader.events);
  const t2 = performance.now();
  const model = buildTurnRows(tree, defaultExpansion, eventsContext(r.reader.facts, r.reader.events));
  let cells = 0;
  for (const row of model.rows.slice(0, height)) cells += fitSegments(row.segments, cols - 2 * row.depth - 2).length;
  const t3 = performance.now();
  if (cells < 0) throw new Error('unreachable');
  return { ms: t3 - t0, readMs: t1 - t0, treeMs: t2 - t1, rowsMs: t3 - t2, rows: model.rows.length };
}

export async function figureOpen(file: string, loop: Loop) {
  const parts: OpenSample[] = [];
  const r = await paired(loop, () => { const s = openBig(file); parts.push(s); return s.ms; }, () => floorParseFile(file));
  const kept = parts.slice(loop.warmup);
  const med = (k: keyof OpenSample) => summarize(kept.map((s) => s[k])).median;
  return { ...r, split: { readMs: med('readMs'), treeMs: med('treeMs'), rowsMs: med('rowsMs'), rows: kept[0].rows } };
}

/** In-process model cost of ↓ in the Turns view (reducer + window + fit), ms per key. */
export function modelKeypress(file: string, n: number, cols = 120, height = 36): number[] {
  const r = readLog(file, true);
  const tree = buildTurnTree(r.reader.events);
  const model = buildTurnRows(tree, defaultExpansion, eventsContext(r.reader.facts, r.reader.events));
  let st = initialTurnsState();
  const view = { rows: model.rows, index: model.index, height };
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    st = turnsReducer(st, { type: 'down', view });
    const w = cursorWindow(st.tree, view);
    for (const row of model.rows.slice(w.top, w.top + height)) fitSegments(row.segments, cols - 2 * row.depth - 2);
    out.push(performance.now() - t0);
  }
  return out;
}

// ---------------------------------------------------------------- fork

/** Copies `file` into a scratch root beside the corpus (same filesystem; dot-named so no scan sees it). */
export function scratchCopy(file: string, corpusDir: string): { root: string; file: string } {
  const root = join(dirname(corpusDir), `.scratch-${process.pid}`);
  const target = join(root, basename(dirname(file)), basename(file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  return { root, file: target };
}

export async function figureFork(file: string, corpusDir: string, loop: Loop) {
  const scratch = scratchCopy(file, corpusDir);
  try {
    const index = newRootIndex(scratch.root);
    indexFile(index, scratch.file);
    const source = index.store.get(scratch.file)!;
    source.ensureLoaded(); // the TUI has it open
    let i = 0;
    const fork = () => {
      const t0 = performance.now();
      const child = index.store.fork({ source, sessionId: `bench-fork-${process.pid}-${i++}` });
      const ms = performance.now() - t0;
      index.store.remove(child);
      rmSync(child.file!, { force: true });
      return ms;
    };
    const cpDest = join(scratch.root, 'cp.jsonl');
    const cp = async () => {
      rmSync(cpDest, { force: true });
      const ms = await floorCp(scratch.file, cpDest);
      rmSync(cpDest, { force: true });
      return ms;
    };
    const r = await paired(loop, fork, cp);
    const cli: number[] = [];
    for (let k = 0; k < loop.warmup + loop.runs; k++) {
      const id = `bench-cli-fork-${process.pid}-${k}`;
      const ms = await runToNull([CLI, 'fork', '--dir', scratch.root, '--session', scratch.file, '--id', id, '--json']);
      rmSync(join(dirname(scratch.file), `${id}.jsonl`), { force: true });
      if (k >= loop.warmup) cli.push(ms);
    }
    return { ...r, cli: summarize(cli), bytes: statSync(file).size };
  } finally {
    rmSync(scratch.root, { recursive: true, force: true });
  }
}

/**
 * Fork of the big session into a compressed rc.8 root against the same fork
 * into a plain one (the same text, its header made rc.8's), and the child's
 * size against `zstd -3` of the child's text (the harness writes level 3).
 */
export async function figureForkCompressed(file: string, corpusDir: string, loop: Loop) {
  const { encodeFrame, encoderInUse, initEncoder } = await import('../src/storage/zstd-encode.js');
  const { encodeStoredFrame, initDecoder } = await import('../src/storage/zstd-frames.js');
  await Promise.all([initDecoder(), initEncoder()]);
  const root = join(dirname(corpusDir), `.scratch-z-${process.pid}`);
  try {
    const text = readFileSync(file, 'utf8');
    const nl = text.indexOf('\n');
    const header = { ...JSON.parse(text.slice(0, nl)), cwd: '/bench/proj', delegationDepth: 0 };
    const body = Buffer.from(text.slice(nl + 1), 'utf8');
    // zstd: as rc.8 writes it, the header frame then a compressed frame per batch (~64 KB of whole
    // lines here), which the fork copies; stored: the same frames in raw blocks, each encoded by the fork
    const put = (enc: 'plain' | 'zstd' | 'stored') => {
      const f = join(root, enc, '--bench-proj--', header.id, enc === 'plain' ? 'session.jsonl' : 'session.jsonl.zstd');
      mkdirSync(dirname(f), { recursive: true });
      const head = Buffer.from(JSON.stringify(header) + '\n');
      if (enc === 'plain') writeFileSync(f, Buffer.concat([head, body]));
      else {
        const encode = enc === 'zstd' ? encodeFrame : encodeStoredFrame;
        const frames = [encode(head)];
        for (let at = 0; at < body.length; ) {
          const end = body.indexOf(10, Math.min(body.length - 1, at + 64 * 1024)) + 1 || body.length;
          frames.push(encode(body.subarray(at, end)));
          at = end;
        }
        writeFileSync(f, Buffer.concat(frames));
      }
      const index = newRootIndex(join(root, enc));
      indexFile(index, f);
      const source = index.store.get(f)!;
      source.ensureLoaded(); // the TUI has it open
      return { index, source };
    };
    const plain = put('plain');
    const zstd = put('zstd');
    const stored = put('stored');
    let i = 0;
    let childBytes = 0;
    let childText = '';
    const fork = (w: ReturnType<typeof put>, keep: boolean) => () => {
      const t0 = performance.now();
      const child = w.index.store.fork({ source: w.source, sessionId: `bench-zfork-${process.pid}-${i++}` });
      const ms = performance.now() - t0;
      if (keep) {
        childBytes = statSync(child.file!).size;
        childText = child.file!;
      }
      w.index.store.remove(child);
      if (!keep) rmSync(dirname(child.file!), { recursive: true, force: true });
      return ms;
    };
    const r = await paired(loop, fork(zstd, false), fork(plain, false));
    const encoded = await paired(loop, fork(stored, false));
    fork(zstd, true)();
    const decoded = execFileSync('zstd', ['-q', '-dc', childText], { maxBuffer: 1 << 30 });
    const z3 = execFileSync('zstd', ['-q', '-3', '-c'], { input: decoded, maxBuffer: 1 << 30 }).length;
    return { ...r, encoded: encoded.app, childBytes, textBytes: decoded.length, z3, encoder: encoderInUse() };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- peak RSS

export interface RssReport {
  sessions: number;
  indexMs: number;
  indexed: { rss: number; maxRss: number; heapUsed: number; external: number };
  opened?: { rss: number; maxRss: number; heapUsed: number; external: number };
}

export async function rssOnce(dir: string, bigFile?: string): Promise<RssReport> {
  const args = ['--expose-gc', join(DIST_BENCH, 'rss-child.js'), dir, ...(bigFile ? [bigFile] : [])];
  const r = await runChild(process.execPath, args);
  if (r.code !== 0) throw new Error(`rss-child exited ${r.code}: ${r.stderr.slice(0, 500)}`);
  return JSON.parse(r.stdout) as RssReport;
}

/**
 * Lineage layout at 10,000 sessions, three shapes (a 10,000-deep chain, a
 * 10,000-wide fan-out, a random forest), against a floor in the same loop:
 * sorting the same 10,000 keys, which any layout must at least do. (The unit
 * tests check these shapes' output; their speed is measured here, not there.)
 */
export async function figureLineageLayout(loop: Loop) {
  const { layoutLineage } = await import('../src/view/lineage-graph/lineage-layout.js');
  type N = import('../src/view/lineage-graph/lineage-layout.js').LineageNodeInput;
  const n = 10_000;
  const node = (key: string, parent: string | undefined, i: number, kind: N['kind']): N => ({ key, id: key, parentId: parent, kind, label: key, createdAt: i, seedLength: kind === 'fork' ? i : undefined });
  const chain: N[] = Array.from({ length: n }, (_, i) => node(`c${i}`, i ? `c${i - 1}` : undefined, i, i ? 'fork' : 'root'));
  const fan: N[] = [node('hub', undefined, 0, 'root'), ...Array.from({ length: n - 1 }, (_, i) => node(`k${i}`, 'hub', i + 1, 'spawn'))];
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const forest: N[] = Array.from({ length: n }, (_, i) => {
    const r = rand();
    return i === 0 || r < 0.05 ? node(`s${i}`, undefined, i, 'root') : node(`s${i}`, `s${Math.floor(rand() * i)}`, i, r < 0.6 ? 'fork' : 'spawn');
  });
  const keys = forest.map((x) => x.key);
  const r = await paired(
    loop,
    () => {
      const t0 = performance.now();
      for (const nodes of [chain, fan, forest]) layoutLineage(nodes);
      return (performance.now() - t0) / 3;
    },
    () => {
      const t0 = performance.now();
      [...keys].sort();
      return performance.now() - t0;
    },
  );
  return { ...r, nodes: n };
}

/** The rows' context over events in memory (what rowsContext gives a loaded session). */
function eventsContext(facts: LogFacts, events: readonly SessionEvent[]): RowsContext {
  return { facts, turnFacts: (n) => ({ usage: usageOfSeqs(events, n.seq, n.lastSeq), time: eventAtSeq(events, n.lastSeq)?.time }), now: Date.now() };
}
