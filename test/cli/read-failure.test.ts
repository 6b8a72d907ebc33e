// A session's log that vanishes, or shrinks, between the index and the
// command that streams it: `tree` and `export` end with a ReadFailure naming
// the file (exit 1 and one line, never "unexpected failure" exit 3), and a
// fork refuses with READ_FAILED and writes nothing. Never a short output or a
// short seed taken for a whole one.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cmdExport } from '../../src/cli/branch-commands.js';
import { cmdTree, ReadFailure, type Out } from '../../src/cli/commands.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, evs, hdr, listTree, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterEach(cleanupTmp);

const EVENTS = evs(...turnRows(1), ...turnRows(2), ...turnRows(3));

function setup() {
  const root = tmpDir();
  const file = writeLog(path.join(root, 's.jsonl'), hdr('s', { cwd: '/c' }), EVENTS);
  const index = loadRootSync(root, { cache: false });
  return { root, file, index, s: index.store.getAll('s')[0] };
}

const sink = (json: boolean): Out & { text: string } => {
  const o = { json, color: false, text: '', write: (t: string) => void (o.text += t) };
  return o;
};

describe('a log that changes under a streaming command', () => {
  it('vanished: tree and export are a ReadFailure naming the file', async () => {
    const { file, index, s } = setup();
    fs.rmSync(file);
    await expect(cmdTree(s, sink(true))).rejects.toThrow(ReadFailure);
    await expect(cmdTree(s, sink(false))).rejects.toThrow(/cannot read .*s\.jsonl: .*ENOENT/);
    await expect(cmdExport(index, s, undefined, 'md', sink(false))).rejects.toThrow(/cannot read .*ENOENT/);
  });

  it('truncated: the output stops where the log does and says so', async () => {
    const { file, index, s } = setup();
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.slice(0, text.indexOf('\n', text.length / 2) + 1));
    await expect(cmdTree(s, sink(true))).rejects.toThrow(/ended after \d+ of its 21 events/);
    await expect(cmdExport(index, s, undefined, 'json', sink(false))).rejects.toThrow(/ended after \d+ of its 21 events/);
    // --at before the cut still has all it needs
    const out = sink(false);
    await expect(cmdExport(index, s, 2, 'md', out)).resolves.toBe(0);
    expect(out.text).toContain('seq 0–2');
  });

  it('truncated: a fork is refused with READ_FAILED and writes nothing', () => {
    const { root, file, index, s } = setup();
    const before = listTree(root);
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.slice(0, text.indexOf('\n', text.length / 2) + 1));
    const after = listTree(root);
    expect(() => index.store.fork({ source: s, sessionId: 'kid' })).toThrow(expect.objectContaining({ code: 'READ_FAILED' }));
    expect(listTree(root)).toEqual(after);
    expect(before.length).toBe(after.length);
  });
});
