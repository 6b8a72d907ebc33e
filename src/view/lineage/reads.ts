// What the Lineage view reads of the store (a part of the World).
import type { LineageLayout } from '../lineage-graph/lineage-layout.js';

export interface LineageReads {
  /** the lineage graph with the subtrees of `collapsed` (keys) hidden */
  lineage(collapsed?: ReadonlySet<string>): LineageLayout;
}
