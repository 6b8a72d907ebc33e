// The lineage graph: every edge drawn (only children too),
// children grouped under their fork point, collapsible subtrees, resolved and
// ambiguous parents, chains, wide fan-outs, deep chains and cycles.
import { describe, expect, it } from 'vitest';
import { LINEAGE_LEGEND, layoutLineage, renderLineageText, type LineageNodeInput, type LineageRow } from '../../../src/view/lineage-graph/lineage-layout.js';

type N = LineageNodeInput;
const root = (key: string, createdAt: number): N => ({ key, id: key, kind: 'root', label: key, createdAt });
const fork = (key: string, parent: string, createdAt: number, seedLength: number, forkTurn?: number): N => ({ key, id: key, parentId: parent, kind: 'fork', seedLength, forkTurn, label: key, createdAt });
const spawn = (key: string, parent: string, createdAt: number): N => ({ key, id: key, parentId: parent, kind: 'spawn', label: key, createdAt });

/** Every non-root row's connector sits right under a row of its parent's subtree: the lane above it is drawn. */
function expectConnected(rows: LineageRow[]): void {
  const index = new Map(rows.map((r, i) => [r.key, i]));
  rows.forEach((r, i) => {
    if (r.depth === 0) {
      expect(r.prefix).toBe('');
      return;
    }
    expect(r.prefix, `row ${i} ${r.key}`).toMatch(/(├─|└─)$/);
    if (r.parentKey !== undefined) expect(index.get(r.parentKey)!, `${r.key} below its parent`).toBeLessThan(i);
    // the column of the connector has │ ├ or └ (or the parent's marker) on the row above
    const col = r.prefix.length - 2;
    const above = rows[i - 1];
    const aboveCell = above.prefix[col] ?? (above.prefix.length === col ? 'marker' : ' ');
    expect(['│', '├', '└', 'marker'], `row ${i} ${r.key}: lane above is ${JSON.stringify(aboveCell)}`).toContain(aboveCell);
  });
}

describe('lineage graph', () => {
  it('a chain of 9 forks is a connected staircase, not 9 siblings; a spawned subagent is no root', () => {
    const nodes = [root('r', 0), ...Array.from({ length: 9 }, (_, i) => fork(`f${i + 1}`, i === 0 ? 'r' : `f${i}`, i + 1, 7 * (i + 1), i + 1)), spawn('sub', 'f9', 20)];
    const l = layoutLineage(nodes);
    expect(l.rows.map((r) => r.depth)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(l.rows.filter((r) => r.kind === 'root')).toHaveLength(1);
    expect(l.rows.at(-1)).toMatchObject({ key: 'sub', kind: 'spawn', prefix: ' '.repeat(18) + '└─', parentKey: 'f9' });
    expectConnected(l.rows);
    expect(renderLineageText(l).split('\n').slice(0, 4)).toEqual(['● r', '└─◆ f1  [fork @turn 1 · seed 7]', '  └─◆ f2  [fork @turn 2 · seed 14]', '    └─◆ f3  [fork @turn 3 · seed 21]']);
  });

  it('50 children at 3 fork points: each fork point labelled once, its children under it', () => {
    const nodes: N[] = [root('p', 0)];
    let t = 1;
    for (let i = 0; i < 20; i++) nodes.push(fork(`a${i}`, 'p', t++, 30, 2));
    for (let i = 0; i < 20; i++) nodes.push(fork(`b${i}`, 'p', t++, 10, 1));
    for (let i = 0; i < 10; i++) nodes.push(fork(`c${i}`, 'p', t++, 79, 4));
    nodes.push(fork('lone', 'p', t++, 90, 5), spawn('helper', 'p', t++));
    const l = layoutLineage(nodes);
    const points = l.rows.filter((r) => r.kind === 'fork-point');
    expect(points.map((r) => [r.text, r.prefix, r.parentKey])).toEqual([
      ['@turn 1 · seed 10 · 20 forks', '├─', 'p'],
      ['@turn 2 · seed 30 · 20 forks', '├─', 'p'],
      ['@turn 4 · seed 79 · 10 forks', '├─', 'p'],
    ]);
    const text = renderLineageText(l);
    expect(text.match(/seed 10/g)).toHaveLength(1); // the label is not repeated on each child
    const lines = text.split('\n');
    expect(lines.slice(0, 4)).toEqual(['● p', '├─⑂ @turn 1 · seed 10 · 20 forks', '│ ├─◆ b0  [fork]', '│ ├─◆ b1  [fork]']);
    expect(lines[21]).toBe('│ └─◆ b19  [fork]');
    expect(lines.slice(-2)).toEqual(['├─◆ lone  [fork @turn 5 · seed 90]', '└─◇ helper  [spawn]']);
    expect(l.rows.filter((r) => r.key !== null)).toHaveLength(53);
    expect(l.rows.filter((r) => r.key?.startsWith('c')).every((r) => r.depth === 2 && r.parentKey === 'p')).toBe(true);
    expectConnected(l.rows);
  });

  it('a 200-level chain: every level drawn and connected, prefixes bounded, no recursion', () => {
    const nodes: N[] = [root('n0', 0)];
    for (let i = 1; i <= 200; i++) nodes.push(i % 3 === 0 ? spawn(`n${i}`, `n${i - 1}`, i) : fork(`n${i}`, `n${i - 1}`, i, i * 5, i));
    for (const maxLanes of [20, 64]) {
      const l = layoutLineage(nodes, { maxLanes });
      expect(l.rows).toHaveLength(201);
      expect(l.rows.map((r) => r.depth)).toEqual(Array.from({ length: 201 }, (_, i) => i));
      expect(Math.max(...l.rows.map((r) => r.prefix.length))).toBeLessThanOrEqual((maxLanes + 1) * 2);
      expect(l.rows.at(-1)!.prefix.startsWith('⋯ ')).toBe(true);
      expect(l.rows.every((r) => r.depth === 0 || /(├─|└─)$/.test(r.prefix))).toBe(true);
    }
  });

  it('cycles: each member once under the cycle row, connected, with its other children', () => {
    const nodes = [root('r', 0), spawn('a', 'c', 1), fork('b', 'a', 2, 4, 1), spawn('c', 'b', 3), spawn('kid', 'b', 4), spawn('me', 'me', 5)];
    const l = layoutLineage(nodes);
    expect(renderLineageText(l)).toBe(['● r', '↻ cycle: a → b → c → a', '├─◇ a  [spawn]', '├─◆ b  [fork @turn 1 · seed 4]', '│ └─◇ kid  [spawn]', '└─◇ c  [spawn]', '↻ cycle: me → me', '└─◇ me  [spawn]'].join('\n'));
    expect(l.cycles).toEqual([['a', 'b', 'c'], ['me']]);
  });

  it('collapse: a collapsed node hides its subtree and says how much; collapsing a fork-point parent hides the group', () => {
    const nodes = [root('r', 0), fork('a', 'r', 1, 5, 1), fork('a1', 'a', 2, 9, 2), fork('a2', 'a', 3, 9, 2), spawn('a2s', 'a2', 4), spawn('b', 'r', 5)];
    const open = layoutLineage(nodes);
    expect(open.rows.map((r) => r.key ?? r.kind)).toEqual(['r', 'a', 'fork-point', 'a1', 'a2', 'a2s', 'b']);
    const shut = layoutLineage(nodes, { collapsed: new Set(['a']) });
    expect(shut.rows.map((r) => r.key ?? r.kind)).toEqual(['r', 'a', 'b']);
    expect(shut.rows[1]).toMatchObject({ collapsed: true, hidden: 3, hasChildren: true });
    expect(renderLineageText(shut)).toBe(['● r', '├─◆ a  [fork @turn 1 · seed 5]  [+3 hidden]', '└─◇ b  [spawn]'].join('\n'));
    // a leaf in the set is not marked; edges stay complete
    const leaf = layoutLineage(nodes, { collapsed: new Set(['b', 'r']) });
    expect(leaf.rows.map((r) => r.key)).toEqual(['r']);
    expect(leaf.rows[0]).toMatchObject({ collapsed: true, hidden: 5 });
    expect(leaf.edges).toHaveLength(5);
    expect(layoutLineage(nodes, { collapsed: new Set(['b']) }).rows.find((r) => r.key === 'b')!.collapsed).toBeUndefined();
  });

  it('a resolved parentKey wins over the first node with the id; an ambiguous parent gets its own group', () => {
    const nodes: N[] = [
      { key: 'x1', id: 'X', kind: 'root', label: 'x first', createdAt: 0 },
      { key: 'x2', id: 'X', kind: 'root', label: 'x second', createdAt: 1 },
      { key: 'c', id: 'C', parentId: 'X', parentKey: 'x2', kind: 'fork', seedLength: 3, label: 'c', createdAt: 2 },
      { key: 'd', id: 'D', parentId: 'X', parentAmbiguous: true, kind: 'fork', seedLength: 3, label: 'd', createdAt: 3 },
    ];
    const l = layoutLineage(nodes);
    expect(renderLineageText(l)).toBe(['● x first', '● x second', '└─◆ c  [fork · seed 3]', '? ambiguous parent X', '└─◆ d  [fork · seed 3]'].join('\n'));
    expect(l.edges.find((e) => e.childKey === 'c')!.parentKey).toBe('x2');
    expect(l.orphans).toEqual([]);
    expect(l.ambiguous).toEqual(['d']);
  });

  it('the legend line names every marker', () => {
    const out = renderLineageText(layoutLineage([root('r', 0), spawn('s', 'r', 1)]), { legend: true }).split('\n');
    expect(out.at(-1)).toBe(LINEAGE_LEGEND);
    for (const m of ['●', '◆', '◇', '⑂', '?', '↻']) expect(LINEAGE_LEGEND).toContain(m);
    expect(renderLineageText(layoutLineage([]), { legend: true })).toBe('');
  });
});
