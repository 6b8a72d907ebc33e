// ItemRows.widestBadge keeps one width per kind of BADGE cell (verdict,
// resumes or not, diagnostics count) instead of one per item, or reads the
// list's stats: the answer must equal measuring every item's cell.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ItemRows, ListStats, rowOf } from '../../../src/view/sessions/session-list.js';
import { type SessionListItem } from '../../../src/session/list-item.js';
import { displayWidth } from '../../../src/view/text/sanitize.js';

const NOW = Date.UTC(2026, 0, 1);

const item = fc.record({
  n: fc.nat(1000),
  state: fc.constantFrom('empty', 'at-boundary', 'open-turn') as fc.Arbitrary<SessionListItem['state']>,
  forkBlock: fc.constantFrom(undefined, 'open-turn', 'seq-gap') as fc.Arbitrary<SessionListItem['forkBlock']>,
  diagnostics: fc.oneof(fc.constant(0), fc.nat(12), fc.nat(1001)),
  notResumable: fc.constantFrom(undefined, 'open turn'),
  age: fc.nat(3 * 86_400_000),
}).map(({ n, state, forkBlock, diagnostics, notResumable, age }): SessionListItem => {
  const it: SessionListItem = { key: `k${n}`, id: `s${n}`, kind: 'root', createdAt: 0, turns: 1, events: 3, state, diagnostics, lastEventTime: NOW - age };
  if (forkBlock !== undefined) it.forkBlock = forkBlock;
  if (notResumable !== undefined) it.notResumable = notResumable;
  return it;
});

const byLength = displayWidth;

describe('widestBadge', () => {
  it('equals the widest measured cell, for any items, with or without the list stats', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 40 }), (items) => {
        const want = Math.max(0, ...items.map((it) => byLength(rowOf(it, 0, NOW).badge)));
        expect(new ItemRows(items, NOW).widestBadge(0, 10_000)).toBe(want);
        const stats = new ListStats();
        for (const it of items) stats.add(it);
        expect(new ItemRows(items, NOW, stats).widestBadge(0, 10_000)).toBe(want);
      }),
      { numRuns: 300 },
    );
  });

  it('an open turn is measured at the current time (its age moves)', () => {
    const open: SessionListItem = { key: 'k', id: 's', kind: 'root', createdAt: 0, turns: 1, events: 2, state: 'open-turn', diagnostics: 0, lastEventTime: NOW };
    const rows = new ItemRows([open], NOW);
    const widths = [5e3, 5 * 60e3, 50 * 60e3, 20 * 3600e3, 40 * 86_400e3, 4000 * 86_400e3].map((age) => {
      const w = new ItemRows([open], NOW + age).widestBadge(0, 99);
      expect(w).toBe(byLength(rowOf(open, 0, NOW + age).badge));
      return w;
    });
    expect(new Set(widths).size).toBeGreaterThan(1);
    expect(rows.widestBadge(0, 99)).toBe(byLength(rowOf(open, 0, NOW).badge));
  });
});
