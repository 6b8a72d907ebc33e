// C on any view: what the target session did to the code; in the view that
// shows one session (Turns), what the highlighted row's turn did. A large
// log's changes are read in the background (the surface answers its
// workDone); the turn is cut from the whole session's changes, so its diffs
// keep the line numbers the log gives.
import { changesWithin, sessionChanges, type Changes } from '../../session/changes.js';
import { startWork } from '../app/commands.js';
import { step, withStatus, type AppAction, type AppState, type Step } from '../app/state.js';
import type { App } from '../app/surface.js';
import { hasTarget, type Target } from '../app/target.js';
import { workBusy } from '../app/verdicts.js';
import type { World } from '../app/world.js';
import { sanitizeInline } from '../text/sanitize.js';
import { changesList, firstOpenable } from './changes-rows.js';

/** What C covers: the seq range of the highlighted row's turn in Turns, else the whole session. */
export interface ChangesScope {
  label: string;
  range?: { from: number; to: number };
}

/** The turn around `t.seq` in the view that shows one session; else the session. */
export function changesScope(s: AppState, world: World, app: App, t: Target): ChangesScope {
  if (!app.surface(s.view).showsSession || t.seq === undefined) return { label: 'the session' };
  const data = world.turns(t.session);
  if (!data.ok) return { label: 'the session' };
  for (const n of data.tree)
    if (n.kind === 'turn' && t.seq >= n.seq && t.seq <= n.lastSeq) return { label: `turn ${n.turn}`, range: { from: n.seq, to: n.lastSeq } };
  return { label: 'the session' };
}

/** C: the Changes surface on the target (a large log's read in the background). */
export function openChanges(s: AppState, world: World, app: App): Step {
  const t = app.target(s, world);
  if (!hasTarget(t)) return withStatus(s, `changes: ${t.none}`, 'error');
  const busy = workBusy(s);
  if (busy) return withStatus(s, `changes: ${busy}`, 'error');
  const scope = changesScope(s, world, app, t);
  if (world.indexed(t.session)) {
    const work = startWork({ ...s, changesFor: { key: t.key, scope } }, 'changes', sanitizeInline(t.session.id));
    return step(work.state, [{ type: 'changes', session: t.session, work: work.id }]);
  }
  let changes: Changes;
  try {
    changes = sessionChanges(t.session);
  } catch (e) {
    return withStatus(s, `changes failed: ${sanitizeInline(e instanceof Error ? e.message : String(e))}`, 'error');
  }
  return showChanges(s, t.key, t.session.id, scope, changes);
}

function showChanges(s: AppState, key: string, id: string, scope: ChangesScope, all: Changes): Step {
  const c = scope.range ? changesWithin(all, scope.range.from, scope.range.to) : all;
  const list = changesList(id, scope.label, c);
  const cursor = firstOpenable(list.rows);
  return step({ ...s, changes: { key, list, cursor, top: 0, from: s.view }, changesFor: undefined, help: undefined, menu: undefined });
}

/** The background read is done: the surface shows it, if it is still the work under way. */
export function changesDone(s: AppState, a: AppAction, world: World): Step | undefined {
  if (a.type !== 'workDone' || a.result.kind !== 'changes' || s.work?.id !== a.id || !s.changesFor) return undefined;
  const session = world.session(s.changesFor.key);
  if (!session) return withStatus({ ...s, work: undefined, changesFor: undefined }, 'changes: the session is no longer in the store', 'error');
  return showChanges({ ...s, work: undefined }, s.changesFor.key, session.id, s.changesFor.scope, a.result.changes);
}
