// The read-only commands without --dir read the browser's default root
// (${DSH_HOME:-~/.dsh}/sessions when it exists, else the current folder), as
// the browser does; fork and simulate, which write, still need --dir.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTmp, evs, hashTree, hdr, tmpDir, turnRows, writeLog } from '../support/fixtures.js';
import { expectUsageError, runCli } from '../support/run-cli.js';

afterAll(cleanupTmp);

/** A HOME whose harness root holds a parent and its fork child, and an unrelated cwd. */
function harnessHome(): { home: string; root: string; cwd: string; env: Record<string, string> } {
  const home = tmpDir();
  const root = path.join(home, '.dsh', 'sessions');
  writeLog(path.join(root, 'flat', 'parent.jsonl'), hdr('parent'), evs(...turnRows(1), ...turnRows(2)));
  const seed = evs(...turnRows(1));
  writeLog(path.join(root, 'flat', 'child.jsonl'), hdr('child', { parentSession: 'parent', seedLength: seed.length }), [...seed, ...evs(...turnRows(2, { kind: 'completed' }, 'other prompt')).map((e, i) => ({ ...e, seq: seed.length + i }))]);
  const cwd = tmpDir();
  writeLog(path.join(cwd, 'not-this-one.jsonl'), hdr('not-this-one'), evs(...turnRows(1)));
  return { home, root, cwd, env: { HOME: home, DSH_HOME: '' } };
}

describe('read-only commands without --dir', () => {
  it('list reads the harness root, like the browser', () => {
    const h = harnessHome();
    const r = runCli(['list', '--json'], { cwd: h.cwd, env: h.env });
    expect(r.code, r.stderr).toBe(0);
    const ids = (JSON.parse(r.stdout).sessions as Array<{ id: string; file: string }>).map((s) => s.id).sort();
    expect(ids).toEqual(['child', 'parent']);
    // the browser names the same folder (its no-terminal hint)
    expect(runCli([], { cwd: h.cwd, env: h.env }).stderr).toContain(`--dir ${h.root}`);
  });

  it('tree, lineage, audit, find, diff and export read it too', () => {
    const h = harnessHome();
    const o = { cwd: h.cwd, env: h.env };
    const tree = runCli(['tree', '--session', 'parent', '--json'], o);
    expect(tree.code, tree.stderr).toBe(0);
    expect(JSON.parse(tree.stdout).file).toBe(path.join(h.root, 'flat', 'parent.jsonl'));
    const lineage = runCli(['lineage', '--json'], o);
    expect(lineage.code, lineage.stderr).toBe(0);
    expect(JSON.parse(lineage.stdout).edges).toHaveLength(1);
    const audit = runCli(['audit', '--json'], o);
    expect(audit.code, audit.stderr).toBeLessThan(2);
    expect(JSON.parse(audit.stdout)).toHaveProperty('findings');
    const find = runCli(['find', 'other prompt', '--json'], o);
    expect(find.code, find.stderr).toBe(0);
    expect(JSON.parse(find.stdout).matches.map((m: { id: string }) => m.id)).toContain('child');
    const diff = runCli(['diff', 'parent', 'child', '--json'], o);
    expect(diff.code, diff.stderr).toBe(0);
    expect(JSON.parse(diff.stdout).ancestor.id).toBe('parent');
    const exp = runCli(['export', '--session', 'child', '--format', 'json'], o);
    expect(exp.code, exp.stderr).toBe(0);
    expect(JSON.parse(exp.stdout).id).toBe('child');
    // each --json is written in pieces as it is made, laid out as one JSON.stringify(…, null, 2) of the whole
    for (const r of [lineage, audit, find]) expect(r.stdout).toBe(JSON.stringify(JSON.parse(r.stdout), null, 2) + '\n');
  });

  it('without a harness root: the current folder, as the browser', () => {
    const home = tmpDir();
    const cwd = tmpDir();
    writeLog(path.join(cwd, 'here.jsonl'), hdr('here'), evs(...turnRows(1)));
    const env = { HOME: home, DSH_HOME: '' };
    const r = runCli(['list', '--json'], { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).sessions.map((s: { id: string }) => s.id)).toEqual(['here']);
    expect(runCli([], { cwd, env }).stderr).toContain(`--dir ${fs.realpathSync(cwd)}`);
  });

  it('a DSH_HOME whose sessions folder is a file falls back the same way for both', () => {
    const home = tmpDir();
    fs.writeFileSync(path.join(home, 'sessions'), 'not a folder');
    const cwd = tmpDir();
    writeLog(path.join(cwd, 'here.jsonl'), hdr('here'), evs(...turnRows(1)));
    const env = { HOME: home, DSH_HOME: home };
    expect(JSON.parse(runCli(['list', '--json'], { cwd, env }).stdout).sessions).toHaveLength(1);
  });
});

describe('commands that write still need --dir', () => {
  it('fork and simulate without --dir: a usage error, the harness root untouched', () => {
    const h = harnessHome();
    const before = hashTree(h.root);
    expectUsageError(runCli(['fork', '--session', 'parent'], { cwd: h.cwd, env: h.env }), /missing --dir DIR \(fork writes into it/);
    expectUsageError(runCli(['simulate', '--turns', '1'], { cwd: h.cwd, env: h.env }), /missing --dir DIR \(simulate writes into it/);
    expect(hashTree(h.root)).toEqual(before);
    expect(fs.readdirSync(h.cwd)).toEqual(['not-this-one.jsonl']);
  });
});
