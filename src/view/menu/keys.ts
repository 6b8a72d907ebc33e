// The action menu's own keys; an entry's key (f, m, x…) runs the entry too.
import { ch, either, flag, type Binding } from '../app/binding.js';

export type MenuCommand = 'up' | 'down' | 'top' | 'bottom' | 'run' | 'close';

export const MENU_KEYS: readonly Binding<MenuCommand>[] = [
  { keys: '↑ / k', command: 'up', help: 'previous entry', hint: 'choose', hintKeys: '↑↓', match: either(flag('upArrow'), ch('k')) },
  { keys: '↓ / j', command: 'down', help: 'next entry', match: either(flag('downArrow'), ch('j')) },
  { keys: 'g / Home', command: 'top', help: 'first entry', match: either(flag('home'), ch('g')) },
  { keys: 'G / End', command: 'bottom', help: 'last entry', match: either(flag('end'), ch('G')) },
  { keys: 'Enter', command: 'run', help: 'run the entry (a disabled one says why)', hint: 'run', match: flag('return') },
  { keys: 'Esc / a', command: 'close', help: 'close the menu', hint: 'close', match: either(flag('escape'), ch('a')) },
];
