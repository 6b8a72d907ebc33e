// The content index's entry table (src/storage/index-entries.ts): a row is
// found by its log's path however it is asked for (in the manifest's order
// by a cursor, in no order by a search, then by a map once asked often), and
// the rows added since the load go back to disk in their logs' order.
import { describe, expect, it } from 'vitest';
import { EntryTable } from '../../src/storage/index-entries.js';
import type { ManifestColumns } from '../../src/storage/index-manifest.js';

/** Columns of `keys` (ascending), each an entry of one part. */
function columnsOf(keys: string[]): ManifestColumns {
  const n = keys.length;
  const nums = new Float64Array(n * 6);
  for (let i = 0; i < n; i++) nums.set([1, i + 1, 100, 1000 + i, 1000 + i, 100], i * 6);
  const keyEnds = new Uint32Array(n);
  let end = 0;
  keys.forEach((k, i) => (keyEnds[i] = end += k.length));
  return { entries: n, nums, shas: new Uint32Array(n * 2), first: new Int32Array(n).fill(0), keyEnds, more: new Int32Array(0), flags: new Uint8Array(n), keys: keys.join('') };
}

const ROOT = '/r';
const fileOf = (key: string) => `${ROOT}/${key}`;
const keyOf = (file: string) => file.slice(ROOT.length + 1);

describe('EntryTable', () => {
  // 1,000 logs: past the searches after which a map is built
  const keys = Array.from({ length: 1_000 }, (_, i) => `d${String(i % 37).padStart(2, '0')}/s${i}.jsonl`).sort();

  it('finds each loaded row by its path in any order, before and after it builds its map', () => {
    const t = new EntryTable();
    expect(t.loadColumns(columnsOf(keys), fileOf, 1)).toBe(true);
    const shuffled = keys.map((k, i) => [(i * 7919) % keys.length, k] as const).sort((a, b) => a[0] - b[0]);
    for (const [, k] of shuffled) expect(t.row(fileOf(k))).toBe(keys.indexOf(k));
    expect(t.row(fileOf('absent.jsonl'))).toBeUndefined();
    // in ascending order, by a cursor, a path asked out of order included
    const next = t.cursor();
    for (let i = 0; i < keys.length; i++) expect(next(fileOf(keys[i]))).toBe(i);
    expect(next(fileOf(keys[3]))).toBe(3);
    expect(next(fileOf('zz-absent.jsonl'))).toBeUndefined();
  });

  it('finds rows added after the load, and writes every row back in its logs\' order, which loads again', () => {
    const t = new EntryTable();
    expect(t.loadColumns(columnsOf(keys), fileOf, 1)).toBe(true);
    const added = ['a-first.jsonl', 'd05/between.jsonl', 'zz-last.jsonl'].map(fileOf);
    for (const f of added) t.settle(t.add(f), { dev: 1, ino: 9, size: 5, mtimeMs: 1, ctimeMs: 1, to: 5, flags: 0, sha1: '0123456789abcdef', parts: [0] });
    for (const f of added) expect(t.entry(t.row(f)!)?.ino).toBe(9);
    const rows = Array.from({ length: t.size }, (_, r) => r);
    const cols = t.columns(rows, keyOf);
    const again = new EntryTable();
    expect(again.loadColumns(cols, fileOf, 1)).toBe(true);
    const all = [...keys.map(fileOf), ...added].sort();
    for (const [i, f] of all.entries()) expect(again.row(f)).toBe(i);
    // out of order on disk: damaged, nothing loaded
    const swapped = columnsOf([keys[1], keys[0], ...keys.slice(2)]);
    expect(new EntryTable().loadColumns(swapped, fileOf, 1)).toBe(false);
  });
});
