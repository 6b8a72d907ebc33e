// A segment's postings come back as written, in either encoding: varints of
// the gaps for a rare trigram, a bitmap for one most logs hold; and a segment
// merged from others keeps exactly the ids asked for.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { mergePostings, SegmentReader, writeSegment } from '../../src/storage/trigram-segment.js';
import { runs } from '../support/property.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trigram-segment-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** Sorted distinct ids from a set of numbers. */
const idsArb = fc.uniqueArray(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 400 }).map((a) => a.sort((x, y) => x - y));
const denseArb = fc.tuple(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 1, max: 3000 }), fc.double({ min: 0.3, max: 1, noNaN: true })).map(([base, len, p]) => {
  const out = [base];
  for (let i = 1; i < len; i++) if (((i * 2654435761) >>> 0) / 2 ** 32 < p) out.push(base + i);
  return out;
});

describe('trigram segments', () => {
  it('give back every trigram\'s ids as written, sparse or dense', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(idsArb, denseArb), { minLength: 1, maxLength: 12 }), (lists) => {
        const file = path.join(tmp, `s${n++}.seg`);
        const entries = lists.map((ids, i) => ({ trigram: i * 7 + 1, ids, n: ids.length }));
        writeSegment(file, entries);
        const r = SegmentReader.open(file);
        try {
          for (const e of entries) expect(r.postings(e.trigram)).toEqual(e.ids);
          expect(r.postings(3)).toEqual([]);
          expect([...r.entries()].map((e) => [e.trigram, [...Array.from(e.ids)]])).toEqual(entries.map((e) => [e.trigram, e.ids]));
        } finally {
          r.close();
          fs.rmSync(file);
        }
      }),
      { numRuns: runs(200) },
    );
  });

  it('a dense list is stored as a bitmap: a trigram in every one of 100,000 logs takes ~12.5 KB, not ~100 KB', () => {
    const file = path.join(tmp, 'dense.seg');
    const ids = Array.from({ length: 100_000 }, (_, i) => i);
    writeSegment(file, [{ trigram: 5, ids, n: ids.length }]);
    expect(fs.statSync(file).size).toBeLessThan(13_000);
    const r = SegmentReader.open(file);
    expect(r.postings(5)).toEqual(ids);
    r.close();
  });

  it('merges segments keeping only the ids asked for', () => {
    const a = path.join(tmp, 'a.seg');
    const b = path.join(tmp, 'b.seg');
    const m = path.join(tmp, 'm.seg');
    writeSegment(a, [{ trigram: 1, ids: [0, 1, 2, 3], n: 4 }, { trigram: 9, ids: [2], n: 1 }]);
    writeSegment(b, [{ trigram: 1, ids: [5, 6], n: 2 }, { trigram: 4, ids: [4, 5], n: 2 }]);
    const [ra, rb] = [SegmentReader.open(a), SegmentReader.open(b)];
    writeSegment(m, mergePostings([ra, rb], (id) => id !== 2 && id !== 5));
    const r = SegmentReader.open(m);
    expect([...r.entries()].map((e) => [e.trigram, Array.from(e.ids)])).toEqual([
      [1, [0, 1, 3, 6]],
      [4, [4]],
    ]);
    for (const x of [ra, rb, r]) x.close();
  });
});
