// The registry: every surface, in the order they take the keyboard (the
// overlays, the prompts, the reader and Compare, then the views, whose order
// is the tabs'). The reducer, the layout, the footer, help, the action menu,
// the tab bar, the body and docs/keys.md all iterate this list, and the app's
// state and world are composed here from each surface's slice and reads (the
// world's by worldOf, on the snapshot src/world takes). A new surface
// is a folder and its line in SURFACES (its slice and reads, if it has any,
// in AppState and World), and its body's line in components/app/app.tsx.
import type { KeyDoc } from './binding.js';
import { initialCore, type CoreState } from './state.js';
import { appLayout, frame, type Size } from './layout.js';
import { initialSessions, type SessionsSlice } from '../sessions/slice.js';
import { initialFilter, type FilterSlice } from '../filter/slice.js';
import { initialLineage, type LineageSlice } from '../lineage/slice.js';
import { initialProblems, type ProblemsSlice } from '../problems/slice.js';
import { initialTurns, type TurnsSlice } from '../turns/turns-slice.js';
import type { SearchSlice } from '../search/slice.js';
import type { ReaderSlice } from '../reader/slice.js';
import type { CompareSlice } from '../compare/slice.js';
import type { ChangesSlice } from '../changes/slice.js';
import type { TimelineSlice } from '../timeline/slice.js';
import type { MenuSlice } from '../menu/slice.js';
import type { DialogSlice } from '../dialog/slice.js';
import type { HelpSlice } from '../help/slice.js';
import type { App, SurfaceId, SurfaceModule, ViewName } from './surface.js';
import type { TargetOf } from './target.js';
import type { CoreWorld, Snapshot } from './world.js';
import type { SessionsReads } from '../sessions/reads.js';
import type { LineageReads } from '../lineage/reads.js';
import type { TurnsReads } from '../turns/reads.js';
import { DIALOG } from '../dialog/surface.js';
import { MENU } from '../menu/surface.js';
import { HELP } from '../help/surface.js';
import { FILTER } from '../filter/surface.js';
import { SEARCH } from '../search/surface.js';
import { READER } from '../reader/surface.js';
import { COMPARE } from '../compare/surface.js';
import { CHANGES } from '../changes/surface.js';
import { TIMELINE } from '../timeline/surface.js';
import { SESSIONS } from '../sessions/surface.js';
import { TURNS } from '../turns/surface.js';
import { LINEAGE } from '../lineage/surface.js';
import { PROBLEMS } from '../problems/surface.js';

export const SURFACES = [DIALOG, MENU, HELP, FILTER, SEARCH, READER, COMPARE, CHANGES, TIMELINE, SESSIONS, TURNS, LINEAGE, PROBLEMS] as const;

/** The app's one state: the core, and each surface's slice. */
export interface AppState extends CoreState, SessionsSlice, FilterSlice, LineageSlice, ProblemsSlice, TurnsSlice, SearchSlice, ReaderSlice, CompareSlice, ChangesSlice, TimelineSlice, MenuSlice, DialogSlice, HelpSlice {}

/** What the views read of the store: one snapshot (src/world/world.ts takes it), each view's reads built on it (worldOf). */
export interface World extends CoreWorld, SessionsReads, LineageReads, TurnsReads {}

/** The first state: on `view` (the first tab unless given), each slice at its start. */
export function initialAppState(size: Size, view?: ViewName): AppState {
  return { ...initialCore(size, view ?? VIEWS[0]), ...initialSessions, ...initialFilter, ...initialLineage, ...initialProblems, ...initialTurns };
}

export type SurfaceIds = (typeof SURFACES)[number]['id'];
export type ViewIds = Extract<(typeof SURFACES)[number], { view: true }>['id'];

/** The view each prompt is typed over, which draws it: it has the keyboard only there. */
const PROMPT_OVER: Readonly<Record<string, string>> = { [FILTER.id]: SESSIONS.id, [SEARCH.id]: TURNS.id };

/** Whether `m` has the keyboard now (a prompt: only over its view). */
const isActive = (m: SurfaceModule, s: AppState): boolean => m.active(s) && (!m.prompt || PROMPT_OVER[m.id] === s.view);

const byId = new Map<SurfaceId, SurfaceModule>(SURFACES.map((m) => [m.id, m as SurfaceModule]));
const ALL: readonly SurfaceModule[] = SURFACES;
const VIEWS = ALL.filter((m) => m.view).map((m) => m.id as ViewName);
const CONTENT = ALL.filter((m) => !m.overlay);

function content(s: AppState): SurfaceModule {
  return CONTENT.find((m) => isActive(m, s)) ?? byId.get(s.view)!;
}

function rows(s: AppState): SurfaceModule {
  const c = content(s);
  return c.overView || c.prompt ? byId.get(s.view)! : c;
}

/** The view that shows one session (Turns): where a session is opened. */
const SHOWS = ALL.find((m) => m.openSession)!;
/** The surface that reads a page full screen (the reader). */
const READS = ALL.find((m) => m.read)!;

/** Rows the first open overlay takes under the view (the dialog before the menu, as the registry orders them). */
function rowsUnder(s: AppState): number {
  const { width, content } = frame(s.size);
  for (const m of ALL) {
    const n = m.rowsUnder?.(s, width, content);
    if (n !== undefined) return n;
  }
  return 0;
}

export const APP: App = {
  surface: <Id extends SurfaceId>(id: Id) => byId.get(id) as SurfaceModule<Id>,
  views: VIEWS,
  home: VIEWS[0],
  openSession: (s, world, key, seq) => SHOWS.openSession!(s, world, APP, key, seq),
  fork: (s, world) => DIALOG.open!(s, world, APP),
  compare: (s, world) => COMPARE.open!(s, world, APP),
  changes: (s, world) => CHANGES.open!(s, world, APP),
  timeline: (s, world) => TIMELINE.open!(s, world, APP),
  help: (s, world) => HELP.open!(s, world, APP),
  read: (s, world, page) => READS.read!(s, world, page),
  active: (s) => ALL.find((m) => isActive(m, s)) ?? byId.get(s.view)!,
  content,
  rows,
  target: (s: AppState, world: World): TargetOf => rows(s).target?.(s, world, APP) ?? { none: 'no session selected' },
  layout: (s) => appLayout(s.size, rowsUnder(s)),
};

/**
 * The World of a snapshot: each surface's reads built on it (getters kept:
 * a read is computed when first asked). `snap` becomes the World.
 */
export function worldOf<S extends Snapshot>(snap: S): S & World {
  for (const m of ALL) {
    const reads = m.reads?.(snap);
    if (reads) Object.defineProperties(snap, Object.getOwnPropertyDescriptors(reads));
  }
  return snap as S & World;
}

/** Every table a surface can show, with the state that selects it: what docs/keys.md lists (views first, as the tabs). */
export function everyKeyTable(): Array<{ surface: SurfaceModule; when?: string; keys: readonly KeyDoc[] }> {
  const any = initialAppState({ columns: 80, rows: 24 });
  const order = [...ALL.filter((m) => m.view), ...ALL.filter((m) => !m.view && !m.overlay), ...ALL.filter((m) => m.overlay)];
  return order.flatMap((m) => (m.docs ?? [{ keys: m.keys(any) }]).map((d) => ({ surface: m, ...d })));
}
