// The v4 harness's own forks and crash repairs, read as it reads them
// (harness-closers.ts): its fork may cut inside a turn when the child's own
// first events close it with results the harness writes itself; a repair
// settles calls that were advertised and never started. Built from the real
// v3 workspace (as v4) by the README's rules (test/support/v4-forks.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditSessions } from '../../src/session/audit.js';
import { auditStructure } from '../../src/session/event-audit.js';
import { isSessionForkError } from '../../src/session/errors.js';
import { buildTurnTree, type TreeNode } from '../../src/session/replay.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { resumeVerdict } from '../../src/storage/resume.js';
import { layoutLineage } from '../../src/view/lineage-graph/lineage-layout.js';
import { lineageNodes } from '../../src/view/lineage-graph/lineage-model.js';
import { cleanupTmp, REPO, tmpDir } from '../support/fixtures.js';
import { logV3toV4 } from '../support/v3-to-v4.js';
import { crashRepaired, harnessForkChild, toolCallCuts } from '../support/v4-forks.js';

afterAll(cleanupTmp);

const WS = path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4', 'zdsh-vfs-workspace', '--dsh-workspace--');
const PARENT = logV3toV4(fs.readFileSync(path.join(WS, 'preview-showcase', 'session.v3.jsonl'), 'utf8'));
const CUTS = toolCallCuts(PARENT);

function root(children: Record<string, string>): string {
  const r = tmpDir('dsh-v4-forks-');
  for (const [id, text] of Object.entries({ 'preview-showcase': PARENT, ...children })) {
    fs.mkdirSync(path.join(r, '--dsh-workspace--', id), { recursive: true });
    fs.writeFileSync(path.join(r, '--dsh-workspace--', id, 'session.v4.jsonl'), text);
  }
  return r;
}

const tools = (nodes: readonly TreeNode[]): Array<Extract<TreeNode, { kind: 'tool' }>> =>
  nodes.flatMap((n) => (n.kind === 'tool' ? [n] : 'children' in n && Array.isArray(n.children) ? tools(n.children as TreeNode[]) : []));

describe("the v4 harness's own fork, cut inside a turn", () => {
  it('closed as its fork closes it: no audit finding, the cut and its closers said, each closer marked as the harness own result', () => {
    const idx = loadRootSync(root({ 'kid-advertised': harnessForkChild(PARENT, CUTS.advertised, 'kid-advertised'), 'kid-started': harnessForkChild(PARENT, CUTS.started, 'kid-started') }));
    const parent = idx.store.get('preview-showcase')!;
    expect(parent.facts.boundaries).not.toContain(CUTS.advertised - 1);
    expect(parent.facts.boundaries).not.toContain(CUTS.started - 1);
    expect(auditSessions(idx.store.list())).toEqual([]);
    // turn 29 of the real log: an assistant message advertises ten calls, then they start one by one
    for (const [id, n, kinds] of [
      ['kid-advertised', CUTS.advertised, Array(10).fill('not started')],
      ['kid-started', CUTS.started, ['outcome unknown', ...Array(9).fill('not started')]],
    ] as const) {
      const kid = idx.store.get(id)!;
      expect(kid.seedLength).toBe(n);
      expect(kid.facts.forkCut).toEqual({ turn: 29, results: 10, state: 'closed' });
      expect(kid.state).toBe('at-boundary');
      expect(resumeVerdict(kid, [kid])).toEqual({ resumable: true });
      // each closer is a call of the parent's turn (advertised or started), settled by the harness
      const closers = tools(buildTurnTree(kid.events)).filter((t) => t.result?.harness !== undefined);
      expect(closers.map((t) => t.result!.harness)).toEqual(kinds);
      expect(closers.map((t) => t.result!.seq)).toEqual(kinds.map((_, i) => n + 1 + i));
      expect(closers.every((t) => t.name !== '(result without call)' && t.arguments !== '')).toBe(true);
    }
    // the lineage says where the cut is
    const lines = layoutLineage(lineageNodes(idx.store.list())).rows.map((r) => `${r.edgeLabel} ${r.text}`).join('\n');
    expect(lines).toMatch(/fork inside turn \d+ · seed \d+/);
  });

  it('a cut inside a turn the child does not close that way stays SEED_NOT_AT_BOUNDARY, and says why', () => {
    const idx = loadRootSync(root({ kid: harnessForkChild(PARENT, CUTS.started, 'kid', 'completed') }));
    const kid = idx.store.get('kid')!;
    expect(kid.facts.forkCut?.state).toBe('unclosed');
    const f = auditSessions(idx.store.list()).filter((x) => x.code === 'SEED_NOT_AT_BOUNDARY');
    expect(f).toHaveLength(1);
    expect(f[0].message).toMatch(/inside a turn .*do not close it as the harness's fork does/);
  });

  it('our own fork stays at a boundary: inside a turn of a v4 parent its refusal says what the harness would do', () => {
    const idx = loadRootSync(root({}));
    let err: unknown;
    try {
      idx.store.fork({ source: idx.store.get('preview-showcase')!, boundary: CUTS.started - 1 });
    } catch (e) {
      err = e;
    }
    expect(isSessionForkError(err) && err.code).toBe('OPEN_TURN');
    expect((err as Error).message).toMatch(/the harness's own fork would close that turn in the child with results it writes itself .* but this browser forks only at a boundary$/);
  });
});

describe("the harness's crash repair of an interrupted turn", () => {
  it('its interrupted-tool-result settles the advertised call: no UNMATCHED_TOOL_RESULT, marked as its own in the tree', () => {
    const text = crashRepaired(PARENT, CUTS.advertised);
    const events = text.trimEnd().split('\n').slice(1).map((l) => JSON.parse(l));
    expect(auditStructure(events)).toEqual([]);
    const closers = tools(buildTurnTree(events)).filter((t) => t.result?.harness !== undefined);
    expect(closers.map((t) => t.result!.harness)).toEqual(Array(10).fill('not started'));
    // a result with another id is no repair: it settles the call, and is the tool's own
    const other = events.map((e) => (e.type === 'tool/result' && e.seq === CUTS.advertised ? { ...e, data: { ...e.data, message: { ...e.data.message, id: 'some-id' } } } : e));
    const marked = tools(buildTurnTree(other)).filter((t) => t.result?.seq === CUTS.advertised || t.result?.harness !== undefined);
    expect(marked.map((t) => [t.result!.seq === CUTS.advertised, t.result!.harness])).toEqual([[true, undefined], ...Array(9).fill([false, 'not started'])]);
    // v4 keeps the error flag on the message (role tool)
    expect(marked.every((t) => t.result!.isError)).toBe(true);
  });
});
