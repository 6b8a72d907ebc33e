// The action menu's slice of the app state.

export interface MenuSlice {
  /** the action menu (`a`): its cursor, and how many entries it lists (the layout reserves their rows) */
  menu?: { cursor: number; entries: number };
}
