// The Compare view-model: rows (shared, folded equal turns, pairs, totals),
// exact-width terminal-safe lines, and what Enter opens.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareSessions } from '../../../src/session/compare.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { compareHeader, compareRows, columnWidths, renderCompareRow, rowTarget } from '../../../src/view/comparison/compare-model.js';
import { durationText } from '../../../src/view/text/duration.js';
import { displayWidth } from '../../../src/view/text/sanitize.js';
import { cleanupTmp, copyDir, SAMPLE_DIR, tmpDir, turnRows, writeLog } from '../../support/fixtures.js';

afterAll(cleanupTmp);

const ev = (rows: Array<[string, unknown?]>, from = 0, t0 = 1000) => rows.map(([type, data], i) => ({ type, seq: from + i, time: t0 + i * 100, data: data ?? {} }));

/** parent: 1 turn; two children forked after it, each running the same 2 turns, then different ones. */
function forkDir(hostile = false) {
  const dir = tmpDir();
  const base = turnRows(1, { kind: 'completed' }, 'base');
  const parent = ev(base);
  writeLog(path.join(dir, 'p.jsonl'), { type: 'session', version: 0, id: 'p', createdAt: 1 }, parent);
  const n = parent.length;
  const child = (id: string, last: string, t0: number) =>
    writeLog(path.join(dir, `${id.replace(/[^a-z]/g, '')}.jsonl`), { type: 'session', version: 0, id, createdAt: 2, parentSession: 'p', seedLength: n }, [
      ...parent,
      ...ev([...turnRows(2, { kind: 'completed' }, 'same a'), ...turnRows(3, { kind: 'completed' }, 'same b'), ...turnRows(4, { kind: 'completed' }, last)], n, t0),
    ]);
  child(hostile ? 'l\x1b[2Jeft\u202e' : 'left', hostile ? 'prompt \x1b]52;c;AAAA\x07 ⏎\nline2 宽字符' : 'left end', 50_000);
  child('right', 'right end', 90_000);
  const index = loadRootSync(dir);
  const get = (id: string) => index.store.list().find((s) => s.id === id)!;
  return { index, get };
}

describe('compare rows', () => {
  it('folds the shared prefix and the equal turns, pairs the different ones, then totals and the files', () => {
    const { index, get } = forkDir();
    const c = compareSessions(get('left'), get('right'), index.store.list());
    const rows = compareRows(c);
    expect(rows.map((r) => r.kind)).toEqual(['shared', 'equal', 'pair', 'totals', 'files']);
    const eq = rows[1] as Extract<(typeof rows)[number], { kind: 'equal' }>;
    expect(eq.left.map((t) => t.prompt)).toEqual(['same a', 'same b']);
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
    const lines = rows.flatMap((r) => renderCompareRow(c, r, 80));
    for (const l of lines) expect(displayWidth(l)).toBe(80);
    expect(lines[0]).toContain('1 shared turn(s)');
    expect(lines[1]).toContain('2 equal turn(s) T2–T3 | T2–T3');
    expect(lines.join('\n')).toContain('› left end');
    expect(lines.join('\n')).toContain('› right end');
    // Enter targets: the turn's first seq in that side's session
    expect(rowTarget(c, rows[2], 'left')).toEqual({ session: get('left'), seq: c.left.turns[2].seq });
    expect(rowTarget(c, rows[2], 'right')?.session).toBe(get('right'));
    expect(rowTarget(c, rows[1], 'right')?.seq).toBe(c.right.turns[0].seq);
    expect(rowTarget(c, rows[0], 'left')?.seq).toBe(c.ancestor!.seq);
    expect(rowTarget(c, rows[3], 'left')).toBeUndefined();
  });

  it("the totals row ends in each side's sparklines of tokens and time per turn", () => {
    const { index, get } = forkDir();
    const c = compareSessions(get('left'), get('right'), index.store.list());
    const totals = compareRows(c).find((r) => r.kind === 'totals')!;
    const lines = renderCompareRow(c, totals, 160);
    expect(lines).toHaveLength(3);
    // three own turns a side, each 0.6 s long, with no usage recorded
    expect(lines[2]).toMatch(/tokens\/turn ··· peak 0 · time\/turn ███ peak 600ms .*│.*tokens\/turn ··· peak 0 · time\/turn ███ peak 600ms/);
  });

  it('lines stay exact-width and terminal-safe with hostile ids and prompts, at any width', () => {
    const { index, get } = forkDir(true);
    const left = index.store.list().find((s) => s.id.startsWith('l'))!;
    const c = compareSessions(left, get('right'), index.store.list());
    for (const w of [20, 41, 80, 133]) {
      const lines = [...compareHeader(c, w), ...compareRows(c).flatMap((r) => renderCompareRow(c, r, w))];
      for (const l of lines) {
        expect(displayWidth(l), JSON.stringify(l)).toBe(w);
        expect(l).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
      }
    }
    expect(columnWidths(80)).toEqual([38, 39]);
  });

  it('on the sample corpus: the header names the ancestor and the seq', () => {
    const index = loadRootSync(copyDir(SAMPLE_DIR, tmpDir()));
    const g = (id: string) => index.store.getAll(id)[0];
    const c = compareSessions(g('fix-flaky-retry-test.spy-random'), g('fix-flaky-retry-test.issue-writeup'), index.store.list());
    expect(compareHeader(c, 100)[0]).toMatch(/^common ancestor fix-flaky-retry-test, logs agree through seq 43 +$/);
    const u = compareSessions(g('review-pr-482'), g('bump-vitest'), index.store.list());
    expect(compareHeader(u, 60)[0].trim()).toBe('no common ancestor');
    expect(compareRows(u)[0].kind).toBe('pair');
  });

  it('durations', () => {
    expect([durationText(250), durationText(4_200), durationText(125_000), durationText(3_900_000)]).toEqual(['250ms', '4.2s', '2m05s', '1h05m']);
  });
});
