// LineageView at 80 and 200 columns: connectors, titles that use the width,
// the legend line, collapsed nodes, deep chains and wide fan-outs that never
// draw past the edge.
import React from 'react';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { LineageView, lineageCells } from '../../../components/lineage/lineage-view.js';
import { LINEAGE_LEGEND, layoutLineage, type LineageLayout, type LineageNodeInput } from '../../../src/view/lineage-graph/lineage-layout.js';
import { lineageListHeight } from '../../../src/view/lineage/lineage-height.js';
import { displayWidth, truncate } from '../../../src/view/text/sanitize.js';
import { visibleWindow } from '../../../src/view/app/window.js';

type N = LineageNodeInput;
const TITLE = 'Investigate why the retry queue drains twice when the backoff timer fires during a reconnect and the stream is paused';
const root = (key: string, t: number): N => ({ key, id: key, kind: 'root', label: `${key} — ${TITLE}`, createdAt: t });
const fork = (key: string, parent: string, t: number, seed: number): N => ({ key, id: key, parentId: parent, kind: 'fork', seedLength: seed, forkTurn: 1, label: `${key} — ${TITLE}`, createdAt: t });

let unmounts: Array<() => void> = [];
afterEach(() => {
  unmounts.forEach((u) => u());
  unmounts = [];
});
function frame(layout: LineageLayout, width: number, height: number, selected = 0): string[] {
  const top = visibleWindow(layout.rows, selected, lineageListHeight(height), 0).top; // as the app state keeps it
  const r = render(<LineageView layout={layout} selected={selected} top={top} ancestry={new Set()} width={width} height={height} />);
  unmounts.push(r.unmount);
  return (r.lastFrame() ?? '').split('\n');
}

describe('LineageView', () => {
  const wide: N[] = [root('p', 0)];
  for (let i = 0; i < 50; i++) wide.push(fork(`k${i}`, 'p', i + 1, [10, 30, 79][i % 3]));
  const deep: N[] = [root('d0', 0)];
  for (let i = 1; i <= 200; i++) deep.push(fork(`d${i}`, `d${i - 1}`, i, i));

  for (const width of [80, 200]) {
    it(`${width} columns: no line past the edge; summary, rows and the legend`, () => {
      for (const nodes of [wide, deep]) {
        const lines = frame(layoutLineage(nodes), width, 20);
        expect(lines).toHaveLength(20);
        for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(width);
        expect(lines[0]).toMatch(/^\d+ sessions · \d+ edges/);
        expect(lines[19]).toBe(truncate(LINEAGE_LEGEND, width));
        if (width === 200) expect(lines[19]).toBe(LINEAGE_LEGEND);
      }
    });
  }

  it('titles use the available width (not cut near 55 columns at 200)', () => {
    const at200 = frame(layoutLineage(wide), 200, 10);
    const row = at200.find((l) => l.includes('k0 —'))!;
    expect(row).toContain(TITLE); // the whole 117-character title
    const at80 = frame(layoutLineage(wide), 80, 10).find((l) => l.includes('k0 —'))!;
    expect(displayWidth(at80)).toBeGreaterThanOrEqual(75); // fills the row, then …
    expect(at80).toContain('…');
  });

  it('draws the connectors and fork-point rows', () => {
    const lines = frame(layoutLineage(wide), 120, 8);
    expect(lines[1]).toMatch(/^▶ ● p — /);
    expect(lines[2]).toMatch(/^ {2}├─⑂ @turn 1 · seed 10 · 17 forks$/);
    expect(lines[3]).toMatch(/^ {2}│ ├─◆ k0 — .*⑂ fork$/);
  });

  it('a deep chain keeps the marker and some title visible at 80 columns', () => {
    const l = layoutLineage(deep);
    const last = l.rows.length - 1;
    const lines = frame(l, 80, 6, last);
    const sel = lines.find((x) => x.startsWith('▶'))!;
    expect(sel).toContain('◆ d200');
    expect(displayWidth(sel)).toBeLessThanOrEqual(80);
  });

  it('a collapsed node shows ⊞ and how many it hides', () => {
    const l = layoutLineage(wide, { collapsed: new Set(['p']) });
    expect(l.rows).toHaveLength(1);
    expect(lineageCells(l.rows[0], 200).label).toBe('  ⊞ +50');
    expect(frame(l, 200, 5)[1]).toMatch(/⊞ \+50$/);
  });

  it('the summary counts every session, and says how many a collapse hides', () => {
    expect(frame(layoutLineage(wide), 200, 5)[0]).toMatch(/^51 sessions · 50 edges/);
    const l = layoutLineage(wide, { collapsed: new Set(['p']) });
    expect(frame(l, 200, 5)[0]).toMatch(/^51 sessions · 50 hidden · 50 edges/);
  });
});
