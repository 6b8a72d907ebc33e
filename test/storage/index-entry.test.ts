// The root index's entry per file (load-root.ts fileEntry): the same numbers
// as the stat it was made from, whatever their size, and the rare fields
// only where set.
import { describe, expect, it } from 'vitest';
import { fileEntry } from '../../src/storage/load-root.js';

describe('fileEntry', () => {
  it('keeps every number exactly: small integers, large ones, fractions, 0 and undefined', () => {
    const cases = [
      { size: 416, ino: 2179707, mtimeMs: 1796186632943.9556, dev: 65024, ctimeMs: 1796186632943.9556 },
      { size: 2 ** 31 + 5, ino: 2 ** 40 + 3, mtimeMs: 0, dev: 2 ** 33, ctimeMs: 12.5 },
      { size: 0, ino: 0, mtimeMs: 1, dev: undefined, ctimeMs: undefined },
      { size: 0x3fffffff, ino: 0x40000000, mtimeMs: -1, dev: 0, ctimeMs: 0 },
    ];
    for (const st of cases) {
      const e = fileEntry(st, 7);
      expect({ size: e.size, ino: e.ino, mtimeMs: e.mtimeMs, dev: e.dev, ctimeMs: e.ctimeMs, pending: e.pending }).toStrictEqual({ ...st, pending: 7 });
    }
  });

  it('holds refused and older only when given; spreads and serialises as the plain fields', () => {
    const st = { size: 1, ino: 2, mtimeMs: 3, dev: 4, ctimeMs: 5 };
    const plain = fileEntry(st, 0);
    expect(Object.keys(plain)).toEqual(['size', 'ino', 'mtimeMs', 'dev', 'ctimeMs', 'pending']);
    expect(plain.refused).toBeUndefined();
    expect(plain.older).toBeUndefined();
    expect({ ...plain }).toEqual({ ...st, pending: 0 });
    const refused = [{ file: 'f', severity: 'error' as const, code: 'NO_HEADER', message: 'm' }];
    const r = fileEntry(st, 0, refused, true);
    expect(r.refused).toBe(refused);
    expect(r.older).toBe(true);
    expect(JSON.parse(JSON.stringify(r))).toEqual({ ...st, pending: 0, refused, older: true });
    expect(plain.refused).toBeUndefined();
  });
});
