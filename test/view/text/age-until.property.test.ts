// ageTextUntil says until when an age reads the same: the Sessions rows are
// kept that long (src/view/sessions/session-list.ts rowFor), so it must never
// be late (a stale age on screen) and is exact at the step.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ageText, ageTextUntil, EARLIEST_TIME } from '../../../src/view/text/age.js';

describe('ageTextUntil', () => {
  it('the text holds from now until then, and changes there', () => {
    const T = 1_795_990_000_000;
    fc.assert(
      fc.property(fc.integer({ min: -5_000, max: 40 * 86_400_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (ago, frac) => {
        const now = T + ago;
        const until = ageTextUntil(T, now);
        expect(until).toBeGreaterThan(now);
        const mid = now + Math.floor((until - now) * frac);
        if (mid < until) expect(ageText(T, mid)).toBe(ageText(T, now));
        expect(ageText(T, Math.ceil(until))).not.toBe(ageText(T, now));
      }),
      { numRuns: 2000 },
    );
  });

  it('a missing or placeholder time never changes', () => {
    expect(ageTextUntil(undefined, 5)).toBe(Infinity);
    expect(ageTextUntil(EARLIEST_TIME - 1, Date.now())).toBe(Infinity);
  });
});
