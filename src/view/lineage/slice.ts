// The Lineage view's slice of the app state.

export interface LineageSlice {
  /** the highlighted row, the window's top, and the subtrees hidden (h) */
  lineage: { hint: number; top: number; collapsed: ReadonlySet<string> };
}

export const initialLineage: LineageSlice = { lineage: { hint: 0, top: 0, collapsed: new Set() } };
