// Milestones of a run, for measuring where a start's time goes (the scale
// bench, and anyone asking why a big root is slow): with DSH_BROWSE_TRACE set
// to a file, each milestone appends one line "<wall ms> <cpu ms> <name>",
// both counted from the process's start. Unset (always, in normal use), a
// milestone costs one comparison.
import fs from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.DSH_BROWSE_TRACE || undefined;

/** Appends `name` with the wall and CPU time since the process started (no-op unless DSH_BROWSE_TRACE is set). */
export function milestone(name: string): void {
  if (file === undefined) return;
  const c = process.cpuUsage();
  try {
    fs.appendFileSync(file, `${Math.round(process.uptime() * 1000)} ${Math.round((c.user + c.system) / 1000)} ${name}\n`);
  } catch {
    // a trace never breaks a run
  }
}

/**
 * Each full collection of the heap as a milestone ("gc major <ms>"), V8's
 * own ones included (its memory reducer's, after a burst of work): the
 * scale bench measures idle only once they are over. No-op unless
 * DSH_BROWSE_TRACE is set.
 */
export function traceCollections(): void {
  if (file === undefined) return;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) milestone(`gc major ${Math.round(e.duration)}`);
    }
  });
  obs.observe({ entryTypes: ['gc'] });
}
