// Which surface has the keyboard: the one function the reducer, the view and
// the footer all ask. Overlays first (dialog > menu > help), then a prompt
// being typed (the Sessions filter, the Turns search), the reader, Compare,
// and last the view under them all. Help sits above the reader and Compare
// because it is opened from them (`?`) and lists their keys; no prompt can
// open help (`?` is text there), so help and a prompt never meet.
import type { ViewName } from './keymap.js';
import type { AppState } from './state.js';

export type Overlay = 'dialog' | 'menu' | 'help';
export type Prompt = 'filter' | 'search';
export type Surface = Overlay | Prompt | 'reader' | 'compare' | ViewName;

/** The surface that receives the next key. */
export function activeSurface(s: AppState): Surface {
  if (s.dialog) return 'dialog';
  if (s.menu) return 'menu';
  if (s.help) return 'help';
  return contentSurface(s);
}

/** The surface under the overlays: what the screen's body shows, and what a help or menu opened now is about. */
export function contentSurface(s: AppState): Exclude<Surface, Overlay> {
  if (s.view === 'sessions' && s.filterEditing) return 'filter';
  if (s.view === 'turns' && s.turnSearch?.editing) return 'search';
  if (s.reader) return 'reader';
  if (s.compare?.open) return 'compare';
  return s.view;
}

/** The list whose highlighted row the actions mean: a prompt's or the reader's view, or Compare. */
export function rowSurface(s: AppState): ViewName | 'compare' {
  const c = contentSurface(s);
  if (c === 'filter') return 'sessions';
  if (c === 'search' || c === 'reader') return 'turns';
  return c;
}
