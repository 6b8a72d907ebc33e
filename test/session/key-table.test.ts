// KeyTable and NumberedMap (src/session/key-table.ts): the per-log tables as
// arrays over one numbering of the keys. A NumberedMap answers as a Map
// does, and iterates in the order the table first saw the keys.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyTable, NumberedMap } from '../../src/session/key-table.js';

type Op = { kind: 'set'; map: number; key: string; value: number } | { kind: 'delete'; map: number; key: string } | { kind: 'clear'; map: number };

const key = fc.constantFrom('a', 'b', 'c', '/r/x.jsonl', 'mem:y', 'd', 'e');
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), map: fc.nat(1), key, value: fc.integer() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), map: fc.nat(1), key }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const), map: fc.nat(1) }) },
);

describe('NumberedMap', () => {
  it('answers get, has, size and delete as a Map, two maps sharing one table; iterates in the order the table first saw the keys', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const table = new KeyTable();
        const maps = [new NumberedMap<number>(table), new NumberedMap<number>(table)];
        const models = [new Map<string, number>(), new Map<string, number>()];
        const seen: string[] = [];
        for (const o of ops) {
          const [m, model] = [maps[o.map], models[o.map]];
          if (o.kind === 'set') {
            if (!seen.includes(o.key)) seen.push(o.key);
            expect(m.set(o.key, o.value)).toBe(m);
            model.set(o.key, o.value);
          } else if (o.kind === 'delete') expect(m.delete(o.key)).toBe(model.delete(o.key));
          else {
            m.clear();
            model.clear();
          }
          for (const [i, mm] of maps.entries()) {
            const want = models[i];
            expect(mm.size).toBe(want.size);
            for (const k of ['a', 'b', 'c', '/r/x.jsonl', 'mem:y', 'd', 'e', 'never']) {
              expect(mm.get(k)).toBe(want.get(k));
              expect(mm.has(k)).toBe(want.has(k));
            }
            const inOrder = seen.filter((k) => want.has(k));
            expect([...mm.keys()]).toEqual(inOrder);
            expect([...mm.values()]).toEqual(inOrder.map((k) => want.get(k)));
            expect([...mm]).toEqual(inOrder.map((k) => [k, want.get(k)]));
            expect(mm.valueList()).toEqual(inOrder.map((k) => want.get(k)));
            const each: Array<[string, number]> = [];
            mm.forEach((v, k) => each.push([k, v]));
            expect(each).toEqual([...mm.entries()]);
          }
        }
        expect(table.size).toBe(seen.length);
        for (const [n, k] of seen.entries()) {
          expect(table.numberOf(k)).toBe(n);
          expect(table.keyAt(n)).toBe(k);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses undefined as a value (it marks an empty slot)', () => {
    const m = new NumberedMap<number | undefined>(new KeyTable());
    expect(() => m.set('a', undefined)).toThrow(TypeError);
    expect(m.size).toBe(0);
  });
});
