// The Compare view state reducer: cursor bounds, sides, a steady window, Enter targets.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { runs } from '../../support/property.js';
import { compareSessions } from '../../../src/session/compare.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { compareRows, compareWindow, rowHeight } from '../../../src/view/comparison/compare-model.js';
import { compareEnter, compareReducer, initialCompareState, type CompareAction } from '../../../src/view/compare/compare-state.js';
import { cleanupTmp, copyDir, SAMPLE_DIR, tmpDir } from '../../support/fixtures.js';

afterAll(cleanupTmp);

const index = loadRootSync(copyDir(SAMPLE_DIR, tmpDir()));
const g = (id: string) => index.store.getAll(id)[0];
const c = compareSessions(g('fix-flaky-retry-test'), g('fix-flaky-retry-test.spy-random'), index.store.list());
const rows = compareRows(c);

describe('compareReducer', () => {
  it('starts on the first differing row, left side; Enter opens that turn in the left session', () => {
    const s = initialCompareState(rows, 10);
    expect(rows[s.cursor].kind).toBe('pair');
    expect(s.side).toBe('left');
    expect(compareEnter(c, rows, s)).toEqual({ session: g('fix-flaky-retry-test'), seq: c.left.turns[0].seq });
    const r = compareReducer(s, { type: 'right' }, rows, 10);
    expect(compareEnter(c, rows, r)).toEqual({ session: g('fix-flaky-retry-test.spy-random'), seq: c.right.turns[0].seq });
    expect(compareReducer(r, { type: 'right' }, rows, 10)).toBe(r); // no change, same object
    expect(compareReducer(r, { type: 'toggleSide' }, rows, 10).side).toBe('left');
  });

  it('clamps at both ends; home and end', () => {
    let s = initialCompareState(rows, 10);
    s = compareReducer(s, { type: 'home' }, rows, 10);
    expect(compareReducer(s, { type: 'up' }, rows, 10).cursor).toBe(0);
    s = compareReducer(s, { type: 'end' }, rows, 10);
    expect(s.cursor).toBe(rows.length - 1);
    expect(compareReducer(s, { type: 'pageDown' }, rows, 10).cursor).toBe(rows.length - 1);
    expect(compareEnter(c, rows, s)).toBeUndefined(); // totals open nothing
  });

  it('property: any key sequence keeps the cursor in range and inside a window that fits the height', () => {
    const action = fc.constantFrom<CompareAction['type']>('up', 'down', 'pageUp', 'pageDown', 'home', 'end', 'left', 'right', 'toggleSide', 'resize');
    fc.assert(
      fc.property(fc.array(action, { maxLength: 40 }), fc.integer({ min: 1, max: 20 }), (types, height) => {
        let s = initialCompareState(rows, height);
        for (const type of types) {
          s = compareReducer(s, { type } as CompareAction, rows, height);
          expect(s.cursor).toBeGreaterThanOrEqual(0);
          expect(s.cursor).toBeLessThan(rows.length);
          const w = compareWindow(rows, s.cursor, height, s.from);
          expect(w.from).toBe(s.from);
          expect(s.cursor).toBeGreaterThanOrEqual(w.from);
          expect(s.cursor).toBeLessThan(w.to);
          const used = rows.slice(w.from, w.to).reduce((n, r) => n + rowHeight(r), 0);
          if (w.to - w.from > 1) expect(used).toBeLessThanOrEqual(height);
        }
      }),
      { numRuns: runs(200) },
    );
  });
});
