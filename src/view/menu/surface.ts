// The action menu (`a`) over a view: move, Enter runs an entry (a disabled
// one says why), an entry's own key runs it too, Esc or a closes.
import { ch, either, flag, type Binding, type Handler } from '../app/binding.js';
import type { KeyPress } from '../app/keys.js';
import { step, withStatus, type AppState, type Step } from '../app/state.js';
import type { App, SurfaceModule } from '../app/surface.js';
import { disabledStatus } from '../app/verdicts.js';
import type { World } from '../app/world.js';
import { menuItems, type MenuItem } from './action-menu.js';
import { menuHeight } from './menu-height.js';

/** The menu closes, then the entry runs on the view (or says why it cannot). */
function runItem(s: AppState, world: World, app: App, p: KeyPress, chosen: MenuItem): Step {
  const closed = { ...s, menu: undefined };
  if (chosen.disabled && !chosen.showsRefusal) return withStatus(closed, disabledStatus(s, world, app, chosen.label, chosen.disabled), 'error');
  return chosen.binding.run ? chosen.binding.run(closed, world, app, p) : step(closed);
}

const moveTo = (at: (cursor: number, count: number) => number): Handler => (s, world, app) => {
  const n = menuItems(s, world, app).length;
  const cursor = Math.min(s.menu!.cursor, Math.max(0, n - 1));
  return step({ ...s, menu: { ...s.menu!, cursor: Math.min(Math.max(0, at(cursor, n)), Math.max(0, n - 1)) } });
};

const KEYS: readonly Binding[] = [
  { keys: '↑ / k', help: 'previous entry', hint: 'choose', hintKeys: '↑↓', match: either(flag('upArrow'), ch('k')), run: moveTo((c) => c - 1) },
  { keys: '↓ / j', help: 'next entry', match: either(flag('downArrow'), ch('j')), run: moveTo((c) => c + 1) },
  { keys: 'g / Home', help: 'first entry', match: either(flag('home'), ch('g')), run: moveTo(() => 0) },
  { keys: 'G / End', help: 'last entry', match: either(flag('end'), ch('G')), run: moveTo((_c, n) => n - 1) },
  {
    keys: 'Enter', help: 'run the entry (a disabled one says why)', hint: 'run', match: flag('return'),
    run: (s, world, app, p) => {
      const items = menuItems(s, world, app);
      const chosen = items[Math.min(s.menu!.cursor, Math.max(0, items.length - 1))];
      return chosen ? runItem(s, world, app, p, chosen) : step(s);
    },
  },
  { keys: 'Esc / a', help: 'close the menu', hint: 'close', match: either(flag('escape'), ch('a')), run: (s) => step({ ...s, menu: undefined }) },
];

export const MENU: SurfaceModule<'menu'> = {
  id: 'menu',
  title: 'Action menu',
  overlay: true,
  active: (s) => Boolean(s.menu),
  keys: () => KEYS,
  // a view's menu always lists the same entries (disabled ones with their reason): their rows are known when it opens
  rowsUnder: (s) => (s.menu ? (s.menu.entries ? menuHeight(s.menu.entries) : 0) : undefined),
  // an entry's own key runs it too, as the keys stay the fast path (a paste is no key)
  other: (s, world, app, p) => {
    if (p.paste !== undefined || p.key.ctrl) return step(s);
    const chosen = menuItems(s, world, app).find((i) => i.key === p.input);
    return chosen ? runItem(s, world, app, p, chosen) : step(s);
  },
};

