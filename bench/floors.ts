/**
 * Floor measurements for `npm run bench`: what the machine needs at the very least
 * (node startup, read + JSON.parse of every line, cp of a file), so the app-side
 * measurements can be judged against them.
 *
 * Times are milliseconds. Whole-process figures are wall time from spawn to exit,
 * measured in this (parent) process, so they compare directly with running our CLI.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CorpusInfo } from './generate.js';

// ---------------------------------------------------------------- measure

export interface Stats {
  median: number;
  min: number;
  max: number;
  mean: number;
  samples: number[];
}

export interface MeasureOptions {
  runs?: number;
  warmup?: number;
}

export function summarize(samples: number[]): Stats {
  if (samples.length === 0) throw new Error('summarize: no samples');
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1], mean: s.reduce((a, b) => a + b, 0) / s.length, samples };
}

/**
 * Runs `fn` `warmup` times (discarded) then `runs` times. The sample of a run is what
 * `fn` reports when it returns a number or an object with a numeric `ms` (e.g. a child
 * process wall time); otherwise it is the wall time of the call itself.
 */
export async function measure(
  fn: () => unknown | Promise<unknown>,
  opts: MeasureOptions = {},
): Promise<Stats> {
  const runs = opts.runs ?? 5;
  const warmup = opts.warmup ?? 1;
  const samples: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const t0 = performance.now();
    const v = await fn();
    const wall = performance.now() - t0;
    const sample =
      typeof v === 'number'
        ? v
        : v !== null && typeof v === 'object' && typeof (v as { ms?: unknown }).ms === 'number'
          ? (v as { ms: number }).ms
          : wall;
    if (i >= warmup) samples.push(sample);
  }
  return summarize(samples);
}

// ---------------------------------------------------------------- child processes

export interface ChildRun {
  /** wall time from spawn to exit, ms */
  ms: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ChildOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
}

/** Spawns `cmd args` and measures wall time spawn -> exit (stdio captured). */
export function runChild(cmd: string, args: string[], opts: ChildOptions = {}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let t1 = 0;
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    let timer: NodeJS.Timeout | undefined;
    if (opts.timeoutMs) timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(e);
    });
    child.on('exit', () => {
      t1 = performance.now();
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({
        ms: (t1 || performance.now()) - t0,
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** Like runChild but fails on a non-zero exit. */
async function runChildOk(cmd: string, args: string[], opts: ChildOptions = {}): Promise<ChildRun> {
  const r = await runChild(cmd, args, opts);
  if (r.code !== 0) {
    throw new Error(`${cmd} ${args.join(' ').slice(0, 200)} exited with ${r.code ?? r.signal}: ${r.stderr.slice(0, 2000)}`);
  }
  return r;
}

const TIME_BIN = '/usr/bin/time';

export interface RssRun extends ChildRun {
  /** peak resident set size of the child in KB, when it could be measured */
  maxRssKb?: number;
}

/**
 * Runs `cmd args` and reports its peak RSS via `/usr/bin/time` (GNU, `-f %M -o file`),
 * so the child's own stdout/stderr stay untouched. Without /usr/bin/time, maxRssKb is
 * undefined. Note: `ms` then includes the (sub-millisecond) exec of time(1).
 */
export async function peakRssOfChild(cmd: string, args: string[], opts: ChildOptions = {}): Promise<RssRun> {
  if (!existsSync(TIME_BIN)) return runChild(cmd, args, opts);
  const tmp = mkdtempSync(join(tmpdir(), 'dsh-bench-rss-'));
  try {
    const outFile = join(tmp, 'rss');
    const r = await runChild(TIME_BIN, ['-f', '%M', '-o', outFile, cmd, ...args], opts);
    let maxRssKb: number | undefined;
    try {
      const lines = readFileSync(outFile, 'utf8').trim().split('\n');
      const v = Number(lines[lines.length - 1]);
      if (Number.isFinite(v) && v > 0) maxRssKb = v;
    } catch {
      /* time(1) did not write: leave undefined */
    }
    return { ...r, maxRssKb };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- floors

/** Wall time of `node -e ""` (ms). */
export async function floorNodeStartup(): Promise<number> {
  return (await runChildOk(process.execPath, ['-e', ''])).ms;
}

export interface ReadParseResult {
  /** whole-process wall time (spawn -> exit), ms */
  ms: number;
  /** time spent inside the child on read + split + parse, ms */
  innerMs: number;
  files: number;
  /** lines parsed (header + event rows; packed rows count once) */
  lines: number;
  /** lines that failed to parse */
  bad: number;
  bytes: number;
  /** child's process.resourceUsage().maxRSS, KB */
  maxRssKb: number;
}

// CommonJS, run with `node -e`. argv: [dir, retain]
const READ_PARSE_SCRIPT = String.raw`
const fs = require('node:fs'), path = require('node:path');
const t0 = performance.now();
const dir = process.argv[1], retain = process.argv[2] === '1';
const kept = [];
let files = 0, lines = 0, bad = 0, bytes = 0;
const walk = (d) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.isFile() && e.name.endsWith('.jsonl')) {
      const buf = fs.readFileSync(p);
      bytes += buf.length;
      files++;
      const parts = buf.toString('utf8').split('\n');
      const n = parts[parts.length - 1] === '' ? parts.length - 1 : parts.length;
      const objs = retain ? new Array(n) : null;
      for (let i = 0; i < n; i++) {
        try { const o = JSON.parse(parts[i]); if (objs) objs[i] = o; lines++; } catch { bad++; }
      }
      if (objs) kept.push(objs);
    }
  }
};
walk(dir);
const innerMs = performance.now() - t0;
process.stdout.write(JSON.stringify({ innerMs, files, lines, bad, bytes, maxRssKb: process.resourceUsage().maxRSS, kept: kept.length }));
`;

/**
 * Floor for "load a directory": a child `node` process reads every *.jsonl under `dir`
 * (recursively), splits on "\n" and JSON.parses every line. `retain` keeps the parsed
 * objects alive until exit (a fairer RSS floor for an app that holds them).
 */
export async function floorReadParse(dir: string, opts: { retain?: boolean } = {}): Promise<ReadParseResult> {
  const r = await runChildOk(process.execPath, ['-e', READ_PARSE_SCRIPT, dir, opts.retain ? '1' : '0']);
  const o = JSON.parse(r.stdout) as Omit<ReadParseResult, 'ms'>;
  return { ms: r.ms, innerMs: o.innerMs, files: o.files, lines: o.lines, bad: o.bad, bytes: o.bytes, maxRssKb: o.maxRssKb };
}

/** In-process: read one file, split on "\n", JSON.parse every line. Returns ms. */
export function floorParseFile(file: string): number {
  const t0 = performance.now();
  const parts = readFileSync(file, 'utf8').split('\n');
  const n = parts[parts.length - 1] === '' ? parts.length - 1 : parts.length;
  let sink = 0;
  for (let i = 0; i < n; i++) {
    try {
      const o = JSON.parse(parts[i]) as { seq?: number };
      sink += o.seq ?? 0;
    } catch {
      /* garbage line: skip */
    }
  }
  const ms = performance.now() - t0;
  if (sink < 0) throw new Error('unreachable');
  return ms;
}

/** Wall time of `cp file dest` (ms). */
export async function floorCp(file: string, dest: string): Promise<number> {
  return (await runChildOk('cp', [file, dest])).ms;
}

// ---------------------------------------------------------------- all floors for a corpus

export interface FloorReport {
  nodeStartup: Stats;
  readParse: Stats;
  readParseLast: ReadParseResult;
  readParseRetainRssKb?: number;
  parseBigFile?: Stats;
  cpBigFile?: Stats;
}

/** Runs every floor against a generated corpus (big-file floors when it has one). */
export async function runFloors(info: CorpusInfo, opts: MeasureOptions = {}): Promise<FloorReport> {
  const nodeStartup = await measure(() => floorNodeStartup(), opts);
  let readParseLast: ReadParseResult | undefined;
  const readParse = await measure(async () => (readParseLast = await floorReadParse(info.dir)), opts);
  const retained = await floorReadParse(info.dir, { retain: true });
  const report: FloorReport = {
    nodeStartup,
    readParse,
    readParseLast: readParseLast!,
    readParseRetainRssKb: retained.maxRssKb,
  };
  if (info.bigFile) {
    const big = info.bigFile;
    report.parseBigFile = await measure(() => floorParseFile(big), opts);
    const tmp = mkdtempSync(join(tmpdir(), 'dsh-bench-cp-'));
    try {
      let i = 0;
      report.cpBigFile = await measure(() => floorCp(big, join(tmp, `copy-${i++}.jsonl`)), opts);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return report;
}
