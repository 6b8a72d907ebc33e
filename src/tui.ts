// Starts the Ink browser. Without a terminal (stdin or stdout not a TTY) it
// prints a one-line hint pointing at the headless commands and returns 2,
// instead of letting Ink fail in raw mode.
//
// Full screen, as less, htop and lazygit are: the alternate screen buffer and
// bracketed paste are switched on for the app's life and always switched off
// again: on q, Ctrl-C, SIGTERM/SIGHUP/SIGINT and an unexpected error.
//
// The first frame does not wait for the root: the app mounts at once, and the
// folders are walked and their files indexed in small time-boxed batches
// (scanRoot) while the app paints and takes keys. Then the root is followed live.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { render } from 'ink';
import React from 'react';
import { AppController } from '../components/app/app-controller.js';
import { App } from '../components/app/app.js';
import type { TuiStartOptions } from './cli/default-root.js';
import type { ResumeCommand } from './session/resume-command.js';
import { pagerCommand } from './cli/pager-command.js';
import { sanitizeInline } from './view/text/sanitize.js';
import { followRoot, type Follower } from './storage/follow.js';
import { EarlyWatches } from './storage/early-watches.js';
import { HOT_FOLDERS } from './storage/watcher.js';
import { attachCache, newRootIndex } from './storage/load-root.js';
import { FindingsCache } from './storage/findings-cache.js';
import { ContentIndex } from './storage/content-index.js';
import { isProjectFolderName } from './storage/layout.js';
import { scanRoot, type ScanProgress } from './storage/scan.js';
import { collectUnderPressure, collectWhenQuiet } from './quiet-gc.js';
import { milestone, traceCollections } from './trace.js';

export interface TuiOptions extends Partial<TuiStartOptions> {
  /** follow the root live after the scan (default true) */
  follow?: boolean;
  /** --no-cache: neither read nor write the fact cache (storage/fact-cache.ts) */
  noCache?: boolean;
}

const ENTER_SCREEN = '\x1b[?1049h\x1b[?2004h';
const LEAVE_SCREEN = '\x1b[?2004l\x1b[?25h\x1b[?1049l';
const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;
/** the first scan's batches between two looks at the loop (keys): a batch overshoots by a file and the store's news, ~15-25 ms at 12 */
const SCAN_SLICE_MS = 8;

export async function runTui(dir: string, opts: TuiOptions = {}): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write(`dsh-browse: the browser needs an interactive terminal; for scripts use the headless commands: dsh-browse list --dir ${dir} (see --help)\n`);
    return 2;
  }
  milestone('tui');
  traceCollections();
  const index = newRootIndex(dir);
  // unchanged files come from the fact cache; it is rewritten once, when the first scan ends
  if (!opts.noCache) attachCache(index);
  // and the audit's findings of unchanged sessions (and parents) from the findings cache
  const auditMemory = opts.noCache ? undefined : new FindingsCache(index);
  index.scan = { done: 0, finished: false };
  let restored = false;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    try {
      if (process.stdin.isTTY) process.stdin.setRawMode(false);
    } catch {
      // the terminal may be gone (SIGHUP)
    }
    process.stdout.write(LEAVE_SCREEN);
  };
  process.stdout.write(ENTER_SCREEN);

  // Not Ink's incrementalRendering: with frames that change height while the
  // scan fills the list it left stale lines on screen (seen in the pty e2e test).
  // Ctrl-C is a key like any other (the reducer quits on it, even inside a burst).
  const controller = new AppController(index, {
    size: { columns: process.stdout.columns || 80, rows: process.stdout.rows || 24 },
    rootLabel: opts.rootLabel,
    // projects exist only in a harness root: elsewhere a scope toggle would only hide sessions
    scope: opts.defaultRoot || isHarnessRoot(dir) ? opts.scope : undefined,
    // like dsh's own /resume: in its root, the list starts with the current project (p toggles, --all starts with all)
    startScoped: opts.defaultRoot === true && !opts.all,
    auditMemory,
    // which logs may hold which words (the filter, the Turns search): opened after the scan, off the list's path
    contentIndex: opts.noCache ? undefined : () => new ContentIndex(index.root),
  });
  const app = render(React.createElement(App, { index, controller }), { exitOnCtrlC: false });
  // the first scan's garbage goes back to the system once the browser is quiet (quiet-gc.ts)
  const stopGc = collectWhenQuiet({ isQuiet: () => index.scan?.finished === true && !controller.busy, sinceKeyMs: () => controller.sinceKeyMs });
  // and a long background read's garbage is collected while it runs, before V8 would (quiet-gc.ts)
  const stopPressureGc = collectUnderPressure();
  // O in the reader: leave the screen for $PAGER (default less -R) with the content on its stdin, then come back
  controller.onPager = (content) => {
    const { command, args } = pagerCommand(process.env);
    try {
      if (process.stdin.isTTY) process.stdin.setRawMode(false);
      process.stdout.write(LEAVE_SCREEN);
      const r = spawnSync(command, args, { input: content, stdio: ['pipe', 'inherit', 'inherit'] });
      if (r.error) return `cannot run ${command}: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}`;
      return undefined;
    } finally {
      process.stdout.write(ENTER_SCREEN + '\x1b[H');
      if (process.stdin.isTTY) process.stdin.setRawMode(true);
      controller.repaint(); // the screen is blank again: draw the last frame whole, now
    }
  };
  const onSignal = (sig: keyof typeof SIGNALS): void => {
    app.unmount();
    restore();
    process.exit(128 + SIGNALS[sig]);
  };
  const onCrash = (e: unknown): void => {
    try {
      app.unmount();
    } catch {
      // already broken
    }
    restore();
    process.stderr.write(`dsh-browse: unexpected failure: ${e instanceof Error ? e.message : String(e)}\n`);
    if (process.env.DSH_BROWSE_DEBUG) process.stderr.write(String((e as Error)?.stack) + '\n');
    process.exit(3);
  };
  for (const sig of Object.keys(SIGNALS) as Array<keyof typeof SIGNALS>) process.on(sig, onSignal);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);

  const abort = new AbortController();
  let follower: Follower | undefined;
  const onProgress = (p: ScanProgress): void => {
    index.scan = p;
    if (p.reading) controller.scanProgressed();
    if (p.finished) {
      milestone('scan finished');
      controller.scanFinished();
    }
  };
  // the watcher's watches, taken as the scan walks (before it reads each folder's files): it then need not stat them all again
  const early = opts.follow === false ? undefined : new EarlyWatches(HOT_FOLDERS);
  const scanned = scanRoot(index, { signal: abort.signal, onProgress, budgetMs: SCAN_SLICE_MS, early }).then(async () => {
    milestone('fact cache saved');
    if (!abort.signal.aborted) await Promise.race([controller.listReady, new Promise((resolve) => abort.signal.addEventListener('abort', resolve, { once: true }))]);
    if (abort.signal.aborted || opts.follow === false) return early?.close();
    index.live = { mode: 'watch' };
    follower = followRoot(index, {
      early,
      onStatus: (message) => {
        index.live = { mode: follower?.mode ?? index.live?.mode ?? 'watch', message };
        index.store.emit();
      },
    });
    index.live.mode = follower.mode;
    index.store.emit();
    void follower.ready.then(() => milestone('watcher ready'));
  });
  try {
    await app.waitUntilExit();
  } finally {
    abort.abort();
    stopGc();
    stopPressureGc();
    await scanned.catch(() => undefined);
    await auditMemory?.written; // a findings write under way ends (it never rejects): no temp file left behind
    follower?.close();
    early?.close();
    restore();
    for (const sig of Object.keys(SIGNALS) as Array<keyof typeof SIGNALS>) process.off(sig, onSignal);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    controller.close();
  }
  return controller.pendingRun ? runResume(controller.pendingRun) : 0;
}

/** A harness root holds project folders: `--<project>--` (rc.8), `cwd-<hash>` (RFC era) or `_no-cwd`. */
function isHarnessRoot(dir: string): boolean {
  try {
    return fs.readdirSync(dir).some(isProjectFolderName);
  } catch {
    return false;
  }
}

/** The first executable `name` on the PATH, if any. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** R: with the terminal restored, run `dsh --resume=ID` in the session's cwd; without dsh, print the command. */
function runResume(rc: ResumeCommand): number {
  const dsh = onPath('dsh');
  const shown = sanitizeInline(rc.shell);
  if (!dsh) {
    process.stdout.write(`dsh is not on the PATH; to continue the session run:\n  ${shown}\n`);
    return 0;
  }
  if (rc.cwd !== undefined && !fs.existsSync(rc.cwd)) {
    process.stderr.write(`dsh-browse: the session's cwd ${sanitizeInline(rc.cwd)} does not exist here; the command was:\n  ${shown}\n`);
    return 1;
  }
  const r = spawnSync(dsh, rc.argv, { cwd: rc.cwd, stdio: 'inherit' });
  return r.status ?? 1;
}
