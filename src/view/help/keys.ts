// The help overlay's keys.
import { ch, either, flag, type Binding } from '../app/binding.js';

export type HelpCommand = 'up' | 'down' | 'top' | 'bottom' | 'pageUp' | 'pageDown' | 'close' | 'quit';

export const HELP_KEYS: readonly Binding<HelpCommand>[] = [
  { keys: '↑ / k', command: 'up', help: 'scroll up', hint: 'scroll', hintKeys: '↑↓', match: either(flag('upArrow'), ch('k')) },
  { keys: '↓ / j', command: 'down', help: 'scroll down', match: either(flag('downArrow'), ch('j')) },
  { keys: 'g / Home', command: 'top', help: 'top', match: either(flag('home'), ch('g')) },
  { keys: 'G / End', command: 'bottom', help: 'bottom', match: either(flag('end'), ch('G')) },
  { keys: 'PgUp', command: 'pageUp', help: 'page up', match: flag('pageUp') },
  { keys: 'PgDn / Space', command: 'pageDown', help: 'page down', match: either(flag('pageDown'), ch(' ')) },
  { keys: 'Esc / ?', command: 'close', help: 'close the help', hint: 'close', match: either(flag('escape'), ch('?')) },
  { keys: 'q', command: 'quit', help: 'quit', hint: 'quit', match: ch('q') },
];
