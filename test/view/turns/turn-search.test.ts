// `/` search in Turns on the sample corpus: matches, n/N, and opening folded
// parents so the match gets its own row (checked against buildTurnRows).
import { describe, expect, it } from 'vitest';
import { isQueryError, parseQuery, type Query } from '../../../src/session/query.js';
import { buildTurnTree } from '../../../src/session/replay.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { buildTurnRows, defaultExpansion, rowIndexForSeq, rowsContext, type Expansion } from '../../../src/view/turns/turn-rows.js';
import { openToSeq, pathToSeq, stepMatch } from '../../../src/view/turns/turn-search.js';
import { turnMatches } from '../../../src/session/turn-matches.js';
import { SAMPLE_DIR } from '../../support/fixtures.js';

const ok = (s: string): Query => {
  const q = parseQuery(s);
  if (isQueryError(q)) throw new Error(q.message);
  return q;
};
const { store } = loadRootSync(SAMPLE_DIR);

describe('turn search', () => {
  it('n/N step through match seqs and wrap around', () => {
    expect(stepMatch([3, 9, 20], undefined, 1)).toBe(3);
    expect(stepMatch([3, 9, 20], undefined, -1)).toBe(20);
    expect(stepMatch([3, 9, 20], 3, 1)).toBe(9);
    expect(stepMatch([3, 9, 20], 10, 1)).toBe(20);
    expect(stepMatch([3, 9, 20], 20, 1)).toBe(3);
    expect(stepMatch([3, 9, 20], 9, -1)).toBe(3);
    expect(stepMatch([3, 9, 20], 3, -1)).toBe(20);
    expect(stepMatch([], 3, 1)).toBeUndefined();
  });

  it('every match in every sample session gets a visible row covering it once its parents are opened', () => {
    let checked = 0;
    for (const s of store.list()) {
      const tree = buildTurnTree(s.events);
      const ctx = rowsContext(s, 0);
      for (const word of ['the', 'test', 'retry', 'is:error', 'tool:bash']) {
        const matches = turnMatches(ok(word), s.events);
        for (const m of matches.slice(0, 15)) {
          for (const start of [defaultExpansion, { mode: 'none', toggled: new Set<string>() } as Expansion]) {
            const exp = openToSeq(start, tree, m.seq);
            const rows = buildTurnRows(tree, exp, ctx).rows.slice();
            const i = rowIndexForSeq(rows, m.seq);
            const path = pathToSeq(tree, m.seq);
            const deepest = path[path.length - 1];
            expect(rows[i].seq <= m.seq && m.seq <= rows[i].lastSeq, `${s.id} ${word} seq ${m.seq}`).toBe(true);
            // the row is the match's own node (or, for a tool result, the result line under the call)
            if (rows[i].kind === 'boundary') expect(rows[i].seq).toBe(m.seq); // a matching turn/end: its fork-here marker
            else if (deepest.kind === 'tool' && deepest.seq !== m.seq) expect(rows[i]).toMatchObject({ part: 'result', seq: m.seq });
            else if (deepest.kind !== 'chunks') expect(rows[i].seq, `${s.id} ${word} match ${m.seq} path ${path.map((x) => x.kind + x.seq + '-' + x.lastSeq)} row ${rows[i].key}`).toBe(deepest.seq);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('opening keeps an already-open path unchanged (same object) and never closes anything', () => {
    const s = store.list().find((x) => x.facts.turns > 1)!;
    const tree = buildTurnTree(s.events);
    const m = turnMatches(ok('the'), s.events)[0];
    const once = openToSeq({ mode: 'none', toggled: new Set() }, tree, m.seq);
    expect(openToSeq(once, tree, m.seq)).toBe(once);
    const all: Expansion = { mode: 'all', toggled: new Set() };
    expect(openToSeq(all, tree, m.seq)).toBe(all);
  });

  it('session terms are ignored inside one session; is:error finds failed results', () => {
    const s = store.list().find((x) => turnMatches(ok('is:error'), x.events).length > 0);
    expect(s).toBeDefined();
    const m = turnMatches(ok('is:error is:fork'), s!.events);
    expect(m.length).toBeGreaterThan(0);
    expect(m.every((x) => x.type === 'tool/result')).toBe(true);
  });
});
