// The key table of each surface, for whoever documents keys: the footer
// (key-hints.ts), the help overlay (help/help.ts) and docs/keys.md
// (help/keys-doc.ts). The reducer dispatches with the same tables.
import { COMPARE_KEYS } from '../compare/keys.js';
import { CONFIRM_KEYS, REFUSED_KEYS } from '../dialog/keys.js';
import { HELP_KEYS } from '../help/keys.js';
import { MENU_KEYS } from '../menu/keys.js';
import { READER_BINDINGS, READER_PROMPT_KEYS } from '../reader/reader-keys.js';
import { FILTER_KEYS } from '../sessions/keys.js';
import { SEARCH_KEYS } from '../turns/keys.js';
import type { KeyDoc } from './binding.js';
import { bindingsFor } from './keymap.js';
import type { AppState } from './state.js';
import type { Surface } from './surface.js';
import { VIEW_NAMES } from './views.js';

export function surfaceKeys(surface: Surface, s: AppState): readonly KeyDoc[] {
  switch (surface) {
    case 'dialog':
      return s.dialog?.kind === 'refused' ? REFUSED_KEYS : CONFIRM_KEYS;
    case 'menu':
      return MENU_KEYS;
    case 'help':
      return HELP_KEYS;
    case 'filter':
      return FILTER_KEYS;
    case 'search':
      return SEARCH_KEYS;
    case 'reader':
      return s.reader?.prompt !== null && s.reader?.prompt !== undefined ? READER_PROMPT_KEYS : READER_BINDINGS;
    case 'compare':
      return COMPARE_KEYS;
    default:
      return bindingsFor(surface);
  }
}

/** Surfaces with a text field: their help lists the text keys too. */
export const HAS_TEXT: ReadonlySet<Surface> = new Set<Surface>(['filter', 'search', 'dialog', 'sessions', 'turns']);

/** Every table a surface can show, with the state that selects it: what docs/keys.md lists. */
export function everyKeyTable(): Array<{ surface: Surface; when?: string; keys: readonly KeyDoc[] }> {
  return [
    ...VIEW_NAMES.map((v) => ({ surface: v, keys: bindingsFor(v) })),
    { surface: 'filter', keys: FILTER_KEYS },
    { surface: 'search', keys: SEARCH_KEYS },
    { surface: 'reader', keys: READER_BINDINGS },
    { surface: 'reader', when: 'its search prompt open', keys: READER_PROMPT_KEYS },
    { surface: 'compare', keys: COMPARE_KEYS },
    { surface: 'dialog', when: 'at a boundary', keys: CONFIRM_KEYS },
    { surface: 'dialog', when: 'refused', keys: REFUSED_KEYS },
    { surface: 'menu', keys: MENU_KEYS },
    { surface: 'help', keys: HELP_KEYS },
  ];
}
