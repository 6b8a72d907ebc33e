// f on any view: the fork dialog for the target at its cut; a store refusal
// opens as the refusal dialog (b goes to the nearest boundary).
import { SessionStore } from '../../session/store.js';
import type { Handler } from '../app/binding.js';
import { step, withStatus } from '../app/state.js';
import { forkVerdict } from '../app/verdicts.js';
import { openForkDialog } from './fork-dialog-state.js';

/** f: the fork dialog for the target at its cut (a store refusal opens as the refusal dialog, with b to a boundary). */
export const openFork: Handler = (s, world, app) => {
  const v = forkVerdict(s, world, app);
  if (!v.session || (v.disabled && !v.storeRefusal)) return withStatus(s, `${v.label}: ${v.disabled ?? 'no session selected'}`, 'error');
  if (v.problem) return step({ ...s, dialog: { kind: 'refused', sourceKey: SessionStore.keyOf(v.session), sourceId: v.session.id, error: v.problem } });
  return step({ ...s, dialog: openForkDialog(world, v.session, v.cut, world.newChildId) });
};
