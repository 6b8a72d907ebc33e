// How the Turns view shares its rows: the list, and the detail pane under it
// on a tall enough screen (d toggles it either way).

/** Height from which the Turns detail pane shows without being asked for. */
export const AUTO_DETAIL_HEIGHT = 20;

/** Height from which the header has a second line: the sparklines of tokens and time per turn. */
export const SPARK_HEIGHT = 12;

/** Rows for the Turns header, list and detail pane inside `height` (a status line under them). */
export function turnsLayout(height: number, detail: boolean): { header: number; list: number; pane: number } {
  const header = height >= SPARK_HEIGHT ? 2 : 1;
  const body = Math.max(0, height - header - 1);
  if (!detail || body < 6) return { header, list: body, pane: 0 };
  const pane = Math.min(Math.max(3, Math.floor(body * 0.4)), body - 4);
  return { header, list: body - pane - 1, pane };
}
