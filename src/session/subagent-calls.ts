// The subagent calls a turn tree holds, and where its subagent/catalog
// events are: what linking a call to its child starts from (subagents.ts).
// Its own module, light, because the offset index keeps them per turn
// (turn-index.ts): a large log's tree is then walked without reading a
// turn's children from disk.
import { argumentsObject } from './call-effect.js';
import type { TreeNode } from './replay.js';

export const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(['subagent', 'subagent_fork']);

export interface SubagentCall {
  /** the call's seq (its tool row) and its turn's seq */
  seq: number;
  turnSeq: number;
  name: string;
  description?: string;
  prompt?: string;
  /** the result's text (undefined: no result yet) */
  result?: string;
}

/** A tree's subagent calls and the seqs of its subagent/catalog events. */
export interface TreeSubagents {
  calls: SubagentCall[];
  catalogSeqs: number[];
}

export const NO_TREE_SUBAGENTS: TreeSubagents = Object.freeze({ calls: [], catalogSeqs: [] }) as TreeSubagents;

/** A node that keeps what its children hold (an indexed turn or step: its children are on disk). */
interface Kept {
  subagents?: TreeSubagents;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The subagent calls and catalog events under `nodes`, in order; a node that keeps them is not opened. */
export function treeSubagents(nodes: readonly TreeNode[], turnSeq = -1): TreeSubagents {
  const out: TreeSubagents = { calls: [], catalogSeqs: [] };
  const walk = (list: readonly TreeNode[], at: number) => {
    for (const n of list) {
      const here = n.kind === 'turn' ? n.seq : at;
      const kept = (n as Kept).subagents;
      if (kept) {
        for (const c of kept.calls) out.calls.push({ ...c, turnSeq: here });
        out.catalogSeqs.push(...kept.catalogSeqs);
      } else if (n.kind === 'tool' && SUBAGENT_TOOLS.has(n.name)) {
        const a = argumentsObject(n.arguments) ?? {};
        out.calls.push({ seq: n.seq, turnSeq: here, name: n.name, description: str(a.description), prompt: str(a.prompt), result: n.result?.text });
      } else if (n.kind === 'event' && n.type === 'subagent/catalog') out.catalogSeqs.push(n.seq);
      else if ('children' in n) walk(n.children, here);
    }
  };
  walk(nodes, turnSeq);
  return out.calls.length === 0 && out.catalogSeqs.length === 0 ? NO_TREE_SUBAGENTS : out;
}
