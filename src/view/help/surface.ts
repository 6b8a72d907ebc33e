// The help overlay (`?`): the keys of the surface it was opened on, scrolled.
import { ch, either, flag, type Binding, type Handler } from '../app/binding.js';
import { moveCursor, type Move } from '../app/list-cursor.js';
import { frameOf, step, type AppState } from '../app/state.js';
import type { App, SurfaceModule } from '../app/surface.js';
import { helpPageSize, helpRows } from './help.js';

/** The last scroll that still fills the page. */
const maxScroll = (s: AppState, app: App): number => {
  const lay = frameOf(s);
  return Math.max(0, helpRows(s.help!.of, s, app, lay.width).length - helpPageSize(lay.content));
};

const scroll = (m: Move): Handler => (s, _world, app) => {
  const h = s.help!;
  const lay = frameOf(s);
  const n = helpRows(h.of, s, app, lay.width).length;
  return step({ ...s, help: { ...h, scroll: Math.min(maxScroll(s, app), moveCursor(h.scroll, m, n, helpPageSize(lay.content))) } });
};

const KEYS: readonly Binding[] = [
  { keys: '↑ / k', help: 'scroll up', hint: 'scroll', hintKeys: '↑↓', match: either(flag('upArrow'), ch('k')), run: scroll('up') },
  { keys: '↓ / j', help: 'scroll down', match: either(flag('downArrow'), ch('j')), run: scroll('down') },
  { keys: 'g / Home', help: 'top', match: either(flag('home'), ch('g')), run: scroll('top') },
  { keys: 'G / End', help: 'bottom', match: either(flag('end'), ch('G')), run: scroll('bottom') },
  { keys: 'PgUp', help: 'page up', match: flag('pageUp'), run: scroll('pageUp') },
  { keys: 'PgDn / Space', help: 'page down', match: either(flag('pageDown'), ch(' ')), run: scroll('pageDown') },
  { keys: 'Esc / ?', help: 'close the help', hint: 'close', match: either(flag('escape'), ch('?')), run: (s) => step({ ...s, help: undefined }) },
  { keys: 'q', help: 'quit', hint: 'quit', match: ch('q'), run: (s) => step(s, [{ type: 'exit' }]) },
];

export const HELP: SurfaceModule<'help'> = {
  id: 'help',
  title: 'Help',
  overlay: true,
  active: (s) => Boolean(s.help),
  // `?` on any surface: its keys, or the overlay's it was pressed on
  open: (s, _world, app) => {
    const on = app.active(s);
    return step({ ...s, help: { scroll: 0, of: on.overlay ? on.id : app.content(s).id } });
  },
  keys: () => KEYS,
  // a narrower or taller screen has fewer lines to scroll
  normalize: (s, _world, app) => {
    const max = maxScroll(s, app);
    return s.help!.scroll > max ? { ...s, help: { ...s.help!, scroll: max } } : s;
  },
};
