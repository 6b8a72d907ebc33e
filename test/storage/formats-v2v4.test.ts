// Formats v1-v4: fork children in the parent's format (plain and compressed
// roots), byte comparison with the harness fixture's own seeded child, and
// generations (several session[.vN].jsonl[.zstd] files in one folder).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { auditSessions } from '../../src/session/audit.js';
import { buildTurnTree } from '../../src/session/replay.js';
import { followRoot } from '../../src/storage/follow.js';
import { allDiagnostics, loadRootSync, olderGenerations } from '../../src/storage/load-root.js';
import { resumeVerdict } from '../../src/storage/resume.js';
import { readZstdText } from '../../src/storage/zstd-log.js';
import { cleanupTmp, copyDir, REPO, tmpDir } from '../support/fixtures.js';
import { hasZstd, zstdFrames } from '../support/real-roots.js';
import { until } from '../support/until-store.js';
import { logV3toV4 } from '../support/v3-to-v4.js';

const WS = path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4', 'zdsh-vfs-workspace');
const PROJ = '--dsh-workspace--';
const IDS = ['preview-showcase', 'preview-architecture-review', 'preview-follow-up-builder'];

afterEach(cleanupTmp);

type Variant = 'v2' | 'v3' | 'v4' | 'v4-zstd';

/** A harness root holding the real workspace in one format (v4 built from v3 by the v3 -> v4 rules). */
function rootOf(variant: Variant): string {
  const root = tmpDir('dsh-fmt-');
  for (const id of IDS) {
    const dir = path.join(root, PROJ, id);
    fs.mkdirSync(dir, { recursive: true });
    const src = (v: number) => fs.readFileSync(path.join(WS, PROJ, id, `session.v${v}.jsonl`), 'utf8');
    if (variant === 'v2' || variant === 'v3') fs.writeFileSync(path.join(dir, `session.${variant}.jsonl`), src(Number(variant[1])));
    else if (variant === 'v4') fs.writeFileSync(path.join(dir, 'session.v4.jsonl'), logV3toV4(src(3)));
    else fs.writeFileSync(path.join(dir, 'session.v4.jsonl.zstd'), zstdFrames(logV3toV4(src(3))));
  }
  return root;
}

const textOf = (file: string): string => (file.endsWith('.zstd') ? readZstdText(file).toString('utf8') : fs.readFileSync(file, 'utf8'));
const linesOf = (file: string): string[] => textOf(file).split('\n').slice(0, -1);

const VARIANTS: Variant[] = ['v2', 'v3', 'v4', ...(hasZstd ? (['v4-zstd'] as Variant[]) : [])];

describe('fork children in the parent format', () => {
  it.each(VARIANTS)('%s: the child is the harness generation file of that version, header closed and seeded, prefix byte-identical, cut marked, loads back as a fork', (variant) => {
    const root = rootOf(variant);
    const version = Number(variant[1]);
    const zstd = variant.endsWith('zstd');
    const idx = loadRootSync(root);
    const parent = idx.store.get('preview-showcase')!;
    const child = idx.store.fork({ source: parent, boundary: 168, sessionId: 'kid' });
    const name = `session.v${version}.jsonl${zstd ? '.zstd' : ''}`;
    expect(child.file).toBe(path.join(root, PROJ, 'kid', name));
    const lines = linesOf(child.file!);
    const header = JSON.parse(lines[0]);
    // key order of the harness's encodeHeader; a plain fork: depth 0, no origin (core/session fork)
    expect(Object.keys(header)).toEqual(['type', 'version', 'id', 'createdAt', 'cwd', 'parentSession', 'isSeeded', 'delegationDepth']);
    expect(header).toMatchObject({ type: 'session', version, id: 'kid', cwd: '/dsh/workspace', parentSession: 'preview-showcase', isSeeded: true, delegationDepth: 0 });
    const parentLines = linesOf(parent.file!);
    expect(lines.slice(1, 170)).toEqual(parentLines.slice(1, 170));
    expect(lines[170]).toBe(JSON.stringify({ type: 'session/end-seed', seq: 169, time: JSON.parse(parentLines[169]).time, data: { inherited: true } }));
    expect(lines).toHaveLength(171);
    // the parent is untouched
    expect(textOf(parent.file!)).toBe(textOf(path.join(root, PROJ, 'preview-showcase', name)));
    // read back from disk by a fresh load: a fork cut at the marker, audit clean, resumable
    const again = loadRootSync(root);
    const k = again.store.get('kid')!;
    expect(k.file).toBe(child.file);
    expect(k.kind).toBe('fork');
    expect(k.seedLength).toBe(169);
    expect(k.facts).toEqual(child.facts);
    expect(auditSessions(again.store.list(), allDiagnostics(again))).toEqual([]);
    expect(resumeVerdict(k, again.store.getAll('kid'))).toEqual({ resumable: true });
  });

  it.each(VARIANTS)('%s: a grandchild of the real seeded child is cut at its own (last) inherited marker', (variant) => {
    const root = rootOf(variant);
    const idx = loadRootSync(root);
    const child = idx.store.get('preview-architecture-review')!;
    expect(child.seedLength).toBe(169);
    const grand = idx.store.fork({ source: child, sessionId: 'grand' });
    expect(grand.seedLength).toBe(child.length);
    const again = loadRootSync(root);
    const g = again.store.get('grand')!;
    expect(g.seedLength).toBe(177);
    expect(g.events.filter((e) => e.type === 'session/end-seed' && e.data?.inherited === true).map((e) => e.seq)).toEqual([169, 177]);
    expect(g.facts.usage.own).toEqual({ input: 0, output: 0, messages: 0 });
    expect(auditSessions(again.store.list(), allDiagnostics(again))).toEqual([]);
  });

  it("our child equals the harness fixture's own seeded child at the same cut, byte for byte, except what a plain fork must differ in", () => {
    const root = copyDir(WS, path.join(tmpDir('dsh-fmt-'), 'r'));
    const idx = loadRootSync(root);
    const fixture = linesOf(path.join(WS, PROJ, 'preview-architecture-review', 'session.v3.jsonl'));
    const cut = fixture.findIndex((l) => JSON.parse(l).type === 'session/end-seed'); // line index of the marker
    expect(cut).toBe(170);
    const ours = linesOf(idx.store.fork({ source: idx.store.get('preview-showcase')!, boundary: 168, sessionId: 'preview-architecture-review-2' }).file!);
    // the inherited prefix: every byte
    expect(ours.slice(1, cut)).toEqual(fixture.slice(1, cut));
    // the header: the same keys in the same order, but id and createdAt (ours), and the fixture's child is a
    // subagent fork (origin subagent, depth 1, preset) while ours is a plain fork (core/session fork.ts)
    const h = JSON.parse(ours[0]);
    const f = JSON.parse(fixture[0]);
    expect({ ...f, id: h.id, createdAt: h.createdAt, origin: undefined, delegationDepth: 0, agentPreset: undefined }).toEqual({ ...h, origin: undefined, agentPreset: undefined });
    // the marker: the same event but its time (ours: the boundary event's, as buildForkSeed stamps it)
    const m = JSON.parse(ours[cut]);
    expect({ ...JSON.parse(fixture[cut]), time: m.time }).toEqual(m);
  });

  it('a v1 parent (seedLength era, delegationDepth required) gets a session.v1.jsonl child with seedLength', () => {
    const root = tmpDir('dsh-fmt-');
    const dir = path.join(root, '--work--', 'one');
    fs.mkdirSync(dir, { recursive: true });
    const rows = [
      { type: 'session', version: 1, id: 'one', createdAt: 1, cwd: '/work', delegationDepth: 0 },
      { type: 'turn/start', seq: 0, time: 2, data: { turn: 1 } },
      { type: 'user/message', seq: 1, time: 3, data: { content: [{ type: 'text', text: 'hi' }] } },
      { type: 'turn/end', seq: 2, time: 4, data: { turn: 1, reason: { kind: 'completed' } } },
    ];
    fs.writeFileSync(path.join(dir, 'session.v1.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const idx = loadRootSync(root);
    const c = idx.store.fork({ source: 'one', sessionId: 'two' });
    expect(c.file).toBe(path.join(root, '--work--', 'two', 'session.v1.jsonl'));
    const h = JSON.parse(linesOf(c.file!)[0]);
    expect(h).toMatchObject({ version: 1, seedLength: 3, delegationDepth: 0 });
    expect(loadRootSync(root).store.get('two')!.seedLength).toBe(3);
  });
});

describe('generations: one session per folder, the highest generation current', () => {
  const write = (dir: string, name: string, text: string | Buffer) => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  };
  const v3 = (id: string) => fs.readFileSync(path.join(WS, PROJ, id, 'session.v3.jsonl'), 'utf8');
  const v2 = (id: string) => fs.readFileSync(path.join(WS, PROJ, id, 'session.v2.jsonl'), 'utf8');
  const v0 = (id: string) =>
    [{ type: 'session', version: 0, id, createdAt: 1, cwd: '/dsh/workspace', delegationDepth: 0 }, { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } }, { type: 'turn/end', seq: 1, time: 2, data: { turn: 1, reason: { kind: 'completed' } } }]
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n';

  it('v0 + v3: the v3 file is the session (not the stale v0), the v0 is listed as older and never an error', () => {
    const root = tmpDir('dsh-gen-');
    const dir = path.join(root, PROJ, 'preview-showcase');
    write(dir, 'session.jsonl', v0('preview-showcase'));
    write(dir, 'session.v3.jsonl', v3('preview-showcase'));
    const idx = loadRootSync(root);
    expect(idx.store.size).toBe(1);
    const s = idx.store.get('preview-showcase')!;
    expect(s.file).toBe(path.join(dir, 'session.v3.jsonl'));
    expect(s.length).toBe(199);
    expect(olderGenerations(idx, s.file)).toEqual([path.join(dir, 'session.jsonl')]);
    expect(allDiagnostics(idx)).toEqual([]);
  });

  it('v3 + v4: the v4 is current; a damaged older generation is ignored (never read), as the harness ignores it', () => {
    const root = tmpDir('dsh-gen-');
    const dir = path.join(root, PROJ, 'preview-showcase');
    write(dir, 'session.v3.jsonl', '{"type":"session","version":3,"id":\n{not json at all\n');
    write(dir, 'session.v4.jsonl', logV3toV4(v3('preview-showcase')));
    const idx = loadRootSync(root);
    expect(idx.store.get('preview-showcase')!.file).toBe(path.join(dir, 'session.v4.jsonl'));
    expect(allDiagnostics(idx)).toEqual([]);
    expect(idx.files.get(path.join(dir, 'session.v3.jsonl'))).toMatchObject({ older: true });
  });

  it('a refused highest generation has no fallback: its refusal names it, the older one stays unread', () => {
    const root = tmpDir('dsh-gen-');
    const dir = path.join(root, PROJ, 'preview-showcase');
    write(dir, 'session.v2.jsonl', v2('preview-showcase'));
    write(dir, 'session.v3.jsonl', v3('preview-showcase').replace('"version":3', '"version":4'));
    const idx = loadRootSync(root);
    expect(idx.store.size).toBe(0);
    const d = allDiagnostics(idx);
    expect(d).toEqual([expect.objectContaining({ file: path.join(dir, 'session.v3.jsonl'), line: 1, code: 'BAD_HEADER', message: 'session generation filename identifies v3, but its header identifies v4' })]);
  });

  it('only an older generation: it is the session', () => {
    const root = tmpDir('dsh-gen-');
    const dir = path.join(root, PROJ, 'preview-showcase');
    write(dir, 'session.v2.jsonl', v2('preview-showcase'));
    const idx = loadRootSync(root);
    expect(idx.store.get('preview-showcase')!.file).toBe(path.join(dir, 'session.v2.jsonl'));
    expect(olderGenerations(idx, path.join(dir, 'session.v2.jsonl'))).toEqual([]);
  });

  it('list --json names the current file and the older ones', () => {
    const root = copyDir(WS, path.join(tmpDir('dsh-gen-'), 'r'));
    const out = execFileSync(process.execPath, [path.join(REPO, 'dist', 'dsh-browse.mjs'), 'list', '--dir', root, '--json'], { encoding: 'utf8' });
    const body = JSON.parse(out);
    expect(body.sessions).toHaveLength(3);
    for (const s of body.sessions) {
      expect(s.format).toBe(3);
      expect(s.generations).toEqual({ current: path.join(root, PROJ, s.id, 'session.v3.jsonl'), older: [path.join(root, PROJ, s.id, 'session.v2.jsonl')] });
    }
    expect(body.diagnostics).toEqual([]);
  });

  it('live: a newer generation published beside the current one takes over; deleting it brings the older back', async () => {
    const root = tmpDir('dsh-gen-');
    const dir = path.join(root, PROJ, 'preview-showcase');
    write(dir, 'session.v3.jsonl', v3('preview-showcase'));
    const idx = loadRootSync(root);
    const f = followRoot(idx, { forcePolling: true, pollIntervalMs: 20 });
    try {
      const applied = (pred: () => boolean) => until(idx, pred);
      write(dir, 'session.v4.jsonl', logV3toV4(v3('preview-showcase')));
      await applied(() => idx.store.get('preview-showcase')?.file === path.join(dir, 'session.v4.jsonl'));
      expect(idx.store.size).toBe(1);
      expect(olderGenerations(idx, path.join(dir, 'session.v4.jsonl'))).toEqual([path.join(dir, 'session.v3.jsonl')]);
      fs.rmSync(path.join(dir, 'session.v4.jsonl'));
      await applied(() => idx.store.get('preview-showcase')?.file === path.join(dir, 'session.v3.jsonl'));
      expect(idx.store.size).toBe(1);
      expect(allDiagnostics(idx)).toEqual([]);
    } finally {
      f.close();
    }
  });

  it('a root with .v4.jsonl and .v4.jsonl.zstd generations is refused for a fork (MIXED_ENCODING), nothing written', () => {
    const root = rootOf('v4');
    write(path.join(root, PROJ, 'other'), 'session.v4.jsonl.zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
    const idx = loadRootSync(root);
    expect(() => idx.store.fork({ source: 'preview-showcase', sessionId: 'x' })).toThrow(/MIXED_ENCODING|mixed encodings/);
    expect(fs.existsSync(path.join(root, PROJ, 'x'))).toBe(false);
  });
});

describe('v4 rules beyond the header', () => {
  const v4 = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  const H = { type: 'session', version: 4, id: 'live', createdAt: 1, cwd: '/w', isSeeded: false, delegationDepth: 0 };
  const turn = (t: number, seq: number, withResult = true) => [
    { type: 'turn/start', seq, time: seq, data: { turn: t } },
    { type: 'step/start', seq: seq + 1, time: seq, data: { turn: t, step: 1 } },
    { type: 'tool/call', seq: seq + 2, time: seq, data: { turn: t, step: 1, callId: `c${t}`, name: 'bash', arguments: '{}' } },
    ...(withResult ? [{ type: 'tool/result', seq: seq + 3, time: seq, data: { turn: t, step: 1, message: { role: 'tool', source: { kind: 'tool', callId: `c${t}` }, toolCallId: `c${t}`, content: [{ type: 'text', text: 'ok' }] } }, surfaceOp: 'append' }] : []),
    { type: 'step/end', seq: seq + (withResult ? 4 : 3), time: seq, data: { turn: t, step: 1 } },
    { type: 'turn/end', seq: seq + (withResult ? 5 : 4), time: seq, data: { turn: t, reason: { kind: 'completed' } } },
  ];

  it('a tool call still unanswered at its step/end: shown, but the harness would refuse to resume it (and the audit names the call)', () => {
    const root = tmpDir('dsh-v4-');
    const file = path.join(root, '--w--', 'live', 'session.v4.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, v4([H, ...turn(1, 0, false)]));
    const idx = loadRootSync(root);
    const s = idx.store.get('live')!;
    expect(s.state).toBe('at-boundary');
    expect(resumeVerdict(s, [s])).toEqual({ resumable: false, reason: 'a tool call is still unanswered at the step or turn end at seq 3: the harness refuses the log' });
    expect(auditSessions([s]).map((f) => f.code)).toEqual(['UNANSWERED_TOOL_CALL']);
    fs.writeFileSync(file, v4([H, ...turn(1, 0, true)]));
    const ok = loadRootSync(root).store.get('live')!;
    expect(resumeVerdict(ok, [ok])).toEqual({ resumable: true });
  });

  it("the title is a person's prompt: runtime context, skill catalogs and other non-user sources in user/message are not", () => {
    const root = tmpDir('dsh-v4-');
    const file = path.join(root, '--w--', 'live', 'session.v4.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const msg = (seq: number, kind: string, text: string) => ({ type: 'user/message', seq, time: seq, data: { role: 'user', content: [{ type: 'text', text }], source: { kind } }, surfaceOp: 'append' });
    fs.writeFileSync(file, v4([H, { type: 'turn/start', seq: 0, time: 0, data: { turn: 1 } }, msg(1, 'runtime-context', 'Current runtime context.'), msg(2, 'skill-catalog', 'Skills: a, b'), msg(3, 'user', 'Fix the flaky test'), { type: 'turn/end', seq: 4, time: 4, data: { turn: 1, reason: { kind: 'completed' } } }]));
    const s = loadRootSync(root).store.get('live')!;
    expect(s.facts.title).toBe('Fix the flaky test');
    // in the turn tree they are context rows, and the turn's prompt is the person's
    const [turn] = buildTurnTree(s.events) as any[];
    expect(turn.prompt).toBe('Fix the flaky test');
    expect(turn.children.map((n: any) => n.role)).toEqual(['context', 'context', 'user']);
  });

  it.each([false, ...(hasZstd ? [true] : [])])('live follow of a growing v4 log (compressed: %s): each appended turn is read as it lands', async (zstd) => {
    const root = tmpDir('dsh-v4-');
    const file = path.join(root, '--w--', 'live', zstd ? 'session.v4.jsonl.zstd' : 'session.v4.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const first = v4([H, ...turn(1, 0)]);
    fs.writeFileSync(file, zstd ? zstdFrames(first) : first);
    const idx = loadRootSync(root);
    const f = followRoot(idx, { forcePolling: true, pollIntervalMs: 20 });
    try {
      expect(idx.store.get('live')!.facts.turns).toBe(1);
      const more = turn(2, 6).map((r) => JSON.stringify(r)).join('\n') + '\n';
      // one more frame (compressed) or plain lines, appended to the same file
      fs.appendFileSync(file, zstd ? execFileSync('zstd', ['-q', '--check', '-c'], { input: more }) : more);
      await until(idx, () => idx.store.get('live')?.facts.turns === 2);
      const s = idx.store.get('live')!;
      expect(s.length).toBe(12);
      expect(s.facts.boundaries.at(-1)).toBe(11);
      expect(s.diagnostics).toEqual([]);
    } finally {
      f.close();
    }
  });
});

describe("v4 rows, by the v3-to-v4 README's rules (no v4 code of the harness is published)", () => {
  /** The v4 root with one row of preview-showcase changed by `edit` (its seq-th row). */
  function v4With(seq: number, edit: (row: Record<string, unknown>) => void): { root: string; file: string } {
    const root = rootOf('v4');
    const file = path.join(root, PROJ, 'preview-showcase', 'session.v4.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const row = JSON.parse(lines[seq + 1]);
    edit(row);
    lines[seq + 1] = JSON.stringify(row);
    fs.writeFileSync(file, lines.join('\n'));
    return { root, file };
  }

  it('a surface event without surfaceOp, or a log-only one with it: BAD_ROW on its line, in the harness words, and not resumable', () => {
    const showcase = linesOf(path.join(rootOf('v4'), PROJ, 'preview-showcase', 'session.v4.jsonl')).slice(1).map((l) => JSON.parse(l));
    const surface = showcase.find((r) => r.type === 'tool/result')!;
    const logOnly = showcase.find((r) => r.type === 'tool/call')!;
    for (const [seq, edit, why] of [
      [surface.seq, (r: Record<string, unknown>) => delete r.surfaceOp, `format v4 tool/result at seq ${surface.seq} requires a surfaceOp marker`],
      [logOnly.seq, (r: Record<string, unknown>) => (r.surfaceOp = 'append'), `format v4 tool/call at seq ${logOnly.seq} has unexpected field surfaceOp`],
      [logOnly.seq, (r: Record<string, unknown>) => (r.meta = {}), `released v2 row ${logOnly.seq} has unexpected field meta`],
    ] as const) {
      const { root, file } = v4With(seq, edit);
      for (const idx of [loadRootSync(root, { cache: true }), loadRootSync(root, { cache: true })]) {
        // the second load reads the fact cache the first wrote
        const s = idx.store.get('preview-showcase')!;
        expect(s.diagnostics.filter((d) => d.code === 'BAD_ROW')).toEqual([{ file, line: seq + 2, severity: 'error', code: 'BAD_ROW', message: `the harness refuses this log: ${why}` }]);
        expect(resumeVerdict(s, [s])).toEqual({ resumable: false, reason: `the harness refuses the log at seq ${seq}: "${why}"` });
      }
    }
  });

  it('developer/message is a v4 surface event: without surfaceOp it is refused in v4, and opaque (unknown) in v3', () => {
    const row = { type: 'developer/message', seq: 0, time: 1, data: {}, ignorable: true };
    const root = tmpDir('dsh-dev-');
    for (const v of [3, 4]) {
      const dir = path.join(root, PROJ, `dev-v${v}`);
      fs.mkdirSync(dir, { recursive: true });
      const header = { type: 'session', version: v, id: `dev-v${v}`, createdAt: 1, cwd: '/dsh/workspace', isSeeded: false, delegationDepth: 0 };
      fs.writeFileSync(path.join(dir, `session.v${v}.jsonl`), [header, row].map((r) => JSON.stringify(r)).join('\n') + '\n');
    }
    const idx = loadRootSync(root);
    const v4 = idx.store.get('dev-v4')!;
    expect(resumeVerdict(v4, [v4]).reason).toBe('the harness refuses the log at seq 0: "format v4 developer/message at seq 0 requires a surfaceOp marker"');
    const v3 = idx.store.get('dev-v3')!;
    expect(resumeVerdict(v3, [v3])).toEqual({ resumable: true });
  });
});
