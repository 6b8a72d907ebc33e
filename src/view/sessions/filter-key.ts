// Keys while the Sessions filter is typed (sessions/keys.ts FILTER_KEYS).
import type { KeyPress } from '../app/keys.js';
import { FILTER_KEYS } from './keys.js';
import { bindingFor } from '../app/binding.js';
import { editField, textField } from '../text/text-field.js';
import type { World } from '../app/world.js';
import { step, type AppState, type Step } from '../app/state.js';
import { moveSessions } from './commands.js';

export function filterKey(s: AppState, p: KeyPress, world: World): Step {
  const cmd = bindingFor(FILTER_KEYS, p)?.command;
  switch (cmd) {
    case 'clear':
      return step({ ...s, filter: textField(''), filterEditing: false });
    case 'keep':
      return step({ ...s, filterEditing: false });
    case 'up':
    case 'down':
    case 'pageUp':
    case 'pageDown':
      return moveSessions(s, cmd, world);
  }
  const field = editField(s.filter, p);
  return step(field && field !== s.filter ? { ...s, filter: field } : s);
}
