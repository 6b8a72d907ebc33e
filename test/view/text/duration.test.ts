// A duration's short text: every unit boundary, and seconds rounded before
// minutes are taken (59.6 s past a minute is the next minute).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { durationText } from '../../../src/view/text/duration.js';

describe('durationText', () => {
  it('says ms, s, m and h at their boundaries', () => {
    expect([0, 12.34, 999, 999.7, 1000, 59_949, 59_960, 60_000, 359_600, 3_599_400, 3_600_000, 3_660_000].map(durationText)).toEqual(['0ms', '12ms', '999ms', '1.0s', '1.0s', '59.9s', '1m00s', '1m00s', '6m00s', '59m59s', '1h00m', '1h01m']);
  });

  it('never writes 60 seconds or 60 minutes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 59_950, max: 10 * 3_600_000 }), (ms) => {
        const t = durationText(ms);
        expect(t).toMatch(/^(\d+m[0-5]\ds|\d+h[0-5]\dm)$/);
      }),
    );
  });
});
