// Two forks' files side by side from their common ancestor: only-left,
// only-right, both with the same or a different final text, both with the
// same or different edits where the log lacks the text; what the parent did
// before the fork is inherited and never a branch's own.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { filePairText } from '../../src/session/branch-files.js';
import { compareSessions, comparisonJson } from '../../src/session/compare.js';
import type { SessionEvent } from '../../src/session/events.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, hdr, tmpDir, writeLog } from '../support/fixtures.js';

afterAll(cleanupTmp);

/** A turn of calls, each answered ok (meta as given), seqs from `from`. */
function turn(from: number, n: number, calls: Array<[string, unknown, unknown?]>): SessionEvent[] {
  const out: SessionEvent[] = [];
  const push = (type: string, data: unknown) => out.push({ type, seq: from + out.length, time: 1_800_000_000_000 + from + out.length, data });
  push('turn/start', { turn: n });
  calls.forEach(([name, args, meta], i) => {
    const id = `t${n}c${i}`;
    push('tool/call', { turn: n, step: 1, callId: id, name, arguments: JSON.stringify(args) });
    push('tool/result', { turn: n, step: 1, message: { role: 'user', content: [{ type: 'tool-result', toolCallId: id, content: [{ type: 'text', text: 'ok' }], isError: false }], source: { kind: 'tool', callId: id } }, ...(meta ? { meta } : {}) });
  });
  push('turn/end', { turn: n, reason: { kind: 'completed' } });
  return out;
}

describe('the files of two forks, side by side', () => {
  const dir = tmpDir();
  const parent = turn(0, 1, [
    ['write', { file_path: 'shared.ts', content: 'one\n' }],
    ['edit', { file_path: 'unknown.ts', old_string: 'p', new_string: 'q' }],
  ]);
  writeLog(path.join(dir, 'root.jsonl'), hdr('root'), parent);
  const n = parent.length;
  const child = (id: string, calls: Array<[string, unknown, unknown?]>) =>
    writeLog(path.join(dir, `${id}.jsonl`), hdr(id, { parentSession: 'root', seedLength: n, createdAt: 1_800_000_000_000 }), [...parent, ...turn(n, 2, calls)]);
  child('left', [
    ['write', { file_path: 'only-left.ts', content: 'l\n' }],
    ['write', { file_path: 'same.ts', content: 'x\n' }],
    ['write', { file_path: 'differ.ts', content: 'left\n' }],
    ['edit', { file_path: 'unknown.ts', old_string: 'q', new_string: 'r' }],
    ['edit', { file_path: 'edited.ts', old_string: 'a', new_string: 'b' }],
    ['edit', { file_path: 'shared.ts', old_string: 'one', new_string: 'uno' }],
  ]);
  child('right', [
    ['write', { file_path: 'only-right.ts', content: 'r\n' }],
    ['write', { file_path: 'same.ts', content: 'x\n' }],
    ['write', { file_path: 'differ.ts', content: 'right\n' }],
    ['edit', { file_path: 'unknown.ts', old_string: 'q', new_string: 'r' }],
    ['edit', { file_path: 'edited.ts', old_string: 'a', new_string: 'c' }],
  ]);
  const index = loadRootSync(dir);
  const get = (id: string) => index.store.getAll(id)[0];
  const c = compareSessions(get('left'), get('right'), index.store.list());
  const verdicts = Object.fromEntries(c.files.map((f) => [f.path, f.verdict]));

  it('says which branch changed each file, and whether the two ended the same', () => {
    expect(c.ancestor?.session.id).toBe('root');
    expect(verdicts).toEqual({
      'only-left.ts': 'only left',
      'shared.ts': 'only left',
      'only-right.ts': 'only right',
      'same.ts': 'same text',
      'differ.ts': 'different text',
      'unknown.ts': 'same edits',
      'edited.ts': 'different edits',
    });
  });

  it("never counts the parent's edits before the fork as a branch's own", () => {
    const shared = c.left.changes.files.find((f) => f.path === 'shared.ts')!;
    expect(shared.edits.map((e) => e.inherited)).toEqual([true, false]);
    expect([shared.added, shared.removed]).toEqual([1, 1]);
    // the right branch did not touch it: only the inherited write, so it is no file of its own
    expect(c.files.find((f) => f.path === 'shared.ts')!.right).toBeUndefined();
    expect(c.right.changes.files.find((f) => f.path === 'shared.ts')!.added).toBe(0);
  });

  it('a file both changed reads as one diff of the two versions when the log holds both texts', () => {
    const differ = c.files.find((f) => f.path === 'differ.ts')!;
    expect(filePairText(differ, 'left', 'right')).toContain('--- left/differ.ts\n+++ right/differ.ts\n@@ -1,1 +1,1 @@\n-left\n+right\n');
    const edited = c.files.find((f) => f.path === 'edited.ts')!;
    const text = filePairText(edited, 'left', 'right');
    expect(text).toContain('# left\n');
    expect(text).toContain('+b');
    expect(text).toContain('# right\n');
    expect(text).toContain('+c');
  });

  it('diff --json carries each side changes and the files verdicts', () => {
    const j = comparisonJson(c);
    expect(j.files).toContainEqual({ path: 'same.ts', verdict: 'same text' });
    expect(j.left.changes.files.map((f) => f.path)).toContain('only-left.ts');
    expect(j.right.changes.files.map((f) => f.path)).toContain('only-right.ts');
  });
});
