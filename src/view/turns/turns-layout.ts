// How the Turns view shares its rows: the list, and the detail pane under it
// on a tall enough screen (d toggles it either way).

/** Height from which the Turns detail pane shows without being asked for. */
export const AUTO_DETAIL_HEIGHT = 20;

/** Rows for the Turns list and its detail pane inside `height` (a header and a status line around them). */
export function turnsLayout(height: number, detail: boolean): { list: number; pane: number } {
  const body = Math.max(0, height - 2);
  if (!detail || body < 6) return { list: body, pane: 0 };
  const pane = Math.min(Math.max(3, Math.floor(body * 0.4)), body - 4);
  return { list: body - pane - 1, pane };
}
