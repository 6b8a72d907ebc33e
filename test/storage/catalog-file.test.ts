// The catalog's file layout (src/storage/catalog-file.ts): what is written
// reads back the same, entries copied from a loaded catalog keep their
// snapshot bytes, and a file that is not whole is never taken for a catalog.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeChunksAtomic } from '../../src/storage/atomic-lines.js';
import { Catalog, CatalogMismatch, NUM, TRANSIENT, WIDTH, catalogSource, readCatalog, readCatalogFolders, storable, type NewEntry, type WriteEntry } from '../../src/storage/catalog-file.js';
import { cleanupTmp, tmpDir } from '../support/fixtures.js';

afterAll(cleanupTmp);

const identity = { dshBrowseCache: '8/test', root: '/r', path: '/r' };

function entry(i: number, o: { snapshot?: string; kept?: string[]; key?: string } = {}): NewEntry {
  const nums = new Float64Array(WIDTH).fill(NaN);
  for (let f = 0; f < WIDTH; f++) nums[f] = i * 100 + f + 0.5;
  return { nums, kept: o.kept ?? [`title ${i} ✓`, '', 'why', ''], transient: [o.key ?? `dir/${i}.jsonl`, `{"id":"s${i}"}`, ''], snapshot: o.snapshot };
}

function write(file: string, entries: WriteEntry[], folders: string[] = [], stamp = 1): void {
  const src = catalogSource({ ...identity, stamp }, entries[Symbol.iterator](), () => folders);
  let n = 0;
  // small slices: the body is made of many chunks
  expect(writeChunksAtomic(path.dirname(file), file, src, () => ++n % 2 === 0)).toBe(true);
}

function open(file: string, want = identity): Catalog {
  const fd = fs.openSync(file, 'r');
  return readCatalog(fd, fs.fstatSync(fd).size, want);
}

const snapshotOf = (cat: Catalog, i: number): string => {
  const len = cat.num(i, NUM.snapLen);
  const buf = Buffer.alloc(len);
  fs.readSync(cat.fd, buf, 0, len, cat.snapBase + cat.num(i, NUM.snapAt));
  return buf.toString('utf8');
};

describe('catalog file', () => {
  it('writes entries without snapshots in slices (refused files): a slice with no bytes yet does not end the body', () => {
    const file = path.join(tmpDir('dsh-catalog-'), 'c.facts');
    write(file, Array.from({ length: 300 }, (_, i) => entry(i)), [], 3);
    const cat = open(file);
    expect(cat.size).toBe(300);
    for (let i = 0; i < 300; i++) expect(cat.num(i, NUM.snapLen)).toBe(0);
    expect(cat.transient(299, TRANSIENT.head)).toBe('{"id":"s299"}');
    fs.closeSync(cat.fd);
  });

  it('finds each key in any order: in the written order by its cursor, past deleted files, and a new key or another order by the map', () => {
    const file = path.join(tmpDir('dsh-catalog-'), 'c.facts');
    write(file, Array.from({ length: 300 }, (_, i) => entry(i, { snapshot: `[${i}]` })), ['D"a"\t[1]'], 1);
    const key = (i: number) => `dir/${i}.jsonl`;
    // in order, with runs of deleted files shorter and longer than the cursor's reach
    const inOrder = open(file);
    for (let i = 0; i < 300; i++) if (i % 50 < 40) expect(inOrder.slotOf(key(i))).toBe(i);
    expect(inOrder.slotOf('dir/new.jsonl')).toBeUndefined();
    for (let i = 299; i >= 0; i -= 7) expect(inOrder.slotOf(key(i))).toBe(i);
    fs.closeSync(inOrder.fd);
    // a key that is a prefix of the one at the cursor, or has it as a prefix, is not it
    const near = open(file);
    expect(near.slotOf('dir/0.json')).toBeUndefined();
    expect(near.slotOf('dir/0.jsonlx')).toBeUndefined();
    expect(near.slotOf(key(0))).toBe(0);
    fs.closeSync(near.fd);
    // backwards from the start
    const backwards = open(file);
    for (let i = 299; i >= 0; i--) expect(backwards.slotOf(key(i))).toBe(i);
    fs.closeSync(backwards.fd);
  });

  it('reads back what was written: numbers, strings, snapshots, folders', () => {
    const file = path.join(tmpDir('dsh-catalog-'), 'c.facts');
    // (enough entries that each column is written in several chunks)
    const entries = Array.from({ length: 5000 }, (_, i) => entry(i, { snapshot: i % 3 === 0 ? undefined : `[0,{"e":${i}},"ünïcode ${i}"]` }));
    write(file, entries, ['D"a"\t[1]', 'D"b"\t[2]'], 42);
    const cat = open(file);
    expect(cat.size).toBe(5000);
    expect(cat.stamp).toBe(42);
    expect(cat.folderLines).toEqual(['D"a"\t[1]', 'D"b"\t[2]']);
    for (let i = 0; i < 5000; i++) {
      expect(cat.slotOf(`dir/${i}.jsonl`)).toBe(i);
      for (const f of Object.values(NUM)) if (f !== NUM.snapAt && f !== NUM.snapLen) expect(cat.num(i, f)).toBe(entries[i].nums[f]);
      expect(cat.entry(i).kept).toEqual(entries[i].kept);
      expect(cat.transient(i, TRANSIENT.head)).toBe(`{"id":"s${i}"}`);
      if (entries[i].snapshot === undefined) expect(cat.num(i, NUM.snapLen)).toBe(0);
      else expect(snapshotOf(cat, i)).toBe(entries[i].snapshot);
    }
    fs.closeSync(cat.fd);
  });

  it('its folder listings read alone, from the head and the last section, as the whole read gives them', () => {
    const file = path.join(tmpDir('dsh-catalog-'), 'c.facts');
    write(file, Array.from({ length: 300 }, (_, i) => entry(i, { snapshot: `[${i}]` })), ['D""\t[1]', 'D"ü/b"\t[2]'], 7);
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      expect(readCatalogFolders(fd, size, identity)).toEqual({ stamp: 7, folderLines: open(file).folderLines });
      expect(readCatalogFolders(fd, size, identity).folderLines).toEqual(['D""\t[1]', 'D"ü/b"\t[2]']);
      expect(() => readCatalogFolders(fd, size, { ...identity, dshBrowseCache: '9/test' })).toThrow(CatalogMismatch);
      expect(() => readCatalogFolders(fd, size, { ...identity, root: '/other' })).toThrow(CatalogMismatch);
      // a file cut short or grown is no catalog, its folders included
      expect(() => readCatalogFolders(fd, size - 1, identity)).toThrow(CatalogMismatch);
      expect(() => readCatalogFolders(fd, size + 8, identity)).toThrow(CatalogMismatch);
    } finally {
      fs.closeSync(fd);
    }
    const none = path.join(tmpDir('dsh-catalog-'), 'none.facts');
    write(none, [entry(1)]);
    const fd2 = fs.openSync(none, 'r');
    expect(readCatalogFolders(fd2, fs.fstatSync(fd2).size, identity).folderLines).toEqual([]);
    fs.closeSync(fd2);
  });

  it('sections that are empty (no kept string, no folder, no entry) still read back', () => {
    const dir = tmpDir('dsh-catalog-');
    const empty = path.join(dir, 'empty.facts');
    write(empty, []);
    expect(open(empty).size).toBe(0);
    const bare = path.join(dir, 'bare.facts');
    write(bare, [entry(1, { kept: ['', '', '', ''] }), entry(2, { kept: ['', '', '', ''] })]);
    const cat = open(bare);
    expect(cat.size).toBe(2);
    expect(cat.transient(1, TRANSIENT.key)).toBe('dir/2.jsonl');
  });

  it('entries copied from a loaded catalog keep their snapshots, new ones between them', () => {
    const dir = tmpDir('dsh-catalog-');
    const first = path.join(dir, 'a.facts');
    // (snapshots big enough that the copies are read in several pieces)
    write(first, Array.from({ length: 50 }, (_, i) => entry(i, { snapshot: `[${i},"${'x'.repeat(i * 400)}"]` })));
    const old = open(first);
    // every other entry kept, one new one in the middle, the order changed
    const next: WriteEntry[] = [];
    for (let i = 49; i >= 0; i -= 2) next.push({ from: old, slot: i });
    next.splice(5, 0, entry(99, { snapshot: '[99]' }));
    const second = path.join(dir, 'b.facts');
    write(second, next);
    const cat = open(second);
    expect(cat.size).toBe(26);
    for (let k = 0; k < 26; k++) {
      const key = cat.transient(k, TRANSIENT.key);
      const i = Number(/(\d+)\.jsonl$/.exec(key)![1]);
      expect(snapshotOf(cat, k)).toBe(i === 99 ? '[99]' : `[${i},"${'x'.repeat(i * 400)}"]`);
      expect(cat.num(k, NUM.turns)).toBe(i * 100 + NUM.turns + 0.5);
    }
    // all of them in their order: adjacent snapshots copied in reads of a bounded size
    const third = path.join(dir, 'c.facts');
    write(third, Array.from({ length: 50 }, (_, slot) => ({ from: old, slot })));
    const all = open(third);
    for (let i = 0; i < 50; i++) expect(snapshotOf(all, i)).toBe(`[${i},"${'x'.repeat(i * 400)}"]`);
  });

  it('a file that is not whole, or not this one, is no catalog', () => {
    const dir = tmpDir('dsh-catalog-');
    const good = path.join(dir, 'good.facts');
    write(good, Array.from({ length: 20 }, (_, i) => entry(i, { snapshot: '[1]' })), ['D"a"\t[1]']);
    const bytes = fs.readFileSync(good);
    const nl = bytes.indexOf(10);
    const damaged: Array<[string, Buffer]> = [
      ['one byte short', bytes.subarray(0, bytes.length - 1)],
      ['one byte more', Buffer.concat([bytes, Buffer.from('x')])],
      ['the head still its room of spaces', Buffer.concat([Buffer.alloc(nl, ' '), bytes.subarray(nl)])],
      ['no head at all', Buffer.from('garbage')],
    ];
    // where the columns are (the head says)
    const head = JSON.parse(bytes.toString('utf8', 0, nl)) as { entries: number; snapBytes: number };
    const numsAt = (nl + 1 + head.snapBytes + 7) & ~7;
    const offsAt = numsAt + head.entries * WIDTH * 8;
    const patched = (at: number, write: (b: Buffer) => void): Buffer => {
      const b = Buffer.from(bytes);
      write(b.subarray(at));
      return b;
    };
    // a string's offset past the next one's; a snapshot past its section
    damaged.push(['offsets out of order', patched(offsAt + 4, (b) => b.writeUInt32LE(0xfffffff0))]);
    damaged.push(['a snapshot past its section', patched(numsAt + NUM.snapLen * 8, (b) => b.writeDoubleLE(1e9))]);
    for (const [what, content] of damaged) {
      const f = path.join(dir, `${what}.facts`);
      fs.writeFileSync(f, content);
      expect(() => open(f), what).toThrow(CatalogMismatch);
    }
    expect(() => open(good, { ...identity, dshBrowseCache: '9/test' })).toThrow(/another version/);
    expect(() => open(good, { ...identity, path: '/elsewhere' })).toThrow(/another root/);
    expect(open(good).size).toBe(20);
  });

  it('strings with a lone surrogate are not storable (UTF-8 would change them); pairs are', () => {
    expect(storable('plain ✓ 😀')).toBe(true);
    expect(storable('\ud83d\ude00')).toBe(true);
    expect(storable('a\ud800b')).toBe(false);
    expect(storable('\udc00')).toBe(false);
    expect(storable('x\ud83d')).toBe(false);
  });
});
