// Milestones of a run, for measuring where a start's time goes (the scale
// bench, and anyone asking why a big root is slow): with DSH_BROWSE_TRACE set
// to a file, each milestone appends one line "<wall ms> <cpu ms> <name>",
// both counted from the process's start. Unset (always, in normal use), a
// milestone costs one comparison.
import fs from 'node:fs';

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
