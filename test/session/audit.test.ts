// auditSessions (docs/formats.md, "Replay and invariants"): every finding
// code on small crafted roots.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { auditSessions, canonicalJson, type Finding } from '../../src/session/audit.js';
import type { SessionEvent } from '../../src/session/events.js';
import type { Session } from '../../src/session/session.js';
import { memorySession } from '../../src/session/store.js';
import { allDiagnostics, loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, evs, hdr, REAL_DIR, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterEach(cleanupTmp);

const T2 = evs(...turnRows(1), ...turnRows(2)); // 14 events, boundaries 6, 13
const mem = (id: string, events: SessionEvent[], extra: Record<string, unknown> = {}): Session => memorySession(hdr(id, extra), events);
const codes = (f: Finding[]) => f.map((x) => x.code).sort();
const only = (f: Finding[], code: string) => f.filter((x) => x.code === code);

describe('auditSessions', () => {
  it('a clean root has no findings', () => {
    const p = mem('p', T2, { cwd: '/w' });
    const fork = mem('f', [...T2.slice(0, 7), ...evs(...turnRows(1), ...turnRows(2)).slice(7)], { parentSession: 'p', seedLength: 7 });
    const spawn = mem('s', evs(...turnRows(1)), { parentSession: 'p' });
    const empty = mem('e', [], { parentSession: 'p', seedLength: 0 });
    expect(auditSessions([p, fork, spawn, empty])).toEqual([]);
  });

  it('SEED_MISMATCH: a child whose first seedLength events differ from the parent', () => {
    const p = mem('p', T2);
    const seed = structuredClone(T2.slice(0, 7));
    seed[4].data.content[0].text = 'tampered';
    const c = mem('c', seed, { parentSession: 'p', seedLength: 7 });
    const f = auditSessions([p, c]);
    expect(codes(f)).toEqual(['SEED_MISMATCH']);
    expect(f[0]).toMatchObject({ severity: 'error', session: 'c' });
    expect(f[0].message).toContain('seq 4');
  });

  it('SEED_MISMATCH: seedLength longer than the child log', () => {
    const p = mem('p', T2);
    const c = mem('c', T2.slice(0, 7), { parentSession: 'p', seedLength: 14 + 7 });
    const f = auditSessions([p, c]);
    expect(codes(f)).toEqual(['SEED_MISMATCH']);
    expect(f[0].message).toContain('only 7 events');
  });

  it('SEED_MISMATCH: seedLength longer than the parent log', () => {
    const p = mem('p', T2.slice(0, 7));
    const c = mem('c', T2, { parentSession: 'p', seedLength: 14 });
    expect(codes(auditSessions([p, c]))).toEqual(['SEED_MISMATCH']);
  });

  it('key order inside event data does not count as a difference', () => {
    const p = mem('p', T2);
    const seed = T2.slice(0, 7).map((e) => ({ data: e.data, time: e.time, seq: e.seq, type: e.type }));
    const c = mem('c', seed, { parentSession: 'p', seedLength: 7 });
    expect(auditSessions([p, c])).toEqual([]);
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe(canonicalJson({ a: { c: 3, d: 2 }, b: 1 }));
  });

  it('SEED_NOT_AT_BOUNDARY: an identical seed that cuts the parent inside a turn', () => {
    const p = mem('p', T2);
    const c = mem('c', T2.slice(0, 4), { parentSession: 'p', seedLength: 4 });
    const f = auditSessions([p, c]);
    expect(codes(f)).toEqual(['SEED_NOT_AT_BOUNDARY']);
    expect(f[0]).toMatchObject({ severity: 'error', session: 'c' });
  });

  it('ORPHAN_PARENT: the parent is not in the root (fork and spawn)', () => {
    const c = mem('c', T2.slice(0, 7), { parentSession: 'gone', seedLength: 7 });
    const s = mem('s', T2, { parentSession: 'gone-too' });
    const f = auditSessions([c, s]);
    expect(codes(f)).toEqual(['ORPHAN_PARENT', 'ORPHAN_PARENT']);
    expect(f.map((x) => x.session).sort()).toEqual(['c', 's']);
    expect(f[0].message).toContain('"gone"');
  });

  it('LINEAGE_CYCLE: a -> b -> a', () => {
    const a = mem('a', [], { parentSession: 'b' });
    const b = mem('b', [], { parentSession: 'a' });
    const f = auditSessions([a, b]);
    expect(codes(f)).toEqual(['LINEAGE_CYCLE']);
    expect(f[0].severity).toBe('error');
    expect(f[0].message).toMatch(/"a" -> "b" -> "a"|"b" -> "a" -> "b"/);
  });

  it('LINEAGE_CYCLE: a longer cycle with a tail hanging off it is reported once', () => {
    const f = auditSessions([mem('a', [], { parentSession: 'c' }), mem('b', [], { parentSession: 'a' }), mem('c', [], { parentSession: 'b' }), mem('tail', [], { parentSession: 'a' })]);
    expect(codes(f)).toEqual(['LINEAGE_CYCLE']);
  });

  it('LINEAGE_CYCLE: a self-parent', () => {
    const f = auditSessions([mem('self', T2, { parentSession: 'self' })]);
    expect(codes(f)).toEqual(['LINEAGE_CYCLE']);
    expect(f[0]).toMatchObject({ session: 'self', message: 'lineage cycle: "self" -> "self"' });
  });

  it('DUPLICATE_ID: two sessions share an id, both listed', () => {
    const dir = tmpDir();
    const f1 = writeLog(path.join(dir, 'one.jsonl'), hdr('same'), T2);
    const f2 = writeLog(path.join(dir, 'two.jsonl'), hdr('same'), []);
    const idx = loadRootSync(dir);
    expect(idx.store.getAll('same')).toHaveLength(2);
    const f = auditSessions(idx.store.list());
    expect(codes(f)).toEqual(['DUPLICATE_ID']);
    expect(f[0]).toMatchObject({ severity: 'warning', session: 'same' });
    expect(f[0].message).toContain(f1);
    expect(f[0].message).toContain(f2);
  });

  it('a fork child of a duplicated id passes when it matches one of them', () => {
    const a = mem('dup', T2.slice(0, 7));
    const b = mem('dup', T2);
    const c = mem('c', T2.slice(0, 14), { parentSession: 'dup', seedLength: 14 });
    expect(codes(auditSessions([a, b, c]))).toEqual(['DUPLICATE_ID']);
  });

  it('SEQ_GAP: reported from the reader with file and line', () => {
    const dir = tmpDir();
    const file = writeLog(path.join(dir, 'g.jsonl'), hdr('g'), [...T2.slice(0, 7), ...T2.slice(7).map((e) => ({ ...e, seq: e.seq + 3 }))]);
    const idx = loadRootSync(dir);
    const f = auditSessions(idx.store.list());
    expect(codes(f)).toEqual(['SEQ_GAP']);
    expect(f[0]).toMatchObject({ severity: 'error', session: 'g', file, line: 9 });
  });

  it('refused files are reported through fileDiagnostics', () => {
    const dir = tmpDir();
    const bad = writeLog(path.join(dir, 'v3.jsonl'), { type: 'session', version: 5, id: 'x', createdAt: 1 }, []);
    const idx = loadRootSync(dir);
    const f = auditSessions(idx.store.list(), allDiagnostics(idx));
    expect(f).toEqual([expect.objectContaining({ code: 'UNSUPPORTED_VERSION', severity: 'error', file: bad, line: 1 })]);
  });

  it('UNANSWERED_TOOL_CALL: a call without a result before its turn ended', () => {
    const ev = evs(
      ['turn/start', { turn: 1 }],
      ['step/start', { turn: 1, step: 1 }],
      ['tool/call', { turn: 1, step: 1, callId: 'a', name: 'bash', arguments: '{}' }],
      ['tool/call', { turn: 1, step: 1, callId: 'b', name: 'bash', arguments: '{}' }],
      ['tool/result', { turn: 1, step: 1, callId: 'b', content: [], isError: false }],
      ['step/end', { turn: 1, step: 1 }],
      ['turn/end', { turn: 1, reason: { kind: 'aborted' } }],
    );
    const f = auditSessions([mem('t', ev)]);
    expect(codes(f)).toEqual(['UNANSWERED_TOOL_CALL']);
    expect(f[0]).toMatchObject({ severity: 'error', session: 't' });
    expect(f[0].message).toContain('"a"');
    expect(f[0].message).toContain('seq 2');
  });

  it('rc8 results answer calls through message.source.callId', () => {
    const ev = evs(
      ['turn/start', { turn: 1 }],
      ['tool/call', { turn: 1, step: 1, callId: 'a', name: 'bash', arguments: '{}' }],
      ['tool/result', { turn: 1, step: 1, message: { role: 'user', source: { kind: 'tool', callId: 'a' }, content: [] } }],
      ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
    );
    expect(auditSessions([mem('t', ev)])).toEqual([]);
  });

  it('an open turn with a pending call is not (yet) unanswered', () => {
    const ev = evs(['turn/start', { turn: 1 }], ['tool/call', { turn: 1, step: 1, callId: 'a', name: 'bash', arguments: '{}' }]);
    expect(auditSessions([mem('t', ev)])).toEqual([]);
  });

  it('TURN_ENCLOSURE, TURN_NUMBERING and UNMATCHED_TOOL_RESULT warnings', () => {
    const ev = evs(
      ['step/start', { turn: 0, step: 1 }],
      ['turn/start', { turn: 2 }],
      ['turn/start', { turn: 3 }],
      ['tool/result', { callId: 'nobody', content: [] }],
      ['step/end', { turn: 3, step: 1 }],
      ['turn/end', { turn: 3, reason: { kind: 'completed' } }],
      ['turn/end', { turn: 3, reason: { kind: 'completed' } }],
    );
    const f = auditSessions([mem('w', ev)]);
    expect(f.every((x) => x.severity === 'warning')).toBe(true);
    expect(codes(f)).toEqual(['TURN_ENCLOSURE', 'TURN_ENCLOSURE', 'TURN_ENCLOSURE', 'TURN_ENCLOSURE', 'TURN_NUMBERING', 'UNMATCHED_TOOL_RESULT']);
  });

  it('unloads the disk sessions it loaded', () => {
    const dir = tmpDir();
    writeLog(path.join(dir, 'p.jsonl'), hdr('p'), T2);
    writeLog(path.join(dir, 'c.jsonl'), hdr('c', { parentSession: 'p', seedLength: 7 }), T2.slice(0, 7));
    const idx = loadRootSync(dir);
    expect(idx.store.list().map((s) => s.isLoaded)).toEqual([false, false]);
    expect(auditSessions(idx.store.list())).toEqual([]);
    expect(idx.store.list().map((s) => s.isLoaded)).toEqual([false, false]);
  });
});

describe('auditSessions on the real corpus', () => {
  it('finds exactly the v3 refusal, the ten-way DUPLICATE_ID and the subagent-mixed orphan', () => {
    const idx = loadRootSync(REAL_DIR);
    const fileDiags = [...idx.files.values()].flatMap((f) => f.refused ?? []);
    const f = auditSessions(idx.store.list(), fileDiags);
    expect(codes(f)).toEqual(['BAD_HEADER', 'DUPLICATE_ID', 'ORPHAN_PARENT']);
    expect(only(f, 'DUPLICATE_ID')[0].message).toMatch(/^10 sessions share id "\{\{sessionId\}\}"/);
    expect(only(f, 'ORPHAN_PARENT')[0].file).toMatch(/subagent-mixed__session\.2\.jsonl$/);
  });
});

describe('memory', () => {
  it('unload frees the events (facts stay; they are read again on use), so an audit over a root keeps none', async () => {
    const { loadRootSync } = await import('../../src/storage/load-root.js');
    const idx = loadRootSync('sample-sessions');
    const s = idx.store.get('fix-flaky-retry-test')!;
    const n = s.length;
    expect(s.events.length).toBe(n);
    s.unload();
    expect(s.isLoaded).toBe(false);
    expect(s.log.events).toHaveLength(0);
    expect(s.length).toBe(n);
    auditSessions(idx.store.list());
    for (const x of idx.store.list()) expect(x.log.events.length, x.id).toBe(0);
    expect(s.events.length).toBe(n);
  });
});
