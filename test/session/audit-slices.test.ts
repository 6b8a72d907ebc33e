// The background audit in slices (AuditIndex.step, auditSessionSteps): a
// session's audit spans many slices (its log read between chunks, its events
// checked a few hundred at a time), with findings identical to the audit at
// once (auditSession, auditSessions) on random roots; a 50,000-event session
// and its 50,000-event fork child never take one step longer than ~100 ms;
// an audit under way survives a store change that leaves its session to
// audit, and is dropped (its file closed) when the session goes.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { auditEvents, auditSession, auditSessions, sessionsById, type Finding } from '../../src/session/audit.js';
import type { Session } from '../../src/session/session.js';
import { AuditIndex } from '../../src/session/audit-index.js';
import type { SessionEvent } from '../../src/session/events.js';
import { feedAppended } from '../../src/storage/follow.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import type { LogReader } from '../../src/storage/log-reader.js';
import { cleanupTmp, hdr, logText, tmpDir } from '../support/fixtures.js';
import { threadCpuMs } from '../support/loop-monitor.js';
import { PROPERTY_TIMEOUT, runs } from '../support/property.js';

afterEach(cleanupTmp);

const KINDS = ['turn/start', 'turn/end', 'step/start', 'step/end', 'tool/call', 'tool/result', 'user/message', 'assistant/message'];

/** `len` events drawn from a small PRNG: turn and step enclosure, calls and results, some padding (so logs span several read chunks). */
function randomEvents(len: number, seed: number, pad: number): SessionEvent[] {
  let s = seed >>> 0 || 1;
  const rnd = (n: number) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) % n;
  const out: SessionEvent[] = [];
  let turn = 0;
  for (let i = 0; i < len; i++) {
    const type = KINDS[rnd(KINDS.length)];
    const data: Record<string, unknown> = {};
    if (type === 'turn/start') data.turn = rnd(5) === 0 ? turn + 2 : ++turn;
    if (type === 'turn/end' || type === 'step/start' || type === 'step/end') data.turn = turn;
    if (type === 'tool/call' || type === 'tool/result') data.callId = 'abcd'[rnd(4)];
    if (type === 'user/message' || type === 'assistant/message') data.content = [{ type: 'text', text: 'p'.repeat(rnd(pad + 1)) }];
    out.push({ type, seq: i, time: 1_700_000_000_000 + i, data });
  }
  return out;
}

interface Spec {
  len: number;
  seed: number;
  pad: number;
  /** index of the parent among the sessions (may be itself, a later one, or none: 9 is an id not in the root) */
  parent: number | null;
  /** seedLength as a fraction of the parent's length (v0 header seedLength); null: a spawn */
  cut: number | null;
  /** change one inherited event */
  tamper: boolean;
}

const specArb: fc.Arbitrary<Spec> = fc.record({
  len: fc.oneof(fc.nat(40), fc.integer({ min: 500, max: 1600 })),
  seed: fc.integer(),
  pad: fc.constantFrom(0, 40, 900),
  parent: fc.option(fc.constantFrom(0, 1, 2, 3, 9), { nil: null }),
  cut: fc.option(fc.integer({ min: 0, max: 100 }).map((k) => k / 100), { nil: null }),
  tamper: fc.boolean(),
});

/** Writes the root: sessions s0..sN (s1 and s3 share an id when `dup`), forks copying their parent's first events. */
function writeRoot(dir: string, specs: Spec[], dup: boolean): void {
  const logs: SessionEvent[][] = [];
  specs.forEach((sp, i) => {
    let events = randomEvents(sp.len, sp.seed, sp.pad);
    const extra: Record<string, unknown> = {};
    if (sp.parent !== null) {
      extra.parentSession = `s${sp.parent}`;
      const parent = logs[sp.parent];
      if (sp.cut !== null) {
        const n = Math.floor(sp.cut * (parent?.length ?? sp.len));
        extra.seedLength = n;
        if (parent && sp.parent < i) {
          const seed = structuredClone(parent.slice(0, n));
          if (sp.tamper && n > 0) seed[n >> 1].data = { tampered: true };
          events = [...seed, ...events.map((e, k) => ({ ...e, seq: n + k }))];
        }
      }
    }
    logs.push(events);
    const id = dup && i === 3 ? 's1' : `s${i}`;
    fs.writeFileSync(path.join(dir, `f${i}.jsonl`), logText(hdr(id, extra), events));
  });
}

const sorted = (f: Finding[]) => f.map((x) => JSON.stringify(x)).sort();

/** The root as a warm start loads it: every session from the fact cache. (A clock 10 s ahead: the files just written are not too new to cache.) */
function loadWarm(dir: string): ReturnType<typeof loadRootSync> {
  const cache = { dir: tmpDir(), now: () => Date.now() + 10_000 };
  loadRootSync(dir, { cache });
  const idx = loadRootSync(dir, { cache });
  expect(idx.cacheStats?.hits).toBe(idx.store.list().length);
  return idx;
}

/** Sessions whose audit reads their log: those without a fold, and the seeded children with a parent in the root. */
const readsLog = (byId: ReadonlyMap<string, readonly Session[]>) => (s: Session) =>
  s.log.structure?.() === undefined || (s.seedLength !== undefined && s.parentSession !== undefined && s.parentSession !== s.id && (byId.get(s.parentSession)?.length ?? 0) > 0);

describe('the audit in slices', () => {
  it('pausing at every chance gives each session exactly the findings of the audit at once', { timeout: PROPERTY_TIMEOUT }, () => {
    fc.assert(
      fc.property(fc.array(specArb, { minLength: 1, maxLength: 5 }), fc.boolean(), fc.boolean(), (specs, dup, warm) => {
        const dir = tmpDir();
        writeRoot(dir, specs, dup);
        const list = (warm ? loadWarm(dir) : loadRootSync(dir)).store.list();
        const read = list.filter(readsLog(sessionsById(list))); // before anything loads a log (a load folds)
        const index = new AuditIndex();
        let steps = 1;
        while (!index.step(list, 0).done) steps++; // a budget of 0: every place that may pause does
        // the slices read logs on their own: no session is left loaded
        expect(list.some((s) => s.isLoaded)).toBe(false);
        const byId = sessionsById(list);
        for (const s of list) expect(index.findingsOf(s)).toEqual(auditSession(s, byId));
        expect(sorted(index.findings(list, []))).toEqual(sorted(auditSessions(list)));
        // a log read (not folded) in slices: a long one takes several steps
        const longest = Math.max(0, ...read.map((s) => s.length));
        if (longest >= 1024) expect(steps).toBeGreaterThan(list.length + 1);
        cleanupTmp();
      }),
      { numRuns: runs(25) },
    );
  });

  it('the structure folded as a log is read gives the findings of reading its events again', { timeout: PROPERTY_TIMEOUT }, () => {
    fc.assert(
      fc.property(fc.array(specArb, { minLength: 1, maxLength: 5 }), fc.boolean(), (specs, dup) => {
        const dir = tmpDir();
        writeRoot(dir, specs, dup);
        const cold = loadRootSync(dir).store.list();
        expect(cold.every((s) => s.log.structure?.() !== undefined)).toBe(true);
        // the fold kept in the fact cache reads back as it was
        const warm = loadWarm(dir).store.list();
        const structures = (list: Session[]) => list.map((s) => [s.file, s.log.structure?.()]).sort();
        expect(structures(warm)).toEqual(structures(cold));
        expect(sorted(auditSessions(cold))).toEqual(sorted(auditSessions(warm)));
        for (const s of cold) expect(auditEvents(s, s.events)).toEqual(s.log.structure!()!.map((f) => ({ session: s.id, file: s.file, ...f })));
        cleanupTmp();
      }),
      { numRuns: runs(25) },
    );
  });

  it('a live append to a session rebuilt from the fact cache is audited from its fold, its log not read again', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'a.jsonl');
    const events = randomEvents(3000, 11, 40);
    fs.writeFileSync(file, logText(hdr('a'), events.slice(0, 2000)));
    const idx = loadWarm(dir);
    const a = idx.store.get('a')!;
    const index = new AuditIndex();
    while (!index.step(() => idx.store.list(), 50).done);
    fs.appendFileSync(file, logText(hdr('a'), events).split('\n').slice(2001).join('\n'));
    expect(feedAppended(file, a.log as LogReader)).toBeGreaterThan(0);
    expect(a.length).toBe(3000);
    const reads = vi.spyOn(a, 'readJob');
    index.invalidate(); // what the store's change tells it
    while (!index.step(() => idx.store.list(), 50).done);
    expect(reads).not.toHaveBeenCalled();
    const cold = loadRootSync(dir).store;
    expect(index.findingsOf(a)).toEqual(auditSession(cold.get('a')!, sessionsById(cold.list())));
    expect(index.findingsOf(a)!.length).toBeGreaterThan(0);
  });

  it('the work list of 5,000 sessions is rebuilt over several steps, and sessions gone drop their findings', { timeout: 120_000 }, () => {
    const dir = tmpDir();
    for (let i = 0; i < 5000; i++) fs.writeFileSync(path.join(dir, `s${i}.jsonl`), logText(hdr(`s${i}`), randomEvents(2, i, 2)));
    const list = loadRootSync(dir).store.list();
    const index = new AuditIndex();
    let refillSteps = 0;
    // a budget of 0: the refill goes a chunk per step before any session is audited
    while (!index.step(list, 0).changed) refillSteps++;
    expect(refillSteps).toBeGreaterThan(1);
    while (!index.step(list, 50).done);
    const byId = sessionsById(list);
    for (const s of list.slice(0, 50)) expect(index.findingsOf(s)).toEqual(auditSession(s, byId));
    // half the sessions go: once the list is rebuilt, their findings are gone and the rest stand
    index.invalidate();
    const half = list.slice(0, 2500);
    let r = index.step(half, 0);
    let changed = r.changed;
    while (!r.done) changed = (r = index.step(half, 0)).changed || changed;
    expect(changed).toBe(true);
    expect(index.findingsOf(list[4000])).toBeUndefined();
    expect(index.findingsOf(list[10])).toEqual(auditSession(list[10], byId));
    cleanupTmp();
  });

  it('a 50,000-event session and its 50,000-event fork child: no step over ~100 ms, the same findings', { timeout: 120_000 }, () => {
    const dir = tmpDir();
    const parent = randomEvents(50_000, 7, 40);
    fs.writeFileSync(path.join(dir, 'big.jsonl'), logText(hdr('big'), parent));
    const child = structuredClone(parent);
    child[49_000].data = { tampered: true };
    fs.writeFileSync(path.join(dir, 'child.jsonl'), logText(hdr('child', { parentSession: 'big', seedLength: 50_000 }), child));
    const list = loadRootSync(dir).store.list();
    const index = new AuditIndex();
    let worst = 0;
    let steps = 0;
    for (let done = false; !done; steps++) {
      const wall = performance.now();
      const cpu = threadCpuMs();
      done = index.step(list, 8).done;
      // a step's time as far as this thread ran (a CPU burner beside the suite does not count, nor V8's collector threads)
      worst = Math.max(worst, Math.min(performance.now() - wall, threadCpuMs() - cpu));
    }
    expect(steps).toBeGreaterThan(10);
    expect(worst).toBeLessThan(100);
    const findings = index.findings(list, []);
    expect(findings.map((f) => f.code).sort()).toEqual(expect.arrayContaining(['SEED_MISMATCH']));
    expect(findings.find((f) => f.code === 'SEED_MISMATCH')).toMatchObject({ session: 'child', seq: 49_000 });
    expect(sorted(findings)).toEqual(sorted(auditSessions(list)));
  });

  it('an audit under way survives a change that leaves its session to audit; it is dropped, its file closed, when the session goes', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'a.jsonl');
    // a is a fork child of b (a seed of 0 events): its audit reads its log, to compare the seed
    fs.writeFileSync(file, logText(hdr('a', { parentSession: 'b', seedLength: 0 }), randomEvents(6000, 3, 200)));
    fs.writeFileSync(path.join(dir, 'b.jsonl'), logText(hdr('b'), randomEvents(10, 4, 0)));
    const idx = loadRootSync(dir);
    const a = idx.store.get('a')!;
    const fds = () => (fs.existsSync('/proc/self/fd') ? fs.readdirSync('/proc/self/fd').length : 0);
    const before = fds();
    const index = new AuditIndex();
    expect(index.step(() => idx.store.list(), 0).done).toBe(false); // a's log is open, part read
    expect(index.findingsOf(a)).toBeUndefined();
    index.invalidate(); // a change elsewhere (b): a's audit goes on from where it was
    let steps = 0;
    while (!index.step(() => idx.store.list(), 0).done) steps++;
    // the findings of a cold read (auditSession would load a here: a load folds, and the next audit would not read)
    const cold = loadRootSync(dir).store;
    expect(index.findingsOf(a)).toEqual(auditSession(cold.get('a')!, sessionsById(cold.list())));
    expect(fds()).toBe(before);

    // a new audit of a (its log grew) under way, then a leaves the store
    fs.appendFileSync(file, JSON.stringify({ type: 'turn/end', seq: 6000, time: 1, data: { turn: 1 } }) + '\n');
    const again = new AuditIndex();
    expect(again.step(() => idx.store.list(), 0).done).toBe(false);
    expect(fds()).toBe(before + 1);
    idx.store.remove(a);
    again.invalidate();
    while (!again.step(() => idx.store.list(), 0).done);
    expect(fds()).toBe(before);
    expect(again.findingsOf(a)).toBeUndefined();
    expect(steps).toBeGreaterThan(3);
  });
});
