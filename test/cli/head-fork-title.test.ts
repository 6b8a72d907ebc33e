// A fork at the head of an RFC-era child keeps its parent's title: its own
// log only knows the first prompt it inherited (the root's), while the
// parent's title is the first prompt after ITS seed. Reproduced as a user
// would: `fork` at the head into a temp copy of the corpus, then `list --json`.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTmp, copyDir, evs, hdr, SAMPLE_DIR, tmpDir, turnRows, writeLog } from '../support/fixtures.js';
import { runCli } from '../support/run-cli.js';

afterAll(cleanupTmp);

function titles(dir: string): Map<string, string | undefined> {
  const r = runCli(['list', '--dir', dir, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return new Map((JSON.parse(r.stdout).sessions as Array<{ id: string; title?: string }>).map((s) => [s.id, s.title]));
}

function fork(dir: string, session: string, id: string): void {
  const r = runCli(['fork', '--dir', dir, '--session', session, '--id', id, '--json']);
  expect(r.code, r.stderr).toBe(0);
}

describe('a head fork keeps its parent title', () => {
  it('bisect-ci-timeout (itself a fork child) forked at its head, and that child again', () => {
    const dir = copyDir(SAMPLE_DIR, path.join(tmpDir(), 'sample'));
    fork(dir, 'bisect-ci-timeout', 'head-child');
    fork(dir, 'head-child', 'head-grandchild');
    const t = titles(dir);
    expect(t.get('bisect-ci-timeout')).toMatch(/^Bisect it/);
    expect(t.get('head-child')).toBe(t.get('bisect-ci-timeout'));
    expect(t.get('head-grandchild')).toBe(t.get('bisect-ci-timeout'));
  });

  it('a child listed before its parent, and a fork cut inside the parent seed', () => {
    const dir = tmpDir();
    const root = evs(...turnRows(1, undefined, 'root prompt'), ...turnRows(2, undefined, 'parent prompt'));
    writeLog(path.join(dir, 'z-root.jsonl'), hdr('root'), root.slice(0, 7));
    // the parent: forked from root after turn 1, then its own turn 2
    writeLog(path.join(dir, 'y-parent.jsonl'), hdr('parent', { parentSession: 'root', seedLength: 7 }), root);
    // a head fork of the parent (named to be read first), and one cut inside the parent's seed
    writeLog(path.join(dir, 'a-head.jsonl'), hdr('head', { parentSession: 'parent', seedLength: 14 }), root);
    writeLog(path.join(dir, 'b-early.jsonl'), hdr('early', { parentSession: 'parent', seedLength: 7 }), root.slice(0, 7));
    const t = titles(dir);
    expect(t.get('parent')).toBe('parent prompt');
    expect(t.get('head')).toBe('parent prompt');
    // before the parent's own prompt, the parent showed its inherited title: the root's
    expect(t.get('early')).toBe('root prompt');
    expect(fs.readdirSync(dir).sort()).toEqual(['a-head.jsonl', 'b-early.jsonl', 'y-parent.jsonl', 'z-root.jsonl']);
  });

  it('a head fork continued with its own prompt shows that prompt', () => {
    const dir = tmpDir();
    const base = evs(...turnRows(1, undefined, 'root prompt'), ...turnRows(2, undefined, 'parent prompt'));
    writeLog(path.join(dir, 'root.jsonl'), hdr('root'), base.slice(0, 7));
    writeLog(path.join(dir, 'parent.jsonl'), hdr('parent', { parentSession: 'root', seedLength: 7 }), base);
    const own = evs(...turnRows(1), ...turnRows(2), ...turnRows(3, undefined, 'my own prompt'));
    writeLog(path.join(dir, 'child.jsonl'), hdr('child', { parentSession: 'parent', seedLength: 14 }), [...base, ...own.slice(14)]);
    expect(titles(dir).get('child')).toBe('my own prompt');
  });
});
