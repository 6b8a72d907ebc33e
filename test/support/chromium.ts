// Finds a system Chromium for the HTML export test; when it is missing and we
// run as root, installs it from the distribution's packages (apt-get, no npm
// browser download). Returns the binary, or a reason why there is none.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

function found(): string | undefined {
  const env = process.env.DSH_CHROMIUM;
  if (env && fs.existsSync(env)) return env;
  return CANDIDATES.find((c) => fs.existsSync(c));
}

export function ensureChromium(): { bin: string; installedMs?: number } | { skip: string } {
  const have = found();
  if (have) return { bin: have };
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) return { skip: `no Chromium at ${CANDIDATES.join(', ')} and not root, so it cannot be installed here (apt-get install chromium, or set DSH_CHROMIUM)` };
  if (spawnSync('apt-get', ['--version']).status !== 0) return { skip: 'no Chromium and no apt-get to install it' };
  const t0 = Date.now();
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'pipe', timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=300', 'chromium'], { env, stdio: 'pipe', timeout: 600_000 });
  } catch (e) {
    return { skip: `Chromium is not installed and apt-get install chromium failed: ${String((e as Error).message).slice(0, 300)}` };
  }
  const bin = found();
  return bin ? { bin, installedMs: Date.now() - t0 } : { skip: 'apt-get install chromium succeeded but no chromium binary was found' };
}

/** A headless Chromium that uses no network and keeps its profile in `userDataDir`. */
const headless = (userDataDir: string): string[] => [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--no-first-run',
  '--no-default-browser-check',
  `--user-data-dir=${userDataDir}`,
  '--virtual-time-budget=2000',
];

function run(bin: string, args: string[]): string {
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`chromium exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  return r.stdout;
}

/** The DOM after load (scripts, if any were allowed, have run), from a headless Chromium with no network use. */
export function dumpDom(bin: string, file: string, userDataDir: string): string {
  return run(bin, [...headless(userDataDir), '--dump-dom', `file://${file}`]);
}

/** The page as a headless Chromium draws it in a `width` × `height` window, written as a PNG to `png`. */
export function screenshot(bin: string, file: string, png: string, userDataDir: string, width = 1200, height = 2000): void {
  run(bin, [...headless(userDataDir), '--hide-scrollbars', `--window-size=${width},${height}`, `--screenshot=${png}`, `file://${file}`]);
}
