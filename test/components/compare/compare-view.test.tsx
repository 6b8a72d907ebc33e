// The Compare view through ink-testing-library, on a comparison of two real
// sample forks: header, folded rows, the selected side, windowing inside the
// height, and width never exceeded.
import React from 'react';
import { afterAll, describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { CompareView } from '../../../components/compare/compare-view.js';
import { compareSessions } from '../../../src/session/compare.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { compareRows, compareWindow } from '../../../src/view/comparison/compare-model.js';
import { displayWidth } from '../../../src/view/text/sanitize.js';
import { cleanupTmp, copyDir, SAMPLE_DIR, tmpDir } from '../../support/fixtures.js';

afterAll(cleanupTmp);

const index = loadRootSync(copyDir(SAMPLE_DIR, tmpDir()));
const g = (id: string) => index.store.getAll(id)[0];
const comparison = compareSessions(g('fix-flaky-retry-test'), g('fix-flaky-retry-test.spy-random'), index.store.list());
const rows = compareRows(comparison);

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
function frame(props: Partial<React.ComponentProps<typeof CompareView>> = {}) {
  const r = render(<CompareView comparison={comparison} width={100} height={20} cursor={0} side="left" {...props} />);
  const text = r.lastFrame() ?? '';
  r.unmount();
  return { raw: text, lines: strip(text).split('\n') };
}

describe('CompareView', () => {
  it('shows the ancestor, both ids, the shared row selected, the turns and the totals', () => {
    const { lines } = frame();
    expect(lines[0]).toContain('common ancestor fix-flaky-retry-test, logs agree through seq 78');
    expect(lines[1]).toMatch(/fix-flaky-retry-test\s+│ fix-flaky-retry-test\.spy-random/);
    expect(lines[2]).toMatch(/^▶ ≡ 2 shared turn\(s\)/);
    const all = lines.join('\n');
    expect(all).toContain('T3 completed');
    expect(all).toContain('T4 aborted');
    expect(all).toContain('total 3 turn(s)');
    expect(lines.at(-1)).toContain('enter open');
    expect(lines.length).toBeLessThanOrEqual(20);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(100);
  });

  it('the cursor moves the marker; the selected side is the one drawn inverse', () => {
    const left = frame({ cursor: 1, side: 'left' });
    const i = left.lines.findIndex((l) => l.startsWith('▶'));
    expect(left.lines[i]).toContain('T3 completed');
    expect(left.lines.at(-1)).toContain('side: left (fix-flaky-retry-test)');
    const right = frame({ cursor: 1, side: 'right' });
    expect(right.lines.at(-1)).toContain('side: right (fix-flaky-retry-test.spy-random)');
  });

  it('a short terminal shows a window that keeps the cursor row in view', () => {
    const last = rows.length - 1;
    const { lines } = frame({ height: 8, cursor: last });
    expect(lines.length).toBeLessThanOrEqual(8);
    expect(lines.join('\n')).toMatch(/▶ (M|A|  )/); // the last row: a file one side changed
    expect(lines.join('\n')).not.toContain('shared turn');
    const w = compareWindow(rows, last, 5);
    expect(w.to).toBe(rows.length);
    expect(w.from).toBeGreaterThan(0);
    // moving back up inside the window keeps it steady
    expect(compareWindow(rows, last - 1, 5, w.from).from).toBe(w.from);
    expect(compareWindow(rows, 0, 5, w.from).from).toBe(0);
  });

  it('narrow widths never overflow', () => {
    for (const width of [24, 41, 67]) {
      const { lines } = frame({ width, cursor: 2, side: 'right' });
      for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(width);
    }
  });
});
