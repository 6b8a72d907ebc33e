// The fact cache from the command line: list uses and writes it, --no-cache
// neither reads nor writes it, `cache` says where it is, `cache --clear` empties it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheFileFor } from '../../src/storage/fact-cache.js';
import { agedSampleRoot, cleanupTmp, isRoot, tmpDir } from '../support/fixtures.js';
import { expectUsageError, runCli } from '../support/run-cli.js';

afterAll(cleanupTmp);


function setup() {
  const xdg = tmpDir('dsh-xdg-');
  const env = { XDG_CACHE_HOME: xdg };
  const dir = path.join(xdg, 'dsh-browse');
  return { root: agedSampleRoot(), env, dir };
}

describe('dsh-browse and the fact cache', () => {
  it('--no-cache writes nothing; list writes the cache (0600 in a 0700 folder) and a warm list prints the same', () => {
    const { root, env, dir } = setup();
    const plain = runCli(['list', '--json', '--no-cache', '--dir', root], { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(fs.existsSync(dir)).toBe(false);
    const cold = runCli(['list', '--json', '--dir', root], { env });
    expect(cold.stdout).toBe(plain.stdout);
    const file = cacheFileFor(root, dir)!;
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const mtime = fs.statSync(file).mtimeMs;
    const warm = runCli(['list', '--json', '--dir', root], { env });
    expect(warm.code, warm.stderr).toBe(0);
    expect(warm.stdout).toBe(plain.stdout);
    expect(warm.stderr).toBe('');
    // nothing changed: not rewritten
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
    // the text list and audit read it too
    // (the AGE column masked: the clock may cross a unit between the two runs)
    const rows = (out: string) => out.split('\n').map((l) => l.replace(/ \d+(?:s|m|h|d|w|mo|y) +/g, ' ? ').replace(/ +/g, ' '));
    expect(rows(runCli(['list', '--dir', root], { env }).stdout)).toEqual(rows(runCli(['list', '--no-cache', '--dir', root], { env }).stdout));
    const audit = runCli(['audit', '--json', '--dir', root], { env });
    expect(audit.stdout).toBe(runCli(['audit', '--json', '--no-cache', '--dir', root], { env }).stdout);
  });

  it('`cache` prints the folder and its size; `cache --clear` removes its files', () => {
    const { root, env, dir } = setup();
    runCli(['list', '--dir', root], { env });
    const info = runCli(['cache'], { env });
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain(dir);
    expect(info.stdout).toMatch(/1 file\(s\), [1-9]\d* bytes/);
    const clear = runCli(['cache', '--clear'], { env });
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stdout).toContain('removed 1 file(s)');
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(runCli(['cache'], { env }).stdout).toMatch(/0 file\(s\), 0 bytes/);
  });

  it('a damaged cache file never breaks a run (and is rebuilt)', () => {
    const { root, env, dir } = setup();
    const plain = runCli(['list', '--json', '--no-cache', '--dir', root], { env }).stdout;
    runCli(['list', '--dir', root], { env });
    const file = cacheFileFor(root, dir)!;
    fs.writeFileSync(file, 'garbage\u0000\n{"x":');
    const r = runCli(['list', '--json', '--dir', root], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(plain);
    expect(r.stderr).toBe('');
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^\{"dshBrowseCache"/);
  });

  it.skipIf(isRoot)('a read-only cache folder never breaks a run', () => {
    const { root, env, dir } = setup();
    const plain = runCli(['list', '--json', '--no-cache', '--dir', root], { env }).stdout;
    fs.mkdirSync(dir, { recursive: true, mode: 0o500 });
    try {
      const r = runCli(['list', '--json', '--dir', root], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(plain);
      expect(r.stderr).toBe('');
    } finally {
      fs.chmodSync(dir, 0o700);
    }
  });

  it('--help names --no-cache and cache --clear; --clear elsewhere is a usage error', () => {
    const help = runCli(['--help']);
    expect(help.stdout).toContain('--no-cache');
    expect(help.stdout).toContain('cache [--clear]');
    expect(runCli(['cache', '--help']).stdout).toContain('--clear removes its files');
    expectUsageError(runCli(['list', '--clear']), /--clear belongs to the cache command/);
  });
});
