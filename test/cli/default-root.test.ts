// The default root (${DSH_HOME:-~/.dsh}/sessions when it exists, else the
// current folder) and the current project's scope, with a temporary HOME/DSH_HOME.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRoot, harnessSessionsDir, tuiStartOptions } from '../../src/cli/default-root.js';
import { cwdFolder, projectKey } from '../../src/storage/layout.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { inProjectScope, projectScope, sessionsInScope } from '../../src/storage/project-scope.js';
import { cleanupTmp, evs, hdr, REPO, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterEach(cleanupTmp);
const CLI = path.join(REPO, 'dist', 'dsh-browse.mjs');
const T = evs(...turnRows(1));

describe('defaultRoot', () => {
  it('DSH_HOME/sessions when it exists; the title label says it is the dsh root', () => {
    const home = tmpDir();
    const dsh = path.join(home, 'custom');
    fs.mkdirSync(path.join(dsh, 'sessions'), { recursive: true });
    expect(defaultRoot({ DSH_HOME: dsh, HOME: home }, '/elsewhere')).toEqual({ dir: path.join(dsh, 'sessions'), label: 'dsh root ~/custom/sessions', harnessRoot: true });
  });
  it('~/.dsh/sessions without DSH_HOME', () => {
    const home = tmpDir();
    fs.mkdirSync(path.join(home, '.dsh', 'sessions'), { recursive: true });
    expect(defaultRoot({ HOME: home }, '/elsewhere')).toMatchObject({ dir: path.join(home, '.dsh', 'sessions'), label: 'dsh root ~/.dsh/sessions', harnessRoot: true });
    expect(harnessSessionsDir({ HOME: home, DSH_HOME: '' })).toBe(path.join(home, '.dsh', 'sessions'));
  });
  it('the current folder when the harness root does not exist', () => {
    const home = tmpDir();
    const cwd = tmpDir();
    expect(defaultRoot({ HOME: home }, cwd)).toEqual({ dir: cwd, label: cwd, harnessRoot: false });
  });

  it.skipIf(!fs.existsSync(CLI))('the bin without a folder opens DSH_HOME/sessions (its no-terminal hint names it); with one, that folder', () => {
    const home = tmpDir();
    const cwd = tmpDir();
    fs.mkdirSync(path.join(home, '.dsh', 'sessions'), { recursive: true });
    const env = { ...process.env, HOME: home, DSH_HOME: '' };
    const r = spawnSync(process.execPath, [CLI], { cwd, env, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--dir ${path.join(home, '.dsh', 'sessions')}`);
    const all = spawnSync(process.execPath, [CLI, '--all'], { cwd, env, encoding: 'utf8' });
    expect(all.status).toBe(2);
    expect(all.stderr).toContain('the browser needs an interactive terminal');
    const none = spawnSync(process.execPath, [CLI], { cwd, env: { ...env, HOME: cwd }, encoding: 'utf8' });
    expect(none.stderr).toContain(`--dir ${fs.realpathSync(cwd)}`);
  });
});

describe('project scope', () => {
  it('rc.8 project folder, RFC-era cwd bucket and a header cwd all count; other projects do not', () => {
    const root = tmpDir();
    const cwd = '/home/u/proj';
    const mine = [
      writeLog(path.join(root, projectKey(cwd), 'a', 'session.jsonl'), hdr('a', { cwd, delegationDepth: 0 }), T),
      writeLog(path.join(root, cwdFolder(cwd), 'b.jsonl'), hdr('b', { cwd }), T),
      writeLog(path.join(root, 'flat', 'c.jsonl'), hdr('c', { cwd }), T),
    ];
    writeLog(path.join(root, projectKey('/other'), 'd', 'session.jsonl'), hdr('d', { cwd: '/other', delegationDepth: 0 }), T);
    writeLog(path.join(root, '_no-cwd', 'e', 'session.jsonl'), hdr('e', { delegationDepth: 0 }), T);
    const idx = loadRootSync(root);
    expect(sessionsInScope(idx, cwd).map((s) => s.file).sort()).toEqual(mine.sort());
    const scope = projectScope(root, cwd);
    expect(scope.folders).toEqual([path.join(root, '--home-u-proj--'), path.join(root, cwdFolder(cwd))]);
    expect(inProjectScope({ file: path.join(root, '--home-u-proj--x', 'f', 'session.jsonl'), cwd: undefined }, scope)).toBe(false);
  });

  it('tuiStartOptions: label, scope of the working directory, --all', () => {
    expect(tuiStartOptions('/r', { label: 'dsh root ~/.dsh/sessions', all: true, defaultRoot: true }, '/w')).toEqual({
      rootLabel: 'dsh root ~/.dsh/sessions',
      scope: projectScope('/r', '/w'),
      all: true,
      defaultRoot: true,
    });
  });
});
