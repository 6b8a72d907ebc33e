import { simulate } from '../storage/simulate.js';

export async function runSimulate(dir: string, o: { id?: string; turns?: number; speed?: number; torn: boolean }): Promise<number> {
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  const r = await simulate({ dir, id: o.id, turns: o.turns, speed: o.speed, tornWrites: o.torn, signal: ac.signal, log: (m) => process.stderr.write(m + '\n') });
  process.stdout.write(`${r.file}: ${r.events} events\n`);
  return 0;
}
