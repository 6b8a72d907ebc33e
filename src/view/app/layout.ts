// How the terminal's rows are shared: title, tabs, the active view (minus the
// rows an overlay takes under it: the fork dialog, the action menu), footer.
// The root box stays one row shorter than the terminal, so a frame never
// scrolls it. The registry asks the overlays for their rows (App.layout).

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

/** The screen's width and the rows between the tab bar and the footer: what the overlays leave aside. */
export function frame(size: Size): Pick<AppLayout, 'width' | 'content'> {
  return { width: Math.max(1, size.columns), content: Math.max(1, size.rows - 4) };
}

/** The layout with `under` rows taken below the view by an overlay (at most the whole content). */
export function appLayout(size: Size, under = 0): AppLayout {
  const { width, content } = frame(size);
  const d = Math.min(content, under);
  return { width, content, dialog: d, view: Math.max(0, content - d) };
}

