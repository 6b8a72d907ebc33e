// Why an action cannot run on the target now: one function per action, read
// by its key binding (so the key, the footer hint, the menu entry and the
// Turns status line say the same thing in the same words).
import { resumeCommand } from '../../session/resume-command.js';
import type { Session } from '../../session/session.js';
import { sanitizeInline } from '../text/sanitize.js';
import type { App } from './surface.js';
import { hasTarget } from './target.js';
import type { AppState, BackgroundWork } from './state.js';
import type { World } from './world.js';

export interface ForkVerdict {
  /** `fork here (seq 21)`, `fork at the head`, `fork (empty log)` */
  label: string;
  session?: Session;
  /** the inclusive cut (undefined: the whole log) */
  cut?: number;
  /** why not, in the store's words (`OPEN_TURN: …`) or ours */
  disabled?: string;
  /** the refusal is the store's typed error: `f` shows it in the refusal dialog (with b to the nearest boundary) */
  storeRefusal?: boolean;
  /** a refusal the store cannot give (the log cannot be read to build its tree): shown in the same dialog */
  problem?: { code: string; message: string };
}

export function forkVerdict(s: AppState, world: World, app: App): ForkVerdict {
  const t = app.target(s, world);
  if (!hasTarget(t)) return { label: 'fork', disabled: t.none };
  const inTurns = app.rows(s).showsSession === true;
  if (inTurns) {
    const data = world.turns(t.session);
    // (the store's refusal would read the events: not while they load in the background)
    if (data.loading) return { label: 'fork here', session: t.session, disabled: 'LOADING: the session is still loading' };
    if (!data.ok) {
      // the store's own refusal when it has one (a vanished file: SESSION_NOT_FOUND), else why the tree cannot be built
      const err = world.forkError(t.session);
      if (err) return { label: 'fork here', session: t.session, disabled: `${err.code}: ${sanitizeInline(err.message)}`, storeRefusal: true };
      const message = `could not read session ${JSON.stringify(t.session.id)}: ${data.error}`;
      return { label: 'fork here', session: t.session, disabled: `READ_FAILED: ${sanitizeInline(message)}`, storeRefusal: true, problem: { code: 'READ_FAILED', message } };
    }
    if (t.history) return { label: 'fork here', disabled: 'the model history is shown: press t to fork from the tree' };
  }
  const cut = inTurns ? t.cut : undefined;
  const label = !inTurns ? 'fork at the head' : cut === undefined ? 'fork (empty log)' : `fork here (seq ${cut})`;
  const err = world.forkError(t.session, cut);
  if (err) return { label, session: t.session, cut, disabled: `${err.code}: ${sanitizeInline(err.message)}`, storeRefusal: true };
  return { label, session: t.session, cut };
}

/** Why the session cannot be continued with dsh --resume: its command cannot be written (a NUL), or the harness's verdict (list --json's resumable). */
export function resumeRefusal(session: Session, world: World): string | undefined {
  const rc = resumeCommand(session);
  if (rc.refusal) return rc.refusal;
  const why = world.resumeRefusal(session);
  return why ? `dsh --resume would refuse it: ${sanitizeInline(why)}` : undefined;
}

/** y copies the resume command; R runs it. Both only where the harness would resume the session. */
export function resumeDisabled(s: AppState, world: World, app: App, run: boolean): string | undefined {
  const t = app.target(s, world);
  if (!hasTarget(t)) return t.none;
  if (t.gone) return 'its file was deleted; nothing to resume';
  const why = resumeRefusal(t.session, world);
  if (why) return why;
  if (run && !world.cwdExists(t.session)) return `its cwd ${sanitizeInline(t.session.cwd ?? '')} is not a folder here`;
  return undefined;
}

/** Why `c` cannot compare now. */
export function compareDisabled(s: AppState, world: World, app: App): string | undefined {
  const busy = workBusy(s);
  if (busy) return busy;
  if (s.mark === undefined) return 'mark a session first (m)';
  if (!world.session(s.mark)) return 'the marked session is gone';
  const t = app.target(s, world);
  if (!hasTarget(t)) return t.none;
  if (t.key === s.mark) return 'select another session than the marked one';
  return undefined;
}

/** x and c while a background work runs (one at a time): what runs, and how to end it. */
export function workBusy(s: AppState): string | undefined {
  return s.work ? `${workLine(s.work)} under way: wait, or Esc to cancel it` : undefined;
}

const WORK_VERB: Record<BackgroundWork['kind'], string> = { export: 'exporting', compare: 'comparing', changes: 'reading the changes of', timeline: 'reading the timeline of' };

/** What a background work does and how far it is: `exporting big 42%` (the title bar adds `· Esc cancels`). */
export function workLine(w: BackgroundWork): string {
  return `${WORK_VERB[w.kind]} ${w.label} ${Math.floor(100 * w.done)}%`;
}

/** x: a session under the cursor, and no background work under way. */
export function exportDisabled(s: AppState, world: World, app: App): string | undefined {
  return workBusy(s) ?? needsTarget(s, world, app);
}

/** Actions that need a session under the cursor (m, x, Enter in the lists). */
export function needsTarget(s: AppState, world: World, app: App): string | undefined {
  const t = app.target(s, world);
  return hasTarget(t) ? undefined : t.none;
}

/** `copy the resume command (bump-vitest): <why>`: the action, the session it was meant for, the binding's reason. */
export function disabledStatus(s: AppState, world: World, app: App, label: string, why: string): string {
  const t = app.target(s, world);
  return `${label}${hasTarget(t) ? ` (${sanitizeInline(t.session.id)})` : ''}: ${why}`;
}
