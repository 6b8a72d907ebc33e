/**
 * End-to-end harness: run a program in a REAL pseudo-terminal (@lydell/node-pty)
 * and read what a user would see through a headless xterm (@xterm/headless) fed
 * with everything the program writes.
 *
 *   const s = spawnPty(process.execPath, ['dist/dsh-browse.mjs', 'sample-sessions'], { cols: 100, rows: 30 });
 *   await s.waitFor('Sessions');
 *   s.write(keys.down);
 *   await s.waitFor(/▶ .*second/);
 *   s.kill();
 *
 * The child's environment has every CI marker removed (Ink's `is-in-ci` checks
 * `CI` and `CONTINUOUS_INTEGRATION`; under CI Ink stops redrawing and only
 * prints the last frame), `TERM=xterm-256color`, and no `FORCE_COLOR`,
 * `COLUMNS`/`LINES` or vitest markers. Values in `opts.env` are applied last, so
 * a test can still set `CI: 'true'` on purpose, or delete a key with `undefined`.
 */
import * as pty from '@lydell/node-pty';
import xtermHeadless from '@xterm/headless';
import { needsBuiltTier } from '../support/tier.js';

// @xterm/headless is CommonJS; take the class off the default export.
const { Terminal } = xtermHeadless;
type Terminal = InstanceType<typeof Terminal>;

export const keys = {
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  enter: '\r',
  esc: '\x1b',
  tab: '\t',
  shiftTab: '\x1b[Z',
  pgUp: '\x1b[5~',
  pgDn: '\x1b[6~',
  home: '\x1b[H',
  end: '\x1b[F',
  backspace: '\x7f',
  ctrlC: '\x03',
  ctrlD: '\x04',
} as const;

export type ScreenPredicate = string | RegExp | ((screen: string) => boolean);

export interface PtyExit {
  exitCode: number;
  signal?: number;
}

export interface PtySession {
  /** The child's pid. */
  readonly pid: number;
  /** Visible rows joined by `\n`, trailing spaces trimmed (trailing blank rows kept). */
  screen(): string;
  /** Visible rows as an array, trailing spaces trimmed. */
  lines(): string[];
  /** Current terminal title ('' until the program sets one). */
  title(): string;
  /** Every title the program ever set, in order. */
  titles(): string[];
  /** Cursor position on the visible screen (0-based). */
  cursor(): { x: number; y: number };
  /** Send keys/bytes to the program, as if typed. */
  write(keys: string): void;
  /**
   * Resolve with the screen once `pred` holds (a string is a substring test).
   * Rejects with an Error that shows the screen after `timeoutMs` (default 15 000:
   * a deadline, not a delay, generous so that a loaded machine is slower, not red),
   * or as soon as the program has exited without the screen matching.
   */
  waitFor(pred: ScreenPredicate, timeoutMs?: number): Promise<string>;
  /** Resolve once xterm has parsed everything received so far. */
  flush(): Promise<void>;
  /** Resize both the pty (the child gets SIGWINCH) and the emulator. */
  resize(cols: number, rows: number): void;
  /** Settles when the child exits. */
  readonly exited: Promise<PtyExit>;
  /** True once the child has exited. */
  hasExited(): boolean;
  /** Kill the child (SIGTERM by default); no-op after exit. */
  kill(signal?: string): void;
  /** Everything the program wrote, unparsed. */
  rawOutput(): string;
}

export interface SpawnPtyOptions {
  cols?: number;
  rows?: number;
  cwd?: string;
  /** Applied over the cleaned inherited environment; `undefined` deletes a key. */
  env?: Record<string, string | undefined>;
}

/** Environment keys that make tools believe they run in CI (is-in-ci, ci-info, supports-color). */
const CI_KEYS = [
  'CI',
  'CONTINUOUS_INTEGRATION',
  'BUILD_NUMBER',
  'BUILD_ID',
  'RUN_ID',
  'GITHUB_ACTIONS',
  'GITLAB_CI',
  'TRAVIS',
  'CIRCLECI',
  'BUILDKITE',
  'JENKINS_URL',
  'TEAMCITY_VERSION',
  'TF_BUILD',
  'APPVEYOR',
  'DRONE',
  'CODEBUILD_BUILD_ID',
];
const CI_PREFIXES = ['CI_', 'GITHUB_', 'RUNNER_'];
/** Keys that would otherwise leak the test runner's terminal into the child. */
const OTHER_KEYS = ['FORCE_COLOR', 'NO_COLOR', 'COLUMNS', 'LINES', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'KITTY_WINDOW_ID', 'TMUX', 'STY', 'COLORTERM'];
const OTHER_PREFIXES = ['VITEST', 'TINYPOOL', 'npm_'];

/** The environment a pty child gets: the parent's, minus CI/runner markers, plus `overrides`. */
export function childEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(env)) {
    if (
      CI_KEYS.includes(key) ||
      OTHER_KEYS.includes(key) ||
      CI_PREFIXES.some((p) => key.startsWith(p)) ||
      OTHER_PREFIXES.some((p) => key.startsWith(p))
    ) {
      delete env[key];
    }
  }
  // vitest sets NODE_ENV=test; the program under test should run as users run it.
  if (env.NODE_ENV === 'test') delete env.NODE_ENV;
  env.TERM = 'xterm-256color';
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

const live = new Set<PtySession>();

/** Kill every session still running (call from afterEach/afterAll). */
export function killAllPtys(): void {
  for (const s of live) s.kill('SIGKILL');
  live.clear();
}

function matches(pred: ScreenPredicate, screen: string): boolean {
  if (typeof pred === 'string') return screen.includes(pred);
  if (pred instanceof RegExp) {
    pred.lastIndex = 0;
    return pred.test(screen);
  }
  return pred(screen);
}

function describePred(pred: ScreenPredicate): string {
  if (typeof pred === 'string') return JSON.stringify(pred);
  if (pred instanceof RegExp) return String(pred);
  return pred.name ? `predicate ${pred.name}` : 'predicate';
}

function readLines(term: Terminal): string[] {
  const buf = term.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < term.rows; y++) {
    // translateToString(true) trims only never-written cells; written spaces (Ink pads rows) are trimmed too.
    out.push((buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '').replace(/ +$/, ''));
  }
  return out;
}

export function spawnPty(cmd: string, args: string[], opts: SpawnPtyOptions = {}): PtySession {
  needsBuiltTier('spawnPty runs a real terminal');
  const cols = opts.cols ?? 100;
  const rows = opts.rows ?? 30;
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
  const child = pty.spawn(cmd, args, {
    name: 'xterm-256color',
    cols,
    rows,
    cwd: opts.cwd ?? process.cwd(),
    env: childEnv(opts.env),
  });

  let raw = '';
  let title = '';
  const titles: string[] = [];
  let done = false;
  let settled = false; // exited and the last output parsed: the screen can no longer change by itself
  let pending = 0; // writes handed to xterm but not yet parsed
  const listeners = new Set<() => void>();
  const notify = (): void => {
    for (const l of [...listeners]) l();
  };

  term.onTitleChange((t) => {
    title = t;
    titles.push(t);
  });
  // Answers to the program's queries (cursor position, device attributes) go back to it, as a real terminal's would.
  term.onData((d) => {
    if (!done) child.write(d);
  });
  child.onData((data) => {
    raw += data;
    pending++;
    term.write(data, () => {
      pending--;
      notify();
    });
  });

  let session: PtySession;
  const exited = new Promise<PtyExit>((resolve) => {
    child.onExit(({ exitCode, signal }) => {
      done = true;
      live.delete(session);
      // Let xterm parse the last output before anyone reads the final screen.
      term.write('', () => {
        settled = true;
        notify();
        resolve(signal ? { exitCode, signal } : { exitCode });
      });
    });
  });

  const screenLines = (): string[] => readLines(term);
  const screen = (): string => screenLines().join('\n');

  session = {
    pid: child.pid,
    screen,
    lines: screenLines,
    title: () => title,
    titles: () => [...titles],
    cursor: () => ({ x: term.buffer.active.cursorX, y: term.buffer.active.cursorY }),
    write(k: string) {
      if (done) throw new Error(`pty: cannot write ${JSON.stringify(k)}: the program has exited`);
      child.write(k);
    },
    flush: () => new Promise<void>((resolve) => term.write('', resolve)),
    waitFor(pred: ScreenPredicate, timeoutMs = 15_000): Promise<string> {
      return new Promise<string>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        let poll: ReturnType<typeof setInterval> | undefined;
        const fail = (why: string): void => {
          cleanup();
          reject(
            new Error(
              `pty: ${why} waiting for ${describePred(pred)}. Screen:\n` +
                `┌${'─'.repeat(term.cols)}┐\n` +
                screenLines()
                  .map((l) => `│${l}${' '.repeat(Math.max(0, term.cols - l.length))}│`)
                  .join('\n') +
                `\n└${'─'.repeat(term.cols)}┘`,
            ),
          );
        };
        const cleanup = (): void => {
          listeners.delete(check);
          if (timer) clearTimeout(timer);
          if (poll) clearInterval(poll);
        };
        function check(): void {
          if (pending > 0) return; // a later write callback will check again
          let ok: boolean;
          try {
            ok = matches(pred, screen());
          } catch (err) {
            cleanup();
            reject(err);
            return;
          }
          if (ok) {
            cleanup();
            resolve(screen());
          } else if (settled) {
            fail('the program exited (no further output) while');
          }
        }
        listeners.add(check);
        // Polling too, for predicates that depend on time or on xterm's internal state.
        poll = setInterval(check, 25);
        timer = setTimeout(
          () => fail(`timed out after ${timeoutMs}ms (${done ? 'the program has exited' : 'the program is still running'})`),
          timeoutMs,
        );
        // Flush first so a screen already showing the text resolves at once.
        term.write('', check);
      });
    },
    resize(c: number, r: number) {
      if (!done) child.resize(c, r);
      term.resize(c, r);
    },
    exited,
    hasExited: () => done,
    kill(signal?: string) {
      if (done) return;
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
    },
    rawOutput: () => raw,
  };
  live.add(session);
  return session;
}

/** Types keys, one write each. The app splits and orders presses itself, so no pause is needed between them. */
export async function press(s: PtySession, ...ks: string[]): Promise<void> {
  for (const k of ks) s.write(k);
  await s.flush();
}

/**
 * Resolves once the program has written nothing new for `quietMs` (it has
 * caught up with the keys sent so far), within a generous deadline. An event
 * (output stopped), not a fixed sleep: on a loaded machine it simply waits longer.
 */
export async function settled(s: PtySession, quietMs = 150, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let seen = s.rawOutput().length;
  let since = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 15));
    const now = s.rawOutput().length;
    if (now !== seen) {
      seen = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      await s.flush();
      return;
    }
    if (Date.now() > end) throw new Error(`pty: output did not settle within ${timeoutMs} ms`);
  }
}
