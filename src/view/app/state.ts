// The app's one state: its shape, the actions and effects of its reducer
// (reducer.ts), and the values every part derives from it (the rows on
// screen, the selected session, the layout). The reducer's steps are the
// handlers in each surface's key table (src/view/<surface>/surface.ts) and
// the actions every view shares (commands.ts); the registry (surfaces.ts)
// says who has the keyboard and what the highlighted row means.
import type { Query } from '../../session/query.js';
import type { Changes } from '../../session/changes.js';
import { type Comparison } from '../../session/compare.js';
import { type ResumeCommand } from '../../session/resume-command.js';
import type { Session } from '../../session/session.js';
import { frame, type AppLayout, type Size } from './layout.js';
import type { Problem } from '../../session/errors.js';
import type { KeyPress } from './keys.js';
import type { ViewName } from './surface.js';
import type { AppState } from './surfaces.js';
import type { RowSeq } from './window.js';
import type { World } from './world.js';

export interface Status {
  text: string;
  tone: 'info' | 'ok' | 'error';
  id: number;
}

/** What every surface shares: the view, the one selection, the status line, the mark, a background work. */
export interface CoreState {
  view: ViewName;
  size: Size;
  /** THE selection: a session key (file path), shared by every view */
  selection?: string;
  /** until the first key, the selection is the top row (the first scan keeps adding rows above a key) */
  pinTop: boolean;
  /** the instance last seen for the selection (kept on screen, marked deleted, when its file goes) */
  selected?: Session;
  /** the selection is a deleted session, shown until the user moves away */
  ghost: boolean;
  status?: Status;
  statusSeq: number;
  /** the session marked with `m` (a key), to compare another with */
  mark?: string;
  /** an export or a comparison of a large log, made in the background (Esc cancels) */
  work?: BackgroundWork;
  workSeq: number;
}

/** The whole state: the core and each surface's slice (the registry composes it). */
export type { AppState } from './surfaces.js';

/**
 * An export or a comparison that reads a large log (usesIndex): seconds of
 * reading, so the app makes it in its slices, keys answered meanwhile; its
 * progress is on the title bar and Esc cancels it. One at a time.
 */
export interface BackgroundWork {
  id: number;
  kind: 'export' | 'compare' | 'changes' | 'timeline';
  /** the session(s) it reads, as the status names them (sanitized) */
  label: string;
  /** how much is read, 0 to 1 */
  done: number;
}

/** What a background work brings back. */
export type WorkResult =
  | { kind: 'export'; file: string; bytes: number }
  | { kind: 'compare'; comparison: Comparison }
  | { kind: 'changes'; changes: Changes }
  /** a large turn's timeline is folded (timeline-of.ts keeps it) */
  | { kind: 'timeline' };

export type AppAction =
  | { type: 'key'; press: KeyPress }
  | { type: 'resize'; size: Size }
  /** the store changed (the world is a new snapshot) */
  | { type: 'world' }
  | { type: 'forked'; child: Session; source: Session }
  | { type: 'forkFailed'; error: Problem }
  | { type: 'exported'; file: string; bytes: number }
  | { type: 'exportFailed'; message: string; pager?: boolean }
  | { type: 'statusExpired'; id: number }
  /** the background search of a large log (searchTurns) has read on, or is done: its matches */
  | { type: 'searchProgress'; key: string; query: string; seen: number }
  | { type: 'searchDone'; key: string; query: string; seqs: number[] }
  | { type: 'searchFailed'; key: string; query: string; message: string }
  /** the background work `id` has read on, is done, or failed (ignored once cancelled) */
  | { type: 'workProgress'; id: number; done: number }
  | { type: 'workDone'; id: number; result: WorkResult }
  | { type: 'workFailed'; id: number; message: string };

export type Effect =
  /** write the child: exactly the dialog's pinned source instance and cut */
  | { type: 'fork'; source: Session; boundary: number | undefined; childId: string }
  | { type: 'exit' }
  | { type: 'expireStatus'; id: number; ms: number }
  /** put text on the clipboard (OSC 52) */
  | { type: 'copy'; text: string }
  /** leave the browser (terminal restored) and run `dsh argv…` in `cwd` */
  | { type: 'run'; command: ResumeCommand }
  /** leave the screen for $PAGER with `content`, then come back */
  | { type: 'pager'; content: string }
  /** write a transcript of `session` (up to seq `upTo`) to a new file in the export folder; `work`: in the background, as that work */
  | { type: 'export'; session: Session; upTo?: number; work?: number }
  /** compare `left` with `right` in the background, as the work `work` (workDone brings the comparison) */
  | { type: 'compare'; left: Session; right: Session; work: number }
  /** read what `session` changed in the background, as the work `work` (workDone brings the changes) */
  | { type: 'changes'; session: Session; work: number }
  /** fold a large turn's timeline (its turn/start at `turnSeq`) in the background, as the work `work` */
  | { type: 'timeline'; session: Session; turnSeq: number; work: number }
  /** search a large log's events in the background (the `/` search of Turns); its answers come back as searchProgress/searchDone */
  | { type: 'searchTurns'; session: Session; key: string; query: Query; text: string };

export interface Step {
  state: AppState;
  effects: Effect[];
}

/** How long a status message stays. */
export const STATUS_MS = 5000;

/** The core of a first state (the registry adds each surface's slice: initialAppState). */
export function initialCore(size: Size, view: ViewName): CoreState {
  return { view, size, pinTop: true, ghost: false, statusSeq: 0, workSeq: 0 };
}

// ---- derived values (read by the reducer and the views alike) ------------

/** The screen's width and content rows (the view's own rows, under the overlays: App.layout). */
export const frameOf = (s: AppState): Pick<AppLayout, 'width' | 'content'> => frame(s.size);

/**
 * The row of `key` (-1: none). `near` is where it was last (the view's hint):
 * looked at first, so a key press on a 100,000-row list does not search it.
 */
export function indexOfKey(rows: RowSeq<{ key: string | null }>, key: string | undefined, near?: number): number {
  if (key === undefined) return -1;
  if (near !== undefined) for (const i of [near, near - 1, near + 1]) if (i >= 0 && rows.at(i)?.key === key) return i;
  // a list that builds only the rows read (ItemRows) finds a key without building them
  const find = (rows as { indexOfKey?: (k: string) => number }).indexOfKey;
  if (find) return find.call(rows, key);
  return rows.slice().findIndex((r) => r.key === key);
}

/** The selected session: the live instance, or the deleted one kept on screen. */
export function selectedSession(s: AppState, world: World): Session | undefined {
  if (s.selection === undefined) return undefined;
  return world.session(s.selection) ?? (s.ghost ? s.selected : undefined);
}

// ---- helpers ----------------------------------------------------------------

export const step = (state: AppState, effects: Effect[] = []): Step => ({ state, effects });

export function withStatus(s: AppState, text: string, tone: Status['tone'] = 'info'): Step {
  const id = s.statusSeq + 1;
  return { state: { ...s, status: { text, tone, id }, statusSeq: id }, effects: [{ type: 'expireStatus', id, ms: STATUS_MS }] };
}

export function select(s: AppState, key: string | undefined, world: World): AppState {
  if (key === s.selection) return s;
  return { ...s, selection: key, selected: key === undefined ? undefined : world.session(key), ghost: false };
}
