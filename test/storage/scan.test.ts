// The incremental scan walks folders lazily and ends with the same index as a full load.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRootSync, newRootIndex } from '../../src/storage/load-root.js';
import { scanRoot, type ScanProgress } from '../../src/storage/scan.js';
import { iterateSessionFiles, listSessionFiles } from '../../src/storage/walk.js';
import { writeHugeSession } from '../../bench/generate.js';

const SAMPLES = path.resolve(__dirname, '../../sample-sessions');

const made: string[] = [];
afterAll(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function layoutTree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-scan-'));
  made.push(root);
  const head = (id: string) => JSON.stringify({ type: 'session', version: 0, id, createdAt: 1 }) + '\n';
  const files = ['flat.jsonl', 'cwd-0123456789ab/a.jsonl', 'cwd-0123456789ab/b.jsonl', '_no-cwd/c.jsonl', '--proj--/s1/session.jsonl', '--proj--/..~002Fx/session.jsonl', 'deep/er/still/d.jsonl'];
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), head(f));
  }
  for (const junk of ['x.jsonl.tmp', 'node_modules/m/a.jsonl', '.git/a.jsonl', 'notes.txt']) {
    fs.mkdirSync(path.dirname(path.join(root, junk)), { recursive: true });
    fs.writeFileSync(path.join(root, junk), 'junk');
  }
  fs.symlinkSync(root, path.join(root, 'loop'));
  return root;
}

describe('iterateSessionFiles', () => {
  it('yields exactly the files listSessionFiles lists', () => {
    const root = layoutTree();
    expect([...iterateSessionFiles(root)].sort()).toEqual(listSessionFiles(root));
    expect(listSessionFiles(root)).toHaveLength(7);
  });

  it('lists folders ahead only until ~1,024 files are in hand (big folders were one long block of the scan), and yields every file once', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-scan-'));
    made.push(root);
    const FOLDERS = 12;
    const PER = 300;
    for (let d = 0; d < FOLDERS; d++) {
      const dir = path.join(root, `cwd-${String(d).padStart(12, '0')}`);
      fs.mkdirSync(dir);
      for (let i = 0; i < PER; i++) fs.writeFileSync(path.join(dir, `s-${i}.jsonl`), '');
    }
    const listed: string[] = [];
    const it = iterateSessionFiles(root, undefined, (dir) => listed.push(dir));
    const first = it.next();
    expect(first.done).toBe(false);
    // the root and 4 folders (1,200 files): not all 12 before the first file
    expect(listed.length).toBe(5);
    const rest = [...it];
    expect(listed.length).toBe(FOLDERS + 1);
    const all = [first.value as string, ...rest];
    expect(all.length).toBe(FOLDERS * PER);
    expect(all.slice().sort()).toEqual(listSessionFiles(root));
  });
});

describe('scanRoot', () => {
  it('ends with the same sessions and facts as loadRootSync, reporting progress without a known total until the walk ends', async () => {
    const full = loadRootSync(SAMPLES);
    const index = newRootIndex(SAMPLES);
    const seen: ScanProgress[] = [];
    const done = await scanRoot(index, { budgetMs: 0, onProgress: (p) => seen.push(p) });
    expect(done).toMatchObject({ finished: true, done: full.files.size, total: full.files.size });
    expect(seen.length).toBeGreaterThan(2); // one batch per file with a zero budget
    expect(seen[0].total).toBeUndefined();
    const facts = (i: typeof full) => new Map(i.store.list().map((s) => [s.file, s.facts]));
    expect(facts(index)).toEqual(facts(full));
    expect([...index.files.keys()].sort()).toEqual([...full.files.keys()].sort());
  });

  it("tells the store's listeners once a batch, not once a session", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-scan-'));
    made.push(root);
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(root, `s${i}.jsonl`), JSON.stringify({ type: 'session', version: 0, id: `s${i}`, createdAt: 1 }) + '\n');
    const index = newRootIndex(root);
    let emits = 0;
    const sizes: number[] = [];
    index.store.subscribe(() => {
      emits++;
      sizes.push(index.store.size);
    });
    let batches = 0;
    await scanRoot(index, { budgetMs: 60_000, onProgress: () => batches++ });
    expect(index.store.size).toBe(300);
    // one batch (a budget no scan of 300 files spends): one emit, with every session in the store
    expect(emits).toBe(1);
    expect(sizes).toEqual([300]);
    expect(batches).toBeGreaterThan(0);
  });

  it('reads a large log in slices, saying how far (the first scan of a 10 GB log held the loop for 30 s), with the facts of a read at once', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-scan-'));
    made.push(root);
    const file = writeHugeSession(path.join(root, 'big.jsonl'), 6e6, { id: 'big' }).file;
    const index = newRootIndex(root);
    const fractions: number[] = [];
    let loopRan = 0;
    const ticker = setInterval(() => loopRan++, 0);
    try {
      await scanRoot(index, { budgetMs: 0, onProgress: (p) => p.reading && (expect(p.reading.file).toBe(file), fractions.push(p.reading.progress!.read / p.reading.progress!.end)) });
    } finally {
      clearInterval(ticker);
    }
    // a slice per 1 MB chunk with a zero budget: the fraction grows, the loop runs between
    expect(fractions.length).toBeGreaterThanOrEqual(4);
    expect(fractions.every((f, i) => f > 0 && f < 1 && (i === 0 || f > fractions[i - 1]))).toBe(true);
    expect(loopRan).toBeGreaterThan(0);
    const full = loadRootSync(root);
    expect(index.store.list().map((s) => s.facts)).toEqual(full.store.list().map((s) => s.facts));
    expect(index.store.list()[0].facts.events).toBeGreaterThan(1000);
  });

  it('stops when aborted', async () => {
    const index = newRootIndex(SAMPLES);
    const ac = new AbortController();
    ac.abort();
    const p = await scanRoot(index, { signal: ac.signal });
    expect(p.done).toBe(0);
  });
});
