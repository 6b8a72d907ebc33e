// Starts the Ink browser. Without a terminal (stdin or stdout not a TTY) it
// prints a one-line hint pointing at the headless commands and returns 2,
// instead of letting Ink fail in raw mode.
//
// The first frame does not wait for the root: the app mounts at once, and the
// folders are walked and their files indexed in small time-boxed batches
// (scanRoot) while the app paints and takes keys. Then the root is followed live.
import { render } from 'ink';
import React from 'react';
import { App } from '../components/app.js';
import { followRoot, type Follower } from './storage/follow.js';
import { newRootIndex } from './storage/load-root.js';
import { scanRoot } from './storage/scan.js';

export interface TuiOptions {
  /** follow the root live after the scan (default true) */
  follow?: boolean;
}

export async function runTui(dir: string, opts: TuiOptions = {}): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write(`dsh-browse: the browser needs an interactive terminal; for scripts use the headless commands: dsh-browse list --dir ${dir} (see --help)\n`);
    return 2;
  }
  const index = newRootIndex(dir);
  index.scan = { done: 0, finished: false };
  // Not Ink's incrementalRendering: with frames that change height while the
  // scan fills the list it left stale lines on screen (seen in the pty e2e test).
  const app = render(React.createElement(App, { index }), { exitOnCtrlC: true });
  const abort = new AbortController();
  let follower: Follower | undefined;
  const scanned = scanRoot(index, { signal: abort.signal, onProgress: (p) => (index.scan = p) }).then(() => {
    if (abort.signal.aborted || opts.follow === false) return;
    index.live = { mode: 'watch' };
    follower = followRoot(index, {
      onStatus: (message) => {
        index.live = { mode: follower?.mode ?? index.live?.mode ?? 'watch', message };
        index.store.emit();
      },
    });
    index.live.mode = follower.mode;
    index.store.emit();
  });
  try {
    await app.waitUntilExit();
  } finally {
    abort.abort();
    await scanned.catch(() => undefined);
    follower?.close();
  }
  return 0;
}
