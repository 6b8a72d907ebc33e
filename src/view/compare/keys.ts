// Compare's keys (the surface over the views after `c`).
import { ch, either, flag, type Binding } from '../app/binding.js';
import type { CompareAction } from './compare-state.js';

export type CompareCommand = CompareAction['type'] | 'open' | 'close' | 'help' | 'quit';

export const COMPARE_KEYS: readonly Binding<CompareCommand>[] = [
  { keys: '↑ / k', command: 'up', help: 'previous row', hint: 'row', hintKeys: '↑↓', match: either(flag('upArrow'), ch('k')) },
  { keys: '↓ / j', command: 'down', help: 'next row', match: either(flag('downArrow'), ch('j')) },
  { keys: 'PgUp', command: 'pageUp', help: 'page up', match: flag('pageUp') },
  { keys: 'PgDn', command: 'pageDown', help: 'page down', match: flag('pageDown') },
  { keys: 'g / Home', command: 'home', help: 'first row', match: either(flag('home'), ch('g')) },
  { keys: 'G / End', command: 'end', help: 'last row', match: either(flag('end'), ch('G')) },
  { keys: '← / h', command: 'left', help: 'the left (marked) side', hint: 'side', hintKeys: '←→/Tab', match: either(flag('leftArrow'), ch('h')) },
  { keys: '→ / l', command: 'right', help: 'the right side', match: either(flag('rightArrow'), ch('l')) },
  { keys: 'Tab', command: 'toggleSide', help: 'the other side', match: flag('tab') },
  { keys: 'Enter', command: 'open', help: "open the selected side's turn in Turns (Esc there comes back here)", hint: 'open turn', match: flag('return') },
  { keys: 'Esc / q', command: 'close', help: 'close Compare, back to the view it was opened from', hint: 'back', match: either(flag('escape'), ch('q')) },
  { keys: '?', command: 'help', help: 'these keys', hint: 'help', match: ch('?') },
];
