// Subagent calls linked to the children they started, on the real logs of
// three harness eras (the v3 workspace: a spawn named in its result and a
// seeded subagent fork; rc.8 in-process spawn and fork; v4 with the parent's
// catalog), and never to the wrong session: a missing child says so, two
// children that fit a call equally are ambiguous, a child the result names
// that is gone is never replaced by another.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTurnTree } from '../../src/session/replay.js';
import type { Session } from '../../src/session/session.js';
import { childSummary, scanSubagents, subagentCalls, subagentLinks, subagentUsage, type SubagentLink } from '../../src/session/subagents.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, copyDir, REAL_DIR, REPO, tmpDir } from '../support/fixtures.js';

afterAll(cleanupTmp);

const V2V4 = path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4');

function linksIn(dir: string, parentId: string): { parent: Session; links: Map<number, SubagentLink>; sessions: readonly Session[] } {
  const index = loadRootSync(dir);
  const sessions = index.store.list();
  const parent = sessions.find((s) => s.id === parentId)!;
  expect(parent, parentId).toBeDefined();
  const scan = scanSubagents(parent.eventBatches());
  // the tree gives the same calls as the scan (the browser reads the tree, the commands the log)
  expect(subagentCalls(buildTurnTree(parent.events)).map((c) => [c.seq, c.name, c.description, c.result])).toEqual(scan.calls.map((c) => [c.seq, c.name, c.description, c.result]));
  return { parent, links: subagentLinks(parent, scan.calls, scan.catalog, sessions), sessions };
}

const linked = (l: SubagentLink | undefined) => (l?.kind === 'linked' ? [l.child.id, l.by] : l?.kind);

describe('real logs: each call finds its child', () => {
  it('v3 workspace: the spawn named in its result, the seeded fork by its descriptor', () => {
    const dir = copyDir(path.join(V2V4, 'zdsh-vfs-workspace'), tmpDir());
    const { links } = linksIn(dir, 'preview-showcase');
    expect([...links.values()].map(linked)).toEqual([
      ['preview-follow-up-builder', 'named in its result'],
      ['preview-architecture-review', "its descriptor's label"],
    ]);
  });

  for (const [name, kind] of [
    ['subagent-spawn-in-process', 'spawn'],
    ['subagent-fork-in-process', 'fork'],
  ] as const)
    it(`rc.8 ${name}: the ${kind} child by its descriptor`, () => {
      const dir = tmpDir();
      for (const f of fs.readdirSync(REAL_DIR).filter((f) => f.includes(`rc8__${name}__`))) fs.copyFileSync(path.join(REAL_DIR, f), path.join(dir, f));
      const index = loadRootSync(dir);
      const parent = index.store.list().find((s) => s.parentSession === undefined)!;
      const child = index.store.list().find((s) => s.parentSession !== undefined)!;
      const { links } = linksIn(dir, parent.id);
      expect([...links.values()].map(linked)).toEqual([[child.id, "its descriptor's label"]]);
      expect(child.kind).toBe(kind);
    });

  it('rfc0706 spawn and fork (no descriptor): the child by its first prompt', () => {
    for (const name of ['subagent-spawn', 'subagent-fork']) {
      const dir = tmpDir();
      for (const f of fs.readdirSync(REAL_DIR).filter((f) => f.includes(`rfc0706__${name}__`))) fs.copyFileSync(path.join(REAL_DIR, f), path.join(dir, f));
      const index = loadRootSync(dir);
      const parent = index.store.list().find((s) => s.parentSession === undefined)!;
      const child = index.store.list().find((s) => s.parentSession !== undefined)!;
      const { links } = linksIn(dir, parent.id);
      expect([...links.values()].map(linked), name).toEqual([[child.id, 'its first prompt']]);
    }
  });

  it('v4: the child the parent catalog names for the call description', () => {
    // the harness's golden snapshot as the stored log it projects (dense seq and time: PROVENANCE.md)
    const from = path.join(V2V4, 'v4-snapshots', 'zsagi1368__deepseek-harness-zDSH', 'snapshots', 'session', 'advanced-toolchain');
    const dir = tmpDir();
    for (const f of fs.readdirSync(from)) {
      const [head, ...rows] = fs.readFileSync(path.join(from, f), 'utf8').trimEnd().split('\n');
      const t0 = JSON.parse(head).createdAt as number;
      const stored = rows.map((l, i) => JSON.stringify({ ...JSON.parse(l), seq: i, time: t0 + i }));
      fs.mkdirSync(path.join(dir, f.replace(/\.v4\.jsonl$/, '')));
      fs.writeFileSync(path.join(dir, f.replace(/\.v4\.jsonl$/, ''), 'session.v4.jsonl'), [head, ...stored].join('\n') + '\n');
    }
    const { links } = linksIn(dir, '5e551011-0000-4000-8000-000000000001');
    expect([...links.values()].map(linked)).toEqual([['5e551011-0000-4000-8000-000000000002', "named in the parent's catalog"]]);
  });
});

describe('never the wrong session', () => {
  const workspace = () => copyDir(path.join(V2V4, 'zdsh-vfs-workspace'), tmpDir());

  it('a child that is gone is missing; the one the result names is never replaced by another', () => {
    const dir = workspace();
    fs.rmSync(path.join(dir, '--dsh-workspace--', 'preview-follow-up-builder'), { recursive: true });
    const { links } = linksIn(dir, 'preview-showcase');
    expect([...links.values()].map(linked)).toEqual(['missing', ['preview-architecture-review', "its descriptor's label"]]);
  });

  it('two children that fit one call equally are ambiguous', () => {
    const dir = workspace();
    const ws = path.join(dir, '--dsh-workspace--');
    // a second fork child with the same descriptor (another id, another folder)
    const text = fs.readFileSync(path.join(ws, 'preview-architecture-review', 'session.v3.jsonl'), 'utf8').replaceAll('"preview-architecture-review"', '"preview-architecture-again"');
    fs.mkdirSync(path.join(ws, 'preview-architecture-again'));
    fs.writeFileSync(path.join(ws, 'preview-architecture-again', 'session.v3.jsonl'), text);
    const { links } = linksIn(dir, 'preview-showcase');
    const fork = [...links.values()][1];
    expect(fork.kind).toBe('ambiguous');
    expect(fork.kind === 'ambiguous' && fork.children.map((c) => c.id).sort()).toEqual(['preview-architecture-again', 'preview-architecture-review']);
  });
});

describe('what a call row says of its child', () => {
  it('state, own turns, own tokens, and its usage (theirs included) for the parent totals', () => {
    const dir = tmpDir();
    for (const f of fs.readdirSync(REAL_DIR).filter((f) => f.includes('rc8__subagent-fork-in-process__'))) fs.copyFileSync(path.join(REAL_DIR, f), path.join(dir, f));
    const index = loadRootSync(dir);
    const parent = index.store.list().find((s) => s.parentSession === undefined)!;
    const { links } = linksIn(dir, parent.id);
    const link = [...links.values()][0];
    expect(link.kind).toBe('linked');
    if (link.kind !== 'linked') return;
    const c = childSummary(link);
    // the fork child inherited turn 1 (its seed): one turn of its own
    expect(c).toMatchObject({ state: 'at-boundary', turns: 1 });
    expect(c.usage.messages).toBeGreaterThan(0);
    expect(c.usage.input).toBeLessThan(link.child.facts.usage.input); // the seed's usage is its parent's, not counted again
    expect(subagentUsage([link.child], () => [])).toEqual(c.usage);
  });
});
