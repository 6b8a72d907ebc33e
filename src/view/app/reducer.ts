// The reducer: every key press and store change is an action applied to the
// latest state, in order; after each one `normalize` re-points the ONE
// selection at the row the screen highlights.
import { resumeCommand } from '../../session/resume-command.js';
import { SessionStore } from '../../session/store.js';
import type { Session } from '../../session/session.js';
import { lineageListHeight, problemsListHeight, sessionsListHeight } from './layout.js';
import { afterForkFailure } from '../dialog/fork-dialog-state.js';
import { helpRowCount, helpPageSize } from '../help/help.js';
import type { KeyPress } from './keys.js';
import { readerReducer } from '../reader/reader-state.js';
import { bindingsFor, type Command, type ViewBinding, type ViewName } from './keymap.js';
import { bindingFor, labelOf } from './binding.js';
import { activeSurface } from './surface.js';
import { disabledStatus, resumeRefusal } from './verdicts.js';
import { inProjectScope } from '../../storage/project-scope.js';
import { sanitizeInline } from '../text/sanitize.js';
import { filterSessions, listItemOf } from '../sessions/session-list.js';
import { textField } from '../text/text-field.js';
import { initialTurnsState, turnsReducer } from '../turns/turns-state.js';
import { visibleWindow } from './window.js';
import type { World } from './world.js';
import { type AppState, type AppAction, type Step, cycleView, indexOfKey, layoutOf, readerHeight, select, selectedSession, sessionsRows, setTurns, step, turnsView, withStatus } from './state.js';
import { cancelWork, exportKey, exported, forkCommand, markKey, openCompare, resumeKey, workAnswer } from './commands.js';
import { sessionsCommand } from '../sessions/commands.js';
import { filterKey } from '../sessions/filter-key.js';
import { turnsCommand } from '../turns/commands.js';
import { searchAnswer, searchKey } from '../turns/search-key.js';
import { lineageCommand, nearestSessionRow } from '../lineage/commands.js';
import { problemsCommand } from '../problems/commands.js';
import { dialogKey } from '../dialog/on-key.js';
import { helpKey, openHelp } from '../help/on-key.js';
import { menuKey } from '../menu/on-key.js';
import { readerKey } from '../reader/on-key.js';
import { compareKey } from '../compare/on-key.js';

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
    if (s.pinTop && rows.length && s.selection !== rows.at(0)!.key) s = { ...select(s, rows.at(0)!.key, world), sessions: { ...s.sessions, hint: 0 } };
    let i = indexOfKey(rows, s.selection, s.sessions.hint);
    if (i < 0) {
      i = rows.length ? Math.min(Math.max(0, s.sessions.hint), rows.length - 1) : 0;
      s = select(s, rows.at(i)?.key, world);
    }
    const top = visibleWindow(rows, i, sessionsListHeight(lay.view), s.sessions.top).top;
    if (i !== s.sessions.hint || top !== s.sessions.top) s = { ...s, sessions: { hint: i, top } };
  } else if (s.view === 'lineage') {
    const rows = world.lineage(s.lineage.collapsed).rows;
    let i = indexOfKey(rows, s.selection, s.lineage.hint);
    if (i < 0) {
      i = nearestSessionRow(rows, Math.min(Math.max(0, s.lineage.hint), rows.length - 1), 1);
      s = select(s, i >= 0 ? (rows[i].key as string) : undefined, world);
      if (i < 0) i = 0;
    }
    const top = visibleWindow(rows, i, lineageListHeight(lay.view), s.lineage.top).top;
    if (i !== s.lineage.hint || top !== s.lineage.top) s = { ...s, lineage: { ...s.lineage, hint: i, top } };
  } else if (s.view === 'problems') {
    const rows = world.problems();
    // -1: nothing highlighted (Problems was entered on a session without problems; j/k choose one)
    const i = rows.length && s.problems.hint >= 0 ? Math.min(s.problems.hint, rows.length - 1) : -1;
    const top = i < 0 ? Math.min(s.problems.top, Math.max(0, rows.length - 1)) : visibleWindow(rows, i, problemsListHeight(lay.view), s.problems.top).top;
    if (i !== s.problems.hint || top !== s.problems.top) s = { ...s, problems: { hint: i, top } };
    // the selection is the highlighted problem's session (a row of a file that is no session leaves it be: target() says so)
    const key = rows[i]?.sessionKey;
    if (key !== undefined && key !== s.selection && world.session(key)) s = select(s, key, world);
  } else if (s.view === 'turns' && s.selection !== undefined) {
    // tail -F: a cursor parked on the end by G follows a growing log
    const key = s.selection;
    let t = s.turns.get(key);
    const session = selectedSession(s, world);
    if (!t && session) {
      // a large log (opened tail first): its cursor starts on the end, and stays there as the earlier turns fill in above
      // (whether or not its index was done at once: the same place whatever the machine's speed)
      const data = world.turns(session);
      if (data.ok && data.indexed) s = setTurns(s, key, (t = turnsReducer(initialTurnsState(), { type: 'bottom', view: turnsView(s, data) })));
    }
    if (t?.follow && session) {
      const data = world.turns(session);
      if (data.ok) {
        const next = turnsReducer(t, { type: 'bottom', view: turnsView(s, data) });
        if (next.tree.key !== t.tree.key || next.tree.top !== t.tree.top) s = setTurns(s, key, next);
      }
    }
  }
  if (s.help) {
    const max = Math.max(0, helpRowCount(s.help.of, s, lay.width) - helpPageSize(lay.content));
    if (s.help.scroll > max) s = { ...s, help: { ...s.help, scroll: max } };
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
    case 'searchProgress':
    case 'searchDone':
    case 'searchFailed':
      return searchAnswer(s, a, world);
    case 'forked':
      return afterFork(s, a.child, a.source, world);
    case 'exported':
      return exported(s, a.file, a.bytes);
    case 'workProgress':
    case 'workDone':
    case 'workFailed':
      return workAnswer(s, a);
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
  if (p.key.ctrl && p.input === 'c' && p.paste === undefined) return step(s, [{ type: 'exit' }]);
  const surface = activeSurface(s);
  switch (surface) {
    case 'dialog':
      return dialogKey(s, s.dialog!, p, world);
    case 'menu': {
      const r = menuKey(s, p, world);
      return 'run' in r ? command(r.state, r.run, world) : r;
    }
    case 'help':
      return helpKey(s, p);
    case 'filter':
      return filterKey(s, p, world);
    case 'search':
      return searchKey(s, s.turnSearch!, p, world);
    case 'reader':
      return readerKey(s, s.reader!, p);
    case 'compare':
      return compareKey(s, s.compare!, p, world);
  }
  const b: ViewBinding | undefined = bindingFor(bindingsFor(surface), p);
  if (!b) return step(s);
  // Esc ends a background export or comparison first (the title bar says so while it runs)
  if (s.work && b.command === 'back') return cancelWork(s);
  // a disabled action says why, as its hint and menu entry do (a fork shows the store's refusal in its dialog)
  const why = b.disabled?.(s, world);
  if (why && !b.showsRefusal) return withStatus(s, disabledStatus(s, world, b.menu ? labelOf(b.menu, s, world) : b.help, why), 'error');
  return command(s, b.command, world);
}

/** A command on the selection in the active view (from a key, or chosen in the action menu). */
export function command(s: AppState, cmd: Command, world: World): Step {
  switch (cmd) {
    case 'nextView':
    case 'prevView':
      return step(switchView(s, cycleView(s.view, cmd === 'nextView' ? 1 : -1), world));
    case 'copyResume':
    case 'resume':
      return resumeKey(s, cmd, world);
    case 'mark':
      return markKey(s, world);
    case 'compare':
      return openCompare(s, world);
    case 'export':
      return exportKey(s, world);
    case 'fork':
      return forkCommand(s, world);
    case 'menu':
      return step({ ...s, menu: { cursor: 0 } });
    case 'help':
      return openHelp(s);
    case 'quit':
      return step(s, [{ type: 'exit' }]);
  }
  if (s.view === 'sessions') return sessionsCommand(s, cmd, world);
  if (s.view === 'lineage') return lineageCommand(s, cmd, world);
  if (s.view === 'problems') return problemsCommand(s, cmd, world);
  return turnsCommand(s, cmd, world);
}

/** Tab / Shift-Tab: another view; leaving Turns forgets a Compare it was opened from (Esc would not return there any more). */
function switchView(s: AppState, view: ViewName, world: World): AppState {
  let next: AppState = { ...s, view, compare: undefined, turnsFrom: view === 'turns' ? s.view : s.turnsFrom };
  if (view === 'problems') {
    // Problems opens at the selected session's worst problem; without one nothing is highlighted (the selection stays)
    const at = world.problems().findIndex((r) => r.sessionKey !== undefined && r.sessionKey === s.selection);
    next = { ...next, problems: { ...next.problems, hint: at } };
  }
  return next;
}

/**
 * The child of a fork becomes the selection, on screen: a filter or a project
 * scope that would hide it is lifted, and the status says so. The status says
 * what y will copy only when the harness would resume the child.
 */
function afterFork(s: AppState, child: Session, source: Session, world: World): Step {
  const key = SessionStore.keyOf(child);
  let next: AppState = { ...s, dialog: undefined };
  const notes: string[] = [];
  if (next.filter.text && filterSessions([listItemOf(child)], next.filter.text).length === 0) {
    notes.push(`filter "${sanitizeInline(next.filter.text)}" cleared to show it`);
    next = { ...next, filter: textField(''), filterEditing: false };
  }
  if (!next.allProjects && world.scope && !inProjectScope(child, world.scope)) {
    notes.push('showing all projects: it is outside this one (p)');
    next = { ...next, allProjects: true };
  }
  next = { ...select(next, key, world), view: next.view === 'turns' ? 'sessions' : next.view };
  const file = child.file ? child.file.replace(world.root + '/', '') : 'in memory';
  const why = resumeRefusal(child, world);
  const resume = why ? `y is off: ${why}` : `y copies: ${sanitizeInline(resumeCommand(child).command)}`;
  return withStatus(next, [`forked ${sanitizeInline(source.id)} -> ${sanitizeInline(child.id)} (${sanitizeInline(file)})`, ...notes, resume].join(' · '), 'ok');
}
