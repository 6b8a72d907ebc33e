// `simulate` refuses values it cannot use rather than replace them quietly:
// each is a usage error (exit 2, one line) and the folder is left exactly as
// it was.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simulateArgs } from '../../src/cli/simulate-options.js';
import { cleanupTmp, evs, hashTree, hdr, listTree, tmpDir, turnRows, writeLog } from '../support/fixtures.js';
import { expectUsageError, runCli } from '../support/run-cli.js';

afterAll(cleanupTmp);

function root(): string {
  const dir = tmpDir();
  writeLog(path.join(dir, 'taken.jsonl'), hdr('taken'), evs(...turnRows(1)));
  writeLog(path.join(dir, 'project', 'elsewhere.jsonl'), hdr('nested-id'), evs(...turnRows(1)));
  return dir;
}

describe('simulate: usage errors, nothing written', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['an empty id', ['--id', ''], /--id "": a session id must not be empty/],
    ['speed 0', ['--speed', '0'], /--speed expects a number above 0.*"0"/],
    ['a negative speed', ['--speed', '-1'], /--speed expects a number above 0.*"-1"/],
    ['a speed that is no number', ['--speed', 'abc'], /--speed expects a number above 0.*"abc"/],
    ['zero turns', ['--turns', '0'], /--turns expects a whole number of turns, 1 or more.*"0"/],
    ['a fractional turn count', ['--turns', '1.5'], /--turns expects/],
    ['the id of an existing file', ['--id', 'taken'], /--id "taken": .*taken\.jsonl already exists/],
    ['the id of a session elsewhere in the root', ['--id', 'nested-id'], /--id "nested-id": a session with that id already exists/],
  ];
  for (const [what, args, message] of cases) {
    it(what, () => {
      const dir = root();
      const before = hashTree(dir);
      const names = listTree(dir);
      const r = runCli(['simulate', '--dir', dir, '--speed', '1000', ...args]);
      expectUsageError(r, message);
      expect(r.stdout).toBe('');
      expect(listTree(dir)).toEqual(names);
      expect(hashTree(dir)).toEqual(before);
    });
  }

  it('valid values still play a session', () => {
    const dir = root();
    const r = runCli(['simulate', '--dir', dir, '--id', 'fresh', '--turns', '1', '--speed', '1e6', '--no-torn']);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(dir, 'fresh.jsonl'))).toBe(true);
  });
});

describe('simulateArgs', () => {
  it('keeps good values and the torn flag', () => {
    expect(simulateArgs({ id: 'x', turns: '2', speed: '2.5', noTorn: true })).toEqual({ id: 'x', turns: 2, speed: 2.5, torn: false });
    expect(simulateArgs({ speed: '.5', noTorn: false })).toEqual({ speed: 0.5, torn: true });
    expect(simulateArgs({ noTorn: false })).toEqual({ torn: true });
  });
  it('refuses Infinity, hex and blanks', () => {
    for (const speed of ['Infinity', '0x10', '', ' 1', '1e999']) expect(() => simulateArgs({ speed, noTorn: false }), speed).toThrow(/--speed/);
    for (const turns of ['', '-2', '1e3', 'x']) expect(() => simulateArgs({ turns, noTorn: false }), turns).toThrow(/--turns/);
  });
});
