// The one binary search: each answer is the one a scan from the start gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstNotBefore, lastAtOrBefore } from '../../src/session/sorted.js';

describe('binary search over things in order', () => {
  it('firstNotBefore and lastAtOrBefore answer as a linear scan does', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -20, max: 20 }), { maxLength: 40 }), fc.integer({ min: -25, max: 25 }), (raw, x) => {
        const v = [...raw].sort((a, b) => a - b);
        const first = v.findIndex((e) => !(e < x));
        expect(firstNotBefore(v.length, (i) => v[i] < x)).toBe(first < 0 ? v.length : first);
        expect(lastAtOrBefore(v.length, (i) => v[i], x)).toBe(v.findLastIndex((e) => e <= x));
      }),
      { numRuns: 2000 },
    );
  });
});
