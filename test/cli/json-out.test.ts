// list --json's writer (src/cli/json-out.ts): item by item, the same text as
// JSON.stringify of the whole object, in bounded writes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeJsonWithArray } from '../../src/cli/json-out.js';

const run = (items: unknown[], rest?: Record<string, unknown>) => {
  const writes: string[] = [];
  writeJsonWithArray((s) => writes.push(s), 'sessions', items, rest);
  return writes;
};

describe('writeJsonWithArray', () => {
  it('writes what JSON.stringify(…, null, 2) writes, for any items and any rest', () => {
    fc.assert(
      // rest's keys start with a letter: an object puts integer keys first, before the array's
      fc.property(fc.array(fc.jsonValue()), fc.dictionary(fc.string().map((k) => `k${k}`), fc.jsonValue()), (items, rest) => {
        const want = JSON.stringify({ sessions: items, ...rest }, null, 2) + '\n';
        expect(run(items, rest).join('')).toBe(want);
      }),
      { numRuns: 300 },
    );
  });

  it('strings with newlines, undefined fields and empty lists', () => {
    const items = [{ a: 'x\ny', b: undefined, c: [], d: {} }, undefined, [1, [2, { e: 'f' }]]];
    expect(run(items, { diagnostics: [], gone: undefined }).join('')).toBe(JSON.stringify({ sessions: items, diagnostics: [] }, null, 2) + '\n');
    expect(run([], { diagnostics: [{ code: 'X' }] }).join('')).toBe(JSON.stringify({ sessions: [], diagnostics: [{ code: 'X' }] }, null, 2) + '\n');
  });

  it('writes in bounded pieces and makes each item only when it is written', () => {
    let made = 0;
    const writes: Array<{ text: string; made: number }> = [];
    const items = (function* () {
      for (let i = 0; i < 20_000; i++) {
        made++;
        yield { id: `s${i}`, title: 'x'.repeat(40) };
      }
    })();
    writeJsonWithArray((s) => writes.push({ text: s, made }), 'sessions', items);
    expect(writes.length).toBeGreaterThan(10);
    for (const w of writes) expect(w.text.length).toBeLessThan(64 * 1024 + 1024);
    // the first write went out long before the last item was made
    expect(writes[0].made).toBeLessThan(2000);
  });
});
