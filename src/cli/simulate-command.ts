import { isSessionForkError } from '../session/errors.js';
import { loadRoot } from '../storage/load-root.js';
import { simulate } from '../storage/simulate.js';
import { UsageError } from './commands.js';
import { takenIdReason, type SimulateArgs } from './simulate-options.js';

export async function runSimulate(dir: string, o: SimulateArgs): Promise<number> {
  if (o.id !== undefined) {
    const why = takenIdReason(await loadRoot(dir), dir, o.id);
    if (why !== undefined) throw new UsageError(why);
  }
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  try {
    const r = await simulate({ dir, id: o.id, turns: o.turns, speed: o.speed, tornWrites: o.torn, signal: ac.signal, log: (m) => process.stderr.write(m + '\n') });
    process.stdout.write(`${r.file}: ${r.events} events\n`);
    return 0;
  } catch (e) {
    // the id was taken between the check and the write
    if (isSessionForkError(e) && e.code === 'SESSION_ALREADY_EXISTS') throw new UsageError(e.message);
    throw e;
  }
}
