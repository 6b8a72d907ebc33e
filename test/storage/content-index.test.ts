// The content index narrows `find` to the logs that may hold the query's
// words; it must never change an answer. Random roots, random queries and
// random changes between runs (append, truncate, same-size rewrite, mtime
// rolled back, delete, rename, a new log, a new generation), the index
// refreshed by find itself or as the browser does (the scan's stats trusted,
// each log read in steps): every indexed run finds exactly what a scan
// finds. Then the damaged,
// foreign and unwritable index, and what a warm run reads.
import fs from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findMatches } from '../../src/cli/find-command.js';
import { isQueryError, parseQuery, type Query } from '../../src/session/query.js';
import { requiredLiterals } from '../../src/session/search.js';
import { trigramsOf } from '../../src/session/trigrams.js';
import { ContentIndex } from '../../src/storage/content-index.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { encodeFrame } from '../../src/storage/zstd-encode.js';
import { initDecoder } from '../../src/storage/zstd-frames.js';
import { seekStep, setSeekStep } from '../../src/storage/zstd-seek.js';
import { fullGc } from '../../src/quiet-gc.js';
import { PROPERTY_TIMEOUT, runs } from '../support/property.js';
import { makeLog, term } from '../support/random-logs.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'content-index-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const fresh = (name: string): string => {
  const d = path.join(tmp, `${name}${n++}`);
  fs.mkdirSync(d, { recursive: true });
  return d;
};

/**
 * A log of the generator: most without escapes or prompt/blocked (so the
 * index can rule them out), some with prompt/blocked only (its blocks' text
 * joined is indexed), some with both (always a candidate).
 */
const logOf = (seed: number, events: number): string => makeLog(seed, events, seed % 5 === 0 ? {} : seed % 5 === 1 ? { escapes: 0 } : { escapes: 0, blocked: false });

/** The event lines of a generated log (its header left out): what an append adds. */
const eventLines = (seed: number, events: number): string => logOf(seed, events).split('\n').slice(1).join('\n');

type Change =
  | { kind: 'append' | 'truncate' | 'rewrite' | 'rollback' | 'delete' | 'rename' | 'generation'; at: number; seed: number }
  | { kind: 'new'; seed: number };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constantFrom('append', 'truncate', 'rewrite', 'rollback', 'delete', 'rename', 'generation' as const), at: fc.nat(), seed: fc.integer({ min: 1, max: 2 ** 31 }) }),
  fc.record({ kind: fc.constant('new' as const), seed: fc.integer({ min: 1, max: 2 ** 31 }) }),
);

const statKey = (f: string): string => {
  const st = fs.statSync(f);
  return `${st.size}/${st.mtimeMs}/${st.ctimeMs}/${st.ino}`;
};

/**
 * Runs `write` on `file` until its stat differs from before (a file system
 * stamps times with a coarse clock: two writes within one tick can leave the
 * same mtime and ctime, the racy case the index's own clock guards against).
 */
function changeStat(file: string, write: () => void): void {
  const before = fs.existsSync(file) ? statKey(file) : '';
  const deadline = Date.now() + 10_000;
  for (;;) {
    write();
    if (!fs.existsSync(file) || statKey(file) !== before) return;
    if (Date.now() > deadline) throw new Error(`${file}: stat never changed`);
    const t = Date.now();
    while (Date.now() === t) {
      // the next millisecond
    }
  }
}

/** The files under `dir` whose names end in `suffix`, in path order. */
const logsEnding = (dir: string, suffix: string): string[] =>
  fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((p) => p.endsWith(suffix))
    .sort()
    .map((p) => path.join(dir, p));

/** Applies a change to the root; the logs are `dir/f<i>/session*.jsonl`. */
function apply(dir: string, c: Change): void {
  const logs = logsEnding(dir, '.jsonl');
  if (c.kind === 'new' || logs.length === 0) {
    const d = path.join(dir, `f${n++}`);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, 'session.jsonl'), logOf(c.seed, 3 + (c.seed % 20)));
    return;
  }
  const file = logs[c.at % logs.length];
  const bytes = fs.readFileSync(file);
  switch (c.kind) {
    case 'append':
      changeStat(file, () => fs.appendFileSync(file, eventLines(c.seed, 1 + (c.seed % 6))));
      return;
    case 'truncate':
      changeStat(file, () => fs.truncateSync(file, c.seed % (bytes.length + 1)));
      return;
    case 'rewrite':
    case 'rollback': {
      // one ASCII letter changed to another: the same size
      const letters = [...bytes.keys()].filter((i) => bytes[i] >= 0x61 && bytes[i] <= 0x7a);
      if (letters.length === 0) return;
      const i = letters[c.seed % letters.length];
      const st = fs.statSync(file);
      changeStat(file, () => {
        bytes[i] = bytes[i] === 0x7a ? 0x61 : bytes[i] + 1;
        fs.writeFileSync(file, bytes);
        if (c.kind === 'rollback') fs.utimesSync(file, st.atime, st.mtime);
      });
      return;
    }
    case 'delete':
      fs.rmSync(file);
      return;
    case 'rename':
      fs.renameSync(file, path.join(path.dirname(file), `renamed-${n++}.jsonl`));
      return;
    case 'generation': {
      const next = path.join(path.dirname(file), `session.v${3 + (n++ % 5)}.jsonl`);
      if (!fs.existsSync(next)) fs.writeFileSync(next, logOf(c.seed, 3 + (c.seed % 20)));
      return;
    }
  }
}

/** Rewrites the manifest's head line through `edit`, padded to its length (the sections stay where they are). */
function editHead(file: string, edit: (h: Record<string, unknown>) => Record<string, unknown>): void {
  const b = fs.readFileSync(file);
  const nl = b.indexOf(10);
  const json = JSON.stringify(edit(JSON.parse(b.toString('utf8', 0, nl)) as Record<string, unknown>));
  if (Buffer.byteLength(json) > nl) throw new Error('the edited head is longer than its line');
  b.fill(32, 0, nl);
  b.write(json, 0, 'utf8');
  fs.writeFileSync(file, b);
}

/** Changes the manifest's columns in place (index-manifest.ts's layout, read from its head). */
function editColumns(file: string, edit: (c: { nums: Float64Array; first: Int32Array; keyEnds: Uint32Array; keys: string; keysBytes: Buffer }) => void): void {
  const b = fs.readFileSync(file);
  const nl = b.indexOf(10);
  const h = JSON.parse(b.toString('utf8', 0, nl)) as { entries: number; moreInts: number; keyBytes: number };
  const n = h.entries;
  const at = nl + 1;
  const copy = new Uint8Array(b.length);
  copy.set(b);
  const ab = copy.buffer;
  const keysAt = at + n * 48 + n * 8 + n * 4 + n * 4 + h.moreInts * 4 + n;
  const keysBytes = Buffer.from(ab, keysAt, h.keyBytes);
  edit({ nums: new Float64Array(ab, at, n * 6), first: new Int32Array(ab, at + n * 56, n), keyEnds: new Uint32Array(ab, at + n * 60, n), keys: keysBytes.toString('utf8'), keysBytes });
  fs.writeFileSync(file, copy);
}

/**
 * Runs find with a fresh index over `cache` (as a new process would) and
 * saves it. `pass`: the index is first refreshed as the browser does it
 * (index-refresh.ts): the root loaded with the fact cache, each log's stat
 * from that load trusted, each log refreshed in steps that pause after
 * every read of `pass` bytes (small: lines longer than one read are common).
 */
function indexedFind(dir: string, cache: string, q: Query, now?: () => number, pass?: number): ReturnType<typeof findMatches> {
  const index = new ContentIndex(dir, { dir: cache, now, readChunk: pass });
  try {
    if (pass) {
      const root = loadRootSync(dir, { cache: { dir: cache, now } });
      for (const s of root.store.list()) {
        const st = root.files.get(s.file!);
        if (st) index.trust(s.file!, st);
        const job = index.refreshJob(s.file!);
        while (!job.step(() => true)) {
          /* one chunk a step */
        }
      }
    }
    const found = findMatches(dir, q, index);
    index.save();
    return found;
  } finally {
    index.close();
  }
}

/** A kind of root the property runs on: how its first logs are written, and the changes made between runs. */
interface RootKind<C> {
  write: (file: string, text: string) => void;
  /** the first logs' name */
  name: string;
  change: fc.Arbitrary<C>;
  apply: (dir: string, c: C) => void;
}

const plainRoot: RootKind<Change> = { write: (f, t) => fs.writeFileSync(f, t), name: 'session.jsonl', change, apply };

/**
 * Random roots of `kind`, random queries, random changes between runs: each
 * indexed find equals the scan. The zstd seek step is 1 or the default: each
 * compressed frame decoded and handed over alone, or runs of small frames
 * as one piece of text.
 */
function sameAsScan<C>(numRuns: number, now: (() => number) | undefined, kind: RootKind<C>): void {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 1, max: 2 ** 31 }), { minLength: 1, maxLength: 5 }),
      fc.array(fc.array(kind.change, { maxLength: 3 }), { minLength: 1, maxLength: 4 }),
      fc.array(term, { minLength: 1, maxLength: 3 }),
      fc.array(fc.option(fc.constantFrom(64, 512, 4096), { nil: undefined }), { minLength: 5, maxLength: 5 }),
      fc.constantFrom(1, seekStep()),
      (seeds, rounds, terms, passes, step) => {
        const q = parseQuery(terms.join(' '));
        if (isQueryError(q)) return;
        const dir = fresh('root');
        const cache = fresh('cache');
        const was = seekStep();
        setSeekStep(step);
        try {
          seeds.forEach((seed, i) => {
            fs.mkdirSync(path.join(dir, `f${i}`));
            kind.write(path.join(dir, `f${i}`, kind.name), logOf(seed, 4 + (seed % 30)));
          });
          expect(indexedFind(dir, cache, q, now, passes[0])).toEqual(findMatches(dir, q));
          rounds.forEach((changes, i) => {
            for (const c of changes) kind.apply(dir, c);
            expect(indexedFind(dir, cache, q, now, passes[i + 1])).toEqual(findMatches(dir, q));
          });
        } finally {
          setSeekStep(was);
          fs.rmSync(dir, { recursive: true, force: true });
          fs.rmSync(cache, { recursive: true, force: true });
        }
      },
    ),
    { numRuns },
  );
}

/** A root of 20 logs without escapes, a rare word in one of them. */
function rareRoot(): { dir: string; cache: string; q: Query; files: string[] } {
  const dir = fresh('rare');
  const cache = fresh('cache');
  const files: string[] = [];
  for (let i = 0; i < 20; i++) {
    const f = path.join(dir, `f${i}`, 'session.jsonl');
    fs.mkdirSync(path.dirname(f));
    let text = logOf(i * 5 + 2, 20);
    if (i === 7) text += JSON.stringify({ type: 'user/message', seq: 20, time: 2000, data: { message: { role: 'user', content: 'a zqxjrare word' } } }) + '\n';
    fs.writeFileSync(f, text);
    files.push(f);
  }
  return { dir, cache, q: parseQuery('zqxjrare') as Query, files };
}

// ---- compressed logs: the header line in a frame of its own, then a frame per append batch, as rc.8 writes them

const frameOf = (text: string): Buffer => encodeFrame(Buffer.from(text));
/** A compressed log of the generator's text: its header frame, then its events in one frame. */
function writeCompressed(file: string, text: string): void {
  const nl = text.indexOf('\n') + 1;
  fs.writeFileSync(file, Buffer.concat([frameOf(text.slice(0, nl)), frameOf(text.slice(nl))]));
}

type ZChange = { kind: 'append' | 'torn' | 'cut' | 'rewrite' | 'delete' | 'new' | 'plain'; at: number; seed: number };
const zchange: fc.Arbitrary<ZChange> = fc.record({
  kind: fc.constantFrom('append', 'torn', 'cut', 'rewrite', 'delete', 'new', 'plain' as const),
  at: fc.nat(),
  seed: fc.integer({ min: 1, max: 2 ** 31 }),
});

/** Applies a change to a root of compressed logs (`dir/f<i>/session.jsonl.zstd`; `plain` adds a plain log beside). */
function applyZ(dir: string, c: ZChange): void {
  const logs = logsEnding(dir, '.jsonl.zstd');
  if (c.kind === 'new' || c.kind === 'plain' || logs.length === 0) {
    const d = path.join(dir, `f${n++}`);
    fs.mkdirSync(d, { recursive: true });
    if (c.kind === 'plain') fs.writeFileSync(path.join(d, 'session.jsonl'), logOf(c.seed, 3 + (c.seed % 20)));
    else writeCompressed(path.join(d, 'session.jsonl.zstd'), logOf(c.seed, 3 + (c.seed % 20)));
    return;
  }
  const file = logs[c.at % logs.length];
  const frame = frameOf(eventLines(c.seed, 1 + (c.seed % 6)));
  switch (c.kind) {
    case 'append':
      changeStat(file, () => fs.appendFileSync(file, frame));
      return;
    case 'torn':
      // an append being written: its frame cut short (the next round may append more after it)
      changeStat(file, () => fs.appendFileSync(file, frame.subarray(0, 1 + (c.seed % (frame.length - 1)))));
      return;
    case 'cut':
      changeStat(file, () => fs.truncateSync(file, c.seed % (fs.statSync(file).size + 1)));
      return;
    case 'rewrite':
      changeStat(file, () => writeCompressed(file, logOf(c.seed, 3 + (c.seed % 20))));
      return;
    case 'delete':
      fs.rmSync(file);
      return;
  }
}

const compressedRoot: RootKind<ZChange> = { write: writeCompressed, name: 'session.jsonl.zstd', change: zchange, apply: applyZ };

/** The clock of a run long after the logs were written: their stats are trusted (no racy entries). */
const later = () => Date.now() + 60_000;

describe('the content index', () => {
  beforeAll(() => initDecoder());

  it(
    'finds what a scan finds in compressed logs, over appended frames, torn and cut ones and rewrites between runs',
    () => {
      sameAsScan(runs(80), later, compressedRoot);
    },
    PROPERTY_TIMEOUT,
  );

  it('indexes a compressed log: rules it out, finds its appended frame, and reads a torn frame again once whole', () => {
    const { dir, cache, q, files } = rareRoot();
    // the rare root with every log compressed
    const z = files.map((f) => {
      const to = f + '.zstd';
      writeCompressed(to, fs.readFileSync(f, 'utf8'));
      fs.rmSync(f);
      return to;
    });
    expect(indexedFind(dir, cache, q, later).map((m) => m.file)).toEqual([z[7]]);
    const index = new ContentIndex(dir, { dir: cache, now: later });
    for (const f of z) expect(index.refresh(f)).toBe('current');
    expect(z.filter(index.matcher(trigramsOf(requiredLiterals(q)!)))).toEqual([z[7]]);
    index.close();
    // an append batch with the word, written in two pieces: the first run sees its frame torn
    const frame = frameOf(JSON.stringify({ type: 'user/message', seq: 99, time: 3000, data: { message: { role: 'user', content: 'zqxjrare here too' } } }) + '\n');
    changeStat(z[3], () => fs.appendFileSync(z[3], frame.subarray(0, 5)));
    const torn = new ContentIndex(dir, { dir: cache, now: later });
    expect(torn.refresh(z[3])).toBe('current');
    torn.save(false);
    torn.close();
    changeStat(z[3], () => fs.appendFileSync(z[3], frame.subarray(5)));
    const whole = new ContentIndex(dir, { dir: cache, now: later });
    expect(whole.refresh(z[3])).toBe('appended');
    for (const f of z) whole.refresh(f);
    expect(z.filter(whole.matcher(trigramsOf(requiredLiterals(q)!)))).toEqual([z[3], z[7]]);
    whole.close();
    expect(indexedFind(dir, cache, q, later).map((m) => m.file)).toEqual([z[3], z[7]]);
  });

  it(
    'finds what a scan finds, over random changes between runs (stats trusted)',
    () => {
      sameAsScan(runs(150), later, plainRoot);
    },
    PROPERTY_TIMEOUT,
  );

  it(
    'finds what a scan finds when every entry is racy (each log hashed again)',
    () => {
      sameAsScan(runs(60), undefined, plainRoot);
    },
    PROPERTY_TIMEOUT,
  );

  it('rules out the logs that lack a word, and a warm run reads none of them', () => {
    const { dir, cache, q, files } = rareRoot();
    expect(indexedFind(dir, cache, q, later).map((m) => m.file)).toEqual([files[7]]);
    const index = new ContentIndex(dir, { dir: cache, now: later });
    for (const f of files) expect(index.refresh(f)).toBe('current');
    const may = index.matcher(trigramsOf(requiredLiterals(q)!));
    expect(files.filter(may)).toEqual([files[7]]);
    index.close();
  });

  it('keeps its logs in ascending order on disk, new ones merged in: the next run loads every entry, and finds each row in order or not', () => {
    const { dir, cache, q, files } = rareRoot();
    expect(indexedFind(dir, cache, q, later).map((m) => m.file)).toEqual([files[7]]);
    // new logs that sort before, between and after the indexed ones, and one outside the root (an absolute key)
    const outside = path.join(fresh('outside'), 'out.jsonl');
    const added = [path.join(dir, 'a.jsonl'), path.join(dir, 'f1', 'b.jsonl'), path.join(dir, 'f7x', 'c.jsonl'), path.join(dir, 'zz.jsonl'), outside];
    for (const f of added) {
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.copyFileSync(files[3], f);
    }
    const second = new ContentIndex(dir, { dir: cache, now: later });
    for (const f of [...added].reverse()) expect(second.refresh(f)).toBe('indexed');
    for (const f of files) expect(second.refresh(f)).toBe('current');
    expect(second.save()).toBe(true);
    second.close();
    const third = new ContentIndex(dir, { dir: cache, now: later });
    expect(third.note).toBeUndefined();
    expect(third.kept).toBe(files.length + added.length);
    const all = [...files, ...added];
    // each log found whatever the order it is asked in: ascending, descending, shuffled
    for (const order of [[...all].sort(), [...all].sort().reverse(), all]) expect(order.map((f) => third.refresh(f))).toEqual(order.map(() => 'current'));
    const may = third.matcher(trigramsOf(requiredLiterals(q)!));
    expect([...all].sort().filter(may)).toEqual([files[7]]);
    expect([...all].reverse().filter(may)).toEqual([files[7]]);
    third.close();
  });

  it('walks with the folder listings the fact cache keeps: an unchanged folder is not listed, a changed one is', () => {
    const { dir, cache, q, files } = rareRoot();
    const hourAgo = (Date.now() - 3_600_000) / 1000;
    for (const f of files) fs.utimesSync(path.dirname(f), hourAgo, hourAgo);
    fs.utimesSync(dir, hourAgo, hourAgo);
    loadRootSync(dir, { cache: { dir: cache } }); // keeps the listings (the folders are an hour old: not racy)
    expect(indexedFind(dir, cache, q).map((m) => m.file)).toEqual([files[7]]);
    // a new log holding the word, in a folder the cache listed (the root's own)
    const added = path.join(dir, 'extra.jsonl');
    fs.copyFileSync(files[7], added);
    const real = fs.readdirSync;
    const listed: string[] = [];
    (fs as { readdirSync: unknown }).readdirSync = (...a: unknown[]) => {
      listed.push(String(a[0]));
      return (real as (...x: unknown[]) => unknown)(...a);
    };
    let found: string[];
    try {
      found = indexedFind(dir, cache, q).map((m) => m.file);
    } finally {
      (fs as { readdirSync: unknown }).readdirSync = real;
    }
    expect(found).toEqual(findMatches(dir, q).map((m) => m.file));
    expect(found).toEqual([added, files[7]].sort());
    // only the changed folder was listed again (the cache folder's own listing aside)
    expect(listed.filter((d) => d.startsWith(dir))).toEqual([dir]);
  });

  it('holds a few hundred bytes a log once every log is refreshed, not objects of its own per log', () => {
    const dir = fresh('many');
    const cache = fresh('cache');
    const N = 10_000;
    const files: string[] = [];
    for (let i = 0; i < N; i++) {
      const f = path.join(dir, `s${i}.jsonl`);
      fs.writeFileSync(f, `{"n":${i},"text":"word${i}"}\n`);
      files.push(f);
    }
    let first: ContentIndex | undefined = new ContentIndex(dir, { dir: cache, now: later });
    first.refreshAll(files);
    expect(first.save()).toBe(true);
    first.close();
    first = undefined;
    const gc = fullGc()!;
    // the heap and the typed arrays' memory
    const used = (): number => v8.getHeapStatistics().used_heap_size + process.memoryUsage().arrayBuffers;
    gc();
    gc();
    const before = used();
    const warm = new ContentIndex(dir, { dir: cache, now: later });
    warm.refreshAll(files);
    gc();
    const held = used() - before;
    expect(warm.counts.current).toBe(N);
    expect(warm.matcher(trigramsOf(['word77']))(files[77])).toBe(true);
    // ~250 bytes a log here (its path, its map entry and its row); as objects it was ~775
    expect(held / N).toBeLessThan(400);
    warm.close();
  });

  it('never rules out a log whose word sits across the cut of a line longer than one read', () => {
    const dir = fresh('cut');
    const file = path.join(dir, 'f', 'session.jsonl');
    fs.mkdirSync(path.dirname(file));
    const q = parseQuery('zqxjrare') as Query;
    // the word at every offset from the cuts of 16-byte reads
    for (let pad = 0; pad < 16; pad++) {
      const cache = fresh('cache');
      // (a log with neither escapes nor prompt/blocked: nothing else makes it a candidate)
      fs.writeFileSync(file, makeLog(7, 5, { escapes: 0, blocked: false }) + JSON.stringify({ type: 'user/message', seq: 5, time: 2000, data: { message: { role: 'user', content: `${'x'.repeat(pad)} zqxjrare` } } }) + '\n');
      const index = new ContentIndex(dir, { dir: cache, now: later, readChunk: 16 });
      try {
        expect(index.refresh(file)).toBe('indexed');
        expect(index.matcher(trigramsOf(['zqxjrare']))(file), `pad ${pad}`).toBe(true);
        expect(findMatches(dir, q, index).length, `pad ${pad}`).toBe(1);
      } finally {
        index.close();
      }
    }
  });

  it('refreshes a log in steps that pause between reads, and a cancelled refresh leaves its entry as it was', () => {
    const { dir, cache, q, files } = rareRoot();
    expect(indexedFind(dir, cache, q, later).map((m) => m.file)).toEqual([files[7]]);
    fs.appendFileSync(files[3], eventLines(99, 30));
    const index = new ContentIndex(dir, { dir: cache, now: later, readChunk: 128 });
    const cancelled = index.refreshJob(files[3]);
    expect(cancelled.step(() => true)).toBe(false);
    cancelled.cancel();
    expect(cancelled.result).toBeUndefined();
    index.save(false);
    index.close();
    const again = new ContentIndex(dir, { dir: cache, now: later, readChunk: 128 });
    const job = again.refreshJob(files[3]);
    let steps = 1;
    while (!job.step(() => true)) steps++;
    expect(job.result).toBe('appended');
    expect(steps).toBeGreaterThan(2);
    again.close();
  });

  it('indexes only the bytes an append adds; a rewrite is indexed again whole', () => {
    const { dir, cache, q, files } = rareRoot();
    indexedFind(dir, cache, q, later);
    fs.appendFileSync(files[3], JSON.stringify({ type: 'user/message', seq: 99, time: 3000, data: { message: { role: 'user', content: 'zqxjrare too' } } }) + '\n');
    const bytes = fs.readFileSync(files[5]);
    bytes[bytes.indexOf('"type"') + 2] = 'T'.charCodeAt(0);
    changeStat(files[5], () => fs.writeFileSync(files[5], bytes));
    const index = new ContentIndex(dir, { dir: cache, now: later });
    expect(files.map((f) => index.refresh(f))).toEqual(files.map((_, i) => (i === 3 ? 'appended' : i === 5 ? 'indexed' : 'current')));
    expect(files.filter(index.matcher(trigramsOf(requiredLiterals(q)!)))).toEqual([files[3], files[7]]);
    index.close();
    expect(indexedFind(dir, cache, q, later).map((m) => m.file)).toEqual([files[3], files[7]]);
  });

  it('keeps a log whose words sit in different parts (one before an append, one in it), and only it', () => {
    const { dir, cache, files } = rareRoot();
    indexedFind(dir, cache, parseQuery('zqxjrare') as Query, later);
    // files[7] holds zqxjrare in its first part; the append puts the second word in a part of its own
    fs.appendFileSync(files[7], JSON.stringify({ type: 'user/message', seq: 99, time: 3000, data: { message: { role: 'user', content: 'vvkqpalt' } } }) + '\n');
    // files[2] gets the second word alone
    fs.appendFileSync(files[2], JSON.stringify({ type: 'user/message', seq: 99, time: 3000, data: { message: { role: 'user', content: 'vvkqpalt' } } }) + '\n');
    const index = new ContentIndex(dir, { dir: cache, now: later });
    expect(files.map((f) => index.refresh(f))).toEqual(files.map((_, i) => (i === 2 || i === 7 ? 'appended' : 'current')));
    index.save();
    index.close();
    // a later run: every part is in a segment, each log's parts listed in its entry
    const warm = new ContentIndex(dir, { dir: cache, now: later });
    for (const f of files) expect(warm.refresh(f)).toBe('current');
    expect(files.filter(warm.matcher(trigramsOf(['zqxjrare', 'vvkqpalt'])))).toEqual([files[7]]);
    expect(files.filter(warm.matcher(trigramsOf(['vvkqpalt'])))).toEqual([files[2], files[7]]);
    warm.close();
  });

  it('a damaged, foreign or other-version manifest, or a damaged segment, is rebuilt and never changes an answer', () => {
    const { dir, cache, q, files } = rareRoot();
    const want = findMatches(dir, q);
    indexedFind(dir, cache, q, later);
    const manifest = fs.readdirSync(cache).find((f) => f.endsWith('.index'))!;
    const segs = () => fs.readdirSync(cache).filter((f) => f.endsWith('.seg'));
    const damage: Array<[string, () => void]> = [
      ['garbage manifest', () => fs.writeFileSync(path.join(cache, manifest), 'not an index\n')],
      ['truncated manifest', () => fs.truncateSync(path.join(cache, manifest), fs.statSync(path.join(cache, manifest)).size - 30)],
      ['other version', () => editHead(path.join(cache, manifest), (h) => ({ ...h, dshBrowseIndex: String(h.dshBrowseIndex).replace(/^\d+/, (v) => '9'.repeat(v.length)) }))],
      ['foreign root', () => editHead(path.join(cache, manifest), (h) => ({ ...h, root: '/elsewhere' }))],
      ['one byte more', () => fs.appendFileSync(path.join(cache, manifest), ' ')],
      ['keys cut', () => editHead(path.join(cache, manifest), (h) => ({ ...h, keyChars: Number(h.keyChars) - 1 }))],
      ['a part past the next one', () => editColumns(path.join(cache, manifest), (c) => void (c.first[0] = 1e6))],
      ['bytes indexed past the size', () => editColumns(path.join(cache, manifest), (c) => void (c.nums[5] = c.nums[2] + 1))],
      ['a key listed twice', () => editColumns(path.join(cache, manifest), (c) => {
        // the second key made the first's: both name the same log
        const k0 = c.keys.slice(0, c.keyEnds[0]);
        const k1 = c.keys.slice(c.keyEnds[0], c.keyEnds[1]);
        if (k0.length !== k1.length) throw new Error('keys of one length expected');
        c.keysBytes.write(k0, Buffer.byteLength(k0), 'utf8');
      })],
      ['truncated segment', () => fs.truncateSync(path.join(cache, segs()[0]), 20)],
      ['garbage segment', () => fs.writeFileSync(path.join(cache, segs()[0]), Buffer.alloc(fs.statSync(path.join(cache, segs()[0])).size, 0xff))],
      ['missing segment', () => fs.rmSync(path.join(cache, segs()[0]))],
      ['postings zeroed', () => {
        // a segment of the same size whose trigrams are fine but whose postings name part 0 (a list of one id decodes)
        for (const seg of segs()) {
          const f = path.join(cache, seg);
          const b = fs.readFileSync(f);
          const k = b.readUInt32LE(8);
          const p = b.readUInt32LE(12);
          b.fill(0, 24 + 12 * k, 24 + 12 * k + p);
          fs.writeFileSync(f, b);
        }
      }],
      ['one byte of the trigrams changed', () => {
        const f = path.join(cache, segs()[0]);
        const b = fs.readFileSync(f);
        b[24] ^= 1;
        fs.writeFileSync(f, b);
      }],
    ];
    const MANIFEST_HARM = new Set(['garbage manifest', 'truncated manifest', 'other version', 'foreign root', 'one byte more', 'keys cut', 'a part past the next one', 'bytes indexed past the size', 'a key listed twice']);
    for (const [what, harm] of damage) {
      harm();
      const index = new ContentIndex(dir, { dir: cache, now: later });
      if (MANIFEST_HARM.has(what)) expect(index.note, what).toMatch(what === 'other version' ? /another version: rebuilt/ : /damaged: rebuilt/);
      let found: ReturnType<typeof findMatches>;
      try {
        found = findMatches(dir, q, index);
        index.save();
      } catch (e) {
        throw new Error(`${what}: ${(e as Error).message}`);
      } finally {
        index.close();
      }
      expect(found, what).toEqual(want);
      // rebuilt: the next run trusts every entry again
      const again = new ContentIndex(dir, { dir: cache, now: later });
      expect(files.map((f) => again.refresh(f)).filter((r) => r !== 'current'), what).toEqual([]);
      again.close();
    }
  });

  it('an unwritable cache folder leaves the run unindexed, with the same answer', () => {
    if (process.getuid?.() === 0) {
      // root writes anywhere: a file where the folder should be stands in for it
      const { dir, q } = rareRoot();
      const blocked = path.join(fresh('ro'), 'cache');
      fs.writeFileSync(blocked, '');
      const index = new ContentIndex(dir, { dir: blocked, now: later });
      expect(findMatches(dir, q, index)).toEqual(findMatches(dir, q));
      expect(index.save()).toBe(false);
      expect(index.note).toMatch(/not written/);
      index.close();
      return;
    }
    const { dir, cache, q } = rareRoot();
    fs.chmodSync(cache, 0o500);
    try {
      const index = new ContentIndex(dir, { dir: cache, now: later });
      expect(findMatches(dir, q, index)).toEqual(findMatches(dir, q));
      expect(index.save()).toBe(false);
      index.close();
    } finally {
      fs.chmodSync(cache, 0o700);
    }
  });

  it('merges its segments past a handful, and removes what no manifest lists', () => {
    const { dir, cache, q, files } = rareRoot();
    for (let round = 0; round < 9; round++) {
      fs.appendFileSync(files[round], JSON.stringify({ type: 'user/message', seq: 50 + round, time: 3000, data: { message: { role: 'user', content: `round ${round}` } } }) + '\n');
      expect(indexedFind(dir, cache, q, later).map((m) => m.file)).toEqual([files[7]]);
    }
    const segs = fs.readdirSync(cache).filter((f) => f.endsWith('.seg'));
    expect(segs.length).toBeLessThanOrEqual(7);
    const manifest = fs.readFileSync(path.join(cache, fs.readdirSync(cache).find((f) => f.endsWith('.index'))!), 'utf8');
    for (const s of segs) expect(manifest).toContain(s.split('.')[1]);
    expect(fs.readdirSync(cache).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
