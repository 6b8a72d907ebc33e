// `/` search in Turns: which events of the open session match a query, where
// n/N go next, and which folded parents must open to show a match. Pure.
import type { TreeNode } from '../../session/replay.js';
import { nodeKey, type Expansion } from './turn-rows.js';

/** n (dir 1) / N (dir -1): the next match seq after `fromSeq` (before it for N), wrapping around; undefined when none. */
export function stepMatch(seqs: readonly number[], fromSeq: number | undefined, dir: 1 | -1): number | undefined {
  if (seqs.length === 0) return undefined;
  if (fromSeq === undefined) return dir === 1 ? seqs[0] : seqs[seqs.length - 1];
  if (dir === 1) {
    for (const s of seqs) if (s > fromSeq) return s;
    return seqs[0];
  }
  for (let i = seqs.length - 1; i >= 0; i--) if (seqs[i] < fromSeq) return seqs[i];
  return seqs[seqs.length - 1];
}

const kids = (n: TreeNode): readonly TreeNode[] => (n.kind === 'turn' || n.kind === 'step' ? n.children : []);

/** The node of `level` that holds `seq`: the one that is that event (a call or its result) first, else the latest that covers it (parallel tool calls overlap). */
function holder(level: readonly TreeNode[], seq: number): TreeNode | undefined {
  let best: TreeNode | undefined;
  for (const x of level) {
    if (x.seq > seq) break;
    if (x.seq === seq || (x.kind === 'tool' && x.result?.seq === seq)) return x;
    if (seq <= x.lastSeq) best = x;
  }
  return best;
}

/** The nodes from the top level down to the deepest one covering `seq` (empty when none does). */
export function pathToSeq(tree: readonly TreeNode[], seq: number): TreeNode[] {
  const out: TreeNode[] = [];
  let level: readonly TreeNode[] = tree;
  for (;;) {
    const n = holder(level, seq);
    if (!n) return out;
    out.push(n);
    level = kids(n);
  }
}

/**
 * The expansion with every folded parent of `seq` opened (a tool call too,
 * when the match is its result), so the match has a row of its own. Mirrors
 * buildTurnRows' defaults (auto: steps open, the last open turn open); a test
 * checks the two agree.
 */
export function openToSeq(expansion: Expansion, tree: readonly TreeNode[], seq: number): Expansion {
  const path = pathToSeq(tree, seq);
  const last = tree[tree.length - 1];
  const lastOpen = last?.kind === 'turn' && last.open ? last : undefined;
  const toggled = new Set(expansion.toggled);
  path.forEach((n, i) => {
    const needsOpen = i < path.length - 1 || (n.kind === 'tool' && n.result?.seq === seq && n.seq !== seq);
    if (!needsOpen) return;
    const key = nodeKey(n);
    const byDefault = expansion.mode !== 'auto' ? expansion.mode === 'all' : n.kind === 'turn' ? n === lastOpen : n.kind === 'step';
    const open = byDefault !== toggled.has(key);
    if (!open) {
      if (toggled.has(key)) toggled.delete(key);
      else toggled.add(key);
    }
  });
  return toggled.size === expansion.toggled.size && [...toggled].every((k) => expansion.toggled.has(k)) ? expansion : { mode: expansion.mode, toggled };
}
