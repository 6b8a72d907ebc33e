// Every built module loads when it is the first one imported. The modules
// import each other in cycles (the keymap's tables read verdicts that read
// the state that reads the keymap), and a cycle only works while no table
// reads a binding before its module has run: a `const` arrow function there
// threw "Cannot access 'exportDisabled' before initialization" in the bench,
// whose first import differs from the app's and the tests'. One process per
// module, as each entry point (the bin, the bench, a test) would load it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/fixtures.js';

/** Entry points that act when loaded (the command line itself): not imported here. */
const ACTS_ON_LOAD = new Set(['cli.js']);

function modules(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...modules(p));
    else if (e.name.endsWith('.js') && !ACTS_ON_LOAD.has(path.relative(path.join(REPO, 'dist', 'src'), p))) out.push(p);
  }
  return out.sort();
}

function load(file: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(file).href)});`], { timeout: 60_000 }, (err, _out, stderr) =>
      resolve(err ? `${path.relative(REPO, file)}: ${stderr.split('\n').find((l) => /Error/.test(l)) ?? err.message}` : undefined),
    );
  });
}

describe('built modules', () => {
  it('each loads when it is imported first (no binding read before its module ran)', async () => {
    const files = modules(path.join(REPO, 'dist', 'src'));
    expect(files.length).toBeGreaterThan(100);
    const failures: string[] = [];
    // two at a time: one process each, on a machine of two cores
    for (let i = 0; i < files.length; i += 2) for (const f of await Promise.all(files.slice(i, i + 2).map(load))) if (f) failures.push(f);
    expect(failures).toEqual([]);
  }, 300_000);
});
