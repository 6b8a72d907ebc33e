// Keys while the action menu is open (menu/keys.ts): move, run an entry (or say
// why it cannot run), an entry's own key, close.
import type { KeyPress } from '../app/keys.js';
import { MENU_KEYS } from './keys.js';
import { menuItems } from './action-menu.js';
import { bindingFor } from '../app/binding.js';
import { type Command } from '../app/keymap.js';
import type { World } from '../app/world.js';
import { step, withStatus, type AppState, type Step } from '../app/state.js';
import { disabledStatus } from '../app/verdicts.js';

/** The action menu owns the keyboard: move, Enter chooses an entry (or says why it cannot), Esc closes; the chosen command comes back for the reducer to run. */
export function menuKey(s: AppState, p: KeyPress, world: World): Step | { state: AppState; run: Command } {
  const items = menuItems(s, world);
  const cursor = Math.min(s.menu!.cursor, Math.max(0, items.length - 1));
  const cmd = bindingFor(MENU_KEYS, p)?.command;
  switch (cmd) {
    case 'close':
      return step({ ...s, menu: undefined });
    case 'up':
    case 'down':
    case 'top':
    case 'bottom': {
      const at = cmd === 'up' ? cursor - 1 : cmd === 'down' ? cursor + 1 : cmd === 'top' ? 0 : items.length - 1;
      return step({ ...s, menu: { cursor: Math.min(Math.max(0, at), Math.max(0, items.length - 1)) } });
    }
  }
  if (p.paste !== undefined) return step(s);
  // an entry's own key runs it too, as the keys stay the fast path
  const byKey = cmd !== 'run' && !p.key.ctrl ? items.findIndex((i) => i.key === p.input) : -1;
  const chosen = cmd === 'run' ? items[cursor] : byKey >= 0 ? items[byKey] : undefined;
  if (!chosen) return step(s);
  const closed = { ...s, menu: undefined };
  if (chosen.disabled && !chosen.showsRefusal) return withStatus(closed, disabledStatus(s, world, chosen.label, chosen.disabled), 'error');
  return { state: closed, run: chosen.command };
}
