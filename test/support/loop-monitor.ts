// How long the event loop was blocked at once: a timer every `everyMs` notes
// the gaps between its runs. A gap counts only as far as this thread used CPU
// in it (threadCpuMs), so a machine too busy to run us (a CPU burner beside the
// suite) does not read as a block, while synchronous work on the loop (a
// multi-GB line skipped at once: all CPU) does.
import fs from 'node:fs';

/**
 * CPU ms this thread has used: on Linux /proc/thread-self/stat (utime + stime,
 * in 10 ms ticks), elsewhere the process's (process.cpuUsage). The thread's, not
 * the process's: V8's collector threads mark and sweep beside the loop without
 * blocking it, and their CPU once made an 8 ms audit step read as 104 ms when
 * the whole suite ran beside a CPU burner.
 */
export function threadCpuMs(): number {
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // fields 14 and 15 (utime, stime): USER_HZ is 100 on Linux
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}
export interface LoopMonitor {
  /** the longest block seen so far, ms */
  readonly worst: number;
  stop(): number;
}

export function monitorLoop(everyMs = 5): LoopMonitor {
  let wall = performance.now();
  let cpu = threadCpuMs();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const used = threadCpuMs();
    const block = Math.min(now - wall, used - cpu);
    if (block > worst) worst = block;
    wall = now;
    cpu = used;
  }, everyMs);
  return {
    get worst() {
      return worst;
    },
    stop() {
      clearInterval(timer);
      return worst;
    },
  };
}
