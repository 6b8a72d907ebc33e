// `dsh-browse tree --json` on the real v3 workspace: each subagent call node
// names the child it started (or says it is missing), as the browser does.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTmp, copyDir, REPO, tmpDir } from '../support/fixtures.js';
import { runCli } from '../support/run-cli.js';

afterAll(cleanupTmp);

type Node = { kind: string; name?: string; child?: unknown; children?: Node[] };
const calls = (nodes: Node[]): Node[] => nodes.flatMap((n) => (n.kind === 'tool' && n.name?.startsWith('subagent') ? [n] : calls(n.children ?? [])));

describe('tree --json: subagent calls name their child', () => {
  it('the spawn named in its result and the fork by its descriptor; a child removed is missing', () => {
    const dir = copyDir(path.join(REPO, 'test/fixtures/real-sessions-v2v4/zdsh-vfs-workspace'), tmpDir());
    const tree = () => {
      const r = runCli(['tree', '--dir', dir, '--session', 'preview-showcase', '--json']);
      expect(r.code, r.stderr).toBe(0);
      return calls(JSON.parse(r.stdout).turns as Node[]);
    };
    const ws = path.join(dir, '--dsh-workspace--');
    expect(tree().map((n) => [n.name, n.child])).toEqual([
      ['subagent', { id: 'preview-follow-up-builder', file: path.join(ws, 'preview-follow-up-builder', 'session.v3.jsonl'), by: 'named in its result' }],
      ['subagent_fork', { id: 'preview-architecture-review', file: path.join(ws, 'preview-architecture-review', 'session.v3.jsonl'), by: "its descriptor's label" }],
    ]);
    fs.rmSync(path.join(ws, 'preview-architecture-review'), { recursive: true });
    expect(tree().map((n) => n.child)[1]).toEqual({ missing: true });
  });
});
