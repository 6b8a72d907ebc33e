// The command line's own words for its mistakes: a path that
// does not exist or is a file is called that (not "unknown command"), `help`
// is `--help`, and an unknown or malformed option gets our message, not
// parseArgs' (which printed an unbalanced quote).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { optionProblem } from '../../src/cli/options.js';
import { cleanupTmp, evs, hdr, SAMPLE_DIR, tmpDir, turnRows, writeLog } from '../support/fixtures.js';
import { expectUsageError, runCli } from '../support/run-cli.js';

afterAll(cleanupTmp);

describe('a positional that is not a folder', () => {
  it('a path that does not exist: the folder does not exist', () => {
    const missing = path.join(tmpDir(), 'nonexistent');
    const r = runCli([missing]);
    expectUsageError(r, new RegExp(`^dsh-browse: folder ${JSON.stringify(missing).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} does not exist$`));
    expect(r.stderr).not.toMatch(/unknown command/);
    expect(r.stdout).toBe('');
  });
  it('a session file: a file, not a folder, naming the folder that holds it', () => {
    const dir = tmpDir();
    writeLog(path.join(dir, 'file.jsonl'), hdr('file'), evs(...turnRows(1)));
    const r = runCli(['file.jsonl'], { cwd: dir });
    expectUsageError(r, /^dsh-browse: "file\.jsonl" is a file, not a folder: give the folder that holds it \("\."\)$/);
    const abs = runCli([path.join(dir, 'file.jsonl')]);
    expectUsageError(abs, /is a file, not a folder/);
  });
  it('a session file name that does not exist is a missing path, not a command', () => {
    expectUsageError(runCli(['gone.jsonl'], { cwd: tmpDir() }), /^dsh-browse: folder "gone\.jsonl" does not exist$/);
  });
  it('a word that is no path stays a mistyped command with a suggestion', () => {
    expectUsageError(runCli(['lsit'], { cwd: tmpDir() }), /unknown command "lsit" — did you mean "list"\?/);
  });
  it('--dir gets the same words', () => {
    const dir = tmpDir();
    writeLog(path.join(dir, 'a.jsonl'), hdr('a'), evs(...turnRows(1)));
    expectUsageError(runCli(['list', '--dir', path.join(dir, 'nope')]), /^dsh-browse: --dir ".*nope" does not exist$/);
    expectUsageError(runCli(['list', '--dir', path.join(dir, 'a.jsonl')]), /^dsh-browse: ".*a\.jsonl" is a file, not a folder/);
  });
});

describe('help', () => {
  it('`help` prints exactly what --help prints, exit 0', () => {
    const a = runCli(['help']);
    const b = runCli(['--help']);
    expect(a.code).toBe(0);
    expect(a.stderr).toBe('');
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toContain('dsh-browse list');
  });
  it('`help list` is `list --help`; `help nosuch` is a usage error', () => {
    const a = runCli(['help', 'list']);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(runCli(['list', '--help']).stdout);
    expectUsageError(runCli(['help', 'lsit'], { cwd: tmpDir() }), /unknown command "lsit"/);
  });
});

describe('options', () => {
  it('an unknown option names itself and the command, with balanced quotes', () => {
    const r = runCli(['list', '--dir', SAMPLE_DIR, '--foo']);
    expectUsageError(r, /^dsh-browse: unknown option --foo for list; see dsh-browse list --help$/);
    expectUsageError(runCli(['--foo'], { cwd: tmpDir() }), /^dsh-browse: unknown option --foo; see dsh-browse --help$/);
    expectUsageError(runCli(['tree', '-x', '--dir', SAMPLE_DIR]), /^dsh-browse: unknown option -x for tree; see dsh-browse tree --help$/);
  });
  it('a missing or misplaced value, a value given to a switch', () => {
    expectUsageError(runCli(['list', '--dir']), /^dsh-browse: option --dir needs a value; see dsh-browse list --help$/);
    expectUsageError(runCli(['list', '--dir', '--json']), /^dsh-browse: option --dir needs a value, got the option --json \(write --dir=--json if that is the value\)/);
    expectUsageError(runCli(['list', '--dir', SAMPLE_DIR, '--json=yes']), /^dsh-browse: option --json takes no value \(got "yes"\)/);
  });
  it('optionProblem: nothing wrong with good options; --constructor is no option; -h is --help', () => {
    const cmd = (p: string[]) => p[0];
    expect(optionProblem(['list', '--dir', 'x', '--json', '-h'], cmd)).toBeUndefined();
    expect(optionProblem(['find', '--', '-word'], cmd)).toBeUndefined();
    expect(optionProblem(['list', '--constructor'], cmd)?.message).toMatch(/unknown option --constructor for list/);
  });
  it('stays a folder when the folder is named like a command-free path', () => {
    const dir = tmpDir();
    fs.mkdirSync(path.join(dir, 'sessions'));
    // the browser needs a terminal: reaching that message means the folder was accepted
    const r = runCli(['sessions'], { cwd: dir });
    expect(r.stderr).toMatch(/interactive terminal/);
  });
});
