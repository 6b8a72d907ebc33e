/**
 * Where the time goes: runs a node command under --cpu-prof and summarises the
 * .cpuprofile to the top self-time functions (ms, % of samples).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runChild } from './floors.js';

interface CpuNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: CpuNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface HotFunction {
  name: string;
  where: string;
  selfMs: number;
  pct: number;
}

export interface ProfileSummary {
  totalMs: number;
  top: HotFunction[];
  /** self time by area: app code, each npm package, node internals, gc, idle */
  areas: { area: string; ms: number }[];
}

function areaOf(name: string, url: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.includes('/dist/')) return 'app (dist/)';
  return 'other';
}

/** Summarises a parsed .cpuprofile: self time per function (same name and location merged). */
export function summarizeProfile(p: CpuProfile, topN = 10, cwd = process.cwd()): ProfileSummary {
  const byId = new Map<number, CpuNode>();
  for (const n of p.nodes) byId.set(n.id, n);
  const self = new Map<string, HotFunction>();
  const areas = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000; // a sample's time is the gap to the next one
    const n = byId.get(p.samples[i]);
    if (!n) continue;
    const cf = n.callFrame;
    const file = cf.url.startsWith('file://') ? relative(cwd, new URL(cf.url).pathname) : cf.url;
    const where = file ? `${file}:${cf.lineNumber + 1}` : '';
    const key = `${cf.functionName}@${where}`;
    const h = self.get(key) ?? { name: cf.functionName || '(anonymous)', where, selfMs: 0, pct: 0 };
    h.selfMs += dt;
    total += dt;
    const a = areaOf(cf.functionName, cf.url);
    areas.set(a, (areas.get(a) ?? 0) + dt);
    self.set(key, h);
  }
  const top = [...self.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, topN);
  for (const h of top) h.pct = total ? (100 * h.selfMs) / total : 0;
  return { totalMs: total, top, areas: [...areas].map(([area, ms]) => ({ area, ms })).sort((a, b) => b.ms - a.ms) };
}

/** Reads the one .cpuprofile in `dir`. */
export function readProfileDir(dir: string, topN = 10): ProfileSummary {
  const f = readdirSync(dir).find((n) => n.endsWith('.cpuprofile'));
  if (!f) throw new Error('no .cpuprofile written');
  return summarizeProfile(JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile, topN);
}

/** Runs `node [--cpu-prof] args` once and returns the summary of its profile. */
export async function profileNode(args: string[], topN = 10): Promise<ProfileSummary> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-prof-'));
  try {
    const r = await runChild(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...args]);
    if (r.code !== 0) throw new Error(`profiled run exited ${r.code}: ${r.stderr.slice(0, 500)}`);
    return readProfileDir(dir, topN);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatProfile(p: ProfileSummary, indent = '    '): string {
  const lines = [`${indent}profile: ${p.totalMs.toFixed(0)} ms sampled; top self time:`];
  lines.push(`${indent}  by area: ` + p.areas.slice(0, 8).map((a) => `${a.area} ${a.ms.toFixed(0)} ms`).join(', '));
  for (const h of p.top) lines.push(`${indent}  ${h.selfMs.toFixed(1).padStart(8)} ms ${h.pct.toFixed(1).padStart(5)}%  ${h.name}  ${h.where}`);
  return lines.join('\n');
}

/** Profiles `fn` in this process (node:inspector) and summarises it. */
export async function profileInProcess(fn: () => unknown, topN = 10): Promise<ProfileSummary> {
  const { Session } = await import('node:inspector/promises');
  const s = new Session();
  s.connect();
  try {
    await s.post('Profiler.enable');
    await s.post('Profiler.setSamplingInterval', { interval: 100 });
    await s.post('Profiler.start');
    await fn();
    const { profile } = await s.post('Profiler.stop');
    return summarizeProfile(profile as unknown as CpuProfile, topN);
  } finally {
    s.disconnect();
  }
}
