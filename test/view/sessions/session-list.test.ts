import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionSummary } from '../../../src/cli/commands.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { foldEvent } from '../../../src/session/log-facts.js';
import { cleanupTmp, evs, hdr, tmpDir, turnRows, writeLog } from '../../support/fixtures.js';
import { filterSessions, nextOrder, rowOf, sessionRows, sortSessions } from '../../../src/view/sessions/session-list.js';
import { ageText } from '../../../src/view/text/age.js';
import { listItemOf, type SessionListItem } from '../../../src/session/list-item.js';

const NOW = 1_795_990_000_000;
const item = (key: string, extra: Partial<SessionListItem> = {}): SessionListItem => ({
  key,
  id: key,
  kind: 'root',
  createdAt: 0,
  turns: 1,
  events: 10,
  state: 'at-boundary',
  diagnostics: 0,
  ...extra,
});

// a: root, active recently; b: fork of a; c: spawn of a; d: fork of b; e: orphan; f: root, newest created
const items: SessionListItem[] = [
  item('a', { createdAt: 100, lastEventTime: 900, title: 'Fix the Flaky test', cwd: '/home/dana/src/payments-api' }),
  item('b', { createdAt: 200, lastEventTime: 500, parentSession: 'a', kind: 'fork', seedLength: 4 }),
  item('c', { createdAt: 300, lastEventTime: 950, parentSession: 'a', kind: 'spawn' }),
  item('d', { createdAt: 400, lastEventTime: 600, parentSession: 'b', kind: 'fork', seedLength: 8 }),
  item('e', { createdAt: 50, lastEventTime: 700, parentSession: 'gone', kind: 'fork', seedLength: 2 }),
  item('f', { createdAt: 999, title: 'Other work', cwd: '/srv/API' }),
];
const keys = (rows: Array<{ item: SessionListItem }>) => rows.map((r) => r.item.key);

describe('sortSessions', () => {
  it('recent: newest activity first (last event, else createdAt)', () => {
    expect(keys(sortSessions(items, 'recent'))).toEqual(['f', 'c', 'a', 'e', 'd', 'b']);
  });
  it('created: newest createdAt first', () => {
    expect(keys(sortSessions(items, 'created'))).toEqual(['f', 'd', 'c', 'b', 'a', 'e']);
  });
  it('id: ascending, ties broken by key', () => {
    const dup = [item('k2', { id: 'same' }), item('k1', { id: 'same' }), item('k0', { id: 'alpha' })];
    expect(keys(sortSessions(dup, 'id'))).toEqual(['k0', 'k1', 'k2']);
    expect(keys(sortSessions(items, 'id'))).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });
  it('threaded: children under their parent, depth-first, each level newest activity first', () => {
    const rows = sortSessions(items, 'threaded');
    expect(rows.map((r) => `${'  '.repeat(r.depth)}${r.item.key}`)).toEqual(['f', 'a', '  c', '  b', '    d', 'e']);
  });
  it('threaded: a cycle terminates and every member is shown once', () => {
    const cyc = [item('x', { parentSession: 'y', kind: 'fork' }), item('y', { parentSession: 'x', kind: 'fork' }), item('z', { parentSession: 'z', kind: 'spawn' })];
    const rows = sortSessions(cyc, 'threaded');
    expect(keys(rows).sort()).toEqual(['x', 'y', 'z']);
    expect(rows).toHaveLength(3);
  });
  it('threaded: a parent id shared by several sessions resolves to the earliest created', () => {
    const dup = [item('p2', { id: 'P', createdAt: 20 }), item('p1', { id: 'P', createdAt: 10 }), item('kid', { parentSession: 'P', kind: 'fork', createdAt: 30 })];
    const rows = sortSessions(dup, 'threaded');
    const i = keys(rows).indexOf('p1');
    expect(rows[i + 1]).toEqual({ item: dup[2], depth: 1 });
  });
  it('cycles through the orders', () => {
    expect(['recent', 'created', 'id', 'threaded'].map((o) => nextOrder(o as never))).toEqual(['created', 'id', 'threaded', 'recent']);
  });
});

describe('filterSessions', () => {
  it('matches id, title or cwd, case-insensitive substring', () => {
    expect(filterSessions(items, 'FLAKY').map((s) => s.key)).toEqual(['a']);
    expect(filterSessions(items, 'api').map((s) => s.key)).toEqual(['a', 'f']);
    expect(filterSessions(items, 'd').map((s) => s.key)).toContain('d');
    expect(filterSessions(items, 'nothing-like-this')).toEqual([]);
  });
  it('an empty (or blank) query keeps everything', () => {
    expect(filterSessions(items, '')).toHaveLength(items.length);
    expect(filterSessions(items, '   ')).toHaveLength(items.length);
  });
  it('threaded: ├ for every sibling but the last, └ for the last, a │ lane under an ancestor with a later sibling', () => {
    const guided = (list: SessionListItem[]) => sessionRows(list, { order: 'threaded', filter: '', now: NOW }).map((r) => r.guide + r.key);
    expect(guided(items)).toEqual(['f', 'a', '├ c', '└ b', '  └ d', 'e']);
    const tree = [
      item('r', { lastEventTime: 10 }),
      item('x', { parentSession: 'r', kind: 'fork', lastEventTime: 30 }),
      item('z', { parentSession: 'x', kind: 'fork', lastEventTime: 5 }),
      item('z2', { parentSession: 'x', kind: 'fork', lastEventTime: 4 }),
      item('y', { parentSession: 'r', kind: 'spawn', lastEventTime: 20 }),
    ];
    expect(guided(tree)).toEqual(['r', '├ x', '│ ├ z', '│ └ z2', '└ y']);
  });
  it('threaded: a deep chain keeps at most six lanes, the rest folded into one ⋯', () => {
    const chain = Array.from({ length: 10 }, (_, i) => item(`n${i}`, i ? { parentSession: `n${i - 1}`, kind: 'fork' } : {}));
    const guides = sessionRows(chain, { order: 'threaded', filter: '', now: NOW }).map((r) => r.guide);
    expect(guides[7]).toBe('  '.repeat(6) + '└ ');
    expect(guides[9]).toBe('⋯ ' + '  '.repeat(5) + '└ ');
  });
  it('threaded after filtering: a child whose parent is filtered out becomes a root', () => {
    const rows = sessionRows(items, { order: 'threaded', filter: 'd', now: NOW });
    expect(rows.find((r) => r.key === 'd')?.depth).toBe(0);
  });
});

describe('rows', () => {
  it('badges: boundary, open with the age of its last event, empty, damaged count', () => {
    expect(rowOf(item('a'), 0, NOW)).toMatchObject({ badge: 'boundary', tone: 'green', forkable: true });
    const open = rowOf(item('o', { state: 'open-turn', lastEventTime: NOW - 5_000 }), 0, NOW);
    expect(open).toMatchObject({ badge: 'open 5s', tone: 'yellow', forkable: false });
    expect(rowOf(item('o', { state: 'open-turn', lastEventTime: NOW - 3 * 3600_000 }), 0, NOW).badge).toBe('open 3h');
    expect(rowOf(item('e', { state: 'empty', events: 0 }), 0, NOW)).toMatchObject({ badge: 'empty', forkable: true });
    expect(rowOf(item('x', { state: 'open-turn', lastEventTime: NOW - 86400_000, diagnostics: 2 }), 0, NOW)).toMatchObject({ badge: 'open 1d ⚠2', tone: 'red', diagnostics: 2 });
    expect(rowOf(item('g', { forkBlock: 'seq-gap', diagnostics: 1 }), 0, NOW)).toMatchObject({ badge: 'seq gap ⚠1', tone: 'red', forkable: false });
  });
  it('STATE and forkable are one verdict: a log that ends between turns past a seq gap is not "boundary" (the legend: boundary = forkable); list --json says the same', () => {
    const dir = tmpDir();
    const t = evs(...turnRows(1), ...turnRows(2));
    writeLog(path.join(dir, 'g.jsonl'), hdr('g'), [...t.slice(0, 7), ...t.slice(7).map((e) => ({ ...e, seq: e.seq + 2 }))]);
    writeLog(path.join(dir, 'ok.jsonl'), hdr('ok'), t);
    const { store } = loadRootSync(dir);
    for (const id of ['g', 'ok']) {
      const s = store.get(id)!;
      const row = rowOf(listItemOf(s), 0, NOW);
      const json = sessionSummary(s);
      expect(row.forkable, id).toBe(json.forkable);
      expect(row.forkable, id).toBe(store.boundaryError(s) === null);
      expect(row.badge.startsWith('boundary'), id).toBe(row.forkable);
    }
    const gapped = rowOf(listItemOf(store.get('g')!), 0, NOW);
    expect(gapped).toMatchObject({ badge: 'seq gap ⚠1', forkable: false });
    expect(sessionSummary(store.get('g')!)).toMatchObject({ state: 'at-boundary', forkable: false });
    cleanupTmp();
  });
  it('an item shows its session as it was when built: a log that grows in place changes the session, not the item', () => {
    const dir = tmpDir();
    const file = writeLog(path.join(dir, 'p', 's.jsonl'), hdr('s', { cwd: '/w' }), evs(...turnRows(1)));
    const { store } = loadRootSync(dir);
    const s = store.get(file)!;
    const before = listItemOf(s);
    const shown = { turns: before.turns, events: before.events, state: before.state, lastEventTime: before.lastEventTime, id: before.id, cwd: before.cwd, createdAt: before.createdAt };
    for (const e of evs(...turnRows(1), ...turnRows(2)).slice(7, 9)) foldEvent(s.log.facts, e); // a turn opened, as an append folds it
    expect(s.facts.turns).toBe(2);
    expect({ turns: before.turns, events: before.events, state: before.state, lastEventTime: before.lastEventTime, id: before.id, cwd: before.cwd, createdAt: before.createdAt }).toEqual(shown);
    expect(listItemOf(s)).toMatchObject({ turns: 2, state: 'open-turn' });
    cleanupTmp();
  });
  it('marks children: ◆ fork, ◇ spawn', () => {
    const rows = sessionRows(items, { order: 'id', filter: '', now: NOW });
    expect(rows.map((r) => r.mark)).toEqual(['', '◆', '◇', '◆', '◆', '']);
  });
  it('sanitises every cell that came from a file', () => {
    const evil = item('k', { id: 'evil\x1b]0;pwned\x07', title: 'line1\nline2\x1b[2J', cwd: '/tmp/\u202Eevil' });
    const r = rowOf(evil, 0, NOW);
    for (const cell of [r.id, r.title, r.cwd]) expect(cell).not.toMatch(/[\x00-\x1f\x7f\u202E]/);
    expect(r.title).toContain('⏎');
  });
  it('ages', () => {
    expect(ageText(undefined, NOW)).toBe('-');
    expect(ageText(NOW - 59_000, NOW)).toBe('59s');
    expect(ageText(NOW - 60_000, NOW)).toBe('1m');
    expect(ageText(NOW + 10_000, NOW)).toBe('0s');
    // placeholder times (createdAt 0 or 1) are not dates
    expect(ageText(0, NOW)).toBe('-');
    expect(ageText(1, NOW)).toBe('-');
  });
});
