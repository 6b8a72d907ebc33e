// How the terminal's rows are shared: title, tabs, the active view (minus an
// open dialog), footer. The root box stays one row shorter than the terminal,
// so a frame never scrolls it.
import { dialogHeight, type Dialog } from '../dialog/fork-dialog-state.js';

/** Rows of the action menu box: a title, its entries, two lines for the highlighted entry's reason in full, two borders. */
export const MENU_REASON_LINES = 2;
export const menuHeight = (entries: number): number => entries + 3 + MENU_REASON_LINES;

export interface Size {
  columns: number;
  rows: number;
}

export interface AppLayout {
  width: number;
  /** rows between the tab bar and the footer */
  content: number;
  /** rows of the open dialog or action menu under the view (0 when none) */
  dialog: number;
  /** rows left for the view */
  view: number;
}

export function appLayout(size: Size, dialog: Dialog | undefined, menuEntries = 0): AppLayout {
  const width = Math.max(1, size.columns);
  const content = Math.max(1, size.rows - 4);
  const d = dialog ? Math.min(content, dialogHeight(dialog, width, content)) : menuEntries ? Math.min(content, menuHeight(menuEntries)) : 0;
  return { width, content, dialog: d, view: Math.max(0, content - d) };
}

/** Height from which the Turns detail pane shows without being asked for. */
export const AUTO_DETAIL_HEIGHT = 20;

/** Rows for the Turns list and its detail pane inside `height` (a header and a status line around them). */
export function turnsLayout(height: number, detail: boolean): { list: number; pane: number } {
  const body = Math.max(0, height - 2);
  if (!detail || body < 6) return { list: body, pane: 0 };
  const pane = Math.min(Math.max(3, Math.floor(body * 0.4)), body - 4);
  return { list: body - pane - 1, pane };
}

/** The Sessions list's rows (a summary line and a column header above it). */
export const sessionsListHeight = (view: number): number => Math.max(1, view - 2);
/** The Lineage list's rows (a summary line above it). */
/** Lineage rows shown: the view less its summary line and (from 3 rows up) the legend line. */
export const lineageListHeight = (view: number): number => Math.max(1, view - (view >= 3 ? 2 : 1));
/** The Problems list's rows (a summary line above it). */
export const problemsListHeight = (view: number): number => Math.max(1, view - 1);
