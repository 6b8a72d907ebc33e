// DSH_BROWSE_TRACE: a run's milestones with wall and CPU ms (src/trace.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('DSH_BROWSE_TRACE', () => {
  it('appends "<wall ms> <cpu ms> <name>" per milestone, counted from the process start; nothing when unset', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-trace-'));
    made.push(dir);
    const file = path.join(dir, 'trace');
    vi.stubEnv('DSH_BROWSE_TRACE', file);
    vi.resetModules();
    const traced = await import('../../src/trace.js');
    traced.milestone('scan finished');
    let x = 0;
    for (let i = 0; i < 2e6; i++) x += i % 7; // some CPU between the two
    traced.milestone('audit done');
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const rows = lines.map((l) => /^(\d+) (\d+) (.+)$/.exec(l)!);
    expect(rows.map((r) => r[3])).toEqual(['scan finished', 'audit done']);
    const [a, b] = rows.map((r) => ({ wall: Number(r[1]), cpu: Number(r[2]) }));
    // from the process start: the test runner ran before us
    expect(a.wall).toBeGreaterThan(0);
    expect(a.wall).toBeLessThanOrEqual(process.uptime() * 1000 + 1000);
    expect(b.wall).toBeGreaterThanOrEqual(a.wall);
    expect(b.cpu).toBeGreaterThanOrEqual(a.cpu);
    expect(x).toBeGreaterThan(0);

    vi.unstubAllEnvs();
    delete process.env.DSH_BROWSE_TRACE;
    vi.resetModules();
    const quiet = await import('../../src/trace.js');
    quiet.milestone('not written');
    expect(fs.readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(2);
  });
});
