// Each turn's tokens and duration, in order: what the sparklines, the
// Sessions detail's chart, `stats` and the export draw. Pure: read from the
// turn tree and each turn's facts (its usage, its first and last times), so
// an indexed log's series reads no turn from disk.
import { turnDuration } from './events.js';
import type { TreeNode } from './replay.js';
import type { TurnFacts } from './turn-index.js';
import { spentTokens } from './usage.js';

type TurnNode = Extract<TreeNode, { kind: 'turn' }>;

export interface TurnPoint {
  turn: number;
  seq: number;
  /** in + out (spentTokens) */
  tokens: number;
  /** from its turn/start to its last event; undefined: a time is missing, or the clock went back */
  ms?: number;
  open: boolean;
}

/** One turn's point from its facts: the one place a turn's tokens and duration are reckoned (the tree's series, the export's fold). */
export function turnPoint(n: { turn: number; seq: number; open: boolean }, f: TurnFacts): TurnPoint {
  return { turn: n.turn, seq: n.seq, tokens: spentTokens(f.usage), ms: turnDuration(f.start, f.time), open: n.open };
}

/** The series of the tree's turns (the rows before the first turn are none). */
export function turnSeries(tree: readonly TreeNode[], facts: (n: TurnNode) => TurnFacts): TurnPoint[] {
  const out: TurnPoint[] = [];
  for (const n of tree) if (n.kind === 'turn') out.push(turnPoint(n, facts(n)));
  return out;
}
