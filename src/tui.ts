// Starts the Ink browser. Without a terminal (stdin or stdout not a TTY) it
// prints a one-line hint pointing at the headless commands and returns 2,
// instead of letting Ink fail in raw mode.
import { render } from 'ink';
import React from 'react';
import { App } from '../components/app.js';
import { indexFile, listSessionFiles, newRootIndex, type RootIndex } from './storage/load-root.js';
import { sanitizeInline } from './view/sanitize.js';

/** How long loading may take before it shows progress. */
const PROGRESS_AFTER_MS = 100;

/**
 * loadRootSync, one file at a time, reporting progress once loading has taken
 * longer than a moment. Same result as loadRootSync (one bad file never fails
 * the load). A later change makes loading incremental inside the app.
 */
export function loadWithProgress(dir: string, progress: (done: number, total: number) => void): RootIndex {
  const index = newRootIndex(dir);
  const files = listSessionFiles(index.root);
  const started = Date.now();
  let last = 0;
  files.forEach((f, i) => {
    try {
      indexFile(index, f);
    } catch (e) {
      index.files.set(f, { size: 0, ino: 0, mtimeMs: 0, pending: 0, refused: [{ file: f, severity: 'error', code: 'READ_FAILED', message: String((e as Error).message ?? e) }] });
    }
    const t = Date.now();
    if (t - started > PROGRESS_AFTER_MS && t - last > 50) {
      last = t;
      progress(i + 1, files.length);
    }
  });
  return index;
}

export async function runTui(dir: string): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write(`dsh-browse: the browser needs an interactive terminal; for scripts use the headless commands: dsh-browse list --dir ${dir} (see --help)\n`);
    return 2;
  }
  const shown = sanitizeInline(dir);
  let reported = false;
  const index = loadWithProgress(dir, (done, total) => {
    reported = true;
    process.stdout.write(`\r\x1b[Kloading ${shown}… ${done}/${total} files`);
  });
  if (reported) process.stdout.write('\r\x1b[K');
  const app = render(React.createElement(App, { index }), { exitOnCtrlC: true });
  await app.waitUntilExit();
  return 0;
}
