// The `simulate` command's options, checked before anything is written: a
// value the demo writer would quietly replace (speed 1 for `--speed abc`, an
// empty session for `--turns 0`, a hidden `.jsonl` for `--id ''`) is a usage
// error instead.
import fs from 'node:fs';
import path from 'node:path';
import { encodeId } from '../storage/id-encoding.js';
import { invalidIdReason } from '../storage/layout.js';
import type { RootIndex } from '../storage/load-root.js';
import { UsageError } from './commands.js';

export interface SimulateArgs {
  id?: string;
  turns?: number;
  speed?: number;
  torn: boolean;
}

export interface RawSimulateArgs {
  id?: string;
  turns?: string;
  speed?: string;
  noTorn: boolean;
}

/** A plain decimal (1, 2.5, .5, 1e3): not hex, not Infinity, not an empty string. */
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

export function simulateArgs(raw: RawSimulateArgs): SimulateArgs {
  const out: SimulateArgs = { torn: !raw.noTorn };
  if (raw.id !== undefined) {
    const why = invalidIdReason(raw.id);
    if (why !== undefined) throw new UsageError(`--id ${JSON.stringify(raw.id)}: ${why}`);
    out.id = raw.id;
  }
  if (raw.turns !== undefined) {
    const n = /^\d+$/.test(raw.turns) ? Number(raw.turns) : NaN;
    if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--turns expects a whole number of turns, 1 or more; got ${JSON.stringify(raw.turns)}`);
    out.turns = n;
  }
  if (raw.speed !== undefined) {
    const x = DECIMAL.test(raw.speed) ? Number(raw.speed) : NaN;
    if (!Number.isFinite(x) || x <= 0) throw new UsageError(`--speed expects a number above 0 (1 is a human pace, larger is faster); got ${JSON.stringify(raw.speed)}`);
    out.speed = x;
  }
  return out;
}

/**
 * Why `id` cannot be the new session's id in `dir`, or undefined: the file
 * simulate would create exists (even as a dangling link), or a session of the
 * root already has that id (a second one would make `--resume` ambiguous).
 */
export function takenIdReason(index: RootIndex, dir: string, id: string): string | undefined {
  const file = path.join(dir, encodeId(id) + '.jsonl');
  let exists = true;
  try {
    fs.lstatSync(file);
  } catch {
    exists = false;
  }
  if (exists) return `--id ${JSON.stringify(id)}: ${file} already exists (pick another id, or leave --id out for a fresh one)`;
  const same = index.store.getAll(id);
  if (same.length > 0) return `--id ${JSON.stringify(id)}: a session with that id already exists (${same[0].file}); pick another id, or leave --id out`;
  return undefined;
}
