// The root model (src/view/app/root-model.ts) updates list items from what
// changed; here, after any sequence of store changes and audit slices, what it
// holds equals what a model built from scratch holds, and each session's
// problem badge equals the Problems tab's rows for it (worstBySession of
// problemRows): the incremental path never shows a stale or a different fact.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuditIndex } from '../../src/session/audit-index.js';
import { auditSessions } from '../../src/session/audit.js';
import type { SessionEvent } from '../../src/session/events.js';
import { foldEvent } from '../../src/session/log-facts.js';
import { problemRows, worstBySession } from '../../src/session/problems.js';
import type { Session } from '../../src/session/session.js';
import { memorySession, SessionStore } from '../../src/session/store.js';
import { RootModel } from '../../src/world/root-model.js';
import { ItemRows, ListStats, sortSessions } from '../../src/view/sessions/session-list.js';
import { ITEM_FIELDS } from '../../src/session/list-item.js';
import { fullGc } from '../../src/quiet-gc.js';

const IDS = ['a', 'b', 'c', 'd'];

type Op =
  | { kind: 'new'; id: number; parent: number | null; bad: boolean }
  | { kind: 'append'; at: number; close: boolean }
  | { kind: 'delete'; at: number }
  | { kind: 'replace'; at: number }
  | { kind: 'audit'; budget: number }
  | { kind: 'sync' }
  | { kind: 'step'; keys: number }
  | { kind: 'prepare'; order: 'recent' | 'created' | 'id'; scoped: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('new' as const), id: fc.nat(IDS.length - 1), parent: fc.option(fc.nat(IDS.length - 1)), bad: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('append' as const), at: fc.nat(20), close: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('audit' as const), budget: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'sync' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('step' as const), keys: fc.nat(4) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prepare' as const), order: fc.constantFrom('recent' as const, 'created' as const, 'id' as const), scoped: fc.boolean() }) },
);

let files = 0;
function make(id: string, parent: string | undefined, bad: boolean, createdAt: number): Session {
  const events: SessionEvent[] = [];
  const add = (type: string, data: unknown) => events.push({ type, seq: events.length, time: createdAt + events.length, data });
  add('turn/start', { turn: 1 });
  add('user/message', { content: [{ type: 'text', text: `${id} hello` }] });
  add('turn/end', { turn: 1, reason: { kind: 'completed' } });
  const s = memorySession({ type: 'session', version: 0, id, createdAt, ...(parent !== undefined ? { parentSession: parent } : {}) }, events);
  // a file of its own, so duplicate ids are different sessions (in memory the key is the id)
  (s as { file?: string }).file = `/root/f${++files}-${id}.jsonl`;
  if (bad) s.log.diagnostics.push({ file: s.file!, line: 2, severity: 'error', code: 'SEQ_GAP', message: 'seq jumps: got 5' });
  return s;
}

function appendTo(s: Session, close: boolean): void {
  const f = s.log.facts;
  const push = (type: string, data: unknown) => {
    const e = { type, seq: s.log.events.length, time: 1_000_000 + s.log.events.length, data };
    s.log.events.push(e);
    foldEvent(f, e);
  };
  if (f.openTurn === null) push('turn/start', { turn: f.turns + 1 });
  if (close && f.openTurn !== null) push('turn/end', { turn: f.openTurn, reason: { kind: 'completed' } });
}

/** What a model shows of every session (each field of its item), comparable with toEqual. */
const itemsOf = (m: RootModel) =>
  [...m.all()].sort((a, b) => (a.key < b.key ? -1 : 1)).map((i) => Object.fromEntries(ITEM_FIELDS.map((k) => [k, i[k]])));

describe('the root model, kept current from what changed', () => {
  it('equals a model built from scratch, and its badges equal the Problems rows, after any changes (also taken in steps)', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), fc.boolean(), (ops, viaStore) => {
        const store = new SessionStore();
        // the browser's audit looks sessions up in the store; without it, it builds its own maps
        const audit = new AuditIndex(undefined, viaStore ? store : undefined);
        store.subscribe(() => audit.invalidate());
        // the project scope, as a test on items: the scoped orders keep only these
        const inScope = (i: { id: string }) => i.id !== 'd';
        const model = new RootModel(store, audit, inScope);
        model.sync();
        let clock = 1000;
        const check = () => {
          model.sync();
          const fresh = new RootModel(store, audit);
          fresh.sync();
          expect(itemsOf(model)).toEqual(itemsOf(fresh));
          expect(model.diagnostics).toBe(fresh.diagnostics);
          expect(model.newestActivity()).toBe(fresh.newestActivity());
          for (const order of ['recent', 'created', 'id'] as const)
            for (const scoped of [false, true]) {
              const want = sortSessions(scoped ? fresh.all().filter(inScope) : fresh.all(), order).map((r) => r.item);
              expect(model.sortedBy(order, scoped).map((i) => i.key)).toEqual(want.map((i) => i.key));
              // the stats kept through the changes equal a count over the list
              const stats = model.statsOf(order, scoped, () => new ListStats());
              expect(stats.gone).toBe(want.filter((i) => i.gone === true).length);
              expect(stats.widest(clock, 0, 99)).toBe(Math.max(0, ...want.map((i) => new ItemRows([i], clock).widestBadge(0, 99))));
            }
          // now from the kept recent order (merged just above), against a walk over the items
          expect(model.newestActivity()).toBe(fresh.newestActivity());
          const sessions = store.list();
          const worst = worstBySession(problemRows({ sessions, refused: [], findings: audit.findings(sessions, []) }));
          for (const i of model.all()) expect([i.key, i.problem]).toEqual([i.key, worst.get(i.key)]);
        };
        for (const op of ops) {
          const live = store.list();
          const pick = (at: number) => live[at % Math.max(1, live.length)];
          if (op.kind === 'new') store.add(make(IDS[op.id], op.parent === null ? undefined : IDS[op.parent], op.bad, ++clock));
          else if (op.kind === 'append' && live.length) {
            const s = pick(op.at);
            appendTo(s, op.close);
            store.touch(s);
            store.emit();
          } else if (op.kind === 'delete' && live.length) {
            const s = pick(op.at);
            s.gone = true;
            store.remove(s);
          } else if (op.kind === 'replace' && live.length) {
            const s = pick(op.at);
            const next = make(s.id, s.parentSession, false, s.header.createdAt);
            (next as { file?: string }).file = s.file;
            appendTo(next, true);
            store.add(next);
          } else if (op.kind === 'audit') audit.step(() => store.list(), 0);
          else if (op.kind === 'sync') check();
          else if (op.kind === 'prepare') model.prepare(op.order, op.scoped);
          else if (op.kind === 'step') {
            // a few items rebuilt, then more changes may come before the rest
            let n = 0;
            const done = model.syncStep(undefined, () => ++n > op.keys);
            expect(done).toBe(!model.behind());
          }
        }
        check();
        // the audit, run to its end after all those changes, finds what an audit of the root at once finds
        while (!audit.step(() => store.list(), 1000).done) {
          /* to the end */
        }
        const sorted = (f: unknown[]) => f.map((x) => JSON.stringify(x)).sort();
        expect(sorted(audit.findings(store.list(), []))).toEqual(sorted(auditSessions(store.list())));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an item that shows the same when its session is read again, and lets the old session go', async () => {
    const store = new SessionStore();
    const model = new RootModel(store);
    let first: Session | undefined = make('a', undefined, false, 1000);
    const file = first.file!;
    store.add(first);
    model.sync();
    const item = model.get(file)!;
    const old = new WeakRef(first);
    const again = make('a', undefined, false, 1000);
    (again as { file?: string }).file = file;
    store.add(again); // the same log read again: a new session, the same list fields
    first = undefined;
    model.sync();
    expect(model.get(file)).toBe(item); // no order is merged for it
    expect(item.title).toBe(again.facts.title);
    // the item holds the new session, not the old one (with its events)
    await new Promise((resolve) => setTimeout(resolve, 0)); // (a WeakRef keeps its target until the job ends)
    fullGc(false)!();
    expect(old.deref()).toBeUndefined();
  });
});
