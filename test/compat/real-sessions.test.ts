// Compatibility: every real harness file in test/fixtures/real-sessions loads
// with the events, turns and turn/end reasons of the table below, a table
// checked against plain JSON parsing of the files, never against our reader.
// Skipped when the folder is absent (a plain clone of this repo).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditSessions } from '../../src/session/audit.js';
import { SessionForkError } from '../../src/session/errors.js';
import { allDiagnostics, loadRootSync } from '../../src/storage/load-root.js';
import { REAL_DIR } from '../support/fixtures.js';

const dir = REAL_DIR;
const P = 'toninfo-deepseek-harness__';
const V3 = 'zsagi1368-deepseek-harness-zDSH__v3fixture__rec-child__session.1.v3.jsonl';

/** file (without the common prefix) -> [events after packed-row expansion, turns, turn/end reasons] */
const EXPECTED: Record<string, [number, number, string[]]> = {
  'rc8__cancel-tool-calls__session.jsonl': [24, 1, ['aborted']],
  'rc8__cancel__session.jsonl': [14, 1, ['aborted']],
  'rc8__compaction-recovery__session.jsonl': [31, 1, ['completed']],
  'rc8__error-finish__session.jsonl': [12, 1, ['error']],
  'rc8__hook-cc-promptsubmit-block__session.jsonl': [0, 0, []],
  'rc8__max-tokens-continue__session.jsonl': [32, 2, ['max-tokens', 'completed']],
  'rc8__packed-chunks__session.jsonl': [124, 1, ['completed']],
  'rc8__parallel-tool-calls__session.jsonl': [32, 1, ['completed']],
  'rc8__subagent-fork-in-process__session.1.jsonl': [99, 2, ['completed', 'completed']],
  'rc8__subagent-fork-in-process__session.jsonl': [200, 2, ['completed', 'completed']],
  'rc8__subagent-max-tokens-partial__session.1.jsonl': [30, 1, ['max-tokens']],
  'rc8__subagent-max-tokens-partial__session.jsonl': [25, 1, ['completed']],
  'rc8__subagent-mixed__session.2.jsonl': [89, 2, ['completed', 'completed']],
  'rc8__subagent-spawn-in-process__session.1.jsonl': [40, 1, ['completed']],
  'rc8__subagent-spawn-in-process__session.jsonl': [164, 1, ['completed']],
  'rc8__text-turn__session.jsonl': [40, 1, ['completed']],
  'rc8__tool-call-turn__session.jsonl': [104, 1, ['completed']],
  'rc8__tool-outcome-unknown__replay.jsonl': [0, 0, []],
  'rc8__tool-outcome-unknown__session.expected.jsonl': [24, 2, ['interrupted', 'completed']],
  'rfc0706__cancel__session.jsonl': [7, 1, ['aborted']],
  'rfc0706__error-finish__session.jsonl': [5, 1, ['error']],
  'rfc0706__handshake__session.jsonl': [0, 0, []],
  'rfc0706__hook-cc-posttool-context__session.jsonl': [116, 1, ['completed']],
  'rfc0706__hook-cc-promptsubmit-block__session.jsonl': [5, 1, ['rejected']],
  'rfc0706__hook-cc-stop-continue__session.jsonl': [237, 1, ['completed']],
  'rfc0706__multi-turn__session.jsonl': [63, 2, ['completed', 'completed']],
  'rfc0706__subagent-fork__session.1.jsonl': [88, 2, ['completed', 'completed']],
  'rfc0706__subagent-fork__session.jsonl': [189, 2, ['completed', 'completed']],
  'rfc0706__subagent-spawn__session.1.jsonl': [34, 1, ['completed']],
  'rfc0706__subagent-spawn__session.jsonl': [141, 1, ['completed']],
  'rfc0706__text-turn__session.jsonl': [33, 1, ['completed']],
  'rfc0706__todo-plan__session.jsonl': [123, 1, ['completed']],
  'rfc0706__tool-call-turn__session.jsonl': [104, 1, ['completed']],
};

interface PlainEvent {
  type: string;
  seq: number;
  data: any;
}
/** Independent plain reading: header + events with packed rows expanded by hand. */
function plain(file: string): { header: any; events: PlainEvent[]; rows: any[] } {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  expect(lines.pop()).toBe(''); // every real file ends with "\n"
  const rows = lines.slice(1).map((l) => JSON.parse(l));
  const events: PlainEvent[] = [];
  for (const r of rows) {
    if (r.seq0 !== undefined) {
      const parts = r.data.texts ?? r.data.args;
      for (let i = 0; i < parts.length; i++) events.push({ type: 'assistant/chunk', seq: r.seq0 + i, data: r.data });
    } else events.push(r);
  }
  return { header: JSON.parse(lines[0]), events, rows };
}

/**
 * Boundaries computed by hand: the RFC rule for RFC-era logs (a boundary
 * follows a turn/end; docs/formats.md, "Fork semantics"); for rc.8
 * logs (their header carries delegationDepth) rc.8's rule: any point outside a
 * turn, standalone events before the first turn included.
 */
function plainBoundaries(events: PlainEvent[], rc8 = false): number[] {
  const out: number[] = [];
  let open = false;
  let sawEnd = false;
  for (const e of events) {
    if (e.type === 'turn/start') open = true;
    if (e.type === 'turn/end') {
      open = false;
      sawEnd = true;
    }
    if (e.type === 'turn/end' || (!open && (sawEnd || rc8))) out.push(e.seq);
  }
  return out;
}

describe('real harness sessions (test/fixtures/real-sessions)', () => {
  const files = () => fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort();

  it('the corpus is exactly the 34 files of the expected table', () => {
    expect(files()).toHaveLength(34);
    expect(files()).toEqual([...Object.keys(EXPECTED).map((k) => P + k), V3].sort());
  });

  it('the expected table matches plain JSON parsing of the files', () => {
    for (const [name, [events, turns, reasons]] of Object.entries(EXPECTED)) {
      const { header, events: ev, rows } = plain(path.join(dir, P + name));
      expect(header.version, name).toBe(0);
      expect(ev.map((e) => e.seq), name).toEqual([...Array(ev.length).keys()]);
      expect(ev.length, name).toBe(events);
      expect(rows.filter((r) => r.type === 'turn/start').length, name).toBe(turns);
      expect(rows.filter((r) => r.type === 'turn/end').map((r) => r.data.reason.kind), name).toEqual(reasons);
    }
  });

  it('33 of 34 load as sessions; the v3 template file (placeholder cwd) is refused by the v3 header rules', () => {
    const idx = loadRootSync(dir);
    expect(idx.store.size).toBe(33);
    expect(idx.files.size).toBe(34);
    const refused = [...idx.files].filter(([, f]) => f.refused);
    expect(refused.map(([f]) => path.basename(f))).toEqual([V3]);
    const diags = allDiagnostics(idx);
    expect(diags).toHaveLength(1);
    expect(diags[0]).toMatchObject({ file: path.join(dir, V3), line: 1, severity: 'error', code: 'BAD_HEADER' });
    expect(diags[0].message).toBe('released v3 header cwd must be an absolute path');
    expect(idx.store.list().every((s) => s.diagnostics.length === 0)).toBe(true);
  });

  it.each(Object.entries(EXPECTED))('%s: events, turns, reasons, state and boundaries', (name, [events, turns, reasons]) => {
    const file = path.join(dir, P + name);
    const idx = loadRootSync(dir);
    const s = idx.store.get(file)!;
    expect(s, name).toBeDefined();
    expect(s.file).toBe(file);
    const { header, events: pev } = plain(file);
    expect(s.id).toBe(header.id);
    expect(s.header).toEqual(header);
    expect(s.length).toBe(events);
    expect(s.facts.turns).toBe(turns);
    expect(s.events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason.kind)).toEqual(reasons);
    expect(s.state).toBe(events === 0 ? 'empty' : 'at-boundary');
    expect(s.events.map((e) => [e.seq, e.type])).toEqual(pev.map((e) => [e.seq, e.type]));
    const expected = plainBoundaries(pev, typeof header.delegationDepth === 'number');
    expect(s.facts.boundaries).toEqual(expected);
    for (let b = 0; b < events; b++) {
      const err = idx.store.boundaryError(s, b);
      if (expected.includes(b)) expect(err, `${name} @${b}`).toBeNull();
      else expect(err?.code, `${name} @${b}`).toBe('OPEN_TURN');
    }
    expect(idx.store.boundaryError(s)).toBeNull();
  });

  it('the ten files sharing {{sessionId}} are all browsable by file, and DUPLICATE_ID is reported', () => {
    const idx = loadRootSync(dir);
    const shared = Object.keys(EXPECTED).filter((n) => plain(path.join(dir, P + n)).header.id === '{{sessionId}}');
    expect(shared).toHaveLength(10);
    const all = idx.store.getAll('{{sessionId}}');
    expect(all.map((s) => s.file).sort()).toEqual(shared.map((n) => path.join(dir, P + n)).sort());
    for (const n of shared) {
      const s = idx.store.get(path.join(dir, P + n))!;
      expect(s.file).toBe(path.join(dir, P + n));
      expect(s.length).toBe(EXPECTED[n][0]);
      // addressable as a fork source by its Session object
      expect(idx.store.snapshot(s).meta).toEqual({ parentSession: '{{sessionId}}', seedLength: EXPECTED[n][0], cwd: '{{cwd}}' });
    }
    const dup = auditSessions(idx.store.list()).filter((f) => f.code === 'DUPLICATE_ID');
    expect(dup).toHaveLength(1);
    expect(dup[0].message).toMatch(/^10 sessions share id "\{\{sessionId\}\}"/);
    for (const n of shared) expect(dup[0].message).toContain(P + n);
  });

  it.each([
    ['rfc0706__subagent-fork__session.1.jsonl', 'rfc0706__subagent-fork__session.jsonl', 38],
    ['rc8__subagent-fork-in-process__session.1.jsonl', 'rc8__subagent-fork-in-process__session.jsonl', 42],
  ])('the real fork child %s audits clean against its parent', (childName, parentName, seedLength) => {
    const child = plain(path.join(dir, P + childName));
    const parent = plain(path.join(dir, P + parentName));
    expect(child.header.seedLength).toBe(seedLength);
    expect(child.header.parentSession).toBe(parent.header.id);
    // plain check: the seed events are the parent's first seedLength events
    const canon = (e: PlainEvent) => JSON.stringify(e);
    expect(child.events.slice(0, seedLength).map(canon)).toEqual(parent.events.slice(0, seedLength).map(canon));
    expect(plainBoundaries(parent.events)).toContain(seedLength - 1);

    const idx = loadRootSync(dir);
    const c = idx.store.get(path.join(dir, P + childName))!;
    expect(c.kind).toBe('fork');
    expect(c.seedLength).toBe(seedLength);
    const findings = auditSessions(idx.store.list()).filter((f) => f.file === c.file || f.session === c.id);
    expect(findings.filter((f) => f.code === 'SEED_MISMATCH' || f.code === 'SEED_NOT_AT_BOUNDARY')).toEqual([]);
    expect(findings).toEqual([]);
  });

  it('subagents: spawn children have parentSession without seedLength; rc8 keeps origin and delegationDepth', () => {
    const idx = loadRootSync(dir);
    const spawn = idx.store.get(path.join(dir, P + 'rfc0706__subagent-spawn__session.1.jsonl'))!;
    expect(spawn.kind).toBe('spawn');
    expect(spawn.parentSession).toBe(plain(path.join(dir, P + 'rfc0706__subagent-spawn__session.jsonl')).header.id);
    const rc8 = idx.store.get(path.join(dir, P + 'rc8__subagent-spawn-in-process__session.1.jsonl'))!;
    expect(rc8.kind).toBe('spawn');
    expect(rc8.header.origin).toBe('subagent');
    expect(rc8.header).toHaveProperty('delegationDepth');
    const orphan = auditSessions(idx.store.list()).filter((f) => f.code === 'ORPHAN_PARENT');
    expect(orphan.map((f) => path.basename(f.file!))).toEqual([P + 'rc8__subagent-mixed__session.2.jsonl']);
  });

  it('loading never changes a byte of the corpus', () => {
    const before = files().map((n) => fs.readFileSync(path.join(dir, n)));
    const idx = loadRootSync(dir);
    for (const s of idx.store.list()) void s.events;
    auditSessions(idx.store.list());
    files().forEach((n, i) => expect(fs.readFileSync(path.join(dir, n)).equals(before[i]), n).toBe(true));
  });

  it('forks on a copy of the corpus: refusals write nothing, a fork adds exactly one file', () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-real-'));
    try {
      fs.cpSync(dir, copy, { recursive: true });
      const idx = loadRootSync(copy);
      const s = idx.store.get(path.join(copy, P + 'rfc0706__multi-turn__session.jsonl'))!;
      expect(() => idx.store.fork({ source: s, sessionId: '00000000-0000-0000-0000-000000000000' })).toThrow(SessionForkError);
      expect(() => idx.store.fork({ source: s, boundary: 1 })).toThrow(SessionForkError);
      expect(fs.readdirSync(copy)).toHaveLength(34);
      const dup = idx.store.get(path.join(copy, P + 'rc8__cancel__session.jsonl'))!;
      const child = idx.store.fork({ source: dup, sessionId: 'from-dup' });
      expect(child.parentSession).toBe('{{sessionId}}');
      expect(child.seedLength).toBe(14);
      expect(fs.readdirSync(copy)).toHaveLength(35);
      for (const n of files()) expect(fs.readFileSync(path.join(copy, n)).equals(fs.readFileSync(path.join(dir, n))), n).toBe(true);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
