// The caches' line reader (src/storage/read-lines.ts): the same lines as
// readFileSync(…, 'utf8').split('\n'), whatever the chunk size, the UTF-8
// (valid or not) and where lines and characters fall against the chunks.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readLines } from '../../src/storage/read-lines.js';
import { cleanupTmp, tmpDir } from '../support/fixtures.js';

afterAll(cleanupTmp);

const dir = tmpDir();
const fileOf = (bytes: Uint8Array, name = 'f') => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, bytes);
  return f;
};
const whole = (f: string) => fs.readFileSync(f, 'utf8').split('\n');

// bytes that make lines, multi-byte characters cut anywhere, and invalid sequences
const PIECES = ['\n', 'a', 'é', '€', '\u{1F600}', '\t', '"x"'].map((s) => [...Buffer.from(s)]);
const bytesArb = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 4 })), { maxLength: 60 })
  .map((parts) => Uint8Array.from(parts.flat()));

describe('readLines', () => {
  it('equals split on the decoded file, for any bytes and any chunk size', () => {
    fc.assert(
      fc.property(bytesArb, fc.integer({ min: 1, max: 17 }), (bytes, chunk) => {
        const f = fileOf(bytes);
        expect(readLines(f, 1 << 20, chunk)).toEqual(whole(f));
      }),
      { numRuns: 300 },
    );
  });

  it('reads a file of many chunks and long lines as split does', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `"k${i}"\t${'é'.repeat(i % 97)}${'x'.repeat((i * 7919) % 3000)}`);
    const f = fileOf(Buffer.from(lines.join('\n') + '\n'), 'big');
    expect(readLines(f, 1 << 30, 4096)).toEqual(whole(f));
    expect(readLines(f, 1 << 30)).toEqual(whole(f));
  });

  it('refuses a file over the bound, a folder and a missing file', () => {
    const f = fileOf(Buffer.from('abc\ndef\n'), 'small');
    expect(() => readLines(f, 4)).toThrow(/over 4 bytes/);
    expect(() => readLines(dir, 1 << 20)).toThrow(/not a regular file/);
    expect(() => readLines(path.join(dir, 'nope'), 1 << 20)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
