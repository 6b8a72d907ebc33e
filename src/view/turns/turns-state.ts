// The Turns view's state as a pure reducer (@inkjs/ui style): selection and
// scroll window per mode, expansion, the history and detail toggles. Actions
// that move carry the rows they act on, so every transition is a pure function.
import type { Expansion, TurnRow } from './turn-rows.js';
import { visibleWindow, type RowSeq } from '../app/window.js';

/** Selection in one list: the selected row's key (stable across rebuilds), its index as a fallback, the window's top. */
export interface Cursor {
  index: number;
  key?: string;
  top: number;
}

export interface TurnsState {
  tree: Cursor;
  history: Cursor;
  expansion: Expansion;
  showHistory: boolean;
  /** the history shows the transcript after events [0, historyUpTo] */
  historyUpTo: number;
  /** undefined = automatic (shown when the view is tall enough) */
  showDetail?: boolean;
  /** `G`/End was the last move: the cursor follows the end of a growing log (as less +F); any other move stops it */
  follow?: boolean;
}

/** The rows an action acts on (the active list) and the list's height on screen. */
export interface RowsView {
  /** an array, or the tree's rows built as read (TurnRows) */
  rows: RowSeq<TurnRow>;
  index?: { get(key: string): number | undefined };
  height: number;
}

/**
 * The active list for a state (the tree under the state's expansion, or the
 * history): a function, so that keys arriving faster than React renders each
 * act on the rows their own state shows. A plain RowsView is fine in tests.
 */
export type ViewOf = RowsView | ((s: TurnsState) => RowsView);

export type TurnsAction =
  | { type: 'up' | 'down' | 'top' | 'bottom' | 'pageUp' | 'pageDown'; view: ViewOf }
  | { type: 'select'; index: number; view: ViewOf }
  /** select the row `pick` chooses (in the tree: closes the history first) */
  | { type: 'pick'; view: ViewOf; pick: (rows: RowSeq<TurnRow>, index: number) => number | undefined }
  | { type: 'expand' | 'collapse'; view: ViewOf }
  /** Enter: toggle the row's expansion, or the detail pane on a leaf */
  | { type: 'toggle'; view: ViewOf; autoDetail: boolean }
  | { type: 'expandAll' }
  | { type: 'collapseAll'; view: ViewOf }
  | { type: 'toggleHistory'; view: ViewOf }
  | { type: 'toggleDetail'; autoDetail: boolean }
  /** Esc: close the history, else a detail pane opened by hand (see hasSomethingToClose) */
  | { type: 'back'; autoDetail: boolean }
  | { type: 'reset' };

const END = Number.MAX_SAFE_INTEGER;

export function initialTurnsState(): TurnsState {
  return {
    tree: { index: 0, top: 0 },
    history: { index: END, top: END },
    expansion: { mode: 'auto', toggled: new Set() },
    showHistory: false,
    historyUpTo: -1,
  };
}

/** The index of the cursor's row in `view` (by key, else the clamped index). */
export function cursorIndex(c: Cursor, view: RowsView): number {
  const n = view.rows.length;
  if (n === 0) return 0;
  if (c.key !== undefined) {
    const i = view.index?.get(c.key);
    if (i !== undefined && view.rows.at(i)?.key === c.key) return i;
  }
  return Math.min(Math.max(c.index, 0), n - 1);
}

/** The cursor as shown: selected index and the window's top. */
export function cursorWindow(c: Cursor, view: RowsView): { index: number; top: number } {
  const index = cursorIndex(c, view);
  return { index, top: visibleWindow(view.rows, index, view.height, c.top).top };
}

function moveTo(view: RowsView, index: number, top: number): Cursor {
  const n = view.rows.length;
  const i = n === 0 ? 0 : Math.min(Math.max(index, 0), n - 1);
  return { index: i, key: view.rows.at(i)?.key, top: visibleWindow(view.rows, i, view.height, top).top };
}

function flip(e: Expansion, key: string): Expansion {
  const toggled = new Set(e.toggled);
  if (!toggled.delete(key)) toggled.add(key);
  return { mode: e.mode, toggled };
}

function move(c: Cursor, type: 'up' | 'down' | 'top' | 'bottom' | 'pageUp' | 'pageDown', view: RowsView): Cursor {
  const { index, top } = cursorWindow(c, view);
  const h = Math.max(1, view.height);
  switch (type) {
    case 'up':
      return moveTo(view, index - 1, top);
    case 'down':
      return moveTo(view, index + 1, top);
    case 'top':
      return moveTo(view, 0, 0);
    case 'bottom':
      return moveTo(view, END, END);
    case 'pageUp':
      return moveTo(view, index - h, Math.max(0, top - h));
    case 'pageDown':
      return moveTo(view, index + h, top + h);
  }
}

/** Whether Esc closes something in the view (else it means "back" to the shell). */
export const hasSomethingToClose = (s: TurnsState, autoDetail: boolean): boolean => s.showHistory || (s.showDetail === true && !autoDetail);

const viewFor = (v: ViewOf, s: TurnsState): RowsView => (typeof v === 'function' ? v(s) : v);
const detailShown = (s: TurnsState, autoDetail: boolean): boolean => s.showDetail ?? autoDetail;

export function turnsReducer(state: TurnsState, action: TurnsAction): TurnsState {
  const which = state.showHistory ? 'history' : 'tree';
  switch (action.type) {
    case 'up':
    case 'down':
    case 'top':
    case 'bottom':
    case 'pageUp':
    case 'pageDown':
      return { ...state, [which]: move(state[which], action.type, viewFor(action.view, state)), follow: action.type === 'bottom' && which === 'tree' };
    case 'select': {
      const view = viewFor(action.view, state);
      return { ...state, [which]: moveTo(view, action.index, cursorWindow(state[which], view).top), follow: false };
    }
    case 'pick': {
      const s = { ...state, showHistory: false, follow: false };
      const view = viewFor(action.view, s);
      const cur = cursorWindow(s.tree, view);
      const to = action.pick(view.rows, cur.index);
      return to === undefined ? s : { ...s, tree: moveTo(view, to, cur.top) };
    }
    case 'expand':
    case 'collapse':
    case 'toggle': {
      if (state.showHistory) return action.type === 'toggle' ? { ...state, showDetail: !detailShown(state, action.autoDetail) } : state;
      const view = viewFor(action.view, state);
      const { index, top } = cursorWindow(state.tree, view);
      const row = view.rows.at(index);
      if (!row) return state;
      const tree: Cursor = { index, key: row.key, top };
      if (action.type === 'toggle') {
        return row.expandable ? { ...state, tree, expansion: flip(state.expansion, row.key) } : { ...state, showDetail: !detailShown(state, action.autoDetail) };
      }
      if (action.type === 'expand') {
        if (row.expandable && !row.expanded) return { ...state, tree, expansion: flip(state.expansion, row.key) };
        if (row.expanded && view.rows.at(index + 1)?.parent === index) return { ...state, tree: moveTo(view, index + 1, top) };
        return state;
      }
      if (row.expandable && row.expanded) return { ...state, tree, expansion: flip(state.expansion, row.key) };
      if (row.parent >= 0) return { ...state, tree: moveTo(view, row.parent, top) };
      return state;
    }
    case 'expandAll':
      return state.showHistory ? state : { ...state, expansion: { mode: 'all', toggled: new Set() } };
    case 'collapseAll': {
      if (state.showHistory) return state;
      // keep the selection visible: move it to its top-level ancestor
      const view = viewFor(action.view, state);
      const rows = view.rows;
      let i = cursorIndex(state.tree, view);
      let row = rows.at(i);
      while (row && row.parent >= 0) row = rows.at((i = row.parent));
      const tree = row ? { ...state.tree, index: i, key: row.key } : state.tree;
      return { ...state, tree, expansion: { mode: 'none', toggled: new Set() } };
    }
    case 'toggleHistory': {
      if (state.showHistory) return { ...state, showHistory: false };
      const view = viewFor(action.view, state);
      const row = view.rows.at(cursorIndex(state.tree, view));
      return { ...state, showHistory: true, historyUpTo: row ? row.lastSeq : -1, history: { index: END, top: END } };
    }
    case 'toggleDetail':
      return { ...state, showDetail: !detailShown(state, action.autoDetail) };
    case 'back':
      if (state.showHistory) return { ...state, showHistory: false };
      if (state.showDetail === true && !action.autoDetail) return { ...state, showDetail: false };
      return state;
    case 'reset':
      return initialTurnsState();
  }
}
