// Vitest global setup of the app and huge tiers: build dist/ once before
// their first file runs. Their tests spawn the built bin
// (dist/dsh-browse.mjs) in a real terminal or as a CLI; without this,
// `npx vitest run` after a source change would silently test the old
// bundle. One build per run (about 10 s), whatever starts the run: `npm
// test`, `npx vitest run <file>`, or an editor. The unit tier never builds.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export default function setup(): void {
  // the app and huge tiers both list this setup: one build when a run has both
  if (process.env.DSH_TEST_DIST_BUILT === '1') return;
  const node = process.execPath;
  const run = (args: string[]) => execFileSync(node, args, { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'] });
  try {
    run([path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
    run([path.join(REPO, 'scripts', 'bundle.mjs')]);
  } catch {
    throw new Error('the build failed (tsc -p tsconfig.json && node scripts/bundle.mjs): fix it before the tests can run');
  }
  process.env.DSH_TEST_DIST_BUILT = '1';
}
