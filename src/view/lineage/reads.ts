// What the Lineage view reads of the store (a part of the World): the graph,
// laid out once per snapshot and set of collapsed subtrees.
import type { Snapshot } from '../app/world.js';
import { layoutLineage, type LineageLayout } from '../lineage-graph/lineage-layout.js';
import { lineageNodes } from '../lineage-graph/lineage-model.js';

export interface LineageReads {
  /** the lineage graph with the subtrees of `collapsed` (keys) hidden */
  lineage(collapsed?: ReadonlySet<string>): LineageLayout;
}

const NONE: ReadonlySet<string> = new Set();

export function lineageReads(snap: Snapshot): LineageReads {
  let nodes: ReturnType<typeof lineageNodes> | undefined;
  let memo: { collapsed: ReadonlySet<string>; layout: LineageLayout } | undefined;
  return {
    lineage(collapsed = NONE) {
      if (snap.base) return snap.base.lineage(collapsed); // the same sessions: the base's layout
      if (!memo || memo.collapsed !== collapsed) memo = { collapsed, layout: layoutLineage((nodes ??= lineageNodes(snap.sessions())), { collapsed }) };
      return memo.layout;
    },
  };
}
