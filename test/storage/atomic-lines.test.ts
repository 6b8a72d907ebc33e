// The caches' streaming writer (src/storage/atomic-lines.ts): the file is
// written a slice at a time, its head line (the entry count) last, and a
// write cut at any slice leaves the old file whole and no temp file.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { headLine, writeHooks, writeLinesAtomic, writeLinesAtomicAsync, type LineSource } from '../../src/storage/atomic-lines.js';
import { cleanupTmp, tmpDir } from '../support/fixtures.js';

afterAll(cleanupTmp);
afterEach(() => {
  writeHooks.beforeWrite = undefined;
});

const FIELDS = { kind: 'test', root: '/r\u00e9', stamp: 1.5 };

/** `n` lines (some not ASCII), counted as they are taken. */
function source(n: number, opts: { nothing?: boolean } = {}): LineSource & { taken: () => number } {
  let taken = 0;
  const lines = (function* () {
    for (let i = 0; i < n; i++) {
      taken++;
      yield `"f${i}"\t[${i},"\u00e9\u{1F600}",${'x'.repeat(i % 50)}]`;
    }
  })();
  return { headRoom: headLine(FIELDS), lines, head: () => (opts.nothing ? undefined : headLine(FIELDS, taken)), taken: () => taken };
}

function expected(n: number): string {
  const lines = [headLine(FIELDS, n)];
  for (let i = 0; i < n; i++) lines.push(`"f${i}"\t[${i},"\u00e9\u{1F600}",${'x'.repeat(i % 50)}]`);
  return lines.join('\n') + '\n';
}

const writers = {
  sync: async (dir: string, file: string, src: LineSource) => writeLinesAtomic(dir, file, src, 64),
  async: (dir: string, file: string, src: LineSource) => writeLinesAtomicAsync(dir, file, src, 0),
};

describe('headLine', () => {
  it('is the fields with a fixed-width count last; the placeholder is no JSON and of the same byte length', () => {
    const room = headLine(FIELDS);
    expect(() => JSON.parse(room)).toThrow();
    for (const n of [0, 7, 123456, 1e14]) {
      const h = headLine(FIELDS, n);
      expect(Buffer.byteLength(h)).toBe(Buffer.byteLength(room));
      expect(JSON.parse(h)).toEqual({ ...FIELDS, entries: n });
    }
  });
});

for (const [name, write] of Object.entries(writers))
  describe(`writeLinesAtomic (${name})`, () => {
    it('writes the head and every line, 0600, no temp file left; the lines are taken a slice at a time', async () => {
      const dir = path.join(tmpDir('dsh-al-'), 'cache');
      const file = path.join(dir, 'x.facts');
      const src = source(1000);
      const taken: number[] = [];
      writeHooks.beforeWrite = () => void taken.push(src.taken());
      expect(await write(dir, file, src)).toBe(true);
      expect(fs.readFileSync(file, 'utf8')).toBe(expected(1000));
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.readdirSync(dir)).toEqual(['x.facts']);
      // placeholder, many slices of lines, then the head: never all the lines before the first write
      expect(taken.length).toBeGreaterThan(5);
      expect(taken[1]).toBeLessThan(1000);
    });

    it('a loose folder of its own is tightened to 0700', async () => {
      const dir = path.join(tmpDir('dsh-al-'), 'cache');
      fs.mkdirSync(dir, { mode: 0o755 });
      fs.chmodSync(dir, 0o755);
      expect(await write(dir, path.join(dir, 'x.facts'), source(10))).toBe(true);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    });

    it('a source with nothing to write: no file, no temp file', async () => {
      const dir = tmpDir('dsh-al-');
      const file = path.join(dir, 'x.facts');
      fs.writeFileSync(file, 'old\n');
      expect(await write(dir, file, source(300, { nothing: true }))).toBe(false);
      expect(fs.readFileSync(file, 'utf8')).toBe('old\n');
      expect(fs.readdirSync(dir)).toEqual(['x.facts']);
    });

    it('a write cut at any slice (the placeholder, a slice of lines, the head) leaves the old file whole and no temp file', async () => {
      const dir = tmpDir('dsh-al-');
      const file = path.join(dir, 'x.facts');
      fs.writeFileSync(file, expected(3), { mode: 0o600 });
      let slices = 0;
      writeHooks.beforeWrite = () => void slices++;
      await write(dir, file, source(500));
      expect(slices).toBeGreaterThan(3);
      fs.writeFileSync(file, expected(3), { mode: 0o600 });
      for (let cut = 0; cut < slices; cut++) {
        writeHooks.beforeWrite = (n) => {
          if (n === cut) throw new Error(`cut at ${cut}`);
        };
        await expect(write(dir, file, source(500))).rejects.toThrow(`cut at ${cut}`);
        expect(fs.readFileSync(file, 'utf8')).toBe(expected(3));
        expect(fs.readdirSync(dir)).toEqual(['x.facts']);
      }
    });

    it('a line source that throws midway leaves the old file whole and no temp file', async () => {
      const dir = tmpDir('dsh-al-');
      const file = path.join(dir, 'x.facts');
      fs.writeFileSync(file, 'old\n');
      const lines = (function* () {
        for (let i = 0; i < 400; i++) {
          if (i === 300) throw new Error('encoder failed');
          yield `line ${i}`;
        }
      })();
      await expect(write(dir, file, { headRoom: headLine(FIELDS), lines, head: () => headLine(FIELDS, 400) })).rejects.toThrow('encoder failed');
      expect(fs.readFileSync(file, 'utf8')).toBe('old\n');
      expect(fs.readdirSync(dir)).toEqual(['x.facts']);
    });

    it('a head of another length than its room is refused (no file written)', async () => {
      const dir = tmpDir('dsh-al-');
      const file = path.join(dir, 'x.facts');
      await expect(write(dir, file, { headRoom: headLine(FIELDS), lines: [][Symbol.iterator](), head: () => '{}' })).rejects.toThrow(/length/);
      expect(fs.readdirSync(dir)).toEqual([]);
    });
  });
