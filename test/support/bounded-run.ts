// Runs the bundled CLI as a child whose memory is watched: its RSS is read
// from /proc every 20 ms and the child is killed past `killAt`, so a test of
// hostile or huge input fails by a kill and never fills the machine.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { BIN } from './run-cli.js';

export interface BoundedRun {
  code: number | null;
  /** all of stdout (keepStdout), else its first and last 4 KB */
  stdout: string;
  head: string;
  tail: string;
  stdoutBytes: number;
  stderr: string;
  /** the highest RSS seen, bytes */
  peak: number;
  killed: boolean;
}

const KEEP = 4096;

export function rssOf(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined; // exited
  }
}

export function runBounded(args: readonly string[], opts: { killAt: number; timeoutMs?: number; keepStdout?: boolean }): Promise<BoundedRun> {
  const { killAt, timeoutMs = 120_000, keepStdout = true } = opts;
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
    delete env.CI;
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    const chunks: Buffer[] = [];
    let head = '';
    let tail = Buffer.alloc(0);
    let stdoutBytes = 0;
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdoutBytes += d.length;
      if (keepStdout) chunks.push(d);
      if (head.length < KEEP) head += d.toString('utf8', 0, Math.min(d.length, KEEP));
      tail = Buffer.concat([tail, d.subarray(Math.max(0, d.length - KEEP))]).subarray(-KEEP);
    });
    child.stderr.on('data', (d) => (stderr += d));
    let peak = 0;
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      child.kill('SIGKILL');
    };
    const timer = setInterval(() => {
      peak = Math.max(peak, rssOf(child.pid!) ?? 0);
      if (peak > killAt) kill();
    }, 20);
    const deadline = setTimeout(kill, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      clearTimeout(deadline);
      resolve({ code, stdout: keepStdout ? Buffer.concat(chunks).toString('utf8') : head, head, tail: tail.toString('utf8'), stdoutBytes, stderr, peak, killed });
    });
  });
}
