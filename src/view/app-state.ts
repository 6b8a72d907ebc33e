// The app's one state and its pure reducer. Every key press and every store
// change is an action applied to the latest state, in order; after each one
// `normalize` re-points the ONE selection (a session key) at the row the
// screen highlights, so every action (`f`, Enter, Tab, the footer, the Lineage
// highlight) reads the same thing the user sees. Side effects (writing a
// fork, exiting, a timer) are returned as effects for the shell to run.
import { compareSessions, type Comparison } from '../session/compare.js';
import { resumeCommand, type ResumeCommand } from '../session/resume-command.js';
import { layoutOf as fileLayoutOf } from '../storage/layout.js';
import { menuItems } from './action-menu.js';
import { compareRows, type CompareRow } from './compare-model.js';
import { compareEnter, compareReducer, initialCompareState, type CompareState } from './compare-state.js';
import type { Session } from '../session/session.js';
import { SessionStore } from '../session/store.js';
import { appLayout, AUTO_DETAIL_HEIGHT, lineageListHeight, problemsListHeight, sessionsListHeight, turnsLayout, type AppLayout, type Size } from './app-layout.js';
import { afterForkFailure, openForkDialog, type Dialog, type Problem } from './fork-dialog-state.js';
import { helpLines, helpPageSize } from './help.js';
import type { KeyPress } from './keys.js';
import type { SessionEvent } from '../session/events.js';
import { isQueryError, parseQuery } from '../session/query.js';
import { initialReaderState, readerDoc, readerReducer, eventReaderContent, type ReaderState } from './reader-state.js';
import { readerCommandFor, readerPromptKey } from './reader-keys.js';
import { seedDiffText } from './seed-diff.js';
import { openToSeq, stepMatch, turnMatches } from './turn-search.js';
import { commandFor, type Command, type ViewName } from './keymap.js';
import { isMove, moveCursor } from './list-cursor.js';
import type { LineageRow } from './lineage-layout.js';
import { sanitizeInline } from './sanitize.js';
import { filterSessions, listItemOf, nextOrder, rowOf, type SessionRow, type SortOrder } from './session-list.js';
import { editField, textField, type TextField } from './text-field.js';
import { nearestBoundaries } from '../session/log-facts.js';
import { nearestBoundary, rowIndexForSeq, type TurnRow } from './turn-rows.js';
import { cursorIndex, hasSomethingToClose, initialTurnsState, turnsReducer, type RowsView, type TurnsAction, type TurnsState } from './turns-state.js';
import { visibleWindow } from './window.js';
import type { TurnsData, World } from './world.js';

export const VIEWS: readonly ViewName[] = ['sessions', 'turns', 'lineage', 'problems'];

export interface Status {
  text: string;
  tone: 'info' | 'ok' | 'error';
  id: number;
}

export interface AppState {
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
  /** highlighted row index and window top of each list (where a vanished selection's successor is) */
  sessions: { hint: number; top: number };
  lineage: { hint: number; top: number; collapsed: ReadonlySet<string> };
  problems: { hint: number; top: number };
  filter: TextField;
  filterEditing: boolean;
  order: SortOrder;
  /** every project's sessions, or only the current project's (when the world has a scope) */
  allProjects: boolean;
  help?: { scroll: number };
  dialog?: Dialog;
  /** each opened session's Turns state (cursor, expansion, scroll), by key: kept across views and help */
  turns: ReadonlyMap<string, TurnsState>;
  status?: Status;
  statusSeq: number;
  /** the session marked with `m` (a key), to compare another with */
  mark?: string;
  /** the Compare surface: open over the views, or hidden while one of its turns is open in Turns (Esc returns) */
  compare?: CompareSurface;
  /** the action menu (`a`): what can be done on the selection, disabled entries with their reason */
  menu?: { cursor: number };
  /** the full-screen reader of one event's content (Enter/o in Turns); Esc returns to the same row */
  reader?: ReaderState;
  /** the `/` search of the Turns session: the query being typed, then its matches (n/N) */
  turnSearch?: TurnSearch;
}

export interface TurnSearch {
  /** the session it searched */
  key: string;
  field: TextField;
  editing: boolean;
  /** seqs of the matching events, ascending (after Enter) */
  seqs: number[];
  query?: string;
}

export interface CompareSurface {
  comparison: Comparison;
  rows: CompareRow[];
  cs: CompareState;
  open: boolean;
  /** the view Compare was opened from (closing it returns there) */
  from: ViewName;
}

export type AppAction =
  | { type: 'key'; press: KeyPress }
  | { type: 'resize'; size: Size }
  /** the store changed (the world is a new snapshot) */
  | { type: 'world' }
  | { type: 'forked'; child: Session; source: Session }
  | { type: 'forkFailed'; error: Problem }
  | { type: 'exported'; file: string; bytes: number }
  | { type: 'exportFailed'; message: string; pager?: boolean }
  | { type: 'statusExpired'; id: number };

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
  /** write a transcript of `session` (up to seq `upTo`) to a new file in the export folder */
  | { type: 'export'; session: Session; upTo?: number };

export interface Step {
  state: AppState;
  effects: Effect[];
}

/** How long a status message stays. */
export const STATUS_MS = 5000;

export function initialAppState(size: Size, view: ViewName = 'sessions'): AppState {
  return {
    view,
    size,
    pinTop: true,
    ghost: false,
    sessions: { hint: 0, top: 0 },
    lineage: { hint: 0, top: 0, collapsed: new Set() },
    problems: { hint: 0, top: 0 },
    filter: textField(''),
    filterEditing: false,
    order: 'recent',
    allProjects: true,
    turns: new Map(),
    statusSeq: 0,
  };
}

// ---- derived values (read by the reducer and the views alike) ------------

/** The action menu always lists the same entries (disabled ones with their reason). */
export const MENU_ENTRIES = 7;

export const layoutOf = (s: AppState): AppLayout => appLayout(s.size, s.dialog, s.menu ? MENU_ENTRIES : 0);

/** The Sessions rows as shown: the filtered, sorted list, plus a deleted selection kept in place. */
export function sessionsRows(s: AppState, world: World): readonly SessionRow[] {
  const rows = world.rows(s.filter.text, s.order, s.allProjects);
  if (!s.ghost || !s.selected) return rows;
  const ghost = { ...rowOf(listItemOf(s.selected), 0, world.now), badge: 'file deleted', tone: 'red' as const, forkable: false };
  const at = Math.min(Math.max(0, s.sessions.hint), rows.length);
  return [...rows.slice(0, at), ghost, ...rows.slice(at)];
}

export const indexOfKey = (rows: readonly { key: string | null }[], key: string | undefined): number => (key === undefined ? -1 : rows.findIndex((r) => r.key === key));

/** The selected session: the live instance, or the deleted one kept on screen. */
export function selectedSession(s: AppState, world: World): Session | undefined {
  if (s.selection === undefined) return undefined;
  return world.session(s.selection) ?? (s.ghost ? s.selected : undefined);
}

export const turnsStateOf = (s: AppState, key: string | undefined): TurnsState => (key !== undefined ? s.turns.get(key) : undefined) ?? initialTurnsState();

const autoDetail = (s: AppState): boolean => layoutOf(s).view >= AUTO_DETAIL_HEIGHT;

/** The rows a Turns state shows (tree under its expansion, or the history) and the list height. */
export function turnsView(s: AppState, data: Extract<TurnsData, { ok: true }>): (st: TurnsState) => RowsView {
  const height = layoutOf(s).view;
  const auto = autoDetail(s);
  return (st) => {
    const list = turnsLayout(height, st.showDetail ?? auto).list;
    if (st.showHistory) return { rows: data.history(st.historyUpTo), height: list };
    const m = data.rows(st.expansion);
    return { rows: m.rows, index: m.index, height: list };
  };
}

/** What `f` on a Turns row cuts at: a boundary marker at its seq, any other row at its last seq. */
export const cutOfRow = (row: TurnRow): number => (row.kind === 'boundary' ? row.seq : row.lastSeq);

// ---- helpers ----------------------------------------------------------------

const step = (state: AppState, effects: Effect[] = []): Step => ({ state, effects });

function withStatus(s: AppState, text: string, tone: Status['tone'] = 'info'): Step {
  const id = s.statusSeq + 1;
  return { state: { ...s, status: { text, tone, id }, statusSeq: id }, effects: [{ type: 'expireStatus', id, ms: STATUS_MS }] };
}

function setTurns(s: AppState, key: string, t: TurnsState): AppState {
  const turns = new Map(s.turns);
  turns.set(key, t);
  return { ...s, turns };
}

function select(s: AppState, key: string | undefined, world: World): AppState {
  if (key === s.selection) return s;
  return { ...s, selection: key, selected: key === undefined ? undefined : world.session(key), ghost: false };
}

/** Opens the Turns view on `key`, at `seq` when given (its boundary marker, or the row covering it). */
function openTurns(s: AppState, key: string, world: World, seq?: number): AppState {
  let next: AppState = { ...select(s, key, world), view: 'turns', help: undefined, dialog: undefined };
  const session = selectedSession(next, world);
  if (seq === undefined || !session) return next;
  const data = world.turns(session);
  if (!data.ok) return next;
  const t = turnsReducer(turnsStateOf(next, key), { type: 'pick', view: turnsView(next, data), pick: (rows) => rowIndexForSeq(rows, seq) });
  next = setTurns(next, key, t);
  return next;
}

function cycleView(view: ViewName, by: number): ViewName {
  return VIEWS[(VIEWS.indexOf(view) + by + VIEWS.length) % VIEWS.length];
}

/** The session row nearest to `i` in direction `dir` first, then the other way; -1 when there is none. */
function nearestSessionRow(rows: readonly LineageRow[], i: number, dir: 1 | -1): number {
  for (let j = i; j >= 0 && j < rows.length; j += dir) if (rows[j].key !== null) return j;
  for (let j = i; j >= 0 && j < rows.length; j -= dir) if (rows[j].key !== null) return j;
  return -1;
}

/** Moves in the lineage list land on session rows only (synthetic rows are labels). */
function lineageMove(rows: readonly LineageRow[], from: number, cmd: Command, page: number): number {
  const i = moveCursor(from, cmd, rows.length, page);
  const j = nearestSessionRow(rows, i, cmd === 'up' || cmd === 'pageUp' || cmd === 'bottom' ? -1 : 1);
  return j < 0 ? from : j;
}

// ---- normalize: the selection is the highlighted row -------------------------

/** Runs after every action: re-points the selection and clamps every window. */
export function normalize(s0: AppState, world: World): AppState {
  let s = s0;
  const live = s.selection !== undefined ? world.session(s.selection) : undefined;
  if (live) {
    if (s.selected !== live || s.ghost) s = { ...s, selected: live, ghost: false };
  } else if (s.selection !== undefined) {
    const keep = s.selected?.gone === true && s.view !== 'lineage';
    if (keep !== s.ghost) s = { ...s, ghost: keep };
    if (!keep) s = { ...s, selection: undefined, selected: undefined };
  }
  const lay = layoutOf(s);
  if (s.view === 'sessions' || (s.view === 'turns' && s.selection === undefined)) {
    const rows = sessionsRows(s, world);
    if (s.pinTop && rows.length && s.selection !== rows[0].key) s = { ...select(s, rows[0].key, world), sessions: { ...s.sessions, hint: 0 } };
    let i = indexOfKey(rows, s.selection);
    if (i < 0) {
      i = rows.length ? Math.min(Math.max(0, s.sessions.hint), rows.length - 1) : 0;
      s = select(s, rows[i]?.key, world);
    }
    const top = visibleWindow(rows, i, sessionsListHeight(lay.view), s.sessions.top).top;
    if (i !== s.sessions.hint || top !== s.sessions.top) s = { ...s, sessions: { hint: i, top } };
  } else if (s.view === 'lineage') {
    const rows = world.lineage(s.lineage.collapsed).rows;
    let i = indexOfKey(rows, s.selection);
    if (i < 0) {
      i = nearestSessionRow(rows, Math.min(Math.max(0, s.lineage.hint), rows.length - 1), 1);
      s = select(s, i >= 0 ? (rows[i].key as string) : undefined, world);
      if (i < 0) i = 0;
    }
    const top = visibleWindow(rows, i, lineageListHeight(lay.view), s.lineage.top).top;
    if (i !== s.lineage.hint || top !== s.lineage.top) s = { ...s, lineage: { ...s.lineage, hint: i, top } };
  } else if (s.view === 'problems') {
    const rows = world.problems();
    const i = rows.length ? Math.min(Math.max(0, s.problems.hint), rows.length - 1) : 0;
    const top = visibleWindow(rows, i, problemsListHeight(lay.view), s.problems.top).top;
    if (i !== s.problems.hint || top !== s.problems.top) s = { ...s, problems: { hint: i, top } };
  } else if (s.view === 'turns' && s.selection !== undefined) {
    // tail -F: a cursor parked on the end by G follows a growing log
    const t = s.turns.get(s.selection);
    const session = selectedSession(s, world);
    if (t?.follow && session) {
      const data = world.turns(session);
      if (data.ok) {
        const next = turnsReducer(t, { type: 'bottom', view: turnsView(s, data) });
        if (next.tree.key !== t.tree.key || next.tree.top !== t.tree.top) s = setTurns(s, s.selection, next);
      }
    }
  }
  if (s.help) {
    const max = Math.max(0, helpLines(s.view).length - helpPageSize(lay.content));
    if (s.help.scroll > max) s = { ...s, help: { scroll: max } };
  }
  return s;
}

// ---- the reducer ---------------------------------------------------------------

export function reduce(state: AppState, action: AppAction, world: World): Step {
  const out = reduceRaw(state, action, world);
  return { state: normalize(out.state, world), effects: out.effects };
}

function reduceRaw(s: AppState, a: AppAction, world: World): Step {
  switch (a.type) {
    case 'key':
      return onKey(s, a.press, world);
    case 'resize': {
      const next = { ...s, size: a.size };
      return step(next.reader ? { ...next, reader: readerReducer(next.reader, { type: 'resize', width: layoutOf(next).width, height: readerHeight(next) }) } : next);
    }
    case 'world':
      return step(s);
    case 'statusExpired':
      return step(s.status?.id === a.id ? { ...s, status: undefined } : s);
    case 'forked': {
      const key = SessionStore.keyOf(a.child);
      let next: AppState = { ...s, dialog: undefined };
      // the child becomes the selection; a filter that would hide it is cleared
      if (next.filter.text && filterSessions([listItemOf(a.child)], next.filter.text).length === 0) next = { ...next, filter: textField(''), filterEditing: false };
      next = { ...select(next, key, world), view: next.view === 'turns' ? 'sessions' : next.view };
      const file = a.child.file ? a.child.file.replace(world.root + '/', '') : 'in memory';
      return withStatus(next, `forked ${sanitizeInline(a.source.id)} -> ${sanitizeInline(a.child.id)} (${sanitizeInline(file)}) · y copies: ${sanitizeInline(resumeCommand(a.child).command)}`, 'ok');
    }
    case 'exported':
      return withStatus(s, `exported to ${sanitizeInline(a.file)} (${a.bytes} bytes)`, 'ok');
    case 'exportFailed':
      return withStatus(s, `${a.pager ? 'pager' : 'export'} failed: ${sanitizeInline(a.message)}`, 'error');
    case 'forkFailed': {
      const d = s.dialog;
      if (d?.kind !== 'confirm') return withStatus(s, `fork failed: ${a.error.code}: ${sanitizeInline(a.error.message)}`, 'error');
      return step({ ...s, dialog: afterForkFailure(world, d, a.error) });
    }
  }
}

function onKey(s0: AppState, p: KeyPress, world: World): Step {
  const s = s0.pinTop ? { ...s0, pinTop: false } : s0;
  if (p.key.ctrl && p.input === 'c') return step(s, [{ type: 'exit' }]);
  if (s.dialog) return dialogKey(s, s.dialog, p, world);
  if (s.menu) return menuKey(s, p, world);
  if (s.help) return helpKey(s, p);
  if (s.reader) return readerKey(s, s.reader, p);
  if (s.compare?.open) return compareKey(s, s.compare, p, world);
  if (s.view === 'turns' && s.turnSearch?.editing) return searchKey(s, s.turnSearch, p, world);
  if (s.view === 'sessions' && s.filterEditing) return filterKey(s, p, world);
  if (p.paste !== undefined) return step(s); // a paste outside a text field is not a stream of commands
  const cmd = commandFor(s.view, p.input, p.key);
  switch (cmd) {
    case undefined:
      return step(s);
    case 'quit':
      return step(s, [{ type: 'exit' }]);
    case 'help':
      return step({ ...s, help: { scroll: 0 } });
    case 'nextView':
    case 'prevView': {
      // leaving Turns forgets a Compare it was opened from (Esc would not return there any more)
      const view = cycleView(s.view, cmd === 'nextView' ? 1 : -1);
      let next: AppState = { ...s, view, compare: undefined };
      if (view === 'problems') {
        // Problems opens at the selected session's worst problem, when it has one
        const at = world.problems().findIndex((r) => r.sessionKey !== undefined && r.sessionKey === s.selection);
        if (at >= 0) next = { ...next, problems: { ...next.problems, hint: at } };
      }
      return step(next);
    }
  }
  return command(s, cmd, world);
}

/** A command on the selection in the active view (from a key, or chosen in the action menu). */
export function command(s: AppState, cmd: Command, world: World): Step {
  switch (cmd) {
    case 'copyResume':
    case 'resume':
      return resumeKey(s, cmd, world);
    case 'mark':
      return markKey(s, world);
    case 'compare':
      return openCompare(s, world);
    case 'export':
      return exportKey(s, world);
    case 'menu':
      return step({ ...s, menu: { cursor: 0 } });
    case 'help':
      return step({ ...s, help: { scroll: 0 } });
    case 'quit':
      return step(s, [{ type: 'exit' }]);
  }
  if (s.view === 'sessions') return sessionsCommand(s, cmd, world);
  if (s.view === 'lineage') return lineageCommand(s, cmd, world);
  if (s.view === 'problems') return problemsCommand(s, cmd, world);
  return turnsCommand(s, cmd, world);
}

function problemsCommand(s: AppState, cmd: Command, world: World): Step {
  const rows = world.problems();
  if (isMove(cmd)) {
    // moving through problems selects each one's session (a row of a file that is no session leaves it be)
    const hint = moveCursor(s.problems.hint, cmd, rows.length, problemsListHeight(layoutOf(s).view));
    const key = rows[hint]?.sessionKey;
    const next = key !== undefined && world.session(key) ? select(s, key, world) : s;
    return step({ ...next, problems: { ...s.problems, hint } });
  }
  const row = rows[Math.min(s.problems.hint, rows.length - 1)];
  switch (cmd) {
    case 'open':
      if (!row) return step(s);
      if (row.sessionKey === undefined || !world.session(row.sessionKey)) return withStatus(s, `${sanitizeInline(row.file ?? row.code)} is not a loaded session: nothing to open`, 'error');
      return step(openTurns(s, row.sessionKey, world, row.seq));
    case 'back':
      return step({ ...s, view: 'sessions' });
    case 'fork':
      // the highlighted problem's session, never one selected before (a row of a refused file has none)
      return requestFork(s, row?.sessionKey !== undefined ? world.session(row.sessionKey) : undefined, undefined, world);
    default:
      return step(s);
  }
}

/** Rows of reader text: the content area less its title and status lines. */
const readerHeight = (s: AppState): number => Math.max(1, layoutOf(s).content - 2);

/** The event a Turns row shows in the reader: its own, a turn's prompt. */
function readerEvent(row: TurnRow, events: readonly SessionEvent[]): SessionEvent | undefined {
  if (row.kind === 'turn') {
    for (let i = row.seq; i <= row.lastSeq && i < events.length; i++) if (events[i].type === 'user/message') return events[i];
  }
  return events[row.seq];
}

/** Enter on a leaf / o: the selected event full screen. */
function openReader(s: AppState, world: World): Step {
  const session = selectedSession(s, world);
  if (!session) return step(s);
  const data = world.turns(session);
  if (!data.ok) return withStatus(s, `cannot read this session: ${sanitizeInline(data.error)}`, 'error');
  const t = turnsStateOf(s, s.selection);
  const v = turnsView(s, data)(t);
  const row = v.rows[cursorIndex(t.showHistory ? t.history : t.tree, v)];
  if (!row || row.kind === 'boundary' || row.kind === 'inherited-divider') return withStatus(s, 'nothing to read on this row');
  const div = data.divergence;
  let doc; // (readerDoc sanitises the title and the content)
  if (div && row.seq <= div.seq && div.seq <= row.lastSeq) doc = readerDoc(seedDiffText(div), `${session.id} · seq ${div.seq} differs from the parent's seed`);
  else {
    const e = row.entry ? data.session.events[row.entry.seq] : readerEvent(row, data.session.events);
    if (!e) return withStatus(s, 'nothing to read on this row');
    const { title, content } = eventReaderContent(e);
    doc = readerDoc(content, `${session.id} · ${title}`);
  }
  return step({ ...s, reader: initialReaderState(doc, layoutOf(s).width, readerHeight(s)) });
}

function readerKey(s: AppState, r: ReaderState, p: KeyPress): Step {
  if (r.prompt !== null) {
    if (p.paste === undefined) {
      const a = readerPromptKey(p.input, p.key);
      if (a) return step({ ...s, reader: readerReducer(r, a) });
    }
    const field = editField(textField(r.prompt), p);
    return step(field && field.text !== r.prompt ? { ...s, reader: readerReducer(r, { type: 'searchInput', text: field.text }) } : s);
  }
  if (p.paste !== undefined) return step(s);
  const cmd = readerCommandFor(p.input, p.key);
  if (!cmd) return step(s);
  if ('action' in cmd) return step({ ...s, reader: readerReducer(r, cmd.action) });
  if (cmd.app === 'close') return step({ ...s, reader: undefined });
  return step(s, [{ type: 'pager', content: r.doc.lines.map((l) => l.text).join('\n') + '\n' }]);
}

/** Typing the Turns search: Enter runs it (matches, the first one at or after the cursor), Esc cancels. */
function searchKey(s: AppState, t: TurnSearch, p: KeyPress, world: World): Step {
  if (p.paste === undefined && p.key.escape) return step({ ...s, turnSearch: undefined });
  if (p.paste === undefined && p.key.return) {
    const text = t.field.text.trim();
    if (!text) return step({ ...s, turnSearch: undefined });
    const q = parseQuery(text);
    if (isQueryError(q)) return withStatus(s, `query error at column ${q.position + 1}: ${q.message}`, 'error');
    const session = selectedSession(s, world);
    if (!session) return step(s);
    let seqs: number[];
    try {
      seqs = [...new Set(turnMatches(q, session.events).map((m) => m.seq))].sort((a, b) => a - b);
    } catch (e) {
      return withStatus(s, `cannot search this session: ${sanitizeInline((e as Error).message)}`, 'error');
    }
    const next = { ...s, turnSearch: { ...t, editing: false, seqs, query: text } };
    if (!seqs.length) return withStatus(next, `no match for ${sanitizeInline(text)}`, 'error');
    return gotoMatch(next, world, 1, true);
  }
  const field = editField(t.field, p);
  return step(field && field !== t.field ? { ...s, turnSearch: { ...t, field } } : s);
}

/** n / N: the next (previous) match from the cursor; folded parents open to show it. */
function gotoMatch(s: AppState, world: World, dir: 1 | -1, inclusive = false): Step {
  const t = s.turnSearch;
  const session = selectedSession(s, world);
  if (!t || !t.seqs.length || !session || t.key !== s.selection) return withStatus(s, 'no search here: / searches this session');
  const data = world.turns(session);
  if (!data.ok) return step(s);
  const ts = turnsStateOf(s, t.key);
  const v = turnsView(s, data)(ts);
  const row = v.rows[cursorIndex(ts.tree, v)];
  const from = row === undefined ? undefined : inclusive ? row.seq - dir : row.seq;
  const seq = stepMatch(t.seqs, from, dir);
  if (seq === undefined) return step(s);
  const expansion = openToSeq(ts.expansion, data.tree, seq);
  const opened = { ...ts, showHistory: false, expansion };
  const next = turnsReducer(opened, { type: 'pick', view: turnsView(s, data), pick: (rows) => rowIndexForSeq(rows, seq) });
  const k = t.seqs.indexOf(seq) + 1;
  return withStatus(setTurns(s, t.key, next), `match ${k} of ${t.seqs.length}: seq ${seq} (n/N)`);
}

/** m: marks the selection, or unmarks it when it is the mark. */
function markKey(s: AppState, world: World): Step {
  const session = selectedSession(s, world);
  if (!session || s.selection === undefined) return withStatus(s, 'no session selected', 'error');
  if (s.mark === s.selection) return withStatus({ ...s, mark: undefined }, `unmarked ${sanitizeInline(session.id)}`);
  return withStatus({ ...s, mark: s.selection }, `marked ${sanitizeInline(session.id)}: select another session and press c to compare`);
}

/** Why `c` cannot compare now, or undefined. */
export function compareDisabled(s: AppState, world: World): string | undefined {
  if (s.mark === undefined) return 'mark a session first (m)';
  if (!world.session(s.mark)) return 'the marked session is gone';
  if (s.selection === undefined || !selectedSession(s, world)) return 'no session selected';
  if (s.selection === s.mark) return 'select another session than the marked one';
  return undefined;
}

/** c: the marked session (left) against the selection (right), from their common ancestor. */
function openCompare(s: AppState, world: World): Step {
  const why = compareDisabled(s, world);
  if (why) return withStatus(s, `compare: ${why}`, 'error');
  const left = world.session(s.mark!)!;
  const right = selectedSession(s, world)!;
  let comparison: Comparison;
  try {
    comparison = compareSessions(left, right, world.sessions());
  } catch (e) {
    return withStatus(s, `compare failed: ${sanitizeInline(e instanceof Error ? e.message : String(e))}`, 'error');
  }
  const rows = compareRows(comparison);
  return step({ ...s, compare: { comparison, rows, cs: initialCompareState(rows, compareBody(s)), open: true, from: s.view }, help: undefined });
}

/** Lines for compare rows: the surface's header (2) and hint (1) lines aside. */
const compareBody = (s: AppState): number => Math.max(1, layoutOf(s).content - 3);

function compareKey(s: AppState, c: CompareSurface, p: KeyPress, world: World): Step {
  const k = p.key;
  if (p.paste !== undefined) return step(s);
  if (k.escape || (p.input === 'q' && !k.ctrl)) return step({ ...s, compare: undefined, view: c.from });
  if (k.return) {
    const target = compareEnter(c.comparison, c.rows, c.cs);
    if (!target) return step(s);
    const key = SessionStore.keyOf(target.session);
    if (!world.session(key)) return withStatus(s, `session ${sanitizeInline(target.session.id)} is no longer in the store`, 'error');
    return step(openTurns({ ...s, compare: { ...c, open: false } }, key, world, target.seq));
  }
  const move: Record<string, Parameters<typeof compareReducer>[1]['type'] | undefined> = {
    up: 'up', down: 'down', pageUp: 'pageUp', pageDown: 'pageDown', home: 'home', end: 'end', left: 'left', right: 'right', tab: 'toggleSide',
  };
  const name = k.upArrow || p.input === 'k' ? 'up' : k.downArrow || p.input === 'j' ? 'down' : k.pageUp ? 'pageUp' : k.pageDown ? 'pageDown' : k.home || p.input === 'g' ? 'home' : k.end || p.input === 'G' ? 'end' : k.leftArrow || p.input === 'h' ? 'left' : k.rightArrow || p.input === 'l' ? 'right' : k.tab ? 'tab' : undefined;
  const type = name ? move[name] : undefined;
  if (!type) return step(s);
  return step({ ...s, compare: { ...c, cs: compareReducer(c.cs, { type }, c.rows, compareBody(s)) } });
}

/** x: a transcript of the selection (in Turns up to the selected row) to a new file. */
function exportKey(s: AppState, world: World): Step {
  const session = selectedSession(s, world);
  if (!session) return withStatus(s, 'no session selected: nothing to export', 'error');
  let upTo: number | undefined;
  if (s.view === 'turns') {
    const data = world.turns(session);
    if (data.ok) {
      const t = turnsStateOf(s, s.selection);
      const v = turnsView(s, data)({ ...t, showHistory: false });
      const row = v.rows[cursorIndex(t.tree, v)];
      if (row) upTo = cutOfRow(row);
    }
  }
  return step(s, [{ type: 'export', session, upTo }]);
}

/** The action menu owns the keyboard: move, Enter runs the entry (or says why it cannot), Esc closes. */
function menuKey(s: AppState, p: KeyPress, world: World): Step {
  const items = menuItems(s, world);
  const k = p.key;
  const cursor = Math.min(s.menu!.cursor, Math.max(0, items.length - 1));
  if (p.paste !== undefined) return step(s);
  if (k.escape || (p.input === 'a' && !k.ctrl)) return step({ ...s, menu: undefined });
  if (k.upArrow || p.input === 'k') return step({ ...s, menu: { cursor: Math.max(0, cursor - 1) } });
  if (k.downArrow || p.input === 'j') return step({ ...s, menu: { cursor: Math.min(items.length - 1, cursor + 1) } });
  if (k.home || p.input === 'g') return step({ ...s, menu: { cursor: 0 } });
  if (k.end || p.input === 'G') return step({ ...s, menu: { cursor: items.length - 1 } });
  // an entry's own key runs it too, as the keys stay the fast path
  const byKey = !k.return && !k.ctrl ? items.findIndex((i) => i.key === p.input) : -1;
  const chosen = k.return ? items[cursor] : byKey >= 0 ? items[byKey] : undefined;
  if (!chosen) return step(s);
  const closed = { ...s, menu: undefined };
  if (chosen.disabled) return withStatus(closed, `${chosen.label}: ${chosen.disabled}`, 'error');
  return command(closed, chosen.command, world);
}

/** y / R: the command that continues the selected session in the harness. */
function resumeKey(s: AppState, cmd: 'copyResume' | 'resume', world: World): Step {
  const session = selectedSession(s, world);
  if (!session) return withStatus(s, 'no session selected', 'error');
  if (s.ghost) return withStatus(s, `session ${sanitizeInline(session.id)}: its file was deleted; nothing to resume`, 'error');
  const rc = resumeCommand(session);
  if (cmd === 'resume') {
    // a harness file dsh --resume would refuse: say why instead of running it
    const why = session.file && fileLayoutOf(session.file) !== 'flat' ? world.resumeRefusal(session) : undefined;
    if (why) return withStatus(s, `dsh --resume would refuse ${sanitizeInline(session.id)}: ${sanitizeInline(why)}`, 'error');
    return step(s, [{ type: 'run', command: rc }]);
  }
  const shown = withStatus(s, `copied: ${sanitizeInline(rc.shell)}`, 'ok');
  return { state: shown.state, effects: [{ type: 'copy', text: rc.shell }, ...shown.effects] };
}

function requestFork(s: AppState, session: Session | undefined, cut: number | undefined, world: World): Step {
  if (!session) return withStatus(s, 'no session selected: nothing to fork', 'error');
  return step({ ...s, dialog: openForkDialog(world, session, cut, world.newChildId) });
}

function dialogKey(s: AppState, d: Dialog, p: KeyPress, world: World): Step {
  if (d.kind === 'refused') {
    if (p.key.escape || p.key.return) return step({ ...s, dialog: undefined });
    if (p.input === 'b' && !p.key.ctrl && d.jumpSeq !== undefined) return step(openTurns({ ...s, dialog: undefined }, d.sourceKey, world, d.jumpSeq));
    if (p.input === 'q' && !p.key.ctrl) return step(s, [{ type: 'exit' }]);
    return step(s);
  }
  if (p.key.escape) return withStatus({ ...s, dialog: undefined }, 'fork cancelled: nothing was written');
  if (p.key.return && p.paste === undefined) {
    if (d.childId.text === '') return step({ ...s, dialog: { ...d, error: { code: 'INVALID_SESSION_ID', message: 'the child id is empty: type one' }, note: undefined } });
    // a pinned empty cut on a log that grew since: the store refuses (INVALID_BOUNDARY), nothing is written
    const boundary = d.cut ?? (d.source.length > 0 ? -1 : undefined);
    return step(s, [{ type: 'fork', source: d.source, boundary, childId: d.childId.text }]);
  }
  const field = editField(d.childId, p);
  if (!field || field === d.childId) return step(s);
  return step({ ...s, dialog: { ...d, childId: field, error: undefined } });
}

function helpKey(s: AppState, p: KeyPress): Step {
  const cmd = p.paste === undefined ? commandFor(s.view, p.input, p.key) : undefined;
  if (cmd === 'quit') return step(s, [{ type: 'exit' }]);
  if (cmd === 'back' || cmd === 'help') return step({ ...s, help: undefined });
  if (isMove(cmd)) {
    const page = helpPageSize(layoutOf(s).content);
    const n = helpLines(s.view).length;
    return step({ ...s, help: { scroll: Math.min(Math.max(0, n - page), moveCursor(s.help!.scroll, cmd!, n, page)) } });
  }
  return step(s);
}

function filterKey(s: AppState, p: KeyPress, world: World): Step {
  const k = p.key;
  if (p.paste === undefined) {
    if (k.escape) return step({ ...s, filter: textField(''), filterEditing: false });
    if (k.return) return step({ ...s, filterEditing: false });
    if (k.upArrow || k.downArrow || k.pageUp || k.pageDown) return moveSessions(s, k.upArrow ? 'up' : k.downArrow ? 'down' : k.pageUp ? 'pageUp' : 'pageDown', world);
  }
  const field = editField(s.filter, p);
  return step(field && field !== s.filter ? { ...s, filter: field } : s);
}

function moveSessions(s: AppState, cmd: Command, world: World): Step {
  const rows = sessionsRows(s, world);
  if (!rows.length) return step(s);
  const from = Math.max(0, indexOfKey(rows, s.selection));
  const i = moveCursor(from, cmd, rows.length, sessionsListHeight(layoutOf(s).view));
  return step({ ...select(s, rows[i].key, world), sessions: { ...s.sessions, hint: i } });
}

function sessionsCommand(s: AppState, cmd: Command, world: World): Step {
  if (isMove(cmd)) return moveSessions(s, cmd, world);
  switch (cmd) {
    case 'open':
      return s.selection === undefined ? step(s) : step(openTurns(s, s.selection, world));
    case 'filter':
      return step({ ...s, filterEditing: true, filter: { ...s.filter, caret: [...new Intl.Segmenter().segment(s.filter.text)].length } });
    case 'cycleSort':
      return step({ ...s, order: nextOrder(s.order) });
    case 'toggleScope':
      if (!world.scope) return withStatus(s, 'no project scope here: every session of this folder is shown');
      return withStatus({ ...s, allProjects: !s.allProjects }, s.allProjects ? `this project only: ${sanitizeInline(world.scope.cwd)}` : 'all projects');
    case 'back':
      if (s.filter.text) return step({ ...s, filter: textField('') });
      return step({ ...s, status: undefined });
    case 'fork':
      return requestFork(s, selectedSession(s, world), undefined, world);
    default:
      return step(s);
  }
}

function lineageCommand(s: AppState, cmd: Command, world: World): Step {
  const rows = world.lineage(s.lineage.collapsed).rows;
  if (isMove(cmd)) {
    if (!rows.length) return step(s);
    const from = Math.max(0, indexOfKey(rows, s.selection));
    const i = lineageMove(rows, from, cmd, lineageListHeight(layoutOf(s).view));
    const key = rows[i].key ?? undefined;
    return step({ ...select(s, key, world), lineage: { ...s.lineage, hint: i } });
  }
  const session = selectedSession(s, world);
  switch (cmd) {
    case 'open':
      if (s.selection === undefined || !session) return step(s);
      return step(openTurns(s, s.selection, world, session.kind === 'fork' && session.seedLength ? session.seedLength - 1 : undefined));
    case 'back':
      return step({ ...s, view: 'sessions' });
    case 'fork':
      return requestFork(s, session, undefined, world);
    case 'collapse':
    case 'expand': {
      // h hides the selected node's subtree, l shows it again
      const row = rows[indexOfKey(rows, s.selection)];
      if (!row || s.selection === undefined || !row.hasChildren) return step(s);
      const collapsed = new Set(s.lineage.collapsed);
      if (cmd === 'collapse') collapsed.add(s.selection);
      else collapsed.delete(s.selection);
      return step({ ...s, lineage: { ...s.lineage, collapsed } });
    }
    default:
      return step(s);
  }
}

/** b: the nearest boundary; on a boundary already, the next one. */
function pickBoundary(session: Session) {
  return (rows: readonly TurnRow[], index: number): number | undefined => {
    const row = rows[index];
    if (!row) return undefined;
    let b = nearestBoundary(session, row.lastSeq);
    if (b !== undefined && rowIndexForSeq(rows, b) === index) b = nearestBoundaries(session.facts, row.lastSeq).after;
    return b === undefined ? undefined : rowIndexForSeq(rows, b);
  };
}

function turnsCommand(s: AppState, cmd: Command, world: World): Step {
  const session = selectedSession(s, world);
  const key = s.selection;
  if (cmd === 'back' && (!session || key === undefined)) return step({ ...s, view: 'sessions' });
  if (!session || key === undefined) return step(s);
  const data = world.turns(session);
  if (!data.ok) {
    if (cmd === 'back') return step({ ...s, view: 'sessions' });
    if (cmd === 'fork') {
      const error = { code: 'READ_FAILED', message: `could not read session ${JSON.stringify(session.id)}: ${data.error}` };
      return step({ ...s, dialog: { kind: 'refused', sourceKey: key, sourceId: session.id, error } });
    }
    return step(s);
  }
  const t = turnsStateOf(s, key);
  const view = turnsView(s, data);
  const auto = autoDetail(s);
  const apply = (action: TurnsAction): Step => step(setTurns(s, key, turnsReducer(t, action)));
  switch (cmd) {
    case 'up':
    case 'down':
    case 'top':
    case 'bottom':
    case 'pageUp':
    case 'pageDown':
    case 'expand':
    case 'collapse':
    case 'collapseAll':
    case 'toggleHistory':
      return apply({ type: cmd, view });
    case 'expandAll':
      return apply({ type: 'expandAll' });
    case 'open': {
      // Enter folds a parent row; on a leaf it opens the event in the reader
      const v = view(t);
      const row = v.rows[cursorIndex(t.showHistory ? t.history : t.tree, v)];
      if (row && (t.showHistory || !row.expandable) && row.kind !== 'boundary' && row.kind !== 'inherited-divider') return openReader(s, world);
      return apply({ type: 'toggle', view, autoDetail: auto });
    }
    case 'openReader':
      return openReader(s, world);
    case 'search':
      return step({ ...s, turnSearch: { key, field: textField(''), editing: true, seqs: [] } }); // empty, as / in less and vim
    case 'nextMatch':
    case 'prevMatch':
      return gotoMatch(s, world, cmd === 'nextMatch' ? 1 : -1);
    case 'toggleDetail':
      return apply({ type: 'toggleDetail', autoDetail: auto });
    case 'jumpBoundary':
      return apply({ type: 'pick', view, pick: pickBoundary(session) });
    case 'back':
      if (hasSomethingToClose(t, auto)) return apply({ type: 'back', autoDetail: auto });
      if (s.compare) return step({ ...s, compare: { ...s.compare, open: true } }); // opened from Compare: back to it
      return step({ ...s, view: 'sessions' });
    case 'fork': {
      if (t.showHistory) return withStatus(s, 'fork from the tree: press t to leave the history first');
      const v = view(t);
      const row = v.rows[cursorIndex(t.tree, v)];
      return requestFork(s, session, row ? cutOfRow(row) : undefined, world);
    }
    default:
      return step(s);
  }
}
