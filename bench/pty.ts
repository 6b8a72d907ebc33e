/**
 * Bench-local pseudo-terminal: runs a program in a real pty (@lydell/node-pty) and
 * renders what it writes through a headless xterm (@xterm/headless). Smaller than
 * test/e2e/pty-harness.ts (which tsc does not compile into dist/): it adds what the
 * bench needs, the time of each screen change, measured when xterm has parsed it.
 *
 * CI markers are removed from the child's env: under CI Ink prints only the last frame.
 */
import * as pty from '@lydell/node-pty';
import xtermHeadless from '@xterm/headless';
import { performance } from 'node:perf_hooks';

const { Terminal } = xtermHeadless;

export const KEYS = { down: '\x1b[B', up: '\x1b[A', enter: '\r', esc: '\x1b', right: '\x1b[C' } as const;

const DROP = /^(CI|CONTINUOUS_INTEGRATION|BUILD_NUMBER|GITHUB_ACTIONS|GITLAB_CI|CI_.*|GITHUB_.*|RUNNER_.*|FORCE_COLOR|NO_COLOR|COLUMNS|LINES|VITEST.*|npm_.*)$/;

export function benchEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !DROP.test(k)) out[k] = v;
  out.TERM = 'xterm-256color';
  if (out.NODE_ENV === 'test') delete out.NODE_ENV;
  return out;
}

export interface BenchPty {
  /** performance.now() at spawn */
  readonly t0: number;
  /** the program's process id */
  readonly pid: number;
  screen(): string;
  write(s: string): void;
  /** Resolves with performance.now() of the first parsed output after which `pred(screen)` holds. */
  waitFor(pred: (screen: string) => boolean, timeoutMs: number): Promise<number>;
  /** Resolves with the time of the next parsed output that changes the screen. */
  nextChange(timeoutMs: number): Promise<number>;
  /** Waits until the screen has not changed for `quietMs`. */
  settle(quietMs: number, timeoutMs: number): Promise<void>;
  kill(): void;
  readonly exited: Promise<number>;
  hasExited(): boolean;
}

/** `env`: variables added to (or, when undefined, removed from) the bench environment. */
export function spawnBenchPty(cmd: string, args: string[], cols = 120, rows = 40, cwd = process.cwd(), env: Record<string, string | undefined> = {}): BenchPty {
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
  const t0 = performance.now();
  const childEnv = benchEnv();
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete childEnv[k];
    else childEnv[k] = v;
  }
  const child = pty.spawn(cmd, args, { name: 'xterm-256color', cols, rows, cwd, env: childEnv });
  let done = false;
  let lastScreen = '';
  let lastChangeAt = t0;
  const listeners = new Set<(at: number, changed: boolean) => void>();
  const screen = (): string => {
    const buf = term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < term.rows; y++) out.push((buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '').trimEnd());
    return out.join('\n');
  };
  term.onData((d) => {
    if (!done) child.write(d); // answer the program's terminal queries
  });
  child.onData((data) => {
    term.write(data, () => {
      const at = performance.now();
      const s = screen();
      const changed = s !== lastScreen;
      if (changed) {
        lastScreen = s;
        lastChangeAt = at;
      }
      for (const l of [...listeners]) l(at, changed);
    });
  });
  const exited = new Promise<number>((resolve) =>
    child.onExit(({ exitCode }) => {
      done = true;
      for (const l of [...listeners]) l(performance.now(), false);
      resolve(exitCode);
    }),
  );
  const wait = (test: (at: number, changed: boolean) => boolean, timeoutMs: number, what: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(l);
        reject(new Error(`pty: timed out after ${timeoutMs} ms waiting for ${what}. Screen:\n${screen()}`));
      }, timeoutMs);
      const l = (at: number, changed: boolean): void => {
        if (test(at, changed)) {
          clearTimeout(timer);
          listeners.delete(l);
          resolve(at);
        } else if (done) {
          clearTimeout(timer);
          listeners.delete(l);
          reject(new Error(`pty: program exited while waiting for ${what}. Screen:\n${screen()}`));
        }
      };
      listeners.add(l);
    });
  return {
    t0,
    pid: child.pid,
    screen,
    write: (s) => {
      if (!done) child.write(s);
    },
    waitFor(pred, timeoutMs) {
      if (pred(screen())) return Promise.resolve(lastChangeAt);
      return wait(() => pred(screen()), timeoutMs, 'screen predicate');
    },
    nextChange: (timeoutMs) => wait((_at, changed) => changed, timeoutMs, 'a screen change'),
    async settle(quietMs, timeoutMs) {
      const end = performance.now() + timeoutMs;
      while (performance.now() < end) {
        await new Promise((r) => setTimeout(r, quietMs / 2));
        if (performance.now() - lastChangeAt >= quietMs) return;
      }
    },
    kill: () => {
      if (!done) child.kill('SIGKILL');
    },
    exited,
    hasExited: () => done,
  };
}
