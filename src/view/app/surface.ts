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
import type { SessionEvent } from '../../session/events.js';
import type { Session } from '../../session/session.js';
import type { KeyPress } from './keys.js';
import type { AppLayout } from './layout.js';
import type { AppAction, AppState, Step } from './state.js';
import type { SurfaceIds, ViewIds } from './surfaces.js';
import type { TargetOf } from './target.js';
import type { Snapshot, World } from './world.js';

/** A surface's name: one of the registry's. */
export type SurfaceId = SurfaceIds;
/** The tabs: the registry's views. */
export type ViewName = ViewIds;

export interface SurfaceModule<Id extends string = SurfaceId> {
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
  answer?(s: AppState, a: AppAction, world: World, app: App): Step | undefined;
  /** a key no binding took: text for its field, an entry's own key in the menu (default: nothing happens) */
  other?(s: AppState, world: World, app: App, p: KeyPress): Step;
  /** a disabled binding says why in the status line instead of running (the views' actions) */
  explainsDisabled?: boolean;
  /** after every action while it is shown: re-points its highlighted row, clamps its window */
  normalize?(s: AppState, world: World, app: App): AppState;
  /** it is opened over the current view, whose rows the actions still mean (the reader over Turns) */
  overView?: boolean;
  /** a prompt typed over a view, which draws it (the Sessions filter, the Turns search): the registry says which view */
  prompt?: boolean;
  /** what its highlighted row means (the row surfaces: the views and Compare) */
  target?(s: AppState, world: World, app: App): TargetOf;
  /** entered with Tab / Shift-Tab (Problems highlights the selection's worst problem) */
  enter?(s: AppState, world: World, from: ViewName): AppState;
  /** a deleted selection is not kept on screen here (the lineage tree has no row for it) */
  dropsDeleted?: boolean;
  /** help lists the text-field keys */
  hasText?: boolean;
  /** it shows one session's log (Turns): its rows are cuts `f` forks at, `x` exports up to, and its session loads while shown */
  showsSession?: boolean;
  /** it reads the selected session's turns now (Sessions while its detail pane is open): that session's load goes on in the background */
  readsSelection?(s: AppState): boolean;
  /** opens session `key` in this view, at `seq` when given (the view that shows a session) */
  openSession?(s: AppState, world: World, app: App, key: string, seq?: number): AppState;
  /** its rows are events: the action menu's title gives the target's seq (Turns, Problems) */
  eventRows?: boolean;
  /** what its tab says beside its title (Turns: the session it shows) */
  tabLabel?(s: AppState, world: World): string | undefined;
  /** rows it takes under the view while open (an overlay: the fork dialog, the action menu); undefined: none */
  rowsUnder?(s: AppState, width: number, content: number): number | undefined;
  /** the terminal was resized */
  resized?(s: AppState): AppState;
  /** what it reads of the store, built from a snapshot (its part of the World: reads.ts) */
  reads?(snap: Snapshot): object;
  /** its key opens it (the fork dialog: f on the target; Compare: c; Changes: C; Timeline: T; help: ?) */
  open?(s: AppState, world: World, app: App): Step;
  /** opens `page` full screen over the current view, whose rows the actions still mean (the reader) */
  read?(s: AppState, world: World, page: Page): Step;
  /** a search typed over this view found its matches (`turnSearch.seqs`): the first at or after the cursor is shown (Turns) */
  found?(s: AppState, world: World, app: App): Step;
  /** lifts what would hide `session` here (a filter, a project scope), with a note saying so */
  reveal?(s: AppState, world: World, session: Session): { state: AppState; note: string } | undefined;
}

/** What the reader shows: a text, or an event as it reads events; `in` is the session's id, for its title. */
export type Page = { in: string; title: string; text: string } | { in: string; event: SessionEvent };

/** A tab's module. */
export type ViewModule<Id extends string> = SurfaceModule<Id> & { view: true };

/** The registry, as the surfaces see it. */
export interface App {
  surface<Id extends SurfaceId>(id: Id): SurfaceModule<Id>;
  /** the tabs, in order */
  readonly views: readonly ViewName[];
  /** the first tab (Sessions): where Esc from a list, or from Turns opened from nowhere else, returns */
  readonly home: ViewName;
  /** session `key` opened in the view that shows one session, at `seq` when given */
  openSession(s: AppState, world: World, key: string, seq?: number): AppState;
  /** f on a view: the fork dialog on the target (or the store's refusal) */
  fork(s: AppState, world: World): Step;
  /** c on a view: Compare, the marked session against the target */
  compare(s: AppState, world: World): Step;
  /** C on a view: Changes, what the target session (in Turns, its turn) did to the code */
  changes(s: AppState, world: World): Step;
  /** T in Turns: Timeline, the highlighted row's turn as bars on its time axis */
  timeline(s: AppState, world: World): Step;
  /** ? anywhere: the keys of the surface it is pressed on */
  help(s: AppState, world: World): Step;
  /** `page` full screen over the current view (Enter on a leaf, o) */
  read(s: AppState, world: World, page: Page): Step;
  /** the surface that receives the next key */
  active(s: AppState): SurfaceModule;
  /** the surface under the overlays: what the body shows, what a help or menu opened now is about */
  content(s: AppState): SurfaceModule;
  /** the surface whose highlighted row the actions mean */
  rows(s: AppState): SurfaceModule;
  /** what the highlighted row means: the one owner of the target */
  target(s: AppState, world: World): TargetOf;
  /** how the screen's rows are shared: the first overlay that takes rows under the view takes them */
  layout(s: AppState): AppLayout;
}
