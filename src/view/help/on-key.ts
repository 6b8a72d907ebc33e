// Keys while help is open (help/keys.ts), and `?` opening it on any surface.
import { HELP_KEYS } from './keys.js';
import { helpRowCount, helpPageSize } from './help.js';
import type { KeyPress } from '../app/keys.js';
import { bindingFor } from '../app/binding.js';
import { moveCursor } from '../app/list-cursor.js';
import { contentSurface } from '../app/surface.js';
import { layoutOf, step, type AppState, type Step } from '../app/state.js';

export function helpKey(s: AppState, p: KeyPress): Step {
  const cmd = bindingFor(HELP_KEYS, p)?.command;
  if (cmd === 'quit') return step(s, [{ type: 'exit' }]);
  if (cmd === 'close') return step({ ...s, help: undefined });
  if (!cmd || !s.help) return step(s);
  const lay = layoutOf(s);
  const page = helpPageSize(lay.content);
  const n = helpRowCount(s.help.of, s, lay.width);
  return step({ ...s, help: { ...s.help, scroll: Math.min(Math.max(0, n - page), moveCursor(s.help.scroll, cmd, n, page)) } });
}

/** `?` on any surface: help about that surface's keys. */
export const openHelp = (s: AppState): Step => step({ ...s, help: { scroll: 0, of: s.menu ? 'menu' : s.dialog ? 'dialog' : contentSurface(s) } });
