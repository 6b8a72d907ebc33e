// Formats past v4: each fork of the harness writes its own "v5" and later,
// keeping the envelope, the header core and the file name.
// Built here from the real v3 workspace (no such log was received): a
// CoHarness v5 (header key draft, tool results in the v3 wrapper), a
// dsh-studio v5 (key backend, results as v4's role tool), a StarPivotNet v5
// (origin "automation"), one whose header names no fork; and a stale higher
// generation beside a newer, longer lower one.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isSessionForkError } from '../../src/session/errors.js';
import { buildTurnTree, type TreeNode } from '../../src/session/replay.js';
import { upgradeVerdict } from '../../src/session/upgrade.js';
import { allDiagnostics, loadRootSync, olderGenerations } from '../../src/storage/load-root.js';
import { resumeVerdict } from '../../src/storage/resume.js';
import { cleanupTmp, listTree, REPO, tmpDir } from '../support/fixtures.js';
import { runCli } from '../support/run-cli.js';
import { logV3toV4 } from '../support/v3-to-v4.js';

afterEach(cleanupTmp);

const WS = path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4', 'zdsh-vfs-workspace', '--dsh-workspace--');
const SHOWCASE_V3 = fs.readFileSync(path.join(WS, 'preview-showcase', 'session.v3.jsonl'), 'utf8');

/** `text` (a log) with its header's version and keys changed. */
function withHeader(text: string, change: Record<string, unknown>): string {
  const nl = text.indexOf('\n');
  return JSON.stringify({ ...JSON.parse(text.slice(0, nl)), ...change }) + text.slice(nl);
}

function put(root: string, id: string, name: string, text: string): string {
  const file = path.join(root, '--dsh-workspace--', id, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

const tools = (nodes: readonly TreeNode[]): Array<Extract<TreeNode, { kind: 'tool' }>> =>
  nodes.flatMap((n) => (n.kind === 'tool' ? [n] : 'children' in n && Array.isArray(n.children) ? tools(n.children as TreeNode[]) : []));

describe('a fork of the harness writes its own format past v4', () => {
  const cases = [
    { id: 'coharness', change: { version: 5, draft: false }, text: () => SHOWCASE_V3, fork: "format v5 (CoHarness's: header key draft)", who: 'CoHarness' },
    { id: 'studio', change: { version: 5, backend: 'xingchen' }, text: () => logV3toV4(SHOWCASE_V3), fork: "format v5 (dsh-studio's: header key backend)", who: 'dsh-studio' },
    { id: 'starpivot', change: { version: 5, origin: 'automation' }, text: () => logV3toV4(SHOWCASE_V3), fork: `format v5 (StarPivotNet's: header key origin "automation")`, who: 'StarPivotNet' },
    { id: 'coharness-v6', change: { version: 6, sshTarget: 'dev@host' }, text: () => SHOWCASE_V3, fork: "format v6 (CoHarness's: header key sshTarget)", who: 'CoHarness' },
    { id: 'unnamed', change: { version: 7 }, text: () => logV3toV4(SHOWCASE_V3), fork: 'format v7 (a fork of the harness: its header names none)', who: 'the fork that wrote it' },
  ];

  it.each(cases)('$id: listed and read by shape (turns, tool results), a FOREIGN_FORMAT warning naming the fork; not resumable here, never forked', (c) => {
    const root = tmpDir('dsh-v5-');
    const file = put(root, 'preview-showcase', `session.v${c.change.version}.jsonl`, withHeader(c.text(), c.change));
    const idx = loadRootSync(root);
    const s = idx.store.get('preview-showcase')!;
    expect(s.file).toBe(file);
    expect(s.header.version).toBe(c.change.version);
    expect(s.diagnostics).toEqual([
      { file, line: 1, severity: 'warning', code: 'FOREIGN_FORMAT', message: `${c.fork}: the harness's own formats end at v4; read by its shape (the envelope, the header core, both tool-result shapes), read-only` },
    ]);
    // every turn and every tool result, whichever shape the fork keeps them in
    expect(s.facts.turns).toBe(29);
    const results = tools(buildTurnTree(s.events)).filter((t) => t.result !== undefined);
    expect(results.length).toBe(10);
    expect(results.every((t) => t.result!.text.length > 0)).toBe(true);
    expect(resumeVerdict(s, [s])).toEqual({ resumable: false, reason: `${c.fork}: the harness reads versions 0 to 4; only ${c.who} resumes it` });
    expect(upgradeVerdict(s)).toMatchObject({ to: 4, ok: false });
    // read-only: the store refuses, typed, and nothing is written
    const before = listTree(root);
    let err: unknown;
    try {
      idx.store.fork({ source: s, boundary: s.facts.boundaries[1] });
    } catch (e) {
      err = e;
    }
    expect(isSessionForkError(err) && err.code).toBe('UNSUPPORTED_FORMAT');
    expect((err as Error).message).toContain(c.fork);
    expect(listTree(root)).toEqual(before);
  });

  it('beside a valid v4 of the same session: the session is listed from the v5, the v4 as older (upstream would drop it)', () => {
    const root = tmpDir('dsh-v5v4-');
    const v4 = put(root, 'preview-showcase', 'session.v4.jsonl', logV3toV4(SHOWCASE_V3));
    const v5 = put(root, 'preview-showcase', 'session.v5.jsonl', withHeader(SHOWCASE_V3, { version: 5, draft: true }));
    const idx = loadRootSync(root);
    expect(idx.store.size).toBe(1);
    const s = idx.store.get('preview-showcase')!;
    expect(s.file).toBe(v5);
    expect(olderGenerations(idx, s.file)).toEqual([v4]);
    const out = JSON.parse(runCli(['list', '--dir', root, '--json']).stdout);
    expect(out.sessions.map((x: { file: string; format: number; resumable: boolean }) => [x.file, x.format, x.resumable])).toEqual([[v5, 5, false]]);
  });

  it('a header past v4 without the core every fork keeps (isSeeded, delegationDepth) is still refused as an unsupported version', () => {
    const root = tmpDir('dsh-v5-bad-');
    const text = SHOWCASE_V3.replace(/"isSeeded":false,/, '');
    const file = put(root, 'preview-showcase', 'session.v5.jsonl', withHeader(text, { version: 5 }));
    const idx = loadRootSync(root);
    expect(idx.store.size).toBe(0);
    expect(idx.files.get(file)?.refused?.map((d) => d.code)).toEqual(['UNSUPPORTED_VERSION']);
  });
});

describe('a stale higher generation', () => {
  /** session.v3.jsonl and session.jsonl in one folder, with the given mtimes (days) and the v0 log `v0Lines` lines long. */
  function folder(v3Day: number, v0Day: number): { root: string; v3: string } {
    const root = tmpDir('dsh-stale-');
    const v3 = put(root, 'preview-showcase', 'session.v3.jsonl', SHOWCASE_V3.split('\n').slice(0, 20).join('\n') + '\n');
    const header = { type: 'session', version: 0, id: 'preview-showcase', createdAt: 1, cwd: '/dsh/workspace', delegationDepth: 0 };
    const rows = Array.from({ length: 400 }, (_, seq) => ({ type: 'todo/write', seq, time: 2 + seq, data: { todos: [] } }));
    const v0 = put(root, 'preview-showcase', 'session.jsonl', [header, ...rows].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const day = (d: number) => new Date(Date.UTC(2026, 8, d));
    fs.utimesSync(v3, day(v3Day), day(v3Day));
    fs.utimesSync(v0, day(v0Day), day(v0Day));
    return { root, v3 };
  }

  it('older by mtime and shorter than the generation below it: STALE_GENERATION on the one the harness opens', () => {
    const { root, v3 } = folder(12, 17);
    const idx = loadRootSync(root);
    expect(idx.store.get('preview-showcase')!.file).toBe(v3);
    const stale = allDiagnostics(idx).filter((d) => d.code === 'STALE_GENERATION');
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatchObject({ file: v3, severity: 'warning' });
    expect(stale[0].message).toMatch(/^session\.v3\.jsonl \(2026-09-12, \d+ bytes\) is older and shorter than session\.jsonl beside it \(2026-09-17, \d+ bytes\): the harness opens the highest generation, session\.v3\.jsonl/);
    const out = JSON.parse(runCli(['list', '--dir', root, '--json']).stdout);
    expect(out.diagnostics.filter((d: { code: string }) => d.code === 'STALE_GENERATION')).toHaveLength(1);
  });

  it('newer than the generation below it (a migration keeps its source): nothing to say', () => {
    const { root } = folder(17, 12);
    expect(allDiagnostics(loadRootSync(root)).filter((d) => d.code === 'STALE_GENERATION')).toEqual([]);
  });
});
