// `dsh-browse changes`, run as the built bin on a temp copy of the sample
// corpus: the files a session and a branch changed, text and JSON, and its
// usage errors; no file's bytes change.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTmp, copyDir, hashTree, SAMPLE_DIR, tmpDir } from '../support/fixtures.js';
import { expectUsageError, runCli } from '../support/run-cli.js';

afterAll(cleanupTmp);

describe('dsh-browse changes', () => {
  let dir: string;
  let before: Map<string, string>;
  beforeAll(() => {
    dir = copyDir(SAMPLE_DIR, tmpDir());
    before = hashTree(dir);
  });
  afterAll(() => expect(hashTree(dir)).toEqual(before));

  it('prints each file with its counts, the commands with their exits, then each edit as a diff', () => {
    const r = runCli(['changes', '--dir', dir, 'fix-flaky-retry-test']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('M src/lib/retry-queue.ts  +1 −1  1 edit');
    expect(r.stdout).toContain('M test/retry-queue.test.ts  +2 −2  2 edits');
    expect(r.stdout).toContain('ran npm test (exit 0)');
    expect(r.stdout).toMatch(/# src\/lib\/retry-queue\.ts: seq 111, turn 3, edit\n--- a\/src\/lib\/retry-queue\.ts\n\+\+\+ b\/src\/lib\/retry-queue\.ts\n@@ -\?,1 \+\?,1 @@\n-const jitter = Math\.random\(\) \* base;\n\+const jitter/);
  });

  it('--json: files with their edits, commands and unknown effects; a fork child sets its seed apart', () => {
    const r = runCli(['changes', '--dir', dir, 'fix-flaky-retry-test.spy-random', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.id).toBe('fix-flaky-retry-test.spy-random');
    expect(j.since).toBeNull();
    expect(j.files.map((f: { path: string; added: number; removed: number }) => [f.path, f.added, f.removed])).toEqual([['test/retry-queue.test.ts', 1, 0]]);
    expect(j.files[0].edits[0]).toMatchObject({ seq: 89, turn: 3, tool: 'edit', failed: false, inherited: false });
    expect(j.commands.filter((c: { inherited: boolean }) => c.inherited).length).toBeGreaterThan(0);
    expect(Object.keys(j)).toEqual(['id', 'file', 'since', 'files', 'commands', 'unknown']);
  });

  it('--since OTHER: what the two branches share is inherited', () => {
    const r = runCli(['changes', '--dir', dir, 'fix-flaky-retry-test', '--since', 'fix-flaky-retry-test.spy-random', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.since.id).toBe('fix-flaky-retry-test.spy-random');
    // the parent's own edits come after the fork's cut: its own; its first turns' commands: shared
    expect(j.files.every((f: { edits: Array<{ inherited: boolean }> }) => f.edits.every((e) => !e.inherited))).toBe(true);
    expect(j.commands[0].inherited).toBe(true);
    const self = runCli(['changes', '--dir', dir, 'fix-flaky-retry-test', '--since', path.join(dir, 'fix-flaky-retry-test.jsonl'), '--json']);
    expect(JSON.parse(self.stdout).commands.every((c: { inherited: boolean }) => !c.inherited)).toBe(true);
  });

  it('refuses a missing or unknown session with a usage error', () => {
    expectUsageError(runCli(['changes', '--dir', dir]), /changes needs a session/);
    expectUsageError(runCli(['changes', '--dir', dir, 'no-such-session']), /no-such-session/);
    expectUsageError(runCli(['changes', '--dir', dir, 'fix-flaky-retry-test', '--since', 'nope']), /nope/);
    expectUsageError(runCli(['changes', '--dir', dir, 'a', 'b']), /unexpected argument "b"/);
  });
});
