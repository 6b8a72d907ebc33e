import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SessionEvent, SessionHeader } from '../../../src/session/events.js';
import { buildTurnTree } from '../../../src/session/replay.js';
import type { Session } from '../../../src/session/session.js';
import { memorySession, SessionStore } from '../../../src/session/store.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { REAL_DIR } from '../../support/fixtures.js';
import { displayWidth } from '../../../src/view/text/sanitize.js';
import { fitSegments, reasonColor } from '../../../src/view/turns/turn-row-text.js';
import { detailLines, fitDetail } from '../../../src/view/turns/turn-detail.js';
import {
  buildTurnRows,
  defaultExpansion,
  forkTargetAt,
  historyRows,
  nearestBoundary,
  rowIndexForSeq,
  rowsContext,
  type Expansion,
  type TurnRow,
} from '../../../src/view/turns/turn-rows.js';
import { snapshotWorld } from '../../../src/world/world.js';
import { cursorIndex, initialTurnsState, turnsReducer, type RowsView, type TurnsState } from '../../../src/view/turns/turns-state.js';

const { store } = loadRootSync('sample-sessions');
const NOW = 1_800_000_000_000;
const ALL: Expansion = { mode: 'all', toggled: new Set() };
/** The rows as an array (read whole through the model's RowSeq), and the model. */
const rowsOf = (s: Session, exp: Expansion = defaultExpansion) => {
  const model = buildTurnRows(buildTurnTree(s.events), exp, rowsContext(s, NOW));
  return { rows: model.rows.slice(), index: model.index, model };
};
const get = (id: string): Session => store.get(id)!;

/** A synthetic log: `turns` turns of one step with chunks, a message, a tool call and its result. */
function synthetic(turns: number, opts: { reason?: (t: number) => unknown; openLast?: boolean; prompt?: string } = {}): SessionEvent[] {
  const ev: SessionEvent[] = [];
  const add = (type: string, data: unknown) => ev.push({ type, seq: ev.length, time: 1_000 + ev.length, data });
  for (let t = 1; t <= turns; t++) {
    add('turn/start', { turn: t, trigger: { kind: 'message' } });
    add('user/message', { content: [{ type: 'text', text: opts.prompt ?? `prompt ${t}` }], source: { kind: 'user' } });
    add('step/start', { turn: t, step: 1 });
    for (let c = 0; c < 3; c++) add('assistant/chunk', { turn: t, step: 1, chunk: { type: 'text-delta', text: 'x' } });
    add('assistant/message', { turn: t, step: 1, content: [{ type: 'text', text: `answer ${t}` }] });
    add('tool/call', { turn: t, step: 1, callId: `c${t}`, name: 'bash', arguments: '{"command":"ls"}' });
    if (opts.openLast && t === turns) break;
    add('tool/result', { turn: t, step: 1, callId: `c${t}`, content: [{ type: 'tool-result', toolCallId: `c${t}`, content: [{ type: 'text', text: 'ok' }] }], isError: false });
    add('step/end', { turn: t, step: 1 });
    add('turn/end', { turn: t, reason: opts.reason?.(t) ?? { kind: 'completed' } });
  }
  return ev;
}

function memStore(id: string, events: SessionEvent[], extra: Partial<SessionHeader> = {}): { s: Session; st: SessionStore } {
  const st = new SessionStore();
  const s = memorySession({ type: 'session', version: 0, id, createdAt: 0, ...extra }, events);
  st.add(s);
  return { s, st };
}

const forkable = (rows: readonly TurnRow[], s: Session, st: SessionStore) =>
  new Set(rows.map((r) => forkTargetAt(r, s, st)).flatMap((t) => ('boundary' in t ? [t.boundary] : [])));

describe('turn rows', () => {
  it('has a "fork here" row after every turn/end, and every boundary is a forkable row (collapsed and expanded)', () => {
    const sessions = store.list();
    expect(sessions.length).toBeGreaterThan(5);
    for (const s of sessions) {
      for (const exp of [defaultExpansion, ALL]) {
        const { rows } = rowsOf(s, exp);
        const ends = s.events.filter((e) => e.type === 'turn/end' && s.facts.boundaries.includes(e.seq)).map((e) => e.seq);
        const markers = rows.filter((r) => r.kind === 'boundary');
        for (const seq of ends) expect(markers.some((r) => r.seq === seq && r.text === `── fork here · seq ${seq} ──`), `${s.id} seq ${seq}`).toBe(true);
        const reach = forkable(rows, s, store);
        for (const b of s.facts.boundaries) expect(reach.has(b), `${s.id} boundary ${b}`).toBe(true);
        for (const r of markers) expect(forkTargetAt(r, s, store)).toEqual({ boundary: r.seq });
      }
    }
  });

  it('reaches every boundary of the real harness files, rc8 standalone events included', () => {
    const dir = REAL_DIR;
    const real = loadRootSync(dir).store;
    let boundaries = 0;
    for (const s of real.list()) {
      const reach = forkable(rowsOf(s).rows.slice(), s, real);
      for (const b of s.facts.boundaries) expect(reach.has(b), `${s.file} boundary ${b}`).toBe(true);
      boundaries += s.facts.boundaries.length;
    }
    expect(boundaries).toBeGreaterThan(10);
  });

  it("an open turn's age follows the world's clock: the same (memoised) turn data relabels the row as time passes", () => {
    const index = loadRootSync('sample-sessions');
    const s = index.store.get('add-retry-metrics')!;
    const worldAt = (version: number, now: number) => snapshotWorld(index, version, now, () => 'child');
    const openTurn = (w: ReturnType<typeof worldAt>): TurnRow => {
      const data = w.turns(s);
      if (!data.ok) throw new Error(data.error);
      return data.rows(defaultExpansion).rows.slice().find((r) => r.kind === 'turn' && r.reason === 'open')!;
    };
    const lastTime = s.events[s.length - 1].time;
    const early = worldAt(1, lastTime + 5_000);
    expect(openTurn(early).text).toContain('open · last event 5s ago');
    const late = worldAt(2, lastTime + 600_000);
    expect(late.turns(s)).toBe(early.turns(s)); // the tree is not rebuilt for a tick
    expect(openTurn(late).text).toContain('open · last event 10m ago');
    expect(openTurn(late).segments.map((g) => g.text).join('')).toBe(openTurn(late).text);
  });

  it('collapses turns except the open last one; keys are stable', () => {
    const live = rowsOf(get('add-retry-metrics')).rows.slice();
    const turns = live.filter((r) => r.kind === 'turn');
    expect(turns.map((r) => [r.expanded, r.reason])).toEqual([[false, 'completed'], [true, 'open']]);
    expect(turns[1].text).toMatch(/^turn 2 {2}open · last event \S+ ago {2}in [^ ]+ out [^ ]+( cache [^ ]+)? {2}Also add a histogram/);
    expect(live.at(-1)!.kind).toBe('tool');
    const closed = rowsOf(get('fix-flaky-retry-test')).rows.slice();
    expect(closed.every((r) => r.depth === 0 && (r.kind === 'turn' || r.kind === 'boundary'))).toBe(true);
    expect(new Set(closed.map((r) => r.key)).size).toBe(closed.length);
    expect(rowsOf(get('fix-flaky-retry-test'), ALL).rows.slice().filter((r) => r.kind === 'turn').map((r) => r.key)).toEqual(closed.filter((r) => r.kind === 'turn').map((r) => r.key));
  });

  it('sets a fork child\'s inherited events apart', () => {
    const s = get('fix-flaky-retry-test.spy-random');
    const { rows } = rowsOf(s, ALL);
    expect(rows[0]).toMatchObject({ kind: 'inherited-divider', inherited: true, text: '── inherited from fix-flaky-retry-test, seedLength 79 ──' });
    const own = rows.findIndex((r) => r.key === 'd-own');
    expect(rows[own]).toMatchObject({ kind: 'inherited-divider', seq: 79, inherited: false });
    expect(rows[own - 1]).toMatchObject({ kind: 'boundary', seq: 78 });
    expect(rows.slice(0, own).every((r) => r.inherited)).toBe(true);
    expect(rows.slice(own + 1).every((r) => !r.inherited && r.seq >= 79)).toBe(true);
    // both dividers fork at the seed's end, and the history there equals the parent's at the boundary
    expect(forkTargetAt(rows[0], s, store)).toEqual({ boundary: 78 });
    const parent = get('fix-flaky-retry-test');
    expect(historyRows(s.events, 78).slice().map((r) => r.text)).toEqual(historyRows(parent.events, 78).slice().map((r) => r.text));
    expect(rowsOf(get('fix-flaky-retry-test')).rows.slice().some((r) => r.kind === 'inherited-divider')).toBe(false);
  });

  it('colours reasons, shows unknown reasons by name in the neutral colour', () => {
    expect([reasonColor('completed'), reasonColor('aborted'), reasonColor('interrupted'), reasonColor('error'), reasonColor('rejected'), reasonColor('blocked')]).toEqual(['green', 'yellow', 'yellow', 'red', 'red', 'red']);
    expect([reasonColor('max-tokens'), reasonColor('disposed'), reasonColor('teleported')]).toEqual(['magenta', 'cyan', undefined]);
    const byId = (id: string) => rowsOf(get(id)).rows.slice().filter((r) => r.kind === 'turn').map((r) => [r.reason, r.color]);
    expect(byId('review-pr-482')).toContainEqual(['disposed', 'cyan']);
    expect(byId('bump-vitest')).toContainEqual(['interrupted', 'yellow']);
    expect(byId('cleanup-stale-branches')).toContainEqual(['rejected', 'red']);
    const { s } = memStore('odd', synthetic(2, { reason: (t) => (t === 2 ? { kind: 'teleported' } : { kind: 'completed' }) }));
    const odd = rowsOf(s).rows.slice().filter((r) => r.kind === 'turn');
    expect(odd[1]).toMatchObject({ reason: 'teleported', color: undefined });
    expect(odd[1].text).toContain('teleported');
    expect(rowsOf(s).rows.at(-1)).toMatchObject({ kind: 'boundary', seq: s.length - 1 });
  });

  it('forkTargetAt: boundary rows and closed turns fork; inside a turn the store refuses with OPEN_TURN', () => {
    const s = get('add-retry-metrics');
    const { rows } = rowsOf(s, ALL);
    const marker = rows.find((r) => r.kind === 'boundary')!;
    expect(forkTargetAt(marker, s, store)).toEqual({ boundary: 21 });
    expect(forkTargetAt(rows.find((r) => r.kind === 'turn' && r.reason === 'completed')!, s, store)).toEqual({ boundary: 21 });
    for (const r of rows.filter((r) => r.seq > 21)) {
      const t = forkTargetAt(r, s, store);
      expect('error' in t && t.error.code).toBe('OPEN_TURN');
      if ('error' in t) expect(t.error.message).toBe(store.boundaryError(s, r.lastSeq)!.message);
    }
    const open = rows.find((r) => r.kind === 'turn' && r.reason === 'open')!;
    const t = forkTargetAt(open, s, store);
    expect('error' in t && t.error.message).toBe('cannot fork session "add-retry-metrics" inside an open turn (last event: tool/call)');
    const inClosed = rows.find((r) => r.kind === 'message' && r.seq < 21)!;
    expect('error' in forkTargetAt(inClosed, s, store) && (forkTargetAt(inClosed, s, store) as any).error.code).toBe('OPEN_TURN');
  });

  it('nearestBoundary and rowIndexForSeq find the fork point', () => {
    const s = get('fix-flaky-retry-test');
    expect(nearestBoundary(s, 12)).toBe(43);
    expect(nearestBoundary(s, 50)).toBe(43);
    expect(nearestBoundary(s, 70)).toBe(78);
    expect(nearestBoundary(get('5e0b7c1d-2a94-4f3e-8d61-9b7a0c4e2f18'), 0)).toBeUndefined();
    const { rows } = rowsOf(s);
    expect(rows[rowIndexForSeq(rows, 43)]).toMatchObject({ kind: 'boundary', seq: 43 });
    expect(rows[rowIndexForSeq(rows, 12)]).toMatchObject({ kind: 'turn', seq: 0 });
    const all = rowsOf(s, ALL).rows.slice();
    expect(all[rowIndexForSeq(all, 12)]).toMatchObject({ kind: 'tool', seq: 12, depth: 3 }); // the call's arguments line
    // the rows' own lookup (the block holding the seq) is the scan of the whole list, for every seq and key, forks too
    for (const id of ['fix-flaky-retry-test', 'add-retry-metrics', ...store.list().filter((x) => x.kind === 'fork').map((x) => x.id)]) {
      for (const exp of [defaultExpansion, ALL, { mode: 'none', toggled: new Set<string>() } as Expansion]) {
        const { rows: list, model } = rowsOf(get(id), exp);
        for (let seq = -1; seq <= get(id).length + 1; seq++) expect(rowIndexForSeq(model.rows, seq)).toBe(rowIndexForSeq(list, seq));
        list.forEach((r, i) => expect(model.index.get(r.key)).toBe(i));
        expect(model.index.get('t999999')).toBeUndefined();
      }
    }
  });

  it('rows built as read (the tree’s and the history’s) answer at and slice as an array does', () => {
    const s = get('fix-flaky-retry-test');
    for (const seq of [rowsOf(s, ALL).model.rows, historyRows(s.events, 78)]) {
      const arr = seq.slice();
      expect(arr.length).toBe(seq.length);
      for (const i of [-arr.length - 1, -arr.length, -1, 0, 1, 2.5, arr.length - 1, arr.length, NaN]) expect(seq.at(i)).toEqual(arr.at(i));
      for (const [a, b] of [[undefined, undefined], [2, 5], [-3, undefined], [5, 2], [-100, 100], [1.5, 3.5]] as const) expect(seq.slice(a, b)).toEqual(arr.slice(a, b));
    }
  });

  it('builds rows for a 50k-event session (collapsed and expanded)', () => {
    const events = synthetic(4000, { openLast: true }); // 11 events a turn
    while (events.length < 50_000) events.push({ type: 'hook/invoked', seq: events.length, time: 0, data: { point: 'x' } });
    // make the tail a proper open turn
    events.push({ type: 'step/end', seq: events.length, time: 0, data: { turn: 4000, step: 1 } });
    expect(events.length).toBe(50_001);
    const { s } = memStore('big', events);
    const tree = buildTurnTree(s.events);
    const collapsed = buildTurnRows(tree, { mode: 'none', toggled: new Set() }, rowsContext(s, NOW));
    expect(collapsed.rows.length).toBe(4000 + 3999); // turns and their boundaries; the open turn has none
    const auto = buildTurnRows(tree, defaultExpansion, rowsContext(s, NOW));
    expect(auto.rows.length).toBe(7999 + 5 + 6003); // the open last turn (user, step, chunks, assistant, tool) holds the 6,003 hook events
    expect(auto.index.get(auto.rows.at(-1)!.key)).toBe(auto.rows.length - 1);
  });

  it('sanitises every file string and keeps rows and detail within bounds', () => {
    const { s } = memStore('evil\u001b[2J', synthetic(1, { prompt: 'hi\u001b]52;c;AAAA\u0007 there\nsecond line' }));
    const { rows } = rowsOf(s, ALL);
    for (const r of rows) expect(r.text).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(rows[0].text).toContain('hi␛]52;c;AAAA␇ there');
    const lines = fitDetail(detailLines(rows.find((r) => r.kind === 'tool')!, (seq) => s.events[seq]), 12, 4);
    expect(lines.length).toBeLessThanOrEqual(4);
    for (const l of lines) expect(displayWidth(l.text)).toBeLessThanOrEqual(12);
    for (const w of [1, 5, 17, 40]) for (const r of rows) expect(fitSegments(r.segments, w).reduce((n, x) => n + displayWidth(x.text), 0)).toBeLessThanOrEqual(w);
  });
});

describe('turnsReducer', () => {
  const s = get('fix-flaky-retry-test');
  const run = (state: TurnsState, ...types: Array<'down' | 'up' | 'expand' | 'collapse' | 'expandAll' | 'collapseAll' | 'toggleHistory' | 'pageDown' | 'bottom' | 'top'>) => {
    for (const type of types) {
      const view: RowsView = { ...rowsOf(s, state.expansion).model, height: 5 }; // the rows as the app reads them
      state = type === 'expandAll' ? turnsReducer(state, { type }) : turnsReducer(state, { type, view } as never);
    }
    return state;
  };
  const selected = (state: TurnsState) => {
    const view = { ...rowsOf(s, state.expansion).model, height: 5 };
    return view.rows.at(cursorIndex(state.tree, view));
  };

  it('moves, expands to children and collapses to the parent', () => {
    let st = run(initialTurnsState(), 'down', 'down');
    expect(selected(st)).toMatchObject({ kind: 'turn', seq: 44 });
    st = run(st, 'expand');
    expect(selected(st)).toMatchObject({ kind: 'turn', seq: 44, expanded: true });
    st = run(st, 'expand');
    expect(selected(st)).toMatchObject({ kind: 'message', seq: 45 });
    st = run(st, 'down', 'expand', 'expand');
    expect(selected(st)).toMatchObject({ kind: 'chunks', seq: 47 });
    st = run(st, 'collapse');
    expect(selected(st)).toMatchObject({ kind: 'step', seq: 46 });
    st = run(st, 'collapse');
    expect(selected(st)).toMatchObject({ kind: 'step', expanded: false });
    st = run(st, 'collapse', 'collapse');
    expect(selected(st)).toMatchObject({ kind: 'turn', seq: 44, expanded: false });
  });

  it('expand all / collapse all keep the selection on its row or its turn; the window follows', () => {
    let st = run(initialTurnsState(), 'down', 'down', 'expandAll');
    expect(selected(st)).toMatchObject({ kind: 'turn', seq: 44, expanded: true });
    st = run(st, 'down', 'down', 'down', 'down', 'down', 'down');
    expect(st.tree.top).toBeGreaterThan(0);
    expect(st.tree.index - st.tree.top).toBeLessThan(5);
    st = run(st, 'collapseAll');
    expect(selected(st)).toMatchObject({ kind: 'turn', seq: 44, expanded: false });
    st = run(st, 'bottom');
    expect(selected(st)).toMatchObject({ kind: 'boundary', seq: s.length - 1 });
    st = run(st, 'top', 'pageDown');
    expect(st.tree.index).toBe(5);
  });

  it('toggles the model history at the selected point', () => {
    let st = run(initialTurnsState(), 'down', 'toggleHistory');
    expect(st).toMatchObject({ showHistory: true, historyUpTo: 43 });
    const h = historyRows(s.events, st.historyUpTo).slice();
    expect(h[0].text).toMatch(/^user: /);
    expect(h.every((r) => r.seq <= 43)).toBe(true);
    st = run(st, 'toggleHistory');
    expect(st.showHistory).toBe(false);
    st = turnsReducer(st, { type: 'toggleDetail', autoDetail: false });
    expect(st.showDetail).toBe(true);
  });
});
