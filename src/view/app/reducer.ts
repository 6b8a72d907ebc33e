// The reducer: every key press and store change is an action applied to the
// latest state, in order. A key goes to the surface that has the keyboard
// (the registry's order) and runs the handler of the binding it matches;
// after each action `normalize` re-points the ONE selection at the row the
// screen highlights.
import { resumeCommand } from '../../session/resume-command.js';
import { SessionStore } from '../../session/store.js';
import type { Session } from '../../session/session.js';
import type { KeyPress } from './keys.js';
import { bindingFor, labelOf } from './binding.js';
import { APP, SURFACES } from './surfaces.js';
import { disabledStatus, resumeRefusal } from './verdicts.js';
import { sanitizeInline } from '../text/sanitize.js';
import type { World } from './world.js';
import { type AppState, type AppAction, type Step, select, step, withStatus } from './state.js';
import { exported, workAnswer } from './commands.js';

/** Runs after every action: re-points the selection and clamps every window. */
export function normalize(s0: AppState, world: World): AppState {
  let s = s0;
  const live = s.selection !== undefined ? world.session(s.selection) : undefined;
  if (live) {
    if (s.selected !== live || s.ghost) s = { ...s, selected: live, ghost: false };
  } else if (s.selection !== undefined) {
    const keep = s.selected?.gone === true && !APP.surface(s.view).dropsDeleted;
    if (keep !== s.ghost) s = { ...s, ghost: keep };
    if (!keep) s = { ...s, selection: undefined, selected: undefined };
  }
  s = APP.surface(s.view).normalize?.(s, world, APP) ?? s;
  for (const m of SURFACES) if (m.overlay && m.normalize && m.active(s)) s = m.normalize(s, world, APP);
  return s;
}

// ---- the reducer ---------------------------------------------------------------

export function reduce(state: AppState, action: AppAction, world: World): Step {
  const out = reduceRaw(state, action, world);
  return { state: normalize(out.state, world), effects: out.effects };
}

function reduceRaw(s: AppState, a: AppAction, world: World): Step {
  for (const m of SURFACES) {
    const answered = m.answer?.(s, a, world, APP);
    if (answered) return answered;
  }
  switch (a.type) {
    case 'key':
      return onKey(s, a.press, world);
    case 'resize': {
      let next = { ...s, size: a.size };
      for (const m of SURFACES) next = m.resized?.(next) ?? next;
      return step(next);
    }
    case 'world':
      return step(s);
    case 'statusExpired':
      return step(s.status?.id === a.id ? { ...s, status: undefined } : s);
    case 'searchProgress':
    case 'searchDone':
    case 'searchFailed':
      return step(s); // (the search surface answers its own)
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
    case 'forkFailed':
      // (the dialog shows it when it is still open)
      return withStatus(s, `fork failed: ${a.error.code}: ${sanitizeInline(a.error.message)}`, 'error');
  }
}

/** A key: the handler of the binding it matches on the surface that has the keyboard (Ctrl-C quits anywhere). */
function onKey(s0: AppState, p: KeyPress, world: World): Step {
  const s = s0.pinTop ? { ...s0, pinTop: false } : s0;
  if (p.key.ctrl && p.input === 'c' && p.paste === undefined) return step(s, [{ type: 'exit' }]);
  const surface = APP.active(s);
  const b = bindingFor(surface.keys(s), p);
  if (!b?.run) return surface.other?.(s, world, APP, p) ?? step(s);
  if (surface.explainsDisabled) {
    // a disabled action says why, as its hint and menu entry do (a fork shows the store's refusal in its dialog)
    const why = b.disabled?.(s, world, APP);
    if (why && !b.showsRefusal) return withStatus(s, disabledStatus(s, world, APP, b.menu ? labelOf(b.menu, s, world, APP) : b.help, why), 'error');
  }
  return b.run(s, world, APP, p);
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
  for (const m of SURFACES) {
    const shown = m.reveal?.(next, world, child);
    if (shown) {
      notes.push(shown.note);
      next = shown.state;
    }
  }
  // forked from Turns: the child is shown in the list, selected
  next = { ...select(next, key, world), view: APP.surface(next.view).showsSession ? APP.home : next.view };
  const file = child.file ? child.file.replace(world.root + '/', '') : 'in memory';
  const why = resumeRefusal(child, world);
  const resume = why ? `y is off: ${why}` : `y copies: ${sanitizeInline(resumeCommand(child).command)}`;
  return withStatus(next, [`forked ${sanitizeInline(source.id)} -> ${sanitizeInline(child.id)} (${sanitizeInline(file)})`, ...notes, resume].join(' · '), 'ok');
}
