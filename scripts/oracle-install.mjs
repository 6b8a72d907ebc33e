#!/usr/bin/env node
// Installs the harness's own code that the suite uses as its judge (test/oracle/*:
// its published session-format packages, and rc.8's session loader with the Node 22
// it needs). Each folder has its own lock file and is installed with `npm ci` only
// when that lock changed since its last install, so `npm test` pays for it once.
// None of it enters the shipped bundle: it lives under test/ and is never imported
// by src/.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ORACLES = ['format', 'rc8'].map((name) => path.join(REPO, 'test', 'oracle', name));

/** The lock's hash, as the last successful install of `dir` noted it. */
const MARK = '.installed-lock';
const lockHash = (dir) => createHash('sha256').update(fs.readFileSync(path.join(dir, 'package-lock.json'))).digest('hex');
export const isInstalled = (dir) => {
  try {
    return fs.readFileSync(path.join(dir, 'node_modules', MARK), 'utf8') === lockHash(dir);
  } catch {
    return false;
  }
};

function install(dir) {
  if (isInstalled(dir)) return;
  const started = Date.now();
  process.stdout.write(`oracle: installing ${path.relative(REPO, dir)} (npm ci)… `);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  fs.writeFileSync(path.join(dir, 'node_modules', MARK), lockHash(dir));
  process.stdout.write(`done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let failed = false;
  for (const dir of ORACLES) {
    try {
      install(dir);
    } catch (e) {
      failed = true;
      process.stdout.write('\n');
      console.error(`oracle: could not install ${path.relative(REPO, dir)} (${e.message.split('\n')[0]}); the tests that judge by the harness's own code will fail and say so`);
    }
  }
  // the rest of the suite still runs: only the oracle's own tests need it
  process.exitCode = 0;
  if (failed && process.env.CI) process.exitCode = 1;
}
