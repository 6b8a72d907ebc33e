// Idle cost of the TUI: the real bin in a pty over a root of N session files,
// left alone after its scan. CPU time (from /proc/<pid>/stat) over the idle
// window, as % of one core, and RSS min/max sampled through it. Idle must be
// idle: the follower's safety poll goes round the tree in small slices instead
// of re-stat'ing every file every 2 s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitForCollections } from './collections.js';
import { CLI } from './figures.js';
import { spawnBenchPty } from './pty.js';

export interface IdleReport {
  files: number;
  folders: number;
  idleMs: number;
  /** CPU time over the idle window / wall time, in % of one core */
  cpuPct: number;
  rssMinMB: number;
  rssMaxMB: number;
  /** launch -> screen quiet (scan done) */
  settleMs: number;
  mode: string;
  /** how long after the scan the window started, and how many of V8's own full collections came first */
  waitedMs: number;
  collections: number;
}

const PER_FOLDER = 100;

/** N small sessions in the v0 layout (cwd-<hash>/<id>.jsonl, 100 per folder), generated once. */
export function idleCorpus(corpusRoot: string, files: number): { dir: string; folders: number } {
  const dir = path.join(corpusRoot, `idle-${files}`);
  const folders = Math.ceil(files / PER_FOLDER);
  const marker = path.join(dir, '.complete');
  if (fs.existsSync(marker)) return { dir, folders };
  fs.rmSync(dir, { recursive: true, force: true });
  const t = 1_700_000_000_000;
  for (let f = 0; f < folders; f++) {
    const sub = path.join(dir, `cwd-${f.toString(16).padStart(12, '0')}`);
    fs.mkdirSync(sub, { recursive: true });
    for (let i = f * PER_FOLDER; i < Math.min(files, (f + 1) * PER_FOLDER); i++) {
      const id = `idle-${i}`;
      const rows = [
        { type: 'session', version: 0, id, createdAt: t + i, cwd: `/w/${f}` },
        { type: 'turn/start', seq: 0, time: t + i, data: { turn: 1, trigger: { kind: 'message' } } },
        { type: 'user/message', seq: 1, time: t + i + 1, data: { content: [{ type: 'text', text: `task ${i}` }], source: { kind: 'user' } } },
        { type: 'assistant/message', seq: 2, time: t + i + 2, data: { turn: 1, step: 1, content: [{ type: 'text', text: 'done' }] } },
        { type: 'turn/end', seq: 3, time: t + i + 3, data: { turn: 1, reason: { kind: 'completed' } } },
      ];
      fs.writeFileSync(path.join(sub, `${id}.jsonl`), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    }
  }
  fs.writeFileSync(marker, '');
  return { dir, folders };
}

function cpuTicks(pid: number): number {
  // fields after the ")" of the command name: state is field 3; utime 14, stime 15
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Clock ticks per second for /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const HZ = 100;

/**
 * The browser on an idle corpus of `files`, once its scan is over and V8's
 * own collections after it too (waited for up to `collectionsMs`): CPU and
 * RSS over `idleMs`.
 */
export async function measureIdle(corpusRoot: string, files: number, idleMs: number, cli = CLI, collectionsMs = 0): Promise<IdleReport> {
  if (process.platform !== 'linux') throw new Error('idle figure reads /proc: Linux only');
  const { dir, folders } = idleCorpus(corpusRoot, files);
  const trace = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-idle-trace-')), 'trace.txt');
  const p = spawnBenchPty(process.execPath, [cli, dir], 120, 40, process.cwd(), { DSH_BROWSE_TRACE: trace });
  const pid = p.pid;
  try {
    if (!pid) throw new Error('no pid for the TUI child');
    await p.waitFor((s) => s.includes('idle-'), 120_000);
    // The scan may run on without changing the screen: wait until a whole
    // second passes with under 5% of a core used (scan over, follower started).
    await p.settle(1000, 300_000);
    const quietBy = performance.now() + 300_000;
    for (let c = cpuTicks(pid); ; ) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = cpuTicks(pid);
      if (now - c < 0.05 * HZ) break;
      if (performance.now() > quietBy) throw new Error('the TUI never went quiet');
      c = now;
    }
    const settleMs = performance.now() - p.t0;
    const waited = await waitForCollections(trace, collectionsMs);
    const c0 = cpuTicks(pid);
    const w0 = performance.now();
    const rss: number[] = [];
    while (performance.now() - w0 < idleMs) {
      rss.push(rssMB(pid));
      await new Promise((r) => setTimeout(r, 250));
    }
    const cpuMs = ((cpuTicks(pid) - c0) / HZ) * 1000;
    const wall = performance.now() - w0;
    const screen = p.screen();
    const mode = /polling[^\n]*/.exec(screen)?.[0] ?? 'watch';
    return { files, folders, idleMs: wall, cpuPct: (100 * cpuMs) / wall, rssMinMB: Math.min(...rss), rssMaxMB: Math.max(...rss), settleMs, mode, ...waited };
  } finally {
    p.kill();
    await p.exited.catch(() => undefined);
    fs.rmSync(path.dirname(trace), { recursive: true, force: true });
  }
}
