// The fact cache (src/storage/fact-cache.ts): a warm run shows exactly what a
// --no-cache run shows, whatever happened to the files or to the cache file
// between runs; a cache-built session loads the same events, and follows
// appends as a read one does.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cmdList } from '../../src/cli/commands.js';
import { writeHooks } from '../../src/storage/atomic-lines.js';
import { FactCache, RACY_MS, cacheFileFor, factShortKeys } from '../../src/storage/fact-cache.js';
import { AuditIndex } from '../../src/session/audit-index.js';
import { emptyFacts } from '../../src/session/log-facts.js';
import { RootModel } from '../../src/world/root-model.js';
import { ITEM_FIELDS } from '../../src/session/list-item.js';
import { applyChange } from '../../src/storage/follow.js';
import { allDiagnostics, attachCache, loadRootSync, newRootIndex, type RootIndex } from '../../src/storage/load-root.js';
import { scanRoot } from '../../src/storage/scan.js';
import { StatAhead } from '../../src/storage/stat-ahead.js';
import { iterateSessionFiles } from '../../src/storage/walk.js';
import { initDecoder } from '../../src/storage/zstd-frames.js';
import { cleanupTmp, evs, hdr, isRoot, logText, REPO, SAMPLE_DIR, tmpDir, turnRows } from '../support/fixtures.js';
import { PROPERTY_TIMEOUT, runs } from '../support/property.js';
import { hasZstd, realRoot } from '../support/real-roots.js';

beforeAll(async () => {
  await initDecoder();
});
afterAll(cleanupTmp);

/** What `list --json` prints for the index (the CLI's own formatting). */
function listJson(index: RootIndex): string {
  let s = '';
  cmdList(index, { json: true, color: false, write: (x) => void (s += x) });
  return s;
}

/** Every session's events and diagnostics after loading (what opening it shows). */
function loaded(index: RootIndex): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of index.store.list()) out[s.file!] = { events: s.events, diagnostics: s.diagnostics, facts: s.facts, consumed: s.log.consumed };
  return out;
}

const DAY = 86_400_000;
let clock = Date.now() - 30 * DAY;
/** A fresh old mtime (never one used before): the file looks untouched for days, so its entry is trusted. */
function backdate(file: string): void {
  clock += 1000;
  fs.utimesSync(file, new Date(clock), new Date(clock));
}
/** Every file and folder below `dir` (and `dir`) made days old: their facts and listings are trusted. */
function backdateTree(dir: string): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) backdateTree(p);
    else if (e.isFile()) backdate(p);
  }
  backdate(dir);
}

const cacheIn = (dir: string) => ({ cache: { dir } });

/** How many folders the walk visits under `root` (itself included; no .git, no node_modules, no symlinked ones). */
function folderCount(root: string): number {
  let n = 1;
  for (const e of fs.readdirSync(root, { withFileTypes: true })) if (e.isDirectory() && e.name !== '.git' && e.name !== 'node_modules') n += folderCount(path.join(root, e.name));
  return n;
}

describe('a warm run equals a --no-cache run', () => {
  it('on the sample and real roots (cold, then warm from the cache: the same list, diagnostics, events)', () => {
    const root = tmpDir();
    fs.cpSync(SAMPLE_DIR, path.join(root, 'samples'), { recursive: true });
    fs.cpSync(path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4'), path.join(root, 'v2v4'), { recursive: true });
    realRoot(path.join(root, 'rc8'), 'rc8');
    realRoot(path.join(root, 'rfc'), 'rfc0706');
    backdateTree(root);
    const dir = tmpDir('dsh-cache-');
    const plain = loadRootSync(root);
    const first = loadRootSync(root, cacheIn(dir));
    expect(first.cacheStats).toMatchObject({ hits: 0, wrote: true });
    const warm = loadRootSync(root, cacheIn(dir));
    const files = [...plain.files.values()].filter((e) => !e.older).length;
    expect(files).toBeGreaterThan(20);
    expect(warm.cacheStats).toEqual({ hits: files, entries: files, wrote: false, folders: expect.any(Number) });
    // no folder was listed again: every one is the walk's, from the cache
    expect(warm.cacheStats!.folders).toBeGreaterThan(4);
    expect(warm.cacheStats!.folders).toBe(folderCount(root));
    expect(listJson(warm)).toBe(listJson(plain));
    expect(allDiagnostics(warm)).toEqual(allDiagnostics(plain));
    // nothing was loaded yet: the events come through the normal loader, the same as a read
    expect(warm.store.list().some((s) => !s.isLoaded)).toBe(true);
    expect(loaded(warm)).toEqual(loaded(plain));
    // a third run writes nothing either
    expect(loadRootSync(root, cacheIn(dir)).cacheStats).toEqual({ hits: files, entries: files, wrote: false, folders: folderCount(root) });
  });

  it('a warm list and audit build no log state: the items and findings are what the read sessions give', () => {
    const root = tmpDir();
    fs.cpSync(SAMPLE_DIR, path.join(root, 'samples'), { recursive: true });
    realRoot(path.join(root, 'rc8'), 'rc8');
    fs.cpSync(path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4'), path.join(root, 'v2v4'), { recursive: true });
    backdateTree(root);
    const dir = tmpDir('dsh-cache-');
    const plain = loadRootSync(root);
    loadRootSync(root, cacheIn(dir));
    const warm = loadRootSync(root, cacheIn(dir));
    const modelOf = (index: RootIndex) => {
      const audit = new AuditIndex(undefined, index.store);
      while (!audit.step(index.store.list(), Infinity).done) {
        /* to the end */
      }
      const m = new RootModel(index.store, audit);
      m.sync();
      return m.all().map((i) => Object.fromEntries(ITEM_FIELDS.map((k) => [k, i[k]]))); // what each item shows
    };
    const cold = modelOf(plain);
    const items = modelOf(warm);
    // only sessions with something to show beyond their row (a finding, a shared id, a seed to compare) were thawed
    const thawed = warm.store.list().filter((s) => s.thawed);
    expect(thawed.length).toBeLessThan(warm.store.list().length / 2);
    expect(items).toEqual(cold);
  });

  it('a snapshot that no longer reads back from the catalog is read from its log instead', () => {
    const root = tmpDir();
    fs.cpSync(SAMPLE_DIR, root, { recursive: true });
    backdateTree(root);
    const dir = tmpDir('dsh-cache-');
    const plain = loadRootSync(root);
    loadRootSync(root, cacheIn(dir));
    const warm = loadRootSync(root, cacheIn(dir));
    // the catalog is damaged in place after the load (the open file is what a thaw reads)
    const file = cacheFileFor(root, dir)!;
    const text = fs.readFileSync(file, 'latin1');
    expect(text).toContain('[0,{"e":');
    fs.writeFileSync(file, text.replaceAll('[0,{"e":', '[0,{{"e":'), 'latin1');
    expect(warm.store.list().every((s) => !s.thawed)).toBe(true);
    expect(loaded(warm)).toEqual(loaded(plain));
  });

  it("the compact form's short keys are no fact's own name (a new LogFacts field is stored whole)", () => {
    const names = new Set<string>();
    for (const s of loadRootSync(SAMPLE_DIR).store.list()) for (const k of Object.keys(s.facts)) names.add(k);
    expect(names.size).toBeGreaterThan(15);
    for (const k of factShortKeys()) expect(names.has(k)).toBe(false);
  });

  it('every fact of the real roots comes back from the cache, in the same order (one hidden class), the rare ones too', () => {
    const common = new Set(Object.keys(emptyFacts()));
    const root = tmpDir();
    fs.cpSync(SAMPLE_DIR, path.join(root, 'samples'), { recursive: true });
    fs.cpSync(path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4'), path.join(root, 'v2v4'), { recursive: true });
    realRoot(path.join(root, 'rc8'), 'rc8');
    backdateTree(root);
    const dir = tmpDir('dsh-cache-');
    const plain = loadRootSync(root);
    loadRootSync(root, cacheIn(dir));
    const warm = loadRootSync(root, cacheIn(dir));
    // every file from the cache (the sessions, and the refused files' diagnostics)
    expect(warm.cacheStats).toMatchObject({ hits: warm.cacheStats!.entries, wrote: false });
    expect(warm.cacheStats!.hits).toBeGreaterThan(plain.store.size);
    const rare = new Set<string>();
    for (const s of plain.store.list()) {
      const w = warm.store.byFile(s.file!)!;
      // the same fields, set or not, in the same order (one hidden class), with the same values
      expect(Object.keys(w.facts)).toEqual(Object.keys(s.facts));
      expect(w.facts).toStrictEqual(s.facts);
      for (const k of Object.keys(s.facts)) if (!common.has(k) && s.facts[k as keyof typeof s.facts] !== undefined) rare.add(k);
    }
    // the roots hold facts beyond emptyFacts() (a fork's cut, rc.8 vocabulary...)
    expect(rare.size).toBeGreaterThan(1);
  });

  it('an entry JSON cannot hold (a 1e999 in the header or the facts) is not cached', () => {
    const root = tmpDir();
    const a = path.join(root, 'a.jsonl');
    fs.writeFileSync(a, logText(hdr('a'), evs(...turnRows(1))).replace('"createdAt":', '"huge":1e999,"createdAt":'));
    const b = path.join(root, 'b.jsonl');
    fs.writeFileSync(b, logText(hdr('b'), evs(['turn/start', { turn: 1 }])).replace('"turn":1', '"turn":1e999'));
    const c = path.join(root, 'c.jsonl');
    fs.writeFileSync(c, logText(hdr('c'), evs(...turnRows(1))));
    for (const f of [a, b, c]) backdate(f);
    const dir = tmpDir('dsh-cache-');
    loadRootSync(root, cacheIn(dir));
    const warm = loadRootSync(root, cacheIn(dir));
    expect(warm.cacheStats).toMatchObject({ hits: 1, entries: 1 });
    expect(warm.store.byFile(b)!.facts.openTurn).toBe(Infinity);
    expect(listJson(warm)).toBe(listJson(loadRootSync(root)));
  });

  it('an entry whose strings UTF-8 would change (a lone surrogate in a title) is not cached', () => {
    const root = tmpDir();
    const a = path.join(root, 'a.jsonl');
    fs.writeFileSync(a, logText(hdr('a'), evs(...turnRows(1, { kind: 'completed' }, 'half a pair \ud83d here'))));
    const b = path.join(root, 'b.jsonl');
    fs.writeFileSync(b, logText(hdr('b'), evs(...turnRows(1, { kind: 'completed' }, 'a whole pair \ud83d\ude00 here'))));
    for (const f of [a, b]) backdate(f);
    const dir = tmpDir('dsh-cache-');
    const plain = loadRootSync(root);
    expect(plain.store.byFile(a)!.facts.title).toContain('\ud83d h');
    loadRootSync(root, cacheIn(dir));
    const warm = loadRootSync(root, cacheIn(dir));
    expect(warm.cacheStats).toMatchObject({ hits: 1, entries: 1 });
    expect(warm.store.byFile(b)!.row?.title).toContain('\ud83d\ude00');
    expect(listJson(warm)).toBe(listJson(plain));
  });

  it.skipIf(!hasZstd)('on a compressed root', () => {
    const { root } = realRoot(tmpDir(), 'rc8', { compressed: true, linesPerFrame: 3 });
    backdateTree(root);
    const dir = tmpDir('dsh-cache-');
    const plain = loadRootSync(root);
    loadRootSync(root, cacheIn(dir));
    const warm = loadRootSync(root, cacheIn(dir));
    expect(warm.cacheStats!.hits).toBe(plain.store.size);
    expect(listJson(warm)).toBe(listJson(plain));
    expect(loaded(warm)).toEqual(loaded(plain));
  });

  it('the TUI scan: a warm scan builds the same index from the cache, written once after the first scan', async () => {
    const root = tmpDir();
    fs.cpSync(SAMPLE_DIR, root, { recursive: true });
    backdateTree(root);
    const dir = tmpDir('dsh-cache-');
    const cold = newRootIndex(root);
    attachCache(cold, { dir });
    await scanRoot(cold);
    expect(cold.cache).toBeUndefined(); // saved and detached: live changes never rewrite it
    expect(cold.cacheStats).toMatchObject({ hits: 0, wrote: true });
    const warm = newRootIndex(root);
    attachCache(warm, { dir });
    await scanRoot(warm);
    expect(warm.cacheStats).toMatchObject({ hits: warm.store.size + [...warm.files.values()].filter((e) => e.refused).length, wrote: false });
    expect(listJson(warm)).toBe(listJson(loadRootSync(root)));
    // the same with the stats taken ahead on a worker thread (what a large root gets)
    const take = vi.spyOn(StatAhead.prototype, 'take');
    try {
      const ahead = newRootIndex(root);
      attachCache(ahead, { dir, statAheadMin: 0 });
      await scanRoot(ahead);
      expect(take).toHaveBeenCalled();
      expect(ahead.cacheStats).toMatchObject({ hits: warm.cacheStats!.hits, wrote: false });
      expect(listJson(ahead)).toBe(listJson(warm));
    } finally {
      take.mockRestore();
    }
    const file = cacheFileFor(root, dir)!;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
  });

  it('a scan cut short keeps the entries of the files it did not reach', async () => {
    const root = tmpDir();
    fs.cpSync(SAMPLE_DIR, root, { recursive: true });
    backdateTree(root);
    const dir = tmpDir('dsh-cache-');
    const all = loadRootSync(root, cacheIn(dir)).cacheStats!;
    const n = loadRootSync(root, cacheIn(dir)).cacheStats!.hits;
    expect(all.wrote).toBe(true);
    // one file changed (so the cut scan has something to write), then a scan stopped after its first batch
    const changed = iterateSessionFiles(root).next().value as string; // the first file the scan reads
    fs.appendFileSync(changed, '\n');
    backdate(changed);
    const cut = newRootIndex(root);
    attachCache(cut, { dir });
    const abort = new AbortController();
    await scanRoot(cut, { budgetMs: 0, signal: abort.signal, onProgress: () => abort.abort() });
    expect(cut.store.size).toBeLessThan(n);
    expect(cut.cacheStats!.wrote).toBe(true);
    const after = loadRootSync(root, cacheIn(dir));
    expect(after.cacheStats!.hits).toBeGreaterThanOrEqual(n - 1);
    expect(listJson(after)).toBe(listJson(loadRootSync(root)));
  });

  it('a cache-built session follows appends exactly as a read one (from its consumed offset)', () => {
    const root = tmpDir();
    const file = path.join(root, 'a.jsonl');
    const rows = evs(...turnRows(1), ...turnRows(2));
    // a torn tail: the append completes it
    const text = logText(hdr('a'), rows.slice(0, 7));
    const torn = JSON.stringify(rows[7]);
    fs.writeFileSync(file, text + torn.slice(0, 10));
    backdate(file);
    const dir = tmpDir('dsh-cache-');
    loadRootSync(root, cacheIn(dir));
    const warm = loadRootSync(root, cacheIn(dir));
    expect(warm.cacheStats!.hits).toBe(1);
    expect(warm.files.get(file)!.pending).toBe(10);
    fs.appendFileSync(file, torn.slice(10) + '\n' + rows.slice(8).map((e) => JSON.stringify(e) + '\n').join(''));
    const st = fs.statSync(file);
    applyChange(warm, { kind: 'grown', file, size: st.size, ino: st.ino, mtimeMs: st.mtimeMs }, () => {});
    const s = warm.store.byFile(file)!;
    expect(s.length).toBe(14);
    const fresh = loadRootSync(root);
    expect(listJson(warm)).toBe(listJson(fresh));
    expect(loaded(warm)).toEqual(loaded(fresh));
  });
});

// ---- the property: random changes between runs --------------------------------

const SLOTS = ['a.jsonl', 'b.jsonl', 'sub/c.jsonl', 'sub/deeper/d.jsonl'];

/** Contents a slot can hold: sessions of a few turns, open turns, torn tails, damage, files that are no session. */
const contentArb: fc.Arbitrary<string> = fc.oneof(
  fc.record({ id: fc.constantFrom('x', 'y', 'z'), turns: fc.integer({ min: 0, max: 3 }), open: fc.boolean(), tail: fc.constantFrom('', '{"type":"tu', 'garbage\n', '\n') }).map(({ id, turns, open, tail }) => {
    const rows: Array<[string, unknown?]> = [];
    for (let t = 1; t <= turns; t++) rows.push(...turnRows(t, { kind: 'completed' }, `prompt ${id} ${t}`));
    if (open) rows.push(['turn/start', { turn: turns + 1, trigger: 'user' }], ['user/message', { content: [{ type: 'text', text: `open ${id}` }], source: 'user' }]);
    return logText(hdr(id, { createdAt: 1000 + turns }), evs(...rows)) + tail;
  }),
  fc.constantFrom('', 'not json\n', '{"type":"session"}\n', '{"type":"session","version":0,"id":"h","createdAt":1}'),
);

type Op =
  | { op: 'write' | 'replace'; slot: number; content: string; fresh: boolean }
  | { op: 'append'; slot: number; text: string; fresh: boolean }
  | { op: 'truncate'; slot: number; keep: number; fresh: boolean }
  | { op: 'same-size'; slot: number; at: number; fresh: boolean }
  | { op: 'rollback' | 'touch' | 'delete'; slot: number }
  | { op: 'rename'; slot: number; to: number; fresh: boolean }
  | { op: 'settle-dirs' }
  | { op: 'junk'; where: number; kind: 'dir' | 'fifo' | 'link' }
  | { op: 'rmdir'; where: number };

/** The folders the slots live in (the root first). */
const DIRS = ['', 'sub', 'sub/deeper'];

const appendArb = fc.constantFrom(
  JSON.stringify({ type: 'turn/start', seq: 99, time: 5, data: { turn: 9 } }) + '\n',
  JSON.stringify({ type: 'user/message', seq: 100, time: 6, data: { content: [{ type: 'text', text: 'late' }] } }) + '\n',
  '{"type":"turn/end","seq":',
  '"x"}\n',
  '\n',
);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constantFrom('write' as const, 'replace' as const), slot: fc.nat(SLOTS.length - 1), content: contentArb, fresh: fc.boolean() }),
  fc.record({ op: fc.constant('append' as const), slot: fc.nat(SLOTS.length - 1), text: appendArb, fresh: fc.boolean() }),
  fc.record({ op: fc.constant('truncate' as const), slot: fc.nat(SLOTS.length - 1), keep: fc.double({ min: 0, max: 1, noNaN: true }), fresh: fc.boolean() }),
  fc.record({ op: fc.constant('same-size' as const), slot: fc.nat(SLOTS.length - 1), at: fc.double({ min: 0, max: 1, noNaN: true }), fresh: fc.boolean() }),
  fc.record({ op: fc.constantFrom('rollback' as const, 'touch' as const, 'delete' as const), slot: fc.nat(SLOTS.length - 1) }),
  fc.record({ op: fc.constant('rename' as const), slot: fc.nat(SLOTS.length - 1), to: fc.nat(SLOTS.length - 1), fresh: fc.boolean() }),
  fc.constant({ op: 'settle-dirs' as const }),
  fc.record({ op: fc.constant('junk' as const), where: fc.nat(DIRS.length - 1), kind: fc.constantFrom('dir' as const, 'fifo' as const, 'link' as const) }),
  fc.record({ op: fc.constant('rmdir' as const), where: fc.integer({ min: 1, max: DIRS.length - 1 }) }),
);

/** Folders changed in the last minute are made days old (each a fresh mtime): their next listing is kept, and trusted after. */
function settleDirs(root: string): void {
  for (const d of DIRS) {
    const p = path.join(root, d);
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (st?.isDirectory() && st.mtimeMs > Date.now() - 60_000) backdate(p);
  }
}

/** Applies one change; `fresh`: the file keeps its new mtime (now: racy, never trusted), else it looks days old. */
function applyOp(root: string, o: Op): void {
  switch (o.op) {
    case 'settle-dirs':
      return settleDirs(root);
    case 'junk': {
      const d = path.join(root, DIRS[o.where]);
      if (!fs.existsSync(d)) return;
      const p = path.join(d, `junk-${o.kind}.jsonl`);
      if (fs.existsSync(p) || fs.lstatSync(p, { throwIfNoEntry: false })) return;
      if (o.kind === 'dir') fs.mkdirSync(p); // a folder named like a session file: a skip, and a folder walked
      else if (o.kind === 'fifo') execFileSync('mkfifo', [p]); // not a regular file: a skip
      else fs.symlinkSync(path.join(root, SLOTS[0]), p); // a link to a.jsonl: read while a.jsonl is there, a skip while not
      return;
    }
    case 'rmdir':
      fs.rmSync(path.join(root, DIRS[o.where]), { recursive: true, force: true });
      return;
  }
  const file = path.join(root, SLOTS[o.slot]);
  const exists = fs.existsSync(file);
  const settle = (f: string, fresh: boolean) => {
    if (!fresh) backdate(f);
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  switch (o.op) {
    case 'write':
      fs.writeFileSync(file, o.content); // in place: the same inode
      return settle(file, o.fresh);
    case 'replace': {
      const tmp = file + '.tmp';
      fs.writeFileSync(tmp, o.content);
      fs.renameSync(tmp, file); // a new inode
      return settle(file, o.fresh);
    }
    case 'append':
      if (!exists) return;
      fs.appendFileSync(file, o.text);
      return settle(file, o.fresh);
    case 'truncate':
      if (!exists) return;
      fs.truncateSync(file, Math.floor(fs.statSync(file).size * o.keep));
      return settle(file, o.fresh);
    case 'same-size': {
      if (!exists) return;
      const buf = fs.readFileSync(file);
      if (buf.length === 0) return;
      // change one byte (a digit or letter of the text, or any byte): the size stays
      const i = Math.min(buf.length - 1, Math.floor(buf.length * o.at));
      const c = buf[i];
      buf[i] = c >= 0x30 && c <= 0x38 ? c + 1 : c === 0x39 ? 0x30 : c >= 0x61 && c < 0x7a ? c + 1 : c === 0x0a ? 0x20 : 0x0a;
      const fd = fs.openSync(file, 'r+');
      fs.writeSync(fd, buf, 0, buf.length, 0);
      fs.closeSync(fd);
      return settle(file, o.fresh);
    }
    case 'rollback':
      if (!exists) return;
      // an mtime older than any before (a restore from a backup, `touch -d`)
      fs.utimesSync(file, new Date(clock - 365 * DAY), new Date(clock - 365 * DAY - (o.slot + 1) * 7000 - fs.statSync(file).size));
      return;
    case 'touch':
      if (exists) fs.utimesSync(file, new Date(), new Date());
      return;
    case 'delete':
      if (exists) fs.rmSync(file);
      return;
    case 'rename': {
      if (!exists || o.to === o.slot) return;
      const to = path.join(root, SLOTS[o.to]);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.renameSync(file, to);
      return settle(to, o.fresh);
    }
  }
}

describe('property: after any change between runs, a warm run shows what a --no-cache run shows', () => {
  it(
    'random sequences of append, truncate, same-size rewrite, replace by rename, mtime rollback, touch, delete, rename, new file',
    () => {
      let hits = 0;
      let listed = 0;
      let runsDone = 0;
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.nat(SLOTS.length - 1), contentArb), { maxLength: SLOTS.length }), fc.array(fc.array(opArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }), (initial, batches) => {
          const root = tmpDir('dsh-prop-');
          const dir = tmpDir('dsh-prop-cache-');
          for (const [slot, content] of initial) applyOp(root, { op: 'write', slot, content, fresh: false });
          settleDirs(root);
          const check = () => {
            // every fifth warm run takes its stats on a worker thread, as a large root's run does (a worker per run would cost seconds)
            const warm = loadRootSync(root, { cache: { dir, statAheadMin: runsDone % 5 === 0 ? 0 : undefined } });
            const plain = loadRootSync(root);
            expect(listJson(warm)).toBe(listJson(plain));
            expect(allDiagnostics(warm)).toEqual(allDiagnostics(plain));
            expect(loaded(warm)).toEqual(loaded(plain));
            hits += warm.cacheStats!.hits;
            listed += warm.cacheStats!.folders;
            runsDone++;
          };
          check();
          // a run after each batch: changes between two runs come several at once (a change, then its folder made old)
          for (const ops of batches) {
            for (const o of ops) applyOp(root, o);
            check();
          }
          fs.rmSync(root, { recursive: true, force: true });
          fs.rmSync(dir, { recursive: true, force: true });
        }),
        { numRuns: runs(150) },
      );
      // the cache was really used (not a property of cold runs only)
      expect(hits).toBeGreaterThan(runsDone / 2);
      // and so were the folder listings
      expect(listed).toBeGreaterThan(runsDone / 2);
    },
    PROPERTY_TIMEOUT,
  );
});

// ---- the racy rule -------------------------------------------------------------

describe('racy entries', () => {
  it('a file changed less than RACY_MS before the run is not cached: a same-size rewrite in the same mtime tick is seen', () => {
    const root = tmpDir();
    const file = path.join(root, 'a.jsonl');
    fs.writeFileSync(file, logText(hdr('a'), evs(...turnRows(1, { kind: 'completed' }, 'prompt AAA'))));
    const dir = tmpDir('dsh-cache-');
    const first = loadRootSync(root, cacheIn(dir));
    expect(first.cacheStats).toMatchObject({ hits: 0 });
    // same size, same mtime (as a rewrite within one coarse mtime tick would leave it)
    const st = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('prompt AAA', 'prompt BBB'));
    fs.utimesSync(file, st.atime, st.mtime);
    const warm = loadRootSync(root, cacheIn(dir));
    expect(warm.cacheStats!.hits).toBe(0);
    expect(warm.store.list()[0].facts.title).toBe('prompt BBB');
  });

  it('an entry is trusted once its file is RACY_MS older than the run that read it', () => {
    const root = tmpDir();
    const file = path.join(root, 'a.jsonl');
    fs.writeFileSync(file, logText(hdr('a'), evs(...turnRows(1))));
    const dir = tmpDir('dsh-cache-');
    const later = () => Date.now() + RACY_MS + 1000;
    // the file was written just now: a run that starts now does not keep it
    expect(loadRootSync(root, cacheIn(dir)).cacheStats).toMatchObject({ hits: 0, entries: 0, wrote: true });
    expect(new FactCache(root, { dir }).size).toBe(0);
    expect(loadRootSync(root, { cache: { dir, now: later } }).cacheStats).toMatchObject({ hits: 0, wrote: true });
    expect(loadRootSync(root, { cache: { dir, now: later } }).cacheStats).toMatchObject({ hits: 1, wrote: false });
  });
});

// ---- a damaged or unwritable cache ----------------------------------------------

describe('a cache file that cannot be trusted is ignored and rebuilt', () => {
  function warmRoot(): { root: string; dir: string; file: string; expected: string } {
    const root = tmpDir();
    fs.cpSync(SAMPLE_DIR, root, { recursive: true });
    backdateTree(root);
    const dir = path.join(tmpDir('dsh-cache-'), 'dsh-browse'); // made by the first run
    loadRootSync(root, cacheIn(dir));
    const file = cacheFileFor(root, dir)!;
    expect(fs.existsSync(file)).toBe(true);
    return { root, dir, file, expected: listJson(loadRootSync(root)) };
  }

  /** A session file changed after the cache was written: a cache that wrongly trusted its entry would show the old facts. */
  function change(root: string): void {
    const f = path.join(root, fs.readdirSync(root).find((n) => n.endsWith('.jsonl'))!);
    fs.appendFileSync(f, JSON.stringify({ type: 'user/message', seq: 9999, time: 1, data: { content: 'x' } }) + '\n');
    backdate(f);
  }

  const damages: Array<[string, (file: string) => void]> = [
    ['truncated in a line', (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2))],
    ['truncated at a line end', (f) => {
      const t = fs.readFileSync(f, 'utf8');
      fs.writeFileSync(f, t.slice(0, t.indexOf('\n', t.length / 2) + 1));
    }],
    ['empty', (f) => fs.writeFileSync(f, '')],
    ['garbage', (f) => fs.writeFileSync(f, Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)))],
    ['garbage lines under a valid header', (f) => {
      const t = fs.readFileSync(f, 'utf8').split('\n');
      fs.writeFileSync(f, [t[0], ...t.slice(1, -1).map((l) => l.slice(0, l.indexOf('\t') + 1) + '[1,2,3'), ''].join('\n'));
    }],
    ['from a future version', (f) => {
      const t = fs.readFileSync(f, 'utf8');
      const nl = t.indexOf('\n');
      const head = JSON.parse(t.slice(0, nl));
      head.dshBrowseCache = '999/9.9.9';
      fs.writeFileSync(f, JSON.stringify(head) + t.slice(nl));
    }],
    ['a folder in its place', (f) => {
      fs.rmSync(f);
      fs.mkdirSync(f);
    }],
  ];

  for (const [what, damage] of damages)
    it(what, () => {
      const { root, dir, file } = warmRoot();
      damage(file);
      change(root);
      const warm = loadRootSync(root, cacheIn(dir));
      expect(listJson(warm)).toBe(listJson(loadRootSync(root)));
      if (fs.statSync(file).isFile()) {
        // rebuilt: the next run comes from it whole
        expect(warm.cacheStats!.wrote).toBe(true);
        const again = loadRootSync(root, cacheIn(dir));
        expect(again.cacheStats!.hits).toBe(again.cacheStats!.entries);
        expect(again.cacheStats!.hits).toBeGreaterThan(0);
        expect(listJson(again)).toBe(listJson(warm));
      } else expect(warm.cacheNote).toMatch(/not written/);
    });

  it.skipIf(isRoot)('an unreadable cache file', () => {
    const { root, dir, file } = warmRoot();
    fs.chmodSync(file, 0o000);
    change(root);
    const warm = loadRootSync(root, cacheIn(dir));
    expect(listJson(warm)).toBe(listJson(loadRootSync(root)));
    expect(warm.cacheNote).toBeDefined();
  });

  it.skipIf(isRoot)('a read-only cache folder: the cache is read, nothing is written, the run succeeds', () => {
    const { root, dir, expected } = warmRoot();
    fs.chmodSync(dir, 0o500);
    try {
      const warm = loadRootSync(root, cacheIn(dir));
      expect(warm.cacheStats!.hits).toBeGreaterThan(0);
      expect(listJson(warm)).toBe(expected);
      change(root);
      const changed = loadRootSync(root, cacheIn(dir));
      expect(listJson(changed)).toBe(listJson(loadRootSync(root)));
      expect(changed.cacheNote).toMatch(/not written/);
    } finally {
      fs.chmodSync(dir, 0o700);
    }
  });

  it('a cache folder that cannot be made (a file in its way): the run succeeds uncached', () => {
    const root = tmpDir();
    fs.cpSync(SAMPLE_DIR, root, { recursive: true });
    backdateTree(root);
    const blocker = path.join(tmpDir('dsh-cache-'), 'file');
    fs.writeFileSync(blocker, 'x');
    const dir = path.join(blocker, 'dsh-browse');
    const r = loadRootSync(root, cacheIn(dir));
    expect(listJson(r)).toBe(listJson(loadRootSync(root)));
    expect(r.cacheNote).toMatch(/not written/);
  });

  it('a write cut midway (CLI and TUI scan): the old cache file stays whole, no temp file; the next run writes it', async () => {
    const { root, dir, file } = warmRoot();
    const old = fs.readFileSync(file);
    change(root);
    const expected = listJson(loadRootSync(root));
    // the write fails at its first slice of entries (0: the head's placeholder)
    writeHooks.beforeWrite = (n) => {
      if (n === 1) throw new Error('disk full');
    };
    try {
      const cli = loadRootSync(root, cacheIn(dir));
      expect(listJson(cli)).toBe(expected);
      expect(cli.cacheStats!.wrote).toBe(false);
      expect(cli.cacheNote).toMatch(/not written.*disk full/);
      const tui = newRootIndex(root);
      attachCache(tui, { dir });
      await scanRoot(tui);
      expect(tui.cacheStats!.wrote).toBe(false);
      expect(tui.cacheNote).toMatch(/not written.*disk full/);
    } finally {
      writeHooks.beforeWrite = undefined;
    }
    expect(fs.readFileSync(file).equals(old)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
    expect(loadRootSync(root, cacheIn(dir)).cacheStats!.wrote).toBe(true);
    const again = loadRootSync(root, cacheIn(dir));
    expect(again.cacheStats).toMatchObject({ wrote: false, hits: again.cacheStats!.entries });
    expect(listJson(again)).toBe(expected);
  });

  it('is written 0600 in a 0700 folder, through a temp file that does not stay', () => {
    const { dir, file } = warmRoot();
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
  });
});
