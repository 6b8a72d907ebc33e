// list --json's writer (src/cli/json-out.ts): item by item, the same text as
// JSON.stringify of the whole object, in bounded writes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonWithStreamedArray, StreamedJson, writeJsonWithArray } from '../../src/cli/json-out.js';
import { runs } from '../support/property.js';

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

describe('jsonWithStreamedArray', () => {
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  it('writes what stringify writes, the array anywhere among the keys, for any values', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }), fc.string(), fc.array(fc.jsonValue(), { maxLength: 5 }), fc.nat(), (obj, key, items, place) => {
        const keys = Object.keys(obj).filter((k) => k !== key);
        const at = place % (keys.length + 1);
        const whole: Record<string, unknown> = {};
        keys.forEach((k, i) => {
          if (i === at) whole[key] = items;
          whole[k] = obj[k];
        });
        if (at === keys.length) whole[key] = items;
        // a numeric-looking key sorts first in any object: compare with what stringify makes of the same object
        const head: Record<string, unknown> = { ...whole, [key]: [] };
        expect([...jsonWithStreamedArray(head, key, items, json)].join('')).toBe(json(whole));
      }),
      { numRuns: runs(300) },
    );
  });

  it("keys known only once the array is written (StreamedJson's after) follow the object's own keys, as stringify lays them out", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }), fc.array(fc.jsonValue(), { maxLength: 4 }), fc.dictionary(fc.string().map((k) => `late ${k}`), fc.jsonValue(), { maxKeys: 3 }), (obj, items, late) => {
        const own = Object.fromEntries(Object.entries(obj).filter(([k]) => k !== 'items' && !k.startsWith('late ')));
        let asked = false;
        const item = new StreamedJson({ ...own, items: [] }, 'items', items, () => {
          asked = true;
          return late;
        });
        const text = [...jsonWithStreamedArray({ blocks: [] }, 'blocks', [item, 1], json)].join('');
        expect(text).toBe(json({ blocks: [{ ...own, items, ...late }, 1] }));
        expect(asked).toBe(true);
      }),
      { numRuns: runs(300) },
    );
  });

  it('asks for the late keys only after the last item is made', () => {
    let made = 0;
    const items = (function* () {
      for (let i = 0; i < 3; i++) yield ++made;
    })();
    const seen: number[] = [];
    const pieces = [...jsonWithStreamedArray({ list: [] }, 'list', [new StreamedJson({ items: [] }, 'items', items, () => (seen.push(made), { n: made }))], json)];
    expect(seen).toEqual([3]);
    expect(JSON.parse(pieces.join(''))).toEqual({ list: [{ items: [1, 2, 3], n: 3 }] });
  });

  it('holds one item at a time: each is made when its piece is taken', () => {
    let made = 0;
    const items = (function* () {
      for (let i = 0; i < 3; i++) yield { i, n: ++made };
    })();
    const pieces = jsonWithStreamedArray({ a: 1, list: [] }, 'list', items, json);
    expect(pieces.next().value).toBe('{\n  "a": 1,\n  "list": [');
    expect(made).toBe(0);
    pieces.next();
    expect(made).toBe(1);
  });
});
