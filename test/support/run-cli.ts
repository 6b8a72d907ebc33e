// Runs the bundled bin (dist/dsh-browse.mjs, built by build-once.ts) as users
// do, without colour and without CI's environment leaking into it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import { REPO } from './fixtures.js';
import { needsBuiltTier } from './tier.js';

needsBuiltTier('run-cli.ts spawns the built bin');
export const BIN = path.join(REPO, 'dist', 'dsh-browse.mjs');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[], opts: { cwd?: string; env?: Record<string, string | undefined> } = {}): CliRun {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', DSH_BROWSE_DEBUG: '', ...opts.env };
  delete env.CI;
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: opts.cwd, encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Exit 2 with one `dsh-browse: …` line on stderr (no stack trace), matching `pattern`. */
export function expectUsageError(r: CliRun, pattern?: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^dsh-browse: /);
  if (pattern) expect(lines[0]).toMatch(pattern);
}
