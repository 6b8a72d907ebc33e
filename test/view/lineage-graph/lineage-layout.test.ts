import { describe, expect, it } from 'vitest';
import {
  ancestryKeys,
  layoutLineage,
  renderLineageText,
  visibleWindow,
  type LineageNodeInput,
} from '../../../src/view/lineage-graph/lineage-layout.js';

type N = LineageNodeInput;
const root = (key: string, createdAt?: number, extra: Partial<N> = {}): N => ({
  key,
  id: key.toUpperCase(),
  kind: 'root',
  label: key,
  createdAt,
  ...extra,
});
const fork = (key: string, parent: string, createdAt: number, seedLength: number, forkTurn?: number, extra: Partial<N> = {}): N => ({
  key,
  id: key.toUpperCase(),
  parentId: parent.toUpperCase(),
  kind: 'fork',
  seedLength,
  forkTurn,
  label: key,
  createdAt,
  ...extra,
});
const spawn = (key: string, parent: string, createdAt: number, extra: Partial<N> = {}): N => ({
  key,
  id: key.toUpperCase(),
  parentId: parent.toUpperCase(),
  kind: 'spawn',
  label: key,
  createdAt,
  ...extra,
});
const text = (nodes: N[]): string => renderLineageText(layoutLineage(nodes));
const lines = (...ls: string[]): string => ls.join('\n');

describe('layoutLineage: drawing', () => {
  it('is empty for no nodes', () => {
    const l = layoutLineage([]);
    expect(l).toEqual({ rows: [], edges: [], orphans: [], ambiguous: [], cycles: [] });
    expect(renderLineageText(l)).toBe('');
  });

  it('orders roots by createdAt, then key; missing createdAt last', () => {
    expect(text([root('c'), root('b', 5), root('a', 5), root('z', 1)])).toBe(lines('● z', '● a', '● b', '● c'));
  });

  it('connects every child, an only child included, with ├─ └─ │ lanes', () => {
    const nodes = [
      root('main', 1),
      fork('a', 'main', 2, 38, 2),
      spawn('b', 'main', 9),
      fork('a2', 'a', 3, 50),
      fork('x', 'a2', 5, 80, 5),
      spawn('y', 'a2', 4),
      root('early', 0),
    ];
    expect(text(nodes)).toBe(
      lines(
        '● early',
        '● main',
        '├─◆ a  [fork @turn 2 · seed 38]',
        '│ └─◆ a2  [fork · seed 50]',
        '│   ├─◆ x  [fork @turn 5 · seed 80]',
        '│   └─◇ y  [spawn]',
        '└─◇ b  [spawn]',
      ),
    );
    const rows = layoutLineage(nodes).rows;
    expect(rows.map((r) => [r.key, r.depth, r.kind])).toEqual([
      ['early', 0, 'root'],
      ['main', 0, 'root'],
      ['a', 1, 'fork'],
      ['a2', 2, 'fork'],
      ['x', 3, 'fork'],
      ['y', 3, 'spawn'],
      ['b', 1, 'spawn'],
    ]);
    expect(rows[5]).toEqual({ key: 'y', depth: 3, prefix: '│   └─', edgeLabel: 'spawn', kind: 'spawn', text: 'y', parentKey: 'a2' });
    expect(rows[3]).toMatchObject({ key: 'a2', parentKey: 'a', hasChildren: true });
  });

  it('draws nested branches with blank lanes under a last child', () => {
    const nodes = [
      root('r', 0),
      fork('a', 'r', 1, 10, 1),
      fork('b', 'r', 2, 20, 2),
      spawn('b1', 'b', 3),
      spawn('b2', 'b', 4),
      spawn('b21', 'b2', 5),
      spawn('b22', 'b2', 6),
    ];
    expect(text(nodes)).toBe(
      lines(
        '● r',
        '├─◆ a  [fork @turn 1 · seed 10]',
        '└─◆ b  [fork @turn 2 · seed 20]',
        '  ├─◇ b1  [spawn]',
        '  └─◇ b2  [spawn]',
        '    ├─◇ b21  [spawn]',
        '    └─◇ b22  [spawn]',
      ),
    );
  });

  it('lists edges with ids, keys, kind and seedLength', () => {
    const l = layoutLineage([root('r', 0), fork('f', 'r', 1, 7, 1), spawn('s', 'r', 2)]);
    expect(l.edges).toEqual([
      { parent: 'R', child: 'F', parentKey: 'r', childKey: 'f', kind: 'fork', seedLength: 7 },
      { parent: 'R', child: 'S', parentKey: 'r', childKey: 's', kind: 'spawn' },
    ]);
  });

  it('derives the row kind from the edge, and treats a parentless node as a root', () => {
    const nodes: N[] = [
      { key: 'p', id: 'P', kind: 'fork', label: 'p', createdAt: 0, seedLength: 3 },
      { key: 'q', id: 'Q', parentId: 'P', kind: 'root', label: 'q', createdAt: 1, seedLength: 4 },
      { key: 's', id: 'S', parentId: 'P', kind: 'root', label: 's', createdAt: 2 },
      { key: 't', id: 'T', parentId: '', kind: 'spawn', label: 't', createdAt: 3 },
    ];
    expect(text(nodes)).toBe(lines('● p', '├─◆ q  [fork · seed 4]', '└─◇ s  [spawn]', '● t'));
  });

  it('colours markers and dims lanes and labels on request', () => {
    const l = layoutLineage([root('r', 0), spawn('s', 'r', 1), fork('f', 'r', 2, 1)]);
    const out = renderLineageText(l, { color: true });
    expect(out.split('\n')).toEqual([
      '\x1b[32m●\x1b[0m r',
      '\x1b[2m├─\x1b[0m\x1b[36m◆\x1b[0m f  \x1b[2m[fork · seed 1]\x1b[0m', // forks before spawns
      '\x1b[2m└─\x1b[0m\x1b[35m◇\x1b[0m s  \x1b[2m[spawn]\x1b[0m',
    ]);
  });
});

describe('layoutLineage: orphans, duplicates, cycles', () => {
  it('groups orphans under one missing-parent row per missing id', () => {
    const nodes = [
      root('r', 0),
      fork('o1', 'gone', 1, 5, 1),
      spawn('o2', 'lost', 2),
      spawn('o3', 'gone', 3),
      spawn('o1k', 'o1', 4),
    ];
    const l = layoutLineage(nodes);
    expect(renderLineageText(l)).toBe(
      lines(
        '● r',
        '? missing parent GONE',
        '├─◆ o1  [fork @turn 1 · seed 5]',
        '│ └─◇ o1k  [spawn]',
        '└─◇ o3  [spawn]',
        '? missing parent LOST',
        '└─◇ o2  [spawn]',
      ),
    );
    expect(l.orphans).toEqual(['o1', 'o2', 'o3']);
    expect(l.rows[1]).toEqual({ key: null, depth: 0, prefix: '', edgeLabel: '', kind: 'missing-parent', text: 'missing parent GONE' });
    expect(l.edges.find((e) => e.childKey === 'o1')).toEqual({ parent: 'GONE', child: 'O1', childKey: 'o1', kind: 'fork', seedLength: 5 });
  });

  it('sanitises ids that appear in synthetic rows', () => {
    const l = layoutLineage([{ key: 'k', id: 'K', parentId: 'x\x1b]0;pwn\x07', kind: 'spawn', label: 'k' }]);
    expect(l.rows[0].text).toBe('missing parent x␛]0;pwn␇');
  });

  it('attaches to the first node by createdAt then key when ids repeat', () => {
    const nodes: N[] = [
      { key: 'dir2/s.jsonl', id: 'S', kind: 'root', label: 'second copy', createdAt: 5 },
      { key: 'dir1/s.jsonl', id: 'S', kind: 'root', label: 'first copy', createdAt: 5 },
      { key: 'late.jsonl', id: 'S', kind: 'root', label: 'late copy', createdAt: 1 },
      { key: 'child.jsonl', id: 'C', parentId: 'S', kind: 'fork', seedLength: 2, label: 'child', createdAt: 9 },
    ];
    const l = layoutLineage(nodes);
    expect(renderLineageText(l)).toBe(
      lines('● late copy', '└─◆ child  [fork · seed 2]', '● first copy', '● second copy'),
    );
    expect(l.edges[0].parentKey).toBe('late.jsonl');
    // Without the createdAt the tie goes to the smaller key.
    const l2 = layoutLineage(nodes.filter((x) => x.key !== 'late.jsonl'));
    expect(l2.edges[0].parentKey).toBe('dir1/s.jsonl');
  });

  it('a duplicate id pointing at its own id attaches to the first copy, not itself', () => {
    const nodes: N[] = [
      { key: 'a', id: 'X', kind: 'root', label: 'a', createdAt: 0 },
      { key: 'b', id: 'X', parentId: 'X', kind: 'spawn', label: 'b', createdAt: 1 },
    ];
    const l = layoutLineage(nodes);
    expect(l.cycles).toEqual([]);
    expect(renderLineageText(l)).toBe(lines('● a', '└─◇ b  [spawn]'));
  });

  it('shows a self-parent once under a cycle row', () => {
    const nodes: N[] = [root('r', 0), { key: 'me', id: 'ME', parentId: 'ME', kind: 'fork', seedLength: 4, label: 'me', createdAt: 1 }, spawn('kid', 'me', 2)];
    const l = layoutLineage(nodes);
    expect(renderLineageText(l)).toBe(
      lines('● r', '↻ cycle: ME → ME', '└─◆ me  [fork · seed 4]', '  └─◇ kid  [spawn]'),
    );
    expect(l.cycles).toEqual([['me']]);
    expect(l.orphans).toEqual([]);
    expect(l.rows[1].kind).toBe('cycle');
    expect(l.rows[1].key).toBeNull();
  });

  it('shows a 3-cycle once, in child order from its earliest member, with hangers-on', () => {
    const nodes: N[] = [
      spawn('c', 'b', 3),
      fork('a', 'c', 1, 10, 1),
      spawn('b', 'a', 2),
      spawn('tail', 'b', 4),
      spawn('tail2', 'tail', 5),
      root('r', 0),
    ];
    const l = layoutLineage(nodes);
    expect(renderLineageText(l)).toBe(
      lines(
        '● r',
        '↻ cycle: A → B → C → A',
        '├─◆ a  [fork @turn 1 · seed 10]',
        '├─◇ b  [spawn]',
        '│ └─◇ tail  [spawn]',
        '│   └─◇ tail2  [spawn]',
        '└─◇ c  [spawn]',
      ),
    );
    expect(l.cycles).toEqual([['a', 'b', 'c']]);
    const keys = l.rows.map((r) => r.key).filter((k) => k !== null);
    expect(keys.sort()).toEqual(['a', 'b', 'c', 'r', 'tail', 'tail2']);
  });

  it('orders several cycles by their earliest member', () => {
    const nodes: N[] = [
      spawn('q', 'p', 5),
      spawn('p', 'q', 6),
      spawn('z', 'z', 1),
    ];
    expect(layoutLineage(nodes).cycles).toEqual([['z'], ['q', 'p']]);
  });
});

describe('layoutLineage: scale', () => {
  it('survives a 10,000-deep chain: a staircase folded at maxLanes, one row each', () => {
    const n = 10_000;
    const nodes: N[] = [root('n0', 0)];
    for (let i = 1; i < n; i++) nodes.push(fork(`n${i}`, `n${i - 1}`, i, i, i));
    const l = layoutLineage(nodes);
    const anc = ancestryKeys(l, `n${n - 1}`);
    expect(l.rows).toHaveLength(n);
    expect(l.rows.every((r, i) => r.depth === i && r.key === `n${i}`)).toBe(true);
    expect(l.rows[1].prefix).toBe('└─');
    expect(l.rows[2].prefix).toBe('  └─');
    expect(Math.max(...l.rows.map((r) => r.prefix.length))).toBeLessThanOrEqual(65 * 2);
    expect(anc.size).toBe(n);
  });

  it('survives a 10,000-wide fan-out', () => {
    const n = 10_000;
    const nodes: N[] = [root('hub', 0)];
    for (let i = 0; i < n; i++) nodes.push(spawn(`k${i}`, 'hub', i + 1));
    const l = layoutLineage(nodes);
    expect(l.rows).toHaveLength(n + 1);
    expect(l.rows[1].prefix).toBe('├─');
    expect(l.rows[n].prefix).toBe('└─');
    expect(l.rows.slice(1).every((r) => r.depth === 1)).toBe(true);
  });

  it('survives a 5,000-deep spine of branch points (10,000 nodes) with bounded prefixes', () => {
    // Each spine node has a leaf and the next spine node: depth grows every level.
    const n = 5_000;
    const nodes: N[] = [root('s0', 0)];
    for (let i = 1; i < n; i++) {
      nodes.push(spawn(`leaf${i}`, `s${i - 1}`, 2 * i));
      nodes.push(spawn(`s${i}`, `s${i - 1}`, 2 * i + 1));
    }
    const l = layoutLineage(nodes, { maxLanes: 8 });
    expect(l.rows).toHaveLength(2 * n - 1);
    const last = l.rows[l.rows.length - 1];
    expect(last.key).toBe(`s${n - 1}`);
    expect(last.depth).toBe(n - 1);
    expect(last.prefix).toBe('⋯ ' + '  '.repeat(7) + '└─');
    expect(Math.max(...l.rows.map((r) => r.prefix.length))).toBeLessThanOrEqual(9 * 2);
  });

  // (their speed is a bench figure, `lineage layout of 10,000 sessions`, not a timed test)
  it('lays out a 1,000-node random forest, every node exactly once', () => {
    let seed = 42;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const nodes: N[] = [];
    for (let i = 0; i < 1000; i++) {
      const r = rand();
      const key = `s${i}`;
      if (i === 0 || r < 0.05) nodes.push(root(key, i));
      else if (r < 0.08) nodes.push(spawn(key, `missing${i % 3}`, i));
      else if (r < 0.1) nodes.push(spawn(key, `s${Math.floor(rand() * 1000)}`, i)); // may point forward: cycles
      else if (r < 0.6) nodes.push(fork(key, `s${Math.floor(rand() * i)}`, i, i, i % 7));
      else nodes.push(spawn(key, `s${Math.floor(rand() * i)}`, i));
    }
    const l = layoutLineage(nodes);
    const keys = l.rows.flatMap((r) => (r.key === null ? [] : [r.key]));
    expect(keys).toHaveLength(1000);
    expect(new Set(keys).size).toBe(1000);
  });
});

describe('ancestryKeys', () => {
  const nodes = [
    root('r', 0),
    fork('a', 'r', 1, 3),
    spawn('b', 'r', 2),
    fork('a1', 'a', 3, 5),
    spawn('o', 'gone', 4),
    spawn('c1', 'c2', 5),
    spawn('c2', 'c1', 6),
  ];
  const l = layoutLineage(nodes);

  it('is the key plus its ancestors, from a layout or from nodes', () => {
    expect([...ancestryKeys(l, 'a1')]).toEqual(['a1', 'a', 'r']);
    expect([...ancestryKeys(nodes, 'a1')]).toEqual(['a1', 'a', 'r']);
    expect([...ancestryKeys(l, 'b')]).toEqual(['b', 'r']);
    expect([...ancestryKeys(l, 'r')]).toEqual(['r']);
  });

  it('stops at a missing parent and terminates on cycles', () => {
    expect([...ancestryKeys(l, 'o')]).toEqual(['o']);
    expect([...ancestryKeys(l, 'c1')]).toEqual(['c1', 'c2']);
    expect([...ancestryKeys(nodes, 'c2')]).toEqual(['c2', 'c1']);
  });

  it('returns just the key for an unknown key', () => {
    expect([...ancestryKeys(l, 'nope')]).toEqual(['nope']);
  });
});

describe('visibleWindow', () => {
  const rows = Array.from({ length: 10 }, (_, i) => i);

  it('keeps the previous top while the selection is in view', () => {
    expect(visibleWindow(rows, 5, 4, 3)).toEqual({ top: 3, rows: [3, 4, 5, 6] });
    expect(visibleWindow(rows, 3, 4, 3).top).toBe(3);
    expect(visibleWindow(rows, 6, 4, 3).top).toBe(3);
  });

  it('scrolls minimally: down puts the selection last, up puts it first', () => {
    expect(visibleWindow(rows, 7, 4, 3)).toEqual({ top: 4, rows: [4, 5, 6, 7] });
    expect(visibleWindow(rows, 2, 4, 3)).toEqual({ top: 2, rows: [2, 3, 4, 5] });
    expect(visibleWindow(rows, 9, 4, 0).top).toBe(6);
    expect(visibleWindow(rows, 0, 4, 6).top).toBe(0);
  });

  it('clamps the selection and the top, and pulls the window up when the list shrinks', () => {
    expect(visibleWindow(rows, 99, 4, 0).top).toBe(6);
    expect(visibleWindow(rows, -5, 4, 5).top).toBe(0);
    expect(visibleWindow(rows, 8, 4, 9)).toEqual({ top: 6, rows: [6, 7, 8, 9] });
    expect(visibleWindow(rows, 0, 4, -3).top).toBe(0);
  });

  it('shows everything when the list fits', () => {
    expect(visibleWindow(rows, 9, 20, 5)).toEqual({ top: 0, rows });
    expect(visibleWindow(rows, 9, 10, 0)).toEqual({ top: 0, rows });
  });

  it('handles empty lists, zero or odd heights', () => {
    expect(visibleWindow([], 0, 5, 0)).toEqual({ top: 0, rows: [] });
    expect(visibleWindow(rows, 3, 0, 2)).toEqual({ top: 0, rows: [] });
    expect(visibleWindow(rows, 3, -1, 2)).toEqual({ top: 0, rows: [] });
    expect(visibleWindow(rows, 3, 1, 0)).toEqual({ top: 3, rows: [3] });
    expect(visibleWindow(rows, 3, 2.7, 0)).toEqual({ top: 2, rows: [2, 3] });
    expect(visibleWindow(rows, Number.NaN, 3, Number.NaN)).toEqual({ top: 0, rows: [0, 1, 2] });
  });

  it('is pure: the input array is not changed', () => {
    const copy = [...rows];
    visibleWindow(rows, 5, 3, 0);
    expect(rows).toEqual(copy);
  });
});
