// Keys while the fork dialog is open (dialog/keys.ts): confirm, cancel, edit the
// child id; on a refusal, b goes to the nearest boundary.
import { CONFIRM_KEYS, REFUSED_KEYS } from './keys.js';
import { type Dialog } from './fork-dialog-state.js';
import type { KeyPress } from '../app/keys.js';
import { bindingFor } from '../app/binding.js';
import { editField } from '../text/text-field.js';
import type { World } from '../app/world.js';
import { openTurns, step, withStatus, type AppState, type Step } from '../app/state.js';

export function dialogKey(s: AppState, d: Dialog, p: KeyPress, world: World): Step {
  if (d.kind === 'refused') {
    switch (bindingFor(REFUSED_KEYS, p)?.command) {
      case 'close':
        return step({ ...s, dialog: undefined });
      case 'jump':
        return d.jumpSeq === undefined ? step(s) : step(openTurns({ ...s, dialog: undefined }, d.sourceKey, world, d.jumpSeq));
      case 'quit':
        return step(s, [{ type: 'exit' }]);
      default:
        return step(s);
    }
  }
  switch (bindingFor(CONFIRM_KEYS, p)?.command) {
    case 'cancel':
      return withStatus({ ...s, dialog: undefined }, 'fork cancelled: nothing was written');
    case 'fork': {
      if (d.childId.text === '') return step({ ...s, dialog: { ...d, error: { code: 'INVALID_SESSION_ID', message: 'the child id is empty: type one' }, note: undefined } });
      // a pinned empty cut on a log that grew since: the store refuses (INVALID_BOUNDARY), nothing is written
      const boundary = d.cut ?? (d.source.length > 0 ? -1 : undefined);
      return step(s, [{ type: 'fork', source: d.source, boundary, childId: d.childId.text }]);
    }
  }
  const field = editField(d.childId, p);
  if (!field || field === d.childId) return step(s);
  return step({ ...s, dialog: { ...d, childId: field, error: undefined } });
}
