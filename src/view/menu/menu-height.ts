/** Lines under the entries for the highlighted entry's reason in full. */
export const MENU_REASON_LINES = 2;
/** Rows of the action menu box: a title, its entries, the reason's lines, two borders. */
export const menuHeight = (entries: number): number => entries + 3 + MENU_REASON_LINES;
