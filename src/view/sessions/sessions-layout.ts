// How the Sessions view shares its rows: the list (under a summary line and
// its column header) and, when d opened it on a tall enough screen, the
// detail pane under it.

/** The detail pane's rows: its rule, the session's line, its usage, a chart three rows high, the chart's axis. */
export const DETAIL_ROWS = 7;
/** The list keeps at least this many rows: below it the pane is not drawn. */
const LIST_MIN = 4;

export function sessionsLayout(view: number, detail: boolean): { list: number; pane: number } {
  const list = Math.max(1, view - 2);
  if (!detail || list - DETAIL_ROWS < LIST_MIN) return { list, pane: 0 };
  return { list: list - DETAIL_ROWS, pane: DETAIL_ROWS };
}
