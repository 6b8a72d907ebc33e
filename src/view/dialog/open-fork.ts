// f on any view: the fork dialog for the target at its cut; a store refusal
// opens as the refusal dialog (b goes to the nearest boundary).
import { SessionStore } from '../../session/store.js';
import { step, withStatus, type AppState, type Step } from '../app/state.js';
import type { App } from '../app/surface.js';
import type { World } from '../app/world.js';
import { forkVerdict } from '../app/verdicts.js';
import { openForkDialog } from './fork-dialog-state.js';

/** f: the fork dialog for the target at its cut (a store refusal opens as the refusal dialog, with b to a boundary). */
export function openFork(s: AppState, world: World, app: App): Step {
  const v = forkVerdict(s, world, app);
  if (!v.session || (v.disabled && !v.storeRefusal)) return withStatus(s, `${v.label}: ${v.disabled ?? 'no session selected'}`, 'error');
  if (v.problem) return step({ ...s, dialog: { kind: 'refused', sourceKey: SessionStore.keyOf(v.session), sourceId: v.session.id, error: v.problem } });
  return step({ ...s, dialog: openForkDialog(world, v.session, v.cut, world.newChildId) });
}
