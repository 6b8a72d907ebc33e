// Random interleavings of key presses and store changes for the app-state
// property tests: small in-memory sessions, appends that open and close turns,
// new sessions, deletes and replaced files.
import fc from 'fast-check';
import type { SessionEvent } from '../../src/session/events.js';
import { foldEvent } from '../../src/session/log-facts.js';
import { memorySession, type SessionStore } from '../../src/session/store.js';
import type { RootIndex } from '../../src/storage/load-root.js';
import { reduce } from '../../src/view/app/reducer.js';
import { type AppAction, type AppState } from '../../src/view/app/state.js';
import { initialAppState } from '../../src/view/app/surfaces.js';
import { snapshotWorld } from '../../src/world/world.js';
import type { World } from '../../src/view/app/world.js';
import { problemOf } from '../../src/session/errors.js';

export const NOW = 1795990000000;
export const IDS = ['alpha', 'beta', 'gamma', 'delta', 'eps'];

export type Op =
  | { kind: 'keys'; raw: string }
  | { kind: 'append'; id: number; close: boolean }
  | { kind: 'new'; id: number }
  | { kind: 'delete'; id: number }
  | { kind: 'replace'; id: number };

/** Key runs (1-4 keys from `keys`, `keyWeight` times as likely as one store change kind) and store changes. */
export const opArb = (keys: readonly string[], keyWeight = 6): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: keyWeight, arbitrary: fc.array(fc.constantFrom(...keys), { minLength: 1, maxLength: 4 }).map((k) => ({ kind: 'keys' as const, raw: k.join('') })) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('append' as const), id: fc.nat(IDS.length - 1), close: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('new' as const), id: fc.nat(IDS.length - 1) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.nat(IDS.length - 1) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), id: fc.nat(IDS.length - 1) }) },
  );

/** A session of `turns` closed turns; with `problems`, two diagnostics (rows for the Problems tab). */
export function session(id: string, turns: number, createdAt: number, problems = false) {
  const events: SessionEvent[] = [];
  const add = (type: string, data: unknown) => events.push({ type, seq: events.length, time: createdAt + events.length, data });
  for (let t = 1; t <= turns; t++) {
    add('turn/start', { turn: t, trigger: 'user' });
    add('user/message', { content: [{ type: 'text', text: `${id} prompt ${t}` }], source: 'user' });
    add('turn/end', { turn: t, reason: { kind: 'completed' } });
  }
  const s = memorySession({ type: 'session', version: 0, id, createdAt }, events);
  if (problems) s.log.diagnostics.push({ file: `${id}.jsonl`, line: 4, severity: 'error', code: 'SEQ_GAP', message: 'seq jumps by 1' }, { file: `${id}.jsonl`, line: 6, severity: 'warning', code: 'BAD_EVENT', message: 'odd' });
  return s;
}

/** Appends to a live session: opens a turn when none is open, closes it when `close`. */
export function append(s: ReturnType<typeof session>, close: boolean): void {
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

/** Applies a store change (not a key run) to the store. */
export function applyStoreOp(store: SessionStore, op: Exclude<Op, { kind: 'keys' }>, version: number): void {
  const id = IDS[op.id];
  const live = store.getAll(id)[0];
  if (op.kind === 'append' && live) {
    append(live, op.close);
    store.touch(live); // as the follower does after an append
  }
  if (op.kind === 'new' && !live) store.add(session(id, 1, NOW + version, op.id % 2 === 1));
  if (op.kind === 'delete' && live) {
    live.gone = true;
    store.remove(live);
  }
  if (op.kind === 'replace' && live) store.add(session(id, live.facts.turns + 1, live.header.createdAt));
}

/**
 * The reducer over an in-memory store, as the controller drives it: actions in
 * order, forks written to the store (then `forked`, or `forkFailed`), a fresh
 * world snapshot after each store change (`changed()`).
 */
export function driveApp(store: SessionStore, size: { columns: number; rows: number }) {
  const index = { root: '/mem', store, files: new Map(), skipped: [], generations: new Map() } as unknown as RootIndex;
  let version = 0;
  let n = 0;
  const snap = (): World => snapshotWorld(index, ++version, NOW, () => `kid-${++n}`);
  const d = {
    world: snap(),
    state: undefined as unknown as AppState,
    get version() {
      return version;
    },
    dispatch(a: AppAction): void {
      const out = reduce(d.state, a, d.world);
      d.state = out.state;
      for (const e of out.effects) {
        if (e.type !== 'fork') continue;
        try {
          const child = store.fork({ source: e.source, boundary: e.boundary, sessionId: e.childId });
          d.world = snap();
          d.dispatch({ type: 'forked', child, source: e.source });
        } catch (err) {
          d.dispatch({ type: 'forkFailed', error: problemOf(err) });
        }
      }
    },
    /** the store changed: a new world, then the `world` action */
    changed(): void {
      d.world = snap();
      d.dispatch({ type: 'world' });
    },
  };
  d.state = reduce(initialAppState(size), { type: 'world' }, d.world).state;
  return d;
}
