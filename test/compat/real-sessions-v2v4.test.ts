// Golden tests on the real v2/v3/v4 harness logs (test/fixtures/real-sessions-v2v4,
// see its PROVENANCE.md). Expected values come from plain JSON parsing of the
// files by the harness's rules (docs/formats.md, "Session files"), never
// from our reader.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditSessions } from '../../src/session/audit.js';
import { allDiagnostics, loadRootSync, olderGenerations } from '../../src/storage/load-root.js';
import { resumeVerdict } from '../../src/storage/resume.js';
import { cleanupTmp, REPO, tmpDir } from '../support/fixtures.js';

const V2V4 = path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4');
const WS = path.join(V2V4, 'zdsh-vfs-workspace');
const PROJECT = path.join(WS, '--dsh-workspace--');

interface Row {
  type: string;
  seq: number;
  time: number;
  data: any;
}
function plain(file: string): { header: any; events: Row[] } {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  expect(lines.pop()).toBe('');
  return { header: JSON.parse(lines[0]), events: lines.slice(1).map((l) => JSON.parse(l)) };
}

/** The harness's v2+ cut: the seq of the last session/end-seed whose data says inherited: true. */
const plainCut = (events: Row[]): number | undefined => events.filter((e) => e.type === 'session/end-seed' && e.data?.inherited === true).at(-1)?.seq;

/** rc.8 and later: a boundary is any point outside a turn. */
function plainBoundaries(events: Row[]): number[] {
  const out: number[] = [];
  let open = false;
  for (const e of events) {
    if (e.type === 'turn/start') open = true;
    if (e.type === 'turn/end') open = false;
    if (!open) out.push(e.seq);
  }
  return out;
}

afterAll(cleanupTmp);

const SESSIONS = ['preview-showcase', 'preview-architecture-review', 'preview-follow-up-builder'];

describe('real v2/v3 harness root (zdsh-vfs-workspace)', () => {
  const idx = loadRootSync(WS);

  it('three sessions, one per folder: the v3 generation is current, the v2 beside it is listed as older, nothing is an error', () => {
    expect(idx.store.size).toBe(3);
    expect(allDiagnostics(idx)).toEqual([]);
    for (const id of SESSIONS) {
      const s = idx.store.get(id)!;
      expect(s.file).toBe(path.join(PROJECT, id, 'session.v3.jsonl'));
      expect(s.header.version).toBe(3);
      expect(olderGenerations(idx, s.file)).toEqual([path.join(PROJECT, id, 'session.v2.jsonl')]);
      expect(idx.files.get(path.join(PROJECT, id, 'session.v2.jsonl'))).toMatchObject({ older: true });
      expect(idx.store.byFile(path.join(PROJECT, id, 'session.v2.jsonl'))).toBeUndefined();
    }
  });

  it.each(SESSIONS)('%s: header, events, turns, boundaries and the seed cut agree with plain parsing', (id) => {
    const s = idx.store.get(id)!;
    const { header, events } = plain(s.file!);
    expect(s.header).toEqual(header);
    expect(s.length).toBe(events.length);
    expect(s.events.map((e) => [e.seq, e.type])).toEqual(events.map((e) => [e.seq, e.type]));
    expect(s.facts.turns).toBe(events.filter((e) => e.type === 'turn/start').length);
    expect(s.facts.boundaries).toEqual(plainBoundaries(events));
    const cut = plainCut(events);
    expect(s.seedLength).toBe(header.isSeeded ? cut : undefined);
    expect(s.kind).toBe(header.parentSession === undefined ? 'root' : header.isSeeded ? 'fork' : 'spawn');
    expect(s.state).toBe('at-boundary');
    expect(idx.store.boundaryError(s)).toBeNull();
  });

  it('the seeded subagent fork: cut at the inherited end-seed (seq 169), 28 inherited turns and 1 own, usage split there', () => {
    const child = idx.store.get('preview-architecture-review')!;
    const { events } = plain(child.file!);
    expect(child.seedLength).toBe(169);
    expect(events[169]).toMatchObject({ type: 'session/end-seed', data: { inherited: true } });
    expect(child.facts.turnStarts.filter((s) => s < 169)).toHaveLength(28);
    expect(child.facts.turnStarts.filter((s) => s >= 169)).toHaveLength(1);
    const u = child.facts.usage;
    expect(u.inherited).toBeDefined();
    expect(u.own).toBeDefined();
    expect(u.inherited!.messages + u.own!.messages).toBe(u.messages);
    const plainMsgs = (from: number, to: number) => events.filter((e) => e.seq >= from && e.seq < to && e.type === 'assistant/message' && (e.data.usage ?? e.data.message?.usage)).length;
    expect(u.inherited!.messages).toBe(plainMsgs(0, 169));
    expect(u.own!.messages).toBe(plainMsgs(169, Infinity));
  });

  it("the child's inherited prefix is its parent's log: the audit finds no SEED_MISMATCH, no problem at all", () => {
    const parent = plain(path.join(PROJECT, 'preview-showcase', 'session.v3.jsonl'));
    const child = plain(path.join(PROJECT, 'preview-architecture-review', 'session.v3.jsonl'));
    expect(child.events.slice(0, 169).map((e) => JSON.stringify(e))).toEqual(parent.events.slice(0, 169).map((e) => JSON.stringify(e)));
    expect(auditSessions(idx.store.list(), allDiagnostics(idx))).toEqual([]);
  });
});

describe('later v0 logs (knyazev741) and the complete v4 log', () => {
  it('the later v0 logs load as before: rc.8 layout, newer vocabulary, forks by seedLength', () => {
    const idx = loadRootSync(path.join(V2V4, 'knyazev741-later-v0'));
    expect(idx.store.size).toBe(9);
    const fork = idx.store.list().find((s) => s.kind === 'fork')!;
    expect(fork.seedLength).toBe(42);
    for (const s of idx.store.list()) expect(s.header.version).toBe(0);
  });

  it('the complete v4 log (no cwd, under _no-cwd) reads as a v4 session; its plugin events (not ignorable) are what the harness refuses it for', () => {
    const dir = path.join(V2V4, 'v4-complete');
    const idx = loadRootSync(dir);
    const s = idx.store.get('legacy-sdk-history')!;
    expect(s.header).toEqual({ type: 'session', version: 4, id: 'legacy-sdk-history', createdAt: 1790787873424, isSeeded: false, delegationDepth: 0 });
    expect(s.kind).toBe('root');
    const { events } = plain(s.file!);
    expect(s.length).toBe(events.length);
    // plain check: the types outside the v4 inventory, none marked ignorable
    const foreign = [...new Set(events.map((e) => e.type))].filter((t) => t.startsWith('roleplay/'));
    expect(foreign).toEqual(['roleplay/opened', 'roleplay/requested', 'roleplay/settled']);
    expect(events.every((e: any) => e.ignorable === undefined)).toBe(true);
    expect(s.diagnostics.map((d) => [d.code, d.line])).toEqual(foreign.map((t) => ['UNKNOWN_EVENT', 2 + events.findIndex((e) => e.type === t)]));
    expect(resumeVerdict(s, [s]).resumable).toBe(false);
  });

  it('the same log with every plugin row marked ignorable: true is admitted (kept opaque), as the harness admits it', () => {
    const dir = tmpDir('dsh-v4-');
    const src = path.join(V2V4, 'v4-complete', 'char-pub__char-harness');
    const file = fs.readdirSync(src, { recursive: true }).map(String).find((f) => f.endsWith('session.v4.jsonl'))!;
    const lines = fs.readFileSync(path.join(src, file), 'utf8').split('\n');
    const marked = lines.map((l) => (l.includes('"roleplay/') ? JSON.stringify({ ...JSON.parse(l), ignorable: true }) : l)).join('\n');
    const out = path.join(dir, '_no-cwd', 'legacy-sdk-history', 'session.v4.jsonl');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, marked);
    const idx = loadRootSync(dir);
    const s = idx.store.get('legacy-sdk-history')!;
    expect(s.diagnostics).toEqual([]);
    expect(resumeVerdict(s, [s])).toEqual({ resumable: true });
  });
});

describe('harness test snapshots are not stored logs', () => {
  it('every snapshot file (rows without seq/time) is refused as NOT_A_STORED_LOG on line 2; the v3 beside a v4 is an older generation, not read', () => {
    const idx = loadRootSync(path.join(V2V4, 'v4-snapshots'));
    expect(idx.store.size).toBe(0);
    const files = [...idx.files.keys()];
    expect(files).toHaveLength(12);
    const older = files.filter((f) => idx.files.get(f)!.older);
    expect(older.map((f) => path.relative(V2V4, f))).toEqual(['v4-snapshots/zsagi1368__deepseek-harness-zDSH/snapshots/session/compaction-summary-headroom/session.v3.jsonl']);
    const diags = allDiagnostics(idx);
    expect(diags).toHaveLength(11);
    for (const d of diags) expect(d).toMatchObject({ code: 'NOT_A_STORED_LOG', line: 2, severity: 'error' });
  });
});
