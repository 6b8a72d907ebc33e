// Property: random interleavings of key presses and store changes (appends
// that open and close turns, new sessions, deletes, replaced files). After
// every step, the session `f`, Enter and Tab act on is the highlighted row,
// and an open fork dialog's cut never changes.
import fc from 'fast-check';
import { runs } from '../support/property.js';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/session/events.js';
import { foldEvent } from '../../src/session/log-facts.js';
import { memorySession, SessionStore } from '../../src/session/store.js';
import type { RootIndex } from '../../src/storage/load-root.js';
import { reduce } from '../../src/view/app/reducer.js';
import { indexOfKey, initialAppState, sessionsRows, type AppAction, type AppState } from '../../src/view/app/state.js';
import { problemOf } from '../../src/view/dialog/fork-dialog-state.js';
import { splitKeys } from '../../src/view/app/keys.js';
import { snapshotWorld, type World } from '../../src/view/app/world.js';

const NOW = 1795990000000;
const IDS = ['alpha', 'beta', 'gamma', 'delta', 'eps'];
const KEYS = ['j', 'k', 'g', 'G', '\x1b[B', '\x1b[A', '\x1b[6~', '/', 'a', 'l', 'e', 'p', '\x7f', '\r', '\x1b', '\t', '\x1b[Z', 'f', 's', '?', 'h', 't', 'b', 'E', 'a', 'm', 'c'];

type Op =
  | { kind: 'keys'; raw: string }
  | { kind: 'append'; id: number; close: boolean }
  | { kind: 'new'; id: number }
  | { kind: 'delete'; id: number }
  | { kind: 'replace'; id: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 4 }).map((k) => ({ kind: 'keys' as const, raw: k.join('') })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('append' as const), id: fc.nat(IDS.length - 1), close: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('new' as const), id: fc.nat(IDS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.nat(IDS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), id: fc.nat(IDS.length - 1) }) },
);

function session(id: string, turns: number, createdAt: number) {
  const events: SessionEvent[] = [];
  const add = (type: string, data: unknown) => events.push({ type, seq: events.length, time: createdAt + events.length, data });
  for (let t = 1; t <= turns; t++) {
    add('turn/start', { turn: t, trigger: 'user' });
    add('user/message', { content: [{ type: 'text', text: `${id} prompt ${t}` }], source: 'user' });
    add('turn/end', { turn: t, reason: { kind: 'completed' } });
  }
  return memorySession({ type: 'session', version: 0, id, createdAt }, events);
}

function append(s: ReturnType<typeof session>, close: boolean): void {
  const f = s.log.facts;
  const push = (type: string, data: unknown) => {
    const e = { type, seq: s.log.events.length, time: NOW + s.log.events.length, data };
    s.log.events.push(e);
    foldEvent(f, e);
  };
  if (f.openTurn === null) {
    push('turn/start', { turn: f.turns + 1, trigger: 'user' });
    push('user/message', { content: [{ type: 'text', text: 'more' }], source: 'user' });
  }
  if (close && f.openTurn !== null) push('turn/end', { turn: f.openTurn, reason: { kind: 'completed' } });
}

describe('app state under random keys and store changes', () => {
  it('f, Enter and Tab always target the highlighted row; an open dialog keeps its cut', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), fc.constantFrom(20, 30, 12), (ops, rows) => {
        const store = new SessionStore();
        IDS.slice(0, 3).forEach((id, i) => store.add(session(id, 2 + i, NOW - i * 1000)));
        const index: RootIndex = { root: '/mem', store, files: new Map() };
        let version = 0;
        let n = 0;
        let world: World = snapshotWorld(index, ++version, NOW, () => `kid-${++n}`);
        let state: AppState = reduce(initialAppState({ columns: 90, rows }), { type: 'world' }, world).state;
        const dispatch = (a: AppAction): void => {
          const out = reduce(state, a, world);
          state = out.state;
          for (const e of out.effects) {
            if (e.type !== 'fork') continue;
            try {
              const child = store.fork({ source: e.source, boundary: e.boundary, sessionId: e.childId });
              dispatch({ type: 'forked', child, source: e.source });
            } catch (err) {
              dispatch({ type: 'forkFailed', error: problemOf(err) });
            }
          }
        };
        /** what one more key would do, without keeping it */
        const probe = (raw: string): AppState => splitKeys(raw).reduce((s, press) => reduce(s, { type: 'key', press }, world).state, state);

        /** an open confirm dialog never changes the cut it shows (checked after every single action) */
        const act = (a: AppAction): void => {
          const before = state.dialog;
          dispatch(a);
          if (before?.kind === 'confirm' && state.dialog?.kind === 'confirm') {
            expect(state.dialog.cut).toBe(before.cut);
            expect(state.dialog.seedLength).toBe(before.seedLength);
          }
        };

        for (const op of ops) {
          if (op.kind === 'keys') for (const press of splitKeys(op.raw)) act({ type: 'key', press });
          else {
            const id = IDS[op.id];
            const live = store.getAll(id)[0];
            if (op.kind === 'append' && live) append(live, op.close);
            if (op.kind === 'new' && !live) store.add(session(id, 1, NOW + version));
            if (op.kind === 'delete' && live) {
              live.gone = true;
              store.remove(live);
            }
            if (op.kind === 'replace' && live) store.add(session(id, live.facts.turns + 1, live.header.createdAt));
            world = snapshotWorld(index, ++version, NOW, () => `kid-${++n}`);
            act({ type: 'world' });
          }
          if (state.dialog || state.help || state.menu || state.compare?.open) continue;

          // the selection is the highlighted row of the view
          if (state.view === 'sessions') {
            const rowsNow = sessionsRows(state, world);
            if (rowsNow.length === 0) expect(state.selection).toBeUndefined();
            else expect(indexOfKey(rowsNow, state.selection)).toBeGreaterThanOrEqual(0);
          }
          if (state.view === 'lineage') {
            const lrows = world.lineage().rows.filter((r) => r.key !== null);
            if (lrows.length) expect(lrows.some((r) => r.key === state.selection)).toBe(true);
          }
          if (state.view === 'sessions' && state.filterEditing) continue;

          // f targets the selection (in Problems: the highlighted problem's session)
          const f = probe('f');
          const problemRow = state.view === 'problems' ? world.problems()[state.problems.hint] : undefined;
          if (f.dialog) expect(f.dialog.sourceKey).toBe(state.view === 'problems' ? problemRow?.sessionKey : state.selection);
          else expect(state.selection === undefined || state.view === 'turns' || state.view === 'problems').toBe(true); // a problem row of a file that is no session
          // Enter (Sessions, Lineage) opens the selection; Tab from Sessions shows it in Turns
          if ((state.view === 'sessions' || state.view === 'lineage') && state.selection !== undefined) {
            const enter = probe('\r');
            expect(enter.view).toBe('turns');
            expect(enter.selection).toBe(state.selection);
          }
          if (state.view === 'sessions') expect(probe('\t').selection).toBe(state.selection);
        }
      }),
      { numRuns: runs(400) },
    );
  });
});
