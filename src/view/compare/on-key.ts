// Keys while Compare is open (compare/keys.ts): move, change side, Enter opens the
// turn in Turns (Esc there comes back), Esc closes.
import { compareReducer } from './compare-state.js';
import { COMPARE_KEYS } from './keys.js';
import type { KeyPress } from '../app/keys.js';
import { bindingFor } from '../app/binding.js';
import type { World } from '../app/world.js';
import { hasTarget, target } from '../app/target.js';
import { compareBody, openTurns, step, withStatus, type AppState, type CompareSurface, type Step } from '../app/state.js';
import { openHelp } from '../help/on-key.js';

export function compareKey(s: AppState, c: CompareSurface, p: KeyPress, world: World): Step {
  const cmd = bindingFor(COMPARE_KEYS, p)?.command;
  switch (cmd) {
    case undefined:
      return step(s);
    case 'close':
      return step({ ...s, compare: undefined, view: c.from });
    case 'help':
      return openHelp(s);
    case 'quit':
      return step(s, [{ type: 'exit' }]);
    case 'open': {
      const t = target(s, world);
      if (!hasTarget(t)) return withStatus(s, t.none, 'error');
      return step(openTurns({ ...s, compare: { ...c, open: false } }, t.key, world, t.seq));
    }
    default:
      return step({ ...s, compare: { ...c, cs: compareReducer(c.cs, { type: cmd }, c.rows, compareBody(s)) } });
  }
}
