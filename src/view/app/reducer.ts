// The reducer: every key press and store change is an action applied to the
// latest state, in order; after each one `normalize` re-points the ONE
// selection at the row the screen highlights.
import { resumeCommand } from '../../session/resume-command.js';
import { SessionStore } from '../../session/store.js';
import { lineageListHeight, problemsListHeight, sessionsListHeight } from './layout.js';
import { afterForkFailure } from '../dialog/fork-dialog-state.js';
import { helpLines, helpPageSize } from '../help/help.js';
import type { KeyPress } from './keys.js';
import { readerReducer } from '../reader/reader-state.js';
import { commandFor, type Command } from './keymap.js';
import { sanitizeInline } from '../text/sanitize.js';
import { filterSessions, listItemOf } from '../sessions/session-list.js';
import { textField } from '../text/text-field.js';
import { turnsReducer } from '../turns/turns-state.js';
import { visibleWindow } from './window.js';
import type { World } from './world.js';
import { type AppState, type AppAction, type Step, cycleView, indexOfKey, layoutOf, readerHeight, select, selectedSession, sessionsRows, setTurns, step, turnsView, withStatus } from './state.js';
import { exportKey, lineageCommand, markKey, nearestSessionRow, openCompare, problemsCommand, resumeKey, sessionsCommand, turnsCommand } from './commands.js';
import { compareKey, dialogKey, filterKey, helpKey, menuKey, readerKey, searchKey } from './surfaces.js';

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
  if (s.menu) {
    const r = menuKey(s, p, world);
    return 'run' in r ? command(r.state, r.run, world) : r;
  }
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
