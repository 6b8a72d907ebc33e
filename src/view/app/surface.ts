// A surface is whatever can have the keyboard: a view (a tab), a prompt
// typed over a view, the reader or Compare over the views, and the overlays
// (the fork dialog, the action menu, help). Each one is a module in its own
// folder (src/view/<surface>/surface.ts) holding its key table with the
// handlers, the clamp of its slice of the state and the row its actions mean;
// the registry (surfaces.ts) lists them in the order they take the keyboard.
//
// A surface reaches the others only through the `App` it is handed (the
// registry's): the registry imports every surface, so no surface imports it.
import type { Binding, KeyDoc } from './binding.js';
import type { KeyPress } from './keys.js';
import type { AppAction, AppState, Step } from './state.js';
import type { TargetOf } from './target.js';
import type { World } from './world.js';

/** The tabs. */
export type ViewName = 'sessions' | 'turns' | 'lineage' | 'problems';
export type Overlay = 'dialog' | 'menu' | 'help';
export type Prompt = 'filter' | 'search';
export type SurfaceId = Overlay | Prompt | 'reader' | 'compare' | ViewName;

export interface SurfaceModule<Id extends SurfaceId = SurfaceId> {
  id: Id;
  /** as help and docs/keys.md title it */
  title: string;
  /** overlays sit above the content (help covers it; the dialog and the menu take rows under the view) */
  overlay?: boolean;
  /** a tab: Tab and Shift-Tab cycle the views in the registry's order */
  view?: boolean;
  /** this surface has the keyboard (asked in the registry's order; a view: it is the current view) */
  active(s: AppState): boolean;
  /** its key table in this state */
  keys(s: AppState): readonly Binding[];
  /** every table it can show, and the state that selects it (docs/keys.md); default: its table in any state */
  docs?: ReadonlyArray<{ when?: string; keys: readonly KeyDoc[] }>;
  /** an answer from the background that is this surface's (its search's progress and matches); undefined: not its */
  answer?(s: AppState, a: AppAction, world: World): Step | undefined;
  /** a key no binding took: text for its field, an entry's own key in the menu (default: nothing happens) */
  other?(s: AppState, world: World, app: App, p: KeyPress): Step;
  /** a disabled binding says why in the status line instead of running (the views' actions) */
  explainsDisabled?: boolean;
  /** after every action while it is shown: re-points its highlighted row, clamps its window */
  normalize?(s: AppState, world: World, app: App): AppState;
  /** the view whose rows the actions mean while this surface is on screen (a prompt's, the reader's) */
  rowsOf?: ViewName;
  /** what its highlighted row means (the row surfaces: the views and Compare) */
  target?(s: AppState, world: World, app: App): TargetOf;
  /** entered with Tab / Shift-Tab (Problems highlights the selection's worst problem) */
  enter?(s: AppState, world: World, from: ViewName): AppState;
  /** a deleted selection is not kept on screen here (the lineage tree has no row for it) */
  dropsDeleted?: boolean;
  /** help lists the text-field keys */
  hasText?: boolean;
}

/** The registry, as the surfaces see it. */
export interface App {
  surface<Id extends SurfaceId>(id: Id): SurfaceModule<Id>;
  /** the tabs, in order */
  readonly views: readonly ViewName[];
  /** the surface that receives the next key */
  active(s: AppState): SurfaceModule;
  /** the surface under the overlays: what the body shows, what a help or menu opened now is about */
  content(s: AppState): SurfaceModule;
  /** the surface whose highlighted row the actions mean */
  rows(s: AppState): SurfaceModule;
  /** what the highlighted row means: the one owner of the target */
  target(s: AppState, world: World): TargetOf;
}
