// How long the event loop was blocked at once: a timer every `everyMs` notes
// the gaps between its runs. A gap counts only as far as this process used
// CPU in it (process.cpuUsage), so a machine too busy to run us (a CPU burner
// beside the suite) does not read as a block, while synchronous work in this
// process (a multi-GB line skipped at once: all CPU) does.
export interface LoopMonitor {
  /** the longest block seen so far, ms */
  readonly worst: number;
  stop(): number;
}

export function monitorLoop(everyMs = 5): LoopMonitor {
  let wall = performance.now();
  let cpu = process.cpuUsage();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const used = process.cpuUsage(cpu);
    const block = Math.min(now - wall, (used.user + used.system) / 1000);
    if (block > worst) worst = block;
    wall = now;
    cpu = process.cpuUsage();
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
