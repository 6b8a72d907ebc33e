// The actions on the target (app.target) that every view shares: y / R, m,
// x and Enter in a list, and the background work's answers: the handlers of
// view-keys.ts's bindings (f and c open their surfaces through the App:
// app.fork, app.compare).
import { resumeCommand } from '../../session/resume-command.js';
import { sanitizeInline } from '../text/sanitize.js';
import type { World } from './world.js';
import { resumeDisabled, workBusy } from './verdicts.js';
import { hasTarget } from './target.js';
import type { App } from './surface.js';
import { type AppAction, type AppState, type BackgroundWork, type Step, step, withStatus } from './state.js';

/** y / R: the command that continues the target session in the harness. */
export function resumeKey(s: AppState, world: World, app: App, run: boolean): Step {
  const t = app.target(s, world);
  const why = resumeDisabled(s, world, app, run);
  if (why || !hasTarget(t)) return withStatus(s, `${hasTarget(t) ? `session ${sanitizeInline(t.session.id)}: ` : ''}${why ?? 'no session selected'}`, 'error');
  const rc = resumeCommand(t.session);
  if (run) return step(s, [{ type: 'run', command: rc }]);
  const shown = withStatus(s, `copied: ${sanitizeInline(rc.shell)}`, 'ok');
  return { state: shown.state, effects: [{ type: 'copy', text: rc.shell }, ...shown.effects] };
}

/** m: marks the target session, or unmarks it when it is the mark. */
export function markKey(s: AppState, world: World, app: App): Step {
  const t = app.target(s, world);
  if (!hasTarget(t)) return withStatus(s, t.none, 'error');
  if (s.mark === t.key) return withStatus({ ...s, mark: undefined }, `unmarked ${sanitizeInline(t.session.id)}`);
  return withStatus({ ...s, mark: t.key }, `marked ${sanitizeInline(t.session.id)}: select another session and press c to compare`);
}

export function startWork(s: AppState, kind: BackgroundWork['kind'], label: string): { state: AppState; id: number } {
  const id = s.workSeq + 1;
  return { state: { ...s, workSeq: id, work: { id, kind, label, done: 0 } }, id };
}

/** x: a transcript of the target session (in Turns up to the highlighted row) to a new file (a large log's in the background). */
export function exportKey(s: AppState, world: World, app: App): Step {
  const t = app.target(s, world);
  if (!hasTarget(t)) return withStatus(s, `${t.none}: nothing to export`, 'error');
  const why = workBusy(s);
  if (why) return withStatus(s, `export: ${why}`, 'error');
  const upTo = app.surface(s.view).showsSession ? t.cut : undefined;
  if (!world.indexed(t.session)) return step(s, [{ type: 'export', session: t.session, upTo }]);
  const work = startWork(s, 'export', sanitizeInline(t.session.id));
  return step(work.state, [{ type: 'export', session: t.session, upTo, work: work.id }]);
}

/** Esc while a background work runs: it is dropped (the app closes its reads and its temp file). */
export function cancelWork(s: AppState): Step {
  const w = s.work!;
  return withStatus({ ...s, work: undefined }, `${w.kind} cancelled`);
}

/** The background work read on, ended or failed: its answer, if it is still the work under way. */
export function workAnswer(s: AppState, a: Extract<AppAction, { type: 'workProgress' | 'workDone' | 'workFailed' }>): Step {
  const w = s.work;
  if (w?.id !== a.id) return step(s); // cancelled meanwhile
  if (a.type === 'workProgress') return step({ ...s, work: { ...w, done: a.done } });
  const rest = { ...s, work: undefined };
  if (a.type === 'workFailed') return withStatus(rest, `${w.kind} failed: ${sanitizeInline(a.message)}`, 'error');
  if (a.result.kind === 'export') return exported(rest, a.result.file, a.result.bytes);
  return step(rest); // (a comparison, changes: their surface answers them first)
}

/** The export file is written. */
export const exported = (s: AppState, file: string, bytes: number): Step => withStatus(s, `exported to ${sanitizeInline(file)} (${bytes} bytes)`, 'ok');

/** Enter in a list: the target session in Turns, at the target's seq (a problem's event, a child's fork point). */
export function openTarget(s: AppState, world: World, app: App): Step {
  const t = app.target(s, world);
  if (!hasTarget(t)) return withStatus(s, `${t.none}: nothing to open`, 'error');
  return step(app.openSession(s, world, t.key, t.seq));
}
